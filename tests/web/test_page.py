"""The staff page in real headless Chromium: ask, read the card and price, Polish, copy, keyboard.

Needs Debian's ``chromium`` at /usr/bin/chromium (Playwright's own browsers are not
downloaded). Outside CI a missing browser skips; with ``CI`` set it fails.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from pydantic import SecretStr

from bot.desk import Desk
from bot.render import format_markdown, format_text
from bot.settings import Settings
from bot.web.app import create_app
from engine import Catalog, ask, load_catalog

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
QUESTION = "70b int4 128k"
TIMEOUT_MS = 15_000

if not CHROMIUM.exists():
    if os.environ.get("CI"):
        pytest.fail(
            f"{CHROMIUM} is missing and CI is set: install Debian's chromium package",
            pytrace=False,
        )
    pytest.skip(
        f"{CHROMIUM} not installed (apt-get install chromium); CI is not set, so skipping",
        allow_module_level=True,
    )

from playwright.async_api import Browser, Page, async_playwright, expect  # noqa: E402


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        await browser.close()


async def start(catalog: Catalog, token: str | None = None) -> TestServer:
    settings = Settings(_env_file=None, vramchat_api_token=SecretStr(token) if token else None)
    server = TestServer(create_app(Desk(catalog), settings), host="127.0.0.1")
    await server.start_server()
    return server


async def open_page(browser: Browser, server: TestServer) -> tuple[Page, list[str]]:
    """A fresh page with clipboard access; collects console errors and page errors."""
    origin = str(server.make_url("/")).rstrip("/")
    context = await browser.new_context()
    await context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"pageerror: {exc}"))
    page.on(
        "console",
        lambda msg: problems.append(f"console: {msg.text}") if msg.type == "error" else None,
    )
    await page.goto(origin + "/")
    return page, problems


async def ask_with_enter(page: Page, question: str) -> None:
    """Type a question into the box and send it the way staff mostly do, with Enter."""
    await page.get_by_label("Customer's question").fill(question)
    await page.keyboard.press("Enter")


async def open_answered(browser: Browser, server: TestServer, **context: Any) -> Page:
    """A page opened on the permalink for QUESTION with everything shown: the chart drawn,
    the math on and the Telegram preview's details open (what the layout checks look at)."""
    origin = str(server.make_url("/")).rstrip("/")
    page = await (await browser.new_context(**context)).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    await page.goto(origin + "/?q=" + "70b%20int4%20128k")
    await expect(page.locator("#chart svg")).to_be_visible()
    await page.get_by_label("Show the math").check()
    await page.locator("#preview-telegram details summary").click()
    return page


async def clipboard(page: Page) -> Any:
    return await page.evaluate("navigator.clipboard.readText()")


