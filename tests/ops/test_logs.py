"""Logging: secrets never reach the output (message, args, exceptions, library URLs), and the
JSON format is one parseable object per line carrying the request id."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr

from bot.desk import Desk
from bot.logs import REQUEST_ID, RedactingFilter, redact, setup_logging
from bot.settings import Settings
from bot.web.app import create_app
from engine import load_catalog

TELEGRAM = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"
DISCORD = "MTA5ODc2NTQzMjEwOTg3NjU0.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"
WEBHOOK = "webhook-secret-Zx9"
API = "api-token-Qq7Rr8"
REDIS_PASSWORD = "hunter2-redis-pw"
REDIS_URL = f"redis://:{REDIS_PASSWORD}@redis.internal:6379/0"
OTHER_BOT = "987654:AAE-another_bots_token_that_is_not_configured"
SECRETS = [TELEGRAM, DISCORD, WEBHOOK, API, REDIS_URL, REDIS_PASSWORD, OTHER_BOT]


def settings(fmt: str = "text") -> Settings:
    return Settings(
        _env_file=None,
        telegram_token=SecretStr(TELEGRAM),
        discord_token=SecretStr(DISCORD),
        telegram_webhook_secret=SecretStr(WEBHOOK),
        vramchat_api_token=SecretStr(API),
        vramchat_redis_url=SecretStr(REDIS_URL),
        vramchat_log_format=fmt,
        vramchat_log_level="INFO",
    )


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """setup_logging changes the process-wide root logger; put it back afterwards."""
    root = logging.getLogger()
    handlers = root.handlers[:]
    filters = {h: h.filters[:] for h in handlers}
    level = root.level
    httpx_level = logging.getLogger("httpx").level
    yield
    for h in root.handlers[:]:
        if h not in handlers:
            root.removeHandler(h)
            h.close()
    for h, fs in filters.items():
        h.filters[:] = fs
    root.setLevel(level)
    logging.getLogger("httpx").setLevel(httpx_level)


def capture(fmt: str = "text") -> io.StringIO:
    buf = io.StringIO()
    setup_logging(settings(fmt), stream=buf)
    return buf


def emit_everything() -> None:
    log = logging.getLogger("vramchat.test")
    log.info("token in the message %s", "as an arg: " + TELEGRAM)
    log.info(f"inline f-string: {DISCORD} and {API}")
    log.warning("dict args %(url)s", {"url": REDIS_URL})
    log.info("webhook secret %r in a tuple", (WEBHOOK, 1))
    try:
        raise RuntimeError(f"cannot connect to {REDIS_URL} with {API}")
    except RuntimeError:
        log.exception("failed with %s", TELEGRAM)
    # what httpx/PTB log: the Bot API URL with a token we do not even know about
    logging.getLogger("httpx").warning(
        'HTTP Request: POST https://api.telegram.org/bot%s/getUpdates "HTTP/1.1 200 OK"',
        OTHER_BOT,
    )
    logging.getLogger("telegram.ext").error("Authorization: Bearer %s rejected", "sk-live-abc.def")
    logging.getLogger("aiohttp.client").error(
        "GET %s", "https://user:" + "pw123" + "@example.org/x"
    )
    log.info("extra fields", extra={"token": TELEGRAM})


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_no_secret_reaches_the_output(restore_logging: None, fmt: str):
    buf = capture(fmt)
    emit_everything()
    out = buf.getvalue()
    assert out.count("\n") >= 8
    for secret in [*SECRETS, "sk-live-abc.def", "pw123"]:
        assert secret not in out, secret
    assert "***" in out
    assert "bot***/getUpdates" in out
    assert "Bearer ***" in out
    assert "RuntimeError: cannot connect to *** with ***" in out
    if fmt == "text":
        assert "Traceback (most recent call last)" in out  # the traceback stays, masked


def test_filter_masks_args_of_any_type_and_keeps_the_record_usable():
    f = RedactingFilter([API])
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "a=%s b=%d", (API, 7), None)
    assert f.filter(record)
    assert record.getMessage() == "a=*** b=7"
    bad = logging.LogRecord("x", logging.INFO, __file__, 1, "missing %s %s", (API,), None)
    assert f.filter(bad)
    assert API not in bad.getMessage()


def test_redact_patterns():
    assert redact(f"https://api.telegram.org/bot{OTHER_BOT}/sendMessage") == (
        "https://api.telegram.org/bot***/sendMessage"
    )
    assert redact(f"Authorization: Bot {DISCORD}") == "Authorization: Bot ***"
    assert redact("redis://default:pw@host:6379") == "redis://default:***@host:6379"
    assert (
        redact("plain words, 70b int4 128k, bot 3 of 4") == "plain words, 70b int4 128k, bot 3 of 4"
    )
    # the longer secret is masked whole, not around a shorter one it contains
    f = RedactingFilter(["abc", "abcdef"])
    assert f.secrets == ["abcdef", "abc"]


def test_httpx_info_lines_are_silenced(restore_logging: None):
    buf = capture()
    logging.getLogger("httpx").info("HTTP Request: GET https://example.org/")
    assert logging.getLogger("httpx").getEffectiveLevel() == logging.WARNING
    assert "example.org" not in buf.getvalue()


def test_setup_is_idempotent(restore_logging: None):
    buf = capture()
    buf2 = capture()
    logging.getLogger("vramchat.test").warning("once")
    assert buf.getvalue() == ""
    assert buf2.getvalue().count("once") == 1


def test_unknown_level_falls_back_to_info(restore_logging: None):
    buf = io.StringIO()
    setup_logging(Settings(_env_file=None, vramchat_log_level="chatty"), stream=buf)
    assert logging.getLogger().level == logging.INFO
    assert "VRAMCHAT_LOG_LEVEL" in buf.getvalue()


def parse_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


async def test_json_lines_carry_request_ids(restore_logging: None):
    buf = capture("json")
    desk = Desk(load_catalog())
    token = REQUEST_ID.set("req-123")
    try:
        await desk.answer("70b int4 128k", platform="test", remember=False)
    finally:
        REQUEST_ID.reset(token)
    lines = parse_lines(buf.getvalue())
    question = [x for x in lines if x["logger"] == "vramchat.desk"]
    assert len(question) == 1
    line = question[0]
    assert line["request_id"] == "req-123"
    assert isinstance(line["rid"], str) and len(line["rid"]) == 8
    assert line["platform"] == "test" and line["kind"] == "sizing" and line["lang"] == "en"
    assert isinstance(line["latency_ms"], float)
    assert line["level"] == "INFO" and line["ts"].endswith("+00:00")


async def test_web_request_id_reaches_the_question_log_line(restore_logging: None):
    buf = capture("json")
    app = create_app(Desk(load_catalog()), Settings(_env_file=None))
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        resp = await client.get(
            "/v1/ask", params={"q": "8b fp16"}, headers={"X-Request-ID": "ticket-42"}
        )
        assert resp.status == 200
    lines = parse_lines(buf.getvalue())
    desk_lines = [x for x in lines if x["logger"] == "vramchat.desk"]
    assert desk_lines and desk_lines[0]["request_id"] == "ticket-42"
    assert desk_lines[0]["platform"] == "web"


def test_text_lines_show_the_request_id(restore_logging: None):
    buf = capture("text")
    token = REQUEST_ID.set("abc123")
    try:
        logging.getLogger("vramchat.test").info("hello")
    finally:
        REQUEST_ID.reset(token)
    logging.getLogger("vramchat.test").info("no request")
    first, second = buf.getvalue().splitlines()
    assert "vramchat.test [abc123]: hello" in first
    assert "vramchat.test: no request" in second
