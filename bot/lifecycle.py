"""One lifecycle for every long-running process (Telegram, Discord, the web desk).

Each adapter supplies only what differs (its token check, its serving loop); the rest is here:

- :func:`boot`: validate, load ``data/`` (from the validated-catalog cache when it holds
  exactly these files: a container starts from the one built into the image) and build the
  :class:`bot.desk.Desk`; a bad setting or data file is one line on stderr and exit code 2,
  before anything connects.
- :func:`reload_off_loop` and :class:`Signals`: SIGHUP re-reads the data in a worker thread
  (a reload takes tens of milliseconds; the event loop keeps answering meanwhile); SIGINT and
  SIGTERM ask the serving loop to stop.
- :func:`report`: the one error path's first half: a reference id, the traceback in the log
  under it, the error counted; :func:`apology` is the second half, the text the user gets.
- :func:`close_store`: the shared state store's connections closed on the way out.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from bot import metrics
from bot.desk import Desk, desk_for, error_reference
from bot.logs import setup_logging
from bot.paths import cache_dir
from bot.settings import Settings, SettingsError
from engine import Catalog, CatalogError, load_catalog, t

__all__ = ["Signals", "apology", "boot", "close_store", "fatal", "reload_off_loop", "report"]

log = logging.getLogger("vramchat.lifecycle")

RELOAD_FAILED = "unexpected error (see the log)"


def fatal(program: str, message: str) -> None:
    """The one line a process writes to stderr when it cannot start or keep going."""
    sys.stderr.write(f"{program}: {message}\n")


def boot(settings: Settings, program: str, check: Callable[[], object] | None = None) -> Desk | int:
    """The desk a process serves from, or the exit code (2) after one line on stderr.

    ``check`` validates the adapter's own settings (its token, say) first; settings and data
    are checked before logging is set up, so a bad start-up is exactly one line.
    """
    try:
        if check is not None:
            check()
        cache = cache_dir(settings.vramchat_cache_dir)
        catalog = load_catalog(
            settings.vramchat_data_dir, settings.vramchat_price_book, cache_dir=cache
        )
    except SettingsError as exc:
        fatal(program, str(exc))
        return 2
    except CatalogError as exc:
        fatal(program, f"data error: {exc}")
        return 2
    setup_logging(settings)
    try:
        desk = desk_for(settings, catalog)
    except SettingsError as exc:
        fatal(program, str(exc))
        return 2
    log.info(
        "data: %d cards, %d models, prices as of %s (%s book); catalog cache: %s",
        len(catalog.cards),
        len(catalog.models),
        catalog.prices_as_of,
        catalog.price_book,
        cache or "off",
    )
    return desk


async def reload_off_loop(desk: Desk) -> str | None:
    """Re-read ``data/`` in a worker thread; the reason it was refused, or None. Never raises."""
    try:
        return await asyncio.to_thread(desk.reload)
    except Exception:
        log.exception("data reload failed, the old data keeps serving")
        return RELOAD_FAILED


@dataclass
class Signals:
    """SIGHUP reloads off the loop, SIGINT/SIGTERM call ``stop``; :meth:`remove` undoes it."""

    desk: Desk
    stop: Callable[[], None] | None = None
    installed: list[signal.Signals] = field(default_factory=list)
    _pending: set[asyncio.Task[str | None]] = field(default_factory=set)

    def install(self) -> bool:
        """Install the handlers on the running loop; False where signals are unavailable."""
        loop = asyncio.get_running_loop()
        wanted: list[tuple[signal.Signals, Callable[[], None]]] = [(signal.SIGHUP, self._hup)]
        if self.stop is not None:
            wanted += [(signal.SIGINT, self.stop), (signal.SIGTERM, self.stop)]
        for sig, handler in wanted:
            try:
                loop.add_signal_handler(sig, handler)
                self.installed.append(sig)
            except (ValueError, RuntimeError, NotImplementedError):  # not the main thread
                log.info("cannot install a handler for %s here (not the main thread?)", sig.name)
        return bool(self.installed)

    def _hup(self) -> None:
        log.info("SIGHUP: reloading data")
        task = asyncio.get_running_loop().create_task(reload_off_loop(self.desk))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def remove(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self.installed:
            loop.remove_signal_handler(sig)
        self.installed.clear()


def report(platform: str, logger: logging.Logger, what: str, exc: BaseException | None) -> str:
    """Log ``what`` with the traceback under a fresh reference id, count it, return the id."""
    ref = error_reference()
    metrics.ERRORS.labels(platform).inc()
    logger.error("ref=%s %s", ref, what, exc_info=exc)
    return ref


def apology(catalog: Catalog, lang: str, ref: str) -> str:
    """What the person is told when something failed: sorry, and the id to quote."""
    return t(catalog, lang, "render.apology", ref=ref)


async def close_store(desk: Desk) -> None:
    """Close the shared store's connections (Redis); the in-process store has none."""
    close = getattr(desk.store, "aclose", None)
    if close is not None:
        await close()