async def test_ask_switch_to_polish_and_copy(browser: Browser, catalog: Catalog):
    server = await start(catalog)
    try:
        page, problems = await open_page(browser, server)
        await expect(page).to_have_title("vramchat · staff desk")
        body = page.locator("#answer-body")

        await page.get_by_label("Customer's question").fill(QUESTION)
        await page.get_by_role("button", name="Ask").click()
        await expect(body).to_contain_text("A100 SXM")
        await expect(body).to_contain_text("$990/month")
        await expect(body).to_contain_text(f"Prices as of {catalog.prices_as_of}.")
        # the live region says the verdict only, never the whole answer
        await expect(page.get_by_role("status")).to_have_text(
            "Answered in EN: ✅ 1× A100 SXM · $990/mo · tight: 0.1 GB left"
        )

        # Copy for ticket and as plain text: exactly the renderers' output
        english = ask(QUESTION, catalog=catalog)
        await page.get_by_role("button", name="Copy for ticket").click()
        await expect(page.get_by_role("status")).to_have_text("Copied for the ticket (Markdown).")
        assert await clipboard(page) == format_markdown(english, catalog, False)
        await page.get_by_role("button", name="Copy as plain text").click()
        await expect(page.get_by_role("status")).to_have_text("Copied as plain text.")
        assert await clipboard(page) == format_text(english, catalog, False)

        # Switching the language re-asks: the answer is now Polish
        await page.get_by_label("Answer language").select_option("pl")
        await expect(body).to_contain_text("/mies.")
        await expect(body).to_contain_text("Pamięć")
        await expect(body).to_contain_text(f"Ceny na dzień {catalog.prices_as_of}.")
        assert await body.get_attribute("lang") == "pl"
        polish = ask(QUESTION, "pl", catalog=catalog)
        await page.get_by_role("button", name="Copy for ticket").click()
        await expect(page.get_by_role("status")).to_have_text("Copied for the ticket (Markdown).")
        copied = await clipboard(page)
        assert copied == format_markdown(polish, catalog, False)
        assert copied.startswith("**") and "A100 SXM" in copied

        # Show the math: visible on the page and included in the copy
        math_box = page.locator("#math-box")
        await expect(math_box).to_be_hidden()
        await page.get_by_label("Show the math").check()
        await expect(math_box).to_be_visible()
        await page.get_by_role("button", name="Copy for ticket").click()
        await expect(page.get_by_role("status")).to_have_text("Copied for the ticket (Markdown).")
        assert await clipboard(page) == format_markdown(polish, catalog, True)
        assert problems == []
    finally:
        await server.close()


async def test_keyboard_only(browser: Browser, catalog: Catalog):
    server = await start(catalog)
    try:
        page, problems = await open_page(browser, server)
        for _ in range(5):
            await page.keyboard.press("Tab")
            if await page.evaluate("document.activeElement.id") == "q":
                break
        assert await page.evaluate("document.activeElement.id") == "q"
        await page.keyboard.type(QUESTION)
        await page.keyboard.press("Enter")
        body = page.locator("#answer-body")
        await expect(body).to_contain_text("A100 SXM")
        await expect(body).to_contain_text("$990/month")
        # Tab onwards reaches the language, the math toggle, Ask, then the copy buttons
        order = []
        for _ in range(6):
            await page.keyboard.press("Tab")
            order.append(await page.evaluate("document.activeElement.id"))
        assert order[:5] == ["lang", "math", "ask", "copy-md", "copy-text"]
        await page.locator("#copy-text").focus()
        await page.keyboard.press("Enter")
        await expect(page.get_by_role("status")).to_have_text("Copied as plain text.")
        assert "A100 SXM" in await clipboard(page)
        await page.locator("#math").focus()
        await page.keyboard.press("Space")
        await expect(page.locator("#math-box")).to_be_visible()
        assert problems == []
    finally:
        await server.close()


async def test_user_words_are_text_never_markup(browser: Browser, catalog: Catalog):
    server = await start(catalog)
    try:
        page, problems = await open_page(browser, server)
        evil = "llama <img src=x onerror=window.pwned=1> 70b <b>bold</b>"
        await ask_with_enter(page, evil)
        await expect(page.get_by_role("status")).to_contain_text("Answered")
        await expect(page.locator("#preview-telegram")).not_to_contain_text("No question")
        for box in ("#answer-body", "#preview-telegram", "#preview-discord", "#history"):
            assert await page.locator(f"{box} img, {box} b").count() == 0
        assert await page.evaluate("window.pwned") is None
        assert problems == []
    finally:
        await server.close()


async def test_token_is_asked_for_when_the_server_needs_one(browser: Browser, catalog: Catalog):
    server = await start(catalog, token="desk-token-abcdefghij")
    try:
        page, problems = await open_page(browser, server)
        await ask_with_enter(page, QUESTION)
        await expect(page.get_by_role("status")).to_contain_text("Authorization: Bearer")
        token = page.get_by_label("Bearer token", exact=False)
        await expect(token).to_be_focused()
        await token.fill("desk-token-abcdefghij")
        await token.press("Enter")  # the token box is outside the form: Enter does nothing
        await page.get_by_label("Customer's question").press("Enter")
        await expect(page.locator("#answer-body")).to_contain_text("A100 SXM")
        # the 401 shows up as a console error for the failed fetch; nothing else may
        assert [p for p in problems if "401" not in p] == []
    finally:
        await server.close()


