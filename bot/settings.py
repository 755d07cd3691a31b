"""Every setting the adapters read, in one place (environment or ``.env``).

Secrets are ``SecretStr`` so they never print; a ``*_FILE`` variant reads a container secret.
Nothing outside ``bot/`` reads the environment.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_TELEGRAM_TOKEN = re.compile(r"^\d{5,15}:[A-Za-z0-9_-]{30,60}$")
_DISCORD_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,40}\.[A-Za-z0-9_-]{4,10}\.[A-Za-z0-9_-]{20,60}$")
_PLACEHOLDERS = {"changeme", "change-me", "your-token-here", "xxx", "token", "secret"}


class SettingsError(Exception):
    """A setting is missing or malformed; the message is one line, safe to print."""


def _read_secret(value: SecretStr | None, path: Path | None, name: str) -> SecretStr | None:
    if value is not None and value.get_secret_value():
        return value
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise SettingsError(f"{name}_FILE cannot be read: {exc.strerror}") from None
        return SecretStr(text) if text else None
    return None


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", env_ignore_empty=True, extra="ignore"
    )

    # common
    vramchat_data_dir: Path | None = None
    # the validated-catalog cache: a folder, or "off"; unset: $XDG_CACHE_HOME/vramchat or
    # ~/.cache/vramchat (bot.paths.cache_dir, which the CLI uses too)
    vramchat_cache_dir: str | None = None
    vramchat_price_book: Literal["monthly", "hourly"] = "monthly"
    vramchat_log_format: Literal["text", "json"] = "text"
    vramchat_log_level: str = "INFO"
    vramchat_metrics_port: int | None = None
    vramchat_metrics_host: str = "127.0.0.1"
    vramchat_staff_ids: str = ""
    vramchat_redis_url: SecretStr | None = None
    vramchat_rate_per_minute: int = Field(default=20, ge=1)
    vramchat_followup_ttl_s: float = Field(default=1800, gt=0)
    # link buttons under answers (hidden when unset); the rent URL may hold {card}
    vramchat_rent_url: str | None = None
    vramchat_sales_url: str | None = None

    # web desk
    vramchat_host: str = "127.0.0.1"
    vramchat_port: int = 8080
    vramchat_api_token: SecretStr | None = None
    vramchat_http_idle_timeout_s: float = Field(default=15.0, gt=0)
    vramchat_http_max_connections: int = Field(default=2048, ge=16)

    # telegram
    telegram_token: SecretStr | None = None
    telegram_token_file: Path | None = None
    telegram_base_url: str = "https://api.telegram.org/bot"
    telegram_webhook_url: str | None = None
    telegram_webhook_secret: SecretStr | None = None
    telegram_webhook_listen: str = "127.0.0.1"
    telegram_webhook_port: int = 8443
    telegram_webhook_path: str = "telegram"

    # discord
    discord_token: SecretStr | None = None
    discord_token_file: Path | None = None
    discord_guild_id: int | None = None
    discord_api_base_url: str = "https://discord.com/api/v10"
    discord_gateway_url: str | None = None
    discord_shards: str = "1"
    discord_shard_ids: str = ""

    @field_validator("discord_shards")
    @classmethod
    def _shards(cls, v: str) -> str:
        if v != "auto" and not (v.isdigit() and int(v) >= 1):
            raise ValueError("DISCORD_SHARDS must be 'auto' or a positive number")
        return v

    @field_validator("vramchat_rent_url", "vramchat_sales_url")
    @classmethod
    def _link(cls, v: str | None) -> str | None:
        """A link button must open a real web page: https only, no spaces, and no
        placeholder but ``{card}`` (the card's name, filled in per answer)."""
        if v is None or not v.strip():
            return None
        v = v.strip()
        parts = urlsplit(v.replace("{card}", "card"))
        if parts.scheme != "https" or not parts.hostname or any(c.isspace() for c in v):
            raise ValueError(f"must be an https:// address such as https://example.com/, not {v!r}")
        if "{" in parts.geturl() or "}" in parts.geturl():
            raise ValueError("the only placeholder allowed is {card}")
        return v

    @model_validator(mode="after")
    def _secrets_from_files(self) -> Settings:
        self.telegram_token = _read_secret(
            self.telegram_token, self.telegram_token_file, "TELEGRAM_TOKEN"
        )
        self.discord_token = _read_secret(
            self.discord_token, self.discord_token_file, "DISCORD_TOKEN"
        )
        return self

    @property
    def staff_ids(self) -> set[str]:
        return {s.strip() for s in self.vramchat_staff_ids.split(",") if s.strip()}

    def secrets(self) -> list[str]:
        """Every secret value in force, for the log redaction filter."""
        out = []
        for s in (
            self.telegram_token,
            self.discord_token,
            self.telegram_webhook_secret,
            self.vramchat_api_token,
            self.vramchat_redis_url,
        ):
            if s is not None and s.get_secret_value():
                out.append(s.get_secret_value())
        return out

    def require_telegram(self) -> str:
        """The Telegram token, or a one-line reason why we cannot start."""
        token = self.telegram_token.get_secret_value() if self.telegram_token else ""
        if not token:
            raise SettingsError("TELEGRAM_TOKEN is not set (or TELEGRAM_TOKEN_FILE is empty).")
        if token.lower() in _PLACEHOLDERS or not _TELEGRAM_TOKEN.match(token):
            raise SettingsError(
                "TELEGRAM_TOKEN does not look like a bot token (expected digits:letters from BotFather)."
            )
        if self.telegram_webhook_url and not (
            self.telegram_webhook_secret and self.telegram_webhook_secret.get_secret_value()
        ):
            raise SettingsError(
                "TELEGRAM_WEBHOOK_SECRET is required when TELEGRAM_WEBHOOK_URL is set."
            )
        return token

    def require_discord(self) -> str:
        token = self.discord_token.get_secret_value() if self.discord_token else ""
        if not token:
            raise SettingsError("DISCORD_TOKEN is not set (or DISCORD_TOKEN_FILE is empty).")
        if token.lower() in _PLACEHOLDERS or not _DISCORD_TOKEN.match(token):
            raise SettingsError(
                "DISCORD_TOKEN does not look like a bot token (three dot-separated parts)."
            )
        return token


def load_settings() -> Settings:
    """Settings from the environment, with any validation error turned into one line."""
    from pydantic import ValidationError

    try:
        return Settings()
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]).upper() if err["loc"] else "setting"
        raise SettingsError(f"{name}: {err['msg']}") from None
