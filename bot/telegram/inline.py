"""Inline mode (``@bot 70b int4 128k`` typed in any chat): the answer as the first article and
up to two alternatives after it, each one re-asked through the desk."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from telegram import InlineQuery, InlineQueryResultArticle, InputTextMessageContent
from telegram.constants import ParseMode

from bot.desk import Desk, Limited
from bot.memo import alternative_options
from bot.render.telegram import (
    MAX_ALT_BUTTONS,
    alt_label,
    format_html,
    format_notice,
    pick_summary,
    shorten,
)
from bot.telegram.base import PLATFORM
from engine import Answer, context_of

__all__ = ["INLINE_CACHE_S", "answer_inline"]

INLINE_CACHE_S: Final = 30


def _article(
    result_id: str, title: str, body_html: str, description: str | None = None
) -> InlineQueryResultArticle:
    return InlineQueryResultArticle(
        id=result_id,
        title=shorten(title, 100) or "…",
        input_message_content=InputTextMessageContent(body_html, parse_mode=ParseMode.HTML),
        description=shorten(description, 200) if description else None,
    )


async def answer_inline(
    desk: Desk, query: InlineQuery, limited_text: Callable[[Limited], str]
) -> None:
    """Answer once, personal to the asker; a rate-limited asker gets the notice, uncached."""
    text = " ".join(query.query.split())
    if not text:
        await query.answer([], cache_time=INLINE_CACHE_S)
        return
    user = query.from_user
    result = await desk.answer(
        text,
        platform=PLATFORM,
        user_key=str(user.id),
        locale=user.language_code,
        remember=False,
    )
    if isinstance(result, Limited):
        notice = limited_text(result)
        await query.answer(
            [_article("limited", notice, format_notice(notice))], cache_time=0, is_personal=True
        )
        return
    cat = desk.catalog
    articles = [
        _article(
            "answer", result.headline or text, format_html(result, cat), pick_summary(result, cat)
        )
    ]
    ctx = context_of(result)
    for n, pick in enumerate(result.alternatives[:MAX_ALT_BUTTONS] if ctx else []):
        fit = await desk.answer(
            "",
            platform=PLATFORM,
            lang=result.lang,
            previous=ctx,
            remember=False,
            options=alternative_options(pick),
        )
        if isinstance(fit, Answer):
            label = alt_label(pick, cat, result.lang)
            articles.append(_article(f"alt{n}", label, format_html(fit, cat), fit.headline))
    await query.answer(articles, cache_time=INLINE_CACHE_S, is_personal=True)
