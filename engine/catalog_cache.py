"""The validated catalog, cached on disk, keyed on exactly what it was built from.

The key hashes the code that validates and holds the data (``catalog.py``, ``models.py``,
``frozen.py``), the Python version, the data folder, the price book and the bytes of every
data file; the file stores the key and a hash of its payload, so a stale, truncated or
damaged file is never unpickled, only rewritten. Only :func:`engine.catalog.load_catalog`
uses this, and only when its caller names a cache folder.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from functools import lru_cache
from pathlib import Path

_CODE = ("catalog.py", "models.py", "frozen.py")
_FORMAT = b"vramchat-catalog-1"
_DIGEST = 20


@lru_cache(maxsize=1)
def _code_version() -> bytes:
    h = hashlib.blake2b(digest_size=_DIGEST)
    h.update(_FORMAT)
    h.update(sys.version.encode())
    here = Path(__file__).resolve().parent
    for name in _CODE:
        h.update((here / name).read_bytes())
    return h.digest()


def cache_key(d: Path, files: list[str], price_book: str) -> bytes | None:
    """Hash of the code, the folder, the price book and every data file's bytes; None when
    any of them cannot be read (then nothing is cached)."""
    try:
        h = hashlib.blake2b(_code_version(), digest_size=_DIGEST)
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
    if head != want or hashlib.blake2b(payload, digest_size=_DIGEST).digest() != digest:
        return None
    try:
        obj: object = pickle.loads(payload)
        return obj
    except Exception:  # written by other code despite the key: rebuild
        return None


def write(path: Path, key: bytes, obj: object) -> None:
    """Write atomically (a reader sees the old file or the whole new one); failures are fine."""
    try:
        import tempfile  # only when writing: it costs a few ms to import

        payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".catalog-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(key + hashlib.blake2b(payload, digest_size=_DIGEST).digest() + payload)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except Exception:  # read-only home, full disk, unpicklable contents: no cache, same answer
        return
