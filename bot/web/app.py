"""The staff desk page and the HTTP API (``vram serve``), on aiohttp.

Routes::

    GET  /                  staff page (static HTML/CSS/JS under /static/)
    GET  /v1/ask            ?q=&lang=en|pl|th&format=json|markdown|text|desk&math=0|1
                            json:      exactly the Answer JSON contract (``answer.to_json()``)
                            markdown:  text/plain body, the Markdown for a ticket
                            text:      text/plain body, the plain-text answer
                            desk:      what the staff page needs in one call (see ``_desk``)
    GET  /v1/cards          JSON list of card objects (as in the Answer's ``cards``)
    GET  /v1/models         ?search=  JSON list of models
    POST /v1/reload         reload data files (needs the API token; 403 when none is set)
    GET  /v1/preview        ?q=&lang=  the Telegram and Discord forms (see bot.web.views)
    GET  /v1/chart          ?q=&lang=  memory against context, with card capacities
    GET  /healthz           {"status": "ok", "prices_as_of": ...}
    GET  /metrics           Prometheus exposition

With ``VRAMCHAT_API_TOKEN`` set, ``/v1/*`` needs ``Authorization: Bearer <token>``.
Every error is ``{"error": {"code", "message"}}``; an unexpected one also carries a
reference id that the log line (with the traceback) repeats.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from bot import metrics
from bot.desk import Desk, Limited
from bot.lifecycle import Signals, boot, close_store, reload_off_loop
from bot.render.common import footer as prices_footer
from bot.render.markdown import format_markdown
from bot.render.text import format_text
from bot.settings import Settings
from bot.web.middleware import ApiError, auth_middleware, errors_middleware
from bot.web.server import (
    DESK,
    FD_RESERVE,
    HANDLER_ARGS,
    TOKEN,
    DeskSite,
    error_response,
)
from bot.web.views import register as register_desk_views  # previews and the chart
from engine import (
    LANGS,
    MAX_QUERY_CHARS,
    Answer,
    ModelSpec,
    card_info,
    search_models,
    t,
)

__all__ = [
    "FD_RESERVE",
    "MAX_QUERY_CHARS",
    "create_app",
    "install_sighup",
    "reload_logged",
    "run",
    "serve",
]

log = logging.getLogger("vramchat.web")

STATIC_DIR = Path(__file__).resolve().parent / "static"
METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
FORMATS = ("json", "markdown", "text", "desk")


# --------------------------------------------------------------------------- handlers


def _query(request: web.Request) -> dict[str, str]:
    try:
        return dict(request.query)
    except UnicodeDecodeError:
        raise ApiError(400, "bad_request", "The query string is not valid UTF-8.") from None


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC_DIR / "index.html")


async def static_handler(request: web.Request) -> web.FileResponse:
    """Only the files shipped in ``bot/web/static``: no directory walking, a JSON 404 otherwise."""
    name = request.match_info["name"]
    if name not in _static_files():
        raise ApiError(404, "not_found", "No such file.")
    return web.FileResponse(STATIC_DIR / name)


@functools.cache
def _static_files() -> frozenset[str]:
    return frozenset(p.name for p in STATIC_DIR.iterdir() if p.is_file())


async def ask_handler(request: web.Request) -> web.Response:
    """Answer one question the way the customer would get it."""
    params = _query(request)
    q = params.get("q", "")
    if len(q) > MAX_QUERY_CHARS:
        raise ApiError(
            413,
            "too_large",
            f"The question is {len(q):,} characters; the limit is {MAX_QUERY_CHARS:,}.",
        )
    if not q.strip():
        raise ApiError(400, "bad_request", "Ask something: the 'q' parameter is missing or empty.")
    lang = params.get("lang") or None
    if lang is not None and lang not in LANGS:
        raise ApiError(400, "bad_request", f"'lang' must be one of {', '.join(LANGS)}.")
    fmt = params.get("format", "json")
    if fmt not in FORMATS:
        raise ApiError(400, "bad_request", f"'format' must be one of {', '.join(FORMATS)}.")
    math = params.get("math", "0").lower() in ("1", "true", "yes", "on")

    desk = request.app[DESK]
    result = await desk.answer(q, platform="web", lang=lang, remember=False)
    if isinstance(result, Limited):
        wait = result.seconds
        response = error_response(429, "rate_limited", f"Too many questions; wait {wait} s.")
        response.headers["Retry-After"] = str(wait)
        return response
    catalog = desk.catalog
    if fmt == "json":
        return web.json_response(result.to_json())
    if fmt == "markdown":
        return web.Response(text=format_markdown(result, catalog, math), content_type="text/plain")
    if fmt == "text":
        return web.Response(text=format_text(result, catalog, math), content_type="text/plain")
    return web.json_response(_desk(result, desk))


def _desk(answer: Answer, desk: Desk) -> dict[str, Any]:
    """The page's bundle: the Answer JSON, both copy formats with and without math, labels."""
    cat = desk.catalog
    footer = prices_footer(answer, cat)
    return {
        "answer": answer.to_json(),
        "markdown": format_markdown(answer, cat, False),
        "markdown_math": format_markdown(answer, cat, True),
        "text": format_text(answer, cat, False),
        "text_math": format_text(answer, cat, True),
        "labels": {
            "watch_out": t(cat, answer.lang, "render.watch_out"),
            "assumptions": t(cat, answer.lang, "render.assumptions"),
            "show_math": t(cat, answer.lang, "render.show_math"),
            "prices_as_of": footer,
        },
    }


