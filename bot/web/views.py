"""Extra views for the staff desk: the chat previews and the memory-against-context chart.

Kept apart from :mod:`bot.web.app` (the server) so the page can grow without touching it:
``register(app)`` adds two read-only routes under ``/v1/`` (the same token rule applies):

    GET /v1/preview ?q=&lang=   the Telegram and Discord short forms, rendered by the real
                                renderers (Telegram: the HTML and what the phone shows;
                                Discord: the embed dict and the details embed)
    GET /v1/chart   ?q=&lang=   memory needed at several context lengths, up to the model's
                                limit, with the capacity of the recommended and the next set

Every number comes from the engine's public ``ask()``: the chart asks the same question as a
follow-up at each context length, so the curve is exactly what the assistant would answer.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from aiohttp import web

from bot.desk import Desk
from bot.render.discord import format_details, format_embed
from bot.render.telegram import format_html
from bot.web.server import DESK
from engine import LANGS, MAX_QUERY_CHARS, Answer, Catalog, Pick, RequestOptions, ask, context_of

__all__ = ["chart_points", "register", "telegram_visible"]

CHART_MIN_TOKENS = 1024
CHART_DEFAULT_MAX = 128 * 1024  # a bare size has no trained limit: draw up to 128k
CHART_POINTS_MAX = 16
_TAG = re.compile(r"<[^>]+>")


def telegram_visible(html_text: str) -> tuple[str, str]:
    """(the short form the phone shows, the expandable details) as plain text."""
    import html

    head, _, rest = html_text.partition("\n<blockquote")
    details = rest.split(">", 1)[1].rsplit("</blockquote>", 1)[0] if rest else ""
    return html.unescape(_TAG.sub("", head)), html.unescape(_TAG.sub("", details))


def _lengths(limit: int) -> list[int]:
    out: list[int] = []
    n = CHART_MIN_TOKENS
    while n < limit and len(out) < CHART_POINTS_MAX - 1:
        out.append(n)
        n *= 2
    return [*out, limit]


def _capacity(cat: Catalog, pick: Pick | None) -> dict[str, Any] | None:
    if pick is None or pick.card not in cat.card_by_name:
        return None
    gb = cat.card_by_name[pick.card].vram_gb * pick.count
    return {"label": f"{pick.count}× {pick.card}", "gb": gb, "monthly_usd": pick.monthly_usd}


def chart_points(answer: Answer, cat: Catalog) -> dict[str, Any]:
    """The curve for an answer about one model; ``points`` is empty when it has none."""
    req = answer.request
    prev = context_of(answer)
    if req is None or req.model is None or prev is None or req.task != "inference":
        return {"points": [], "lines": []}
    limit = req.model.max_context_tokens or CHART_DEFAULT_MAX
    points = []
    for tokens in _lengths(limit):
        at = RequestOptions(context_tokens=tokens)  # the same request at that length
        point = ask("", answer.lang, catalog=cat, previous=prev, options=at)
        total = (point.memory_gb or {}).get("total")
        if point.request is None or total is None or point.request.context_tokens != tokens:
            continue
        points.append({"tokens": tokens, "gb": total})
    lines: list[dict[str, Any]] = []
    rec = answer.recommendation
    if rec is None and answer.fit is not None and answer.fit.vram_gb is not None:
        lines.append({"label": f"{answer.fit.count}× {answer.fit.card}", "gb": answer.fit.vram_gb})
    for pick in (rec, *answer.alternatives):
        cap = _capacity(cat, pick)
        if cap is not None and all(cap["gb"] != line["gb"] for line in lines):
            lines.append(cap)
        if len(lines) >= 2:
            break
    if len(lines) < 2 and lines:  # the next bigger card of the fleet
        bigger = sorted(
            (c for c in cat.cards if c.vram_gb * c.min_count > lines[0]["gb"]),
            key=lambda c: (c.vram_gb * c.min_count, c.monthly_usd),
        )
        if bigger:
            c = bigger[0]
            lines.append(
                {
                    "label": f"{c.min_count}× {c.name}",
                    "gb": c.vram_gb * c.min_count,
                    "monthly_usd": c.monthly_usd * c.min_count,
                }
            )
    for i, line in enumerate(lines):
        line["role"] = "recommended" if i == 0 else "next"
    return {
        "points": points,
        "lines": lines,
        "model_max_tokens": limit,
        "asked_tokens": req.context_tokens,
    }


def _params(request: web.Request) -> tuple[str, str | None]:
    try:
        params = dict(request.query)
    except UnicodeDecodeError:
        raise web.HTTPBadRequest(reason="The query string is not valid UTF-8.") from None
    q = params.get("q", "")
    if not q.strip() or len(q) > MAX_QUERY_CHARS:
        raise web.HTTPBadRequest(reason="Ask something (at most 4,096 characters) in 'q'.")
    lang = params.get("lang") or None
    if lang is not None and lang not in LANGS:
        raise web.HTTPBadRequest(reason=f"'lang' must be one of {', '.join(LANGS)}.")
    return q, lang


async def preview_handler(request: web.Request) -> web.Response:
    q, lang = _params(request)
    desk: Desk = request.app[_desk_key(request.app)]
    cat = desk.catalog
    answer = ask(q, lang, catalog=cat)
    html_text = format_html(answer, cat)
    short, details = telegram_visible(html_text)
    return web.json_response(
        {
            "kind": answer.kind,
            "lang": answer.lang,
            "telegram": {"html": html_text, "short": short, "details": details},
            "discord": {
                "embed": format_embed(answer, cat).to_dict(),
                "details": format_details(answer, cat, math=True).to_dict(),
            },
        }
    )


async def chart_handler(request: web.Request) -> web.Response:
    q, lang = _params(request)
    desk: Desk = request.app[_desk_key(request.app)]
    cat = desk.catalog
    answer = ask(q, lang, catalog=cat)
    loop = asyncio.get_running_loop()
    data = await loop.run_in_executor(None, chart_points, answer, cat)
    return web.json_response({"kind": answer.kind, "lang": answer.lang, **data})


def _desk_key(app: web.Application) -> Any:
    return DESK


def register(app: web.Application) -> None:
    """Add the preview and chart routes to the desk's app."""
    app.router.add_get("/v1/preview", preview_handler)
    app.router.add_get("/v1/chart", chart_handler)
