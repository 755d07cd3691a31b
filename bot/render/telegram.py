"""Answer -> Telegram HTML and inline keyboards. Pure functions: no network, no state.

Telegram rejects a whole message over one malformed tag or 4,096 visible characters, so the
text is built from (tag, plain text) units: plain text is cut first, escaped second, wrapped
last. A cut can therefore never land inside a tag or an entity, and every word the engine
echoes from the user (an unknown model name, say) is escaped like everything else.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Literal

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.render.common import Links, link_buttons
from bot.render.common import footer as prices_footer
from bot.render.short import detail_blocks, short_lines
from engine import Answer, Catalog, Pick, fmt_usd, t

__all__ = [
    "MAX_CALLBACK_BYTES",
    "MAX_MESSAGE_UTF16",
    "Action",
    "alt_label",
    "callback_data",
    "escape",
    "format_faq_topics",
    "format_help",
    "format_html",
    "format_notice",
    "keyboard",
    "parse_callback",
    "pick_summary",
    "shorten",
    "utf16_len",
]

MAX_MESSAGE_UTF16 = 4096  # Telegram counts visible text in UTF-16 code units
MAX_CALLBACK_BYTES = 64
MAX_ALT_BUTTONS = 2
MAX_CANDIDATE_BUTTONS = 8
ELLIPSIS = "…"
WARN = "⚠️ "

# m: show the math, h: hide it, a: alternative card n, c: clarify candidate n, b: back;
# e: ask example n of /start in language <ref>, f: ask the FAQ topic <ref>.
Action = Literal["m", "h", "a", "c", "b", "e", "f"]
_ACTIONS: frozenset[str] = frozenset({"m", "h", "a", "c", "b", "e", "f"})
EXAMPLES = (1, 2, 3)

_Unit = tuple[str | None, str]  # (tag wrapping the unit or None, plain visible text)


def utf16_len(text: str) -> int:
    """Telegram measures limits in UTF-16 code units: an emoji can count twice."""
    return len(text.encode("utf-16-le")) // 2


def _plain(text: str) -> str:
    """Break '@' so echoed words can never become a mention that pings someone."""
    return text.replace("@", "@\u2060")


def escape(text: str) -> str:
    """Plain text -> safe HTML body text (no tags, no entities, no mentions)."""
    return html.escape(_plain(text), quote=False)


def _wrap(unit: _Unit) -> str:
    tag, text = unit
    body = html.escape(text, quote=False)
    return f"<{tag}>{body}</{tag}>" if tag else body


def _cut(text: str, room: int) -> str:
    """The longest prefix of ``text`` within ``room`` UTF-16 units, preferring a line end."""
    used = 0
    end = 0
    for i, ch in enumerate(text):
        used += utf16_len(ch)
        if used > room:
            break
        end = i + 1
    head = text[:end]
    newline = head.rfind("\n")
    if newline > len(head) // 2:
        head = head[:newline]
    return head.rstrip()


def _assemble(
    groups: Sequence[Sequence[_Unit]], footer: _Unit | None, limit: int, footer_sep: str = "\n\n"
) -> str:
    """Join groups (blank line between) and lines; trim whole units from the end to fit."""
    flat: list[tuple[str, _Unit]] = []
    for group in groups:
        for i, unit in enumerate(u for u in group if u[1]):
            sep = ("\n\n" if i == 0 else "\n") if flat else ""
            flat.append((sep, unit))
    tail: list[tuple[str, _Unit]] = [(footer_sep if flat else "", footer)] if footer else []
    cost = sum(utf16_len(sep) + utf16_len(unit[1]) for sep, unit in flat + tail)
    if cost <= limit:
        return "".join(sep + _wrap(unit) for sep, unit in flat + tail)

    tail_cost = sum(utf16_len(sep) + utf16_len(unit[1]) for sep, unit in tail)
    budget = limit - tail_cost - len("\n" + ELLIPSIS)
    out: list[str] = []
    used = 0
    for sep, (tag, text) in flat:
        need = utf16_len(sep) + utf16_len(text)
        if used + need <= budget:
            out.append(sep + _wrap((tag, text)))
            used += need
            continue
        room = budget - used - utf16_len(sep)
        head = _cut(text, room) if room > 24 or not out else ""
        if head:
            out.append(sep + _wrap((tag, head + ELLIPSIS)))
        else:
            out.append("\n" + ELLIPSIS if out else ELLIPSIS)
        break
    out.extend(sep + _wrap(unit) for sep, unit in tail)
    return "".join(out)


def format_html(
    answer: Answer, catalog: Catalog, math: bool = False, *, limit: int = MAX_MESSAGE_UTF16
) -> str:
    """The short form (verdict, card, price first), then the details in a blockquote.

    The details (every section, caveat, assumption, and the math once asked for) sit in an
    expandable blockquote, so the phone shows at most 8 lines until the reader opens them;
    with ``math`` the quote opens by itself. At most ``limit`` visible characters in all.
    """
    note = prices_footer(answer, catalog)
    short = short_lines(answer, catalog, note)
    if note:  # the footer is the last short line, kept in italics whatever else is cut
        short = short[:-1]
    head: list[_Unit] = [("b" if i == 0 else None, _plain(line)) for i, line in enumerate(short)]
    footer: _Unit | None = ("i", _plain(note)) if note else None
    top = _assemble([head], footer, limit, "\n")
    groups: list[list[_Unit]] = []
    for block in detail_blocks(answer, catalog, math):
        title = t(catalog, answer.lang, "tg.math.title") if block.kind == "math" else block.title
        group: list[_Unit] = [("b", _plain(title))] if title else []
        if block.kind == "math":
            group.append(("code", "\n".join(block.lines)))
        elif block.kind == "caveats":
            group.extend((None, WARN + _plain(line)) for line in block.lines)
        elif block.kind == "assumptions":
            group.extend(("i", _plain(line)) for line in block.lines)
        else:
            group.extend((None, _plain(line)) for line in block.lines)
        groups.append(group)
    room = limit - utf16_len(_visible(top)) - 1
    if not any(unit[1] for group in groups for unit in group) or room < 40:
        return top
    quote = "<blockquote>" if math else "<blockquote expandable>"
    return f"{top}\n{quote}{_assemble(groups, None, room)}</blockquote>"


def _visible(html_text: str) -> str:
    """The text Telegram shows for HTML we built (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", html_text))


def format_notice(text: str, *, limit: int = MAX_MESSAGE_UTF16) -> str:
    """One plain message (apology, rate limit, usage) as safe HTML within the limit."""
    return _assemble([[(None, _plain(text) or ELLIPSIS)]], None, limit)


def format_help(catalog: Catalog, lang: str, bot_username: str | None) -> str:
    """/start and /help: what I do, three examples (tap one: :func:`examples_keyboard`
    asks it), and how groups work."""
    bot = f"@{bot_username}" if bot_username else "@bot"
    examples = [t(catalog, lang, f"tg.help.example_{n}") for n in EXAMPLES]
    parts = [
        f"<b>{escape(t(catalog, lang, 'tg.help.title'))}</b>",
        escape(t(catalog, lang, "tg.help.intro")),
        "",
        escape(t(catalog, lang, "tg.help.examples")),
        *(f"• {html.escape(e, quote=False)}" for e in examples),
        "",
        escape(t(catalog, lang, "tg.help.commands")),
        escape(t(catalog, lang, "tg.help.followup")),
        # the bot's own @name is the one mention we want clickable
        html.escape(t(catalog, lang, "tg.help.groups", bot=bot), quote=False),
        html.escape(t(catalog, lang, "tg.help.inline", bot=bot), quote=False),
    ]
    return "\n".join(parts)


def format_faq_topics(catalog: Catalog, lang: str) -> str:
    """/faq without a topic: every topic id with its title, ready to copy."""
    lines = [f"<b>{escape(t(catalog, lang, 'tg.faq.topics'))}</b>"]
    for topic in catalog.faq:
        title = t(catalog, lang, f"faq.{topic.id}.title")
        lines.append(f"• <code>/faq {html.escape(topic.id)}</code> {escape(title)}")
    return "\n".join(lines)


def examples_keyboard(catalog: Catalog, lang: str) -> InlineKeyboardMarkup:
    """One button per /start example; a tap asks it (a code span would only copy it)."""
    rows = [
        [
            InlineKeyboardButton(
                shorten(t(catalog, lang, f"tg.help.example_{n}"), 60),
                callback_data=callback_data("e", lang, n),
            )
        ]
        for n in EXAMPLES
    ]
    return InlineKeyboardMarkup(rows)


def faq_keyboard(catalog: Catalog, lang: str) -> InlineKeyboardMarkup | None:
    """One button per FAQ topic (its title); a tap answers that topic."""
    rows = []
    for topic in catalog.faq:
        data = f"f:{topic.id}"
        if len(data.encode("utf-8")) > MAX_CALLBACK_BYTES or ":" in topic.id:
            continue  # an id too long for a button stays reachable as /faq <id>
        title = shorten(t(catalog, lang, f"faq.{topic.id}.title"), 60)
        rows.append([InlineKeyboardButton(title, callback_data=data)])
    return InlineKeyboardMarkup(rows) if rows else None


# --------------------------------------------------------------------------- keyboards


def callback_data(action: Action, ref: str, n: int | None = None) -> str:
    """Compact button payload: ``m:<ref>`` or ``a:<ref>:<n>``; always within 64 bytes."""
    data = f"{action}:{ref}" if n is None else f"{action}:{ref}:{n}"
    if len(data.encode("utf-8")) > MAX_CALLBACK_BYTES:
        raise ValueError("callback data over 64 bytes; use a shorter reference")
    return data


def parse_callback(data: str) -> tuple[Action, str, int | None] | None:
    """The inverse of :func:`callback_data`; None for anything we did not issue."""
    parts = data.split(":")
    if len(parts) not in (2, 3) or parts[0] not in _ACTIONS or not parts[1]:
        return None
    n: int | None = None
    if len(parts) == 3:
        # ASCII digits only: "²" and "٣" pass str.isdigit() but int() refuses them
        if not (parts[2].isascii() and parts[2].isdigit() and len(parts[2]) <= 3):
            return None
        n = int(parts[2])
    return parts[0], parts[1], n  # type: ignore[return-value]


def alt_label(pick: Pick, catalog: Catalog, lang: str) -> str:
    """Button text for an alternative: count, card, monthly price (and precision if changed)."""
    price = fmt_usd(pick.monthly_usd, lang)
    if pick.precision:
        return t(
            catalog,
            lang,
            "tg.button.alt_precision",
            count=pick.count,
            card=pick.card,
            price=price,
            precision=pick.precision.upper(),
        )
    return t(catalog, lang, "tg.button.alt", count=pick.count, card=pick.card, price=price)


def pick_summary(answer: Answer, catalog: Catalog) -> str | None:
    """One line for an inline result's description: the recommended set and its price."""
    pick = answer.recommendation
    if pick is None:
        return None
    price = fmt_usd(pick.monthly_usd, answer.lang)
    return t(catalog, answer.lang, "tg.inline.pick", count=pick.count, card=pick.card, price=price)


def shorten(text: str, limit: int) -> str:
    """Plain text (titles, descriptions) cut to ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS


def keyboard(
    answer: Answer,
    catalog: Catalog,
    ref: str,
    *,
    math_shown: bool = False,
    back: bool = False,
    links: Links | None = None,
) -> InlineKeyboardMarkup | None:
    """Buttons under an answer: the math toggle, up to two alternatives, or the candidates;
    then the link buttons (rent the card, talk to sales) whose URLs are set."""
    lang = answer.lang
    rows: list[list[InlineKeyboardButton]] = []
    if answer.kind == "clarify":
        for n, cand in enumerate(answer.candidates[:MAX_CANDIDATE_BUTTONS]):
            rows.append([InlineKeyboardButton(cand.name, callback_data=callback_data("c", ref, n))])
    if answer.math:
        if math_shown:
            label, data = t(catalog, lang, "tg.button.hide_math"), callback_data("h", ref)
        else:
            label, data = t(catalog, lang, "render.show_math"), callback_data("m", ref)
        rows.append([InlineKeyboardButton(label, callback_data=data)])
    for n, pick in enumerate(answer.alternatives[:MAX_ALT_BUTTONS]):
        label = alt_label(pick, catalog, lang)
        rows.append([InlineKeyboardButton(label, callback_data=callback_data("a", ref, n))])
    if back:
        label = t(catalog, lang, "tg.button.back")
        rows.append([InlineKeyboardButton(label, callback_data=callback_data("b", ref))])
    for label, url in link_buttons(answer, catalog, links):
        rows.append([InlineKeyboardButton(shorten(label, 60), url=url)])
    return InlineKeyboardMarkup(rows) if rows else None
