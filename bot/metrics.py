"""Prometheus counters shared by every way in (CLI, web, Telegram, Discord)."""

from __future__ import annotations

import logging

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


def start_server(port: int) -> None:
    """Prometheus /metrics for a bot process; a busy port is logged, not fatal."""
    from prometheus_client import start_http_server

    try:
        start_http_server(port, registry=REGISTRY)
        log.info("metrics on http://0.0.0.0:%d/metrics", port)
    except OSError as exc:
        log.error("metrics server not started on port %d: %s", port, exc.strerror or exc)