# --------------------------------------------------------------------------- the chat-first desk

CONTRAST_JS = """
() => {
  const parse = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const bgOf = (node) => {
    for (let n = node; n; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.99)) return c.slice(0, 3);
    }
    return parse(getComputedStyle(document.documentElement).backgroundColor).slice(0, 3);
  };
  const worst = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode;
    const node = text.parentElement;
    if (!text.textContent.trim() || !node || node.closest("[hidden], .offscreen, :disabled")) continue;
    if (node.closest("svg")) continue;
    const box = node.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(node).visibility === "hidden") continue;
    const fg = lum(parse(getComputedStyle(node).color).slice(0, 3));
    const bg = lum(bgOf(node));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    worst.push([ratio, node.tagName + "#" + node.id + "." + node.className, text.textContent.slice(0, 40)]);
  }
  worst.sort((a, b) => a[0] - b[0]);
  return worst.slice(0, 5);
}
"""


async def test_permalink_answers_on_load_and_history_is_kept(browser: Browser, catalog: Catalog):
    server = await start(catalog)
    try:
        origin = str(server.make_url("/")).rstrip("/")
        context = await browser.new_context()
        page = await context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        await page.goto(origin + "/?q=70b%20int4%20128k&lang=pl")
        body = page.locator("#answer-body")
        await expect(body).to_contain_text("A100 SXM")
        await expect(body).to_contain_text("mies.")
        assert await page.locator("#q").input_value() == QUESTION
        assert await page.locator("#lang").input_value() == "pl"

        await page.get_by_label("Customer's question").fill("qlora 13b")
        await page.get_by_label("Answer language").select_option("")
        await page.keyboard.press("Tab")
        await page.get_by_label("Customer's question").press("Enter")
        await expect(body).to_contain_text("RTX A5000")
        assert "q=qlora+13b" in page.url or "q=qlora%2013b" in page.url
        items = page.locator("#history li")
        await expect(items).to_have_count(2)
        await expect(items.first).to_contain_text("qlora 13b")
        # history entries re-ask; the back button returns to the permalink's answer
        await items.nth(1).locator("a").click()
        await expect(body).to_contain_text("A100 SXM")
        await page.go_back()
        await expect(body).to_contain_text("RTX A5000")
    finally:
        await server.close()


async def test_clarify_candidates_are_buttons(browser: Browser, catalog: Catalog):
    server = await start(catalog)
    try:
        page, problems = await open_page(browser, server)
        await ask_with_enter(page, "llam int4 128k")
        group = page.get_by_role("group", name="Pick the model")
        await expect(group).to_be_visible()
        expected = ask("llam int4 128k", catalog=catalog)
        names = [c.name for c in expected.candidates]
        await expect(group.get_by_role("button")).to_have_text(names)
        await group.get_by_role("button", name="Llama 3.1 8B").click()
        await expect(page.locator("#answer-body")).to_contain_text("Llama 3.1 8B · INT4 · 128k")
        await expect(group).to_be_hidden()
        assert problems == []
    finally:
        await server.close()


