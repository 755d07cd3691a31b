"""Prometheus counters shared by every way in (CLI, web, Telegram, Discord)."""

from __future__ import annotations

import logging
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

log = logging.getLogger("vramchat.metrics")

REGISTRY = CollectorRegistry(auto_describe=True)

QUESTIONS = Counter(
    "vramchat_questions_total",
    "Questions answered, by platform, answer kind and language.",
    ["platform", "kind", "lang"],
    registry=REGISTRY,
)
ERRORS = Counter(
    "vramchat_errors_total",
    "Questions that failed with an unexpected error.",
    ["platform"],
    registry=REGISTRY,
)
RATE_LIMITED = Counter(
    "vramchat_rate_limited_total",
    "Questions refused by the per-user rate limit.",
    ["platform"],
    registry=REGISTRY,
)
LATENCY = Histogram(
    "vramchat_answer_seconds",
    "Time to answer one question inside the engine, by platform.",
    ["platform"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
    registry=REGISTRY,
)
RELOADS = Counter(
    "vramchat_reloads_total", "Data reloads, by outcome.", ["outcome"], registry=REGISTRY
)


def exposition() -> bytes:
    return generate_latest(REGISTRY)


def start_server(port: int, host: str = "127.0.0.1") -> WSGIServer | None:
    """Prometheus /metrics for a bot process; a busy port is logged, not fatal.

    Loopback by default: counters tell an outsider how busy the bot is, so exposing them on
    every interface (prometheus_client's own default) is an explicit choice
    (``VRAMCHAT_METRICS_HOST``). Returns the server (tests read its address), or None.
    """
    from prometheus_client import start_http_server

    try:
        server, _thread = start_http_server(port, addr=host, registry=REGISTRY)
    except OSError as exc:
        log.error("metrics server not started on %s:%d: %s", host, port, exc.strerror or exc)
        return None
    shown = f"[{host}]" if ":" in host else host
    log.info("metrics on http://%s:%d/metrics", shown, port)
    return server