async def cards_handler(request: web.Request) -> web.Response:
    cat = request.app[DESK].catalog
    return web.json_response([card_info(cat, c).model_dump(mode="json") for c in cat.cards])


def _model_json(m: ModelSpec) -> dict[str, Any]:
    return {
        "id": m.id,
        "name": m.name,
        "params_b": m.params_b,
        "active_params_b": m.active_params_b,
        "layers": m.layers,
        "kv_heads": m.kv_heads,
        "head_dim": m.head_dim,
        "attention_heads": m.attention_heads,
        "max_context_tokens": m.max_context_tokens,
        "source": m.source,
    }


async def models_handler(request: web.Request) -> web.Response:
    """Catalog models; ``search`` matches names and aliases as substrings, then fuzzily."""
    search = _query(request).get("search", "").strip()
    if len(search) > 200:
        raise ApiError(413, "too_large", "The search is longer than 200 characters.")
    cat = request.app[DESK].catalog
    if not search:
        return web.json_response([_model_json(m) for m in cat.models])
    return web.json_response([_model_json(m) for m in search_models(cat, search)])


async def reload_handler(request: web.Request) -> web.Response:
    """Staff-only reload: a broken file is refused and the old data keeps serving."""
    if request.app[TOKEN] is None:
        raise ApiError(
            403, "forbidden", "Reload over HTTP needs VRAMCHAT_API_TOKEN; send SIGHUP instead."
        )
    desk = request.app[DESK]
    problem = await reload_off_loop(desk)
    if problem is not None:
        raise ApiError(
            409, "reload_refused", f"Data not reloaded, the old data keeps serving: {problem}"
        )
    return web.json_response({"status": "reloaded", "prices_as_of": desk.catalog.prices_as_of})


async def healthz(request: web.Request) -> web.Response:
    return web.json_response(
        {"status": "ok", "prices_as_of": request.app[DESK].catalog.prices_as_of}
    )


async def metrics_handler(request: web.Request) -> web.Response:
    response = web.Response(body=metrics.exposition())
    response.headers["Content-Type"] = METRICS_CONTENT_TYPE
    return response


# --------------------------------------------------------------------------- app and server


def create_app(desk: Desk, settings: Settings) -> web.Application:
    """The whole HTTP surface; every route is registered here."""
    app = web.Application(
        middlewares=[errors_middleware, auth_middleware],
        handler_args=HANDLER_ARGS,
        client_max_size=64 * 1024,
    )
    app[DESK] = desk
    secret = settings.vramchat_api_token.get_secret_value() if settings.vramchat_api_token else ""
    app[TOKEN] = secret.encode("utf-8") if secret else None
    app.router.add_get("/", index)
    app.router.add_get("/static/{name}", static_handler)
    app.router.add_get("/v1/ask", ask_handler)
    app.router.add_get("/v1/cards", cards_handler)
    app.router.add_get("/v1/models", models_handler)
    app.router.add_post("/v1/reload", reload_handler)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_handler)

    register_desk_views(app)
    return app


def install_sighup(desk: Desk) -> Callable[[], None]:
    """Reload data on SIGHUP (``systemctl reload``); returns a function that uninstalls it."""
    signals = Signals(desk)
    signals.install()
    return signals.remove


async def reload_logged(desk: Desk) -> str | None:
    """The SIGHUP action: reload off the event loop; a failure is logged, never raised."""
    log.info("SIGHUP: reloading data")
    return await reload_off_loop(desk)


async def serve(desk: Desk, settings: Settings, stop: asyncio.Event | None = None) -> None:
    """Serve until SIGINT/SIGTERM (or ``stop`` is set), then close connections cleanly."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    app = create_app(desk, settings)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    uninstall = install_sighup(desk)
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        site = DeskSite(
            runner,
            settings.vramchat_host,
            settings.vramchat_port,
            max_connections=settings.vramchat_http_max_connections,
            idle_timeout_s=settings.vramchat_http_idle_timeout_s,
        )
        await site.start()
        ping = getattr(desk.store, "ping", None)
        if ping is not None:
            await ping()
        log.info(
            "staff desk on http://%s:%d/ (prices as of %s, API token %s, "
            "up to %d connections, idle ones closed after %g s)",
            settings.vramchat_host,
            settings.vramchat_port,
            desk.catalog.prices_as_of,
            "required" if app[TOKEN] else "not set",
            site.cap.limit,
            settings.vramchat_http_idle_timeout_s,
        )
        await stop.wait()
    finally:
        uninstall()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        await runner.cleanup()
        await close_store(desk)


def run(settings: Settings) -> int:
    """``vram serve``: load data, build the desk, serve; returns the process exit code."""
    desk = boot(settings, "vram serve")
    if isinstance(desk, int):
        return desk
    try:
        asyncio.run(serve(desk, settings))
    except OSError as exc:
        log.error(
            "cannot listen on %s:%d: %s",
            settings.vramchat_host,
            settings.vramchat_port,
            exc.strerror or exc,
        )
        return 1
    return 0
