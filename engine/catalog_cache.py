"""The validated catalog, cached on disk, keyed on exactly what it was built from.

The key hashes the engine's code (every ``engine/**/*.py``: the types, the checks and the
indexes built per catalog that travel with it), the Python version, the compiled build in use
(:data:`engine.native_guard.ACTIVE`), the data folder, the price book and the bytes of every
data file; the file stores the key and a checksum of its payload, so a stale, truncated or
damaged file is never unpickled, only rewritten.

Hashing those ~100 files costs a few ms on every start, so a hashed key is also remembered
under the files' stat fields (inode, size, modification and change times). A file that
changes afterwards gets a new change time, which the kernel sets and no tool can restore, so
a remembered key is found only for files unchanged since they were hashed. As git does with
its "racily clean" entries, a key is remembered only when every file's change time is older
than the hashing by more than a timestamp tick could hide (:data:`SETTLED_NS`).

Only :func:`engine.catalog.load_catalog` uses this, and only when its caller names a cache
folder.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
import time
import zlib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from engine import native_guard

# Re-exported: the indexes' modules mark themselves with catalog_cache.per_catalog.
from engine.catalog_memo import _BUILDERS as _BUILDERS
from engine.catalog_memo import build_indexes as build_indexes
from engine.catalog_memo import per_catalog as per_catalog

try:  # the BLAKE2 module alone: hashlib would also load OpenSSL (~2 ms) for nothing
    from _blake2 import blake2b
except ImportError:  # another Python build
    from hashlib import blake2b

_FORMAT = b"vramchat-catalog-2"
_DIGEST = 20
_CHECK = 4  # the payload's CRC-32: finds truncation and damage, ~8x cheaper than BLAKE2 here
# A change this soon after a file's last change may leave its timestamps as they were
# (coarse clocks; 2 s is the coarsest timestamp of a common file system, FAT).
SETTLED_NS = 2_000_000_000
C = TypeVar("C")


def load(
    cache_dir: Path, d: Path, files: list[str], price_book: str, build: Callable[[Path, str], C]
) -> C | object:
    """The catalog from the cache when it holds one for exactly these inputs, else ``build``'s,
    with every index marked @per_catalog built, then written to the cache."""
    stamp = stat_key(d, files, price_book)
    key = recall(cache_dir, stamp[0]) if stamp is not None else None
    to_remember = None  # the stat key to remember the hashed key under, once it is written
    if key is None:
        hashed_at = time.time_ns()
        key = cache_key(d, files, price_book)
        if key is None:  # a data file is missing or unreadable: the full load says which
            return build(d, price_book)
        if stamp is not None and stamp[1] < hashed_at - SETTLED_NS:
            to_remember = stamp[0]
    path = cache_dir / f"catalog-{key.hex()}.pickle"
    cat = read(path, key)
    if cat is None:
        cat = build(d, price_book)
        build_indexes(cat)
        write(path, key, cat)
    if to_remember is not None:
        remember(cache_dir, to_remember, key)
    return cat


def _stat_fields(path: str | os.PathLike[str]) -> tuple[str, int]:
    st = os.stat(path)
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}", st.st_ctime_ns


def _code_hash() -> blake2b:
    """A hash that starts with what both code keys name: the format, Python and the build."""
    h = blake2b(digest_size=_DIGEST)
    h.update(_FORMAT)
    h.update(f"{sys.version}\0{native_guard.ACTIVE}\0".encode())
    return h


@lru_cache(maxsize=1)
def _code_stamp() -> tuple[bytes, int]:
    """The stat fields of the code :func:`_code_version` hashes, and the newest change time."""
    h = _code_hash()
    newest = 0
    for rel, path in _code_files():
        fields, ctime = _stat_fields(path)
        h.update(f"{rel}\0{fields}\0".encode())
        newest = max(newest, ctime)
    return h.digest(), newest


def stat_key(d: Path, files: list[str], price_book: str) -> tuple[bytes, int] | None:
    """What :func:`cache_key` hashes, named by stat fields instead of bytes, and the newest
    change time among the files; None when a file is missing."""
    try:
        code, newest = _code_stamp()
        h = blake2b(code, digest_size=_DIGEST)
        h.update(f"{d.resolve()}\0{price_book}\0".encode())
        for name in files:
            fields, ctime = _stat_fields(d / name)
            h.update(f"{name}\0{fields}\0".encode())
            newest = max(newest, ctime)
    except OSError:
        return None
    return h.digest(), newest


def recall(cache_dir: Path, stamp: bytes) -> bytes | None:
    """The key hashed before for files with exactly these stat fields, if remembered."""
    try:
        key = (cache_dir / f"stat-{stamp.hex()}").read_bytes()
    except OSError:
        return None
    return key if len(key) == _DIGEST else None


def remember(cache_dir: Path, stamp: bytes, key: bytes) -> None:
    """Best effort, like :func:`write`: a read-only folder just means hashing every start."""
    path = cache_dir / f"stat-{stamp.hex()}"
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(key)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):  # never written (read-only folder): nothing to remove
            tmp.unlink()


@lru_cache(maxsize=1)
def _code_version() -> bytes:
    h = _code_hash()
    for rel, path in _code_files():
        h.update(f"{rel}\0".encode())
        h.update(Path(path).read_bytes())
    return h.digest()


@lru_cache(maxsize=1)
def _code_files() -> tuple[tuple[str, str], ...]:
    """Every ``engine/**/*.py`` as (relative name, path), sorted by name."""
    here = os.path.dirname(os.path.abspath(__file__))
    found: list[tuple[str, str]] = []
    for top, dirs, names in os.walk(here):
        dirs[:] = [n for n in dirs if not n.startswith((".", "__pycache__"))]
        rel = os.path.relpath(top, here)
        for name in names:
            if name.endswith(".py"):
                found.append((name if rel == "." else f"{rel}/{name}", os.path.join(top, name)))
    return tuple(sorted(found))


def cache_key(d: Path, files: list[str], price_book: str) -> bytes | None:
    """Hash of the code, the folder, the price book and every data file's bytes; None when
    any of them cannot be read (then nothing is cached)."""
    try:
        h = blake2b(_code_version(), digest_size=_DIGEST)
        h.update(f"{d.resolve()}\0{price_book}\0".encode())
        for name in files:
            blob = (d / name).read_bytes()
            h.update(f"{name}\0{len(blob)}\0".encode())
            h.update(blob)
    except OSError:
        return None
    return h.digest()


def read(path: Path, want: bytes) -> object | None:
    """What was written for ``want`` if the file holds exactly that, else None."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    head, check, payload = (
        blob[:_DIGEST],
        blob[_DIGEST : _DIGEST + _CHECK],
        blob[_DIGEST + _CHECK :],
    )
    if head != want or zlib.crc32(payload).to_bytes(_CHECK, "big") != check:
        return None
    try:
        obj: object = pickle.loads(payload)
        return obj
    except Exception:  # written by other code despite the key: rebuild
        return None


def write(path: Path, key: bytes, obj: object) -> None:
    """Write atomically (a reader sees the old file or the whole new one); failures are fine.

    The temporary file comes first, so a read-only folder (a cache built into an image,
    with data that changed since) costs no pickling, only the failed open.
    """
    try:
        import tempfile  # only when writing: it costs a few ms to import

        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".catalog-", suffix=".tmp")
    except OSError:  # read-only or missing home, read-only image: no cache, same answer
        return
    try:
        try:
            with os.fdopen(fd, "wb") as f:
                payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
                f.write(key + zlib.crc32(payload).to_bytes(_CHECK, "big") + payload)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except Exception:  # full disk, unpicklable contents: no cache, same answer
        return
