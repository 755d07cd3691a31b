"""What every Telegram module shares: the platform name, the application type, store keys."""

from __future__ import annotations

from typing import Any, Final, TypeAlias

from telegram.ext import Application, ContextTypes

__all__ = ["ALLOWED_UPDATES", "PLATFORM", "Ctx", "TgApp", "message_key"]

TgApp: TypeAlias = Application[Any, Any, Any, Any, Any, Any]
Ctx: TypeAlias = ContextTypes.DEFAULT_TYPE

PLATFORM: Final = "telegram"
ALLOWED_UPDATES: Final = ["message", "callback_query", "inline_query"]


def message_key(chat_id: int, message_id: int) -> str:
    """desk.store key for the Context behind one bot message (reply-to refinement)."""
    return f"{PLATFORM}:msg:{chat_id}:{message_id}"
