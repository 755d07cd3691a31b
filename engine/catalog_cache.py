"""The validated catalog, cached on disk, keyed on exactly what it was built from.

The key hashes the engine's code (every ``engine/**/*.py``: the types, the checks and the
indexes built per catalog that travel with it), the Python version, the data folder, the price book and the bytes of every
data file; the file stores the key and a hash of its payload, so a stale, truncated or
damaged file is never unpickled, only rewritten. Only :func:`engine.catalog.load_catalog`
uses this, and only when its caller names a cache folder.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

# Re-exported: the indexes' modules mark themselves with catalog_cache.per_catalog.
from engine.catalog_memo import _BUILDERS as _BUILDERS
from engine.catalog_memo import build_indexes as build_indexes
from engine.catalog_memo import per_catalog as per_catalog

try:  # the BLAKE2 module alone: hashlib would also load OpenSSL (~2 ms) for nothing
    from _blake2 import blake2b
except ImportError:  # another Python build
    from hashlib import blake2b

_FORMAT = b"vramchat-catalog-1"
_DIGEST = 20
C = TypeVar("C")


def load(
    cache_dir: Path, d: Path, files: list[str], price_book: str, build: Callable[[Path, str], C]
) -> C | object:
    """The catalog from the cache when it holds one for exactly these inputs, else ``build``'s,
    with every index marked @per_catalog built, then written to the cache."""
    key = cache_key(d, files, price_book)
    if key is None:  # a data file is missing or unreadable: the full load says which
        return build(d, price_book)
    path = cache_dir / f"catalog-{key.hex()}.pickle"
    cat = read(path, key)
    if cat is None:
        cat = build(d, price_book)
        build_indexes(cat)
        write(path, key, cat)
    return cat


@lru_cache(maxsize=1)
def _code_version() -> bytes:
    h = blake2b(digest_size=_DIGEST)
    h.update(_FORMAT)
    h.update(sys.version.encode())
    here = Path(__file__).resolve().parent
    for path in sorted(here.rglob("*.py")):
        h.update(f"{path.relative_to(here)}\0".encode())
        h.update(path.read_bytes())
    return h.digest()


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
    head, digest, payload = blob[:_DIGEST], blob[_DIGEST : 2 * _DIGEST], blob[2 * _DIGEST :]
    if head != want or blake2b(payload, digest_size=_DIGEST).digest() != digest:
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
                f.write(key + blake2b(payload, digest_size=_DIGEST).digest() + payload)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except Exception:  # full disk, unpicklable contents: no cache, same answer
        return