async def test_previews_show_the_real_telegram_and_discord_forms(
    browser: Browser, catalog: Catalog
):
    from bot.render.discord import format_embed
    from bot.render.telegram import format_html
    from bot.web.views import telegram_visible

    server = await start(catalog)
    try:
        page, problems = await open_page(browser, server)
        await ask_with_enter(page, QUESTION)
        answer = ask(QUESTION, catalog=catalog)
        short, details = telegram_visible(format_html(answer, catalog))
        tg = page.locator("#preview-telegram")
        await expect(tg.locator("p").first).to_have_text(short.split("\n")[0])
        assert short.split("\n")[0] == "✅ 1× A100 SXM · $990/mo · tight: 0.1 GB left"
        shown = await tg.locator(":scope > div > p").all_inner_texts()
        assert shown == short.split("\n")
        assert "Memory" in details and "Total: 79.9 GB" in details
        embed = format_embed(answer, catalog).to_dict()
        dc = page.locator("#preview-discord")
        await expect(dc.locator(".embed-title")).to_have_text(embed["title"])
        await expect(dc.locator(".embed-footer")).to_have_text(embed["footer"]["text"])
        assert problems == []
    finally:
        await server.close()


async def test_chart_draws_memory_against_context_with_capacity_lines(
    browser: Browser, catalog: Catalog
):
    server = await start(catalog)
    try:
        page, problems = await open_page(browser, server)
        await ask_with_enter(page, QUESTION)
        svg = page.locator("#chart svg")
        await expect(svg).to_be_visible()
        points = (await svg.locator("polyline.curve").get_attribute("points") or "").split()
        assert len(points) >= 5  # 1k .. 128k, the model's limit for a bare 70B
        caps = svg.locator("g.capacity")
        await expect(caps).to_have_count(2)
        assert await caps.nth(0).get_attribute("data-card") == "1× A100 SXM"
        assert await caps.nth(0).get_attribute("class") == "capacity recommended"
        assert await caps.nth(1).get_attribute("class") == "capacity next"
        await expect(svg.locator("text").filter(has_text="128k")).to_have_count(1)
        # a card list has no curve: the chart hides
        await ask_with_enter(page, "gpus")
        await expect(page.locator("#chart-box")).to_be_hidden()
        assert problems == []
    finally:
        await server.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_no_sideways_scroll_at_320px_and_aa_contrast(
    browser: Browser, catalog: Catalog, scheme: str
):
    server = await start(catalog)
    try:
        page = await open_answered(
            browser, server, viewport={"width": 320, "height": 640}, color_scheme=scheme
        )
        assert await page.evaluate("document.documentElement.scrollWidth") <= 320
        worst = await page.evaluate(CONTRAST_JS)
        assert worst and worst[0][0] >= 4.5, worst
        # the Ask button, the one dark mode used to fail
        ask_ratio = await page.evaluate(
            CONTRAST_JS.replace("document.body", "document.getElementById('ask')")
        )
        assert ask_ratio[0][0] >= 4.5, ask_ratio
    finally:
        await server.close()


def axe_script() -> Path | None:
    """axe-core from the npm registry (.ci/run installs it; AXE_CORE_JS points elsewhere)."""
    candidates = [
        os.environ.get("AXE_CORE_JS", ""),
        str(Path.home() / ".cache" / "vramchat-axe" / "node_modules" / "axe-core" / "axe.min.js"),
    ]
    return next((Path(c) for c in candidates if c and Path(c).is_file()), None)


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_axe_finds_no_wcag_aa_violations(browser: Browser, catalog: Catalog, scheme: str):
    """The answered page (math, previews and chart open) against axe-core's WCAG 2 A/AA rules."""
    script = axe_script()
    if script is None:
        if os.environ.get("CI"):
            pytest.fail("axe-core is missing and CI is set: .ci/run installs it with npm")
        pytest.skip("axe-core not installed (npm install --prefix ~/.cache/vramchat-axe axe-core)")
    server = await start(catalog)
    try:
        # bypass_csp: the page allows no inline script, and axe is injected as one
        page = await open_answered(browser, server, color_scheme=scheme, bypass_csp=True)
        await page.add_script_tag(path=str(script))
        result = await page.evaluate(
            "axe.run(document, {runOnly: {type: 'tag', values: "
            "['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})"
        )
        found = [
            (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
            for v in result["violations"]
        ]
        assert not found, found
    finally:
        await server.close()
