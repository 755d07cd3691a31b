"""Thin adapters around the engine: CLI, Telegram, Discord and the staff web desk."""
