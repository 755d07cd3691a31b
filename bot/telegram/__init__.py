"""Telegram: the python-telegram-bot adapter (``vram telegram``)."""
