"""The catalog cache: used only for exactly the inputs it was built from, never when damaged,
and a cached catalog answers exactly like a freshly validated one."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from engine import ask, load_catalog
from engine import catalog_cache as cc
from engine.catalog import DEFAULT_DATA_DIR, Catalog
from engine.understand.faq_match import faq_index
from engine.understand.model_index import model_index

QUESTIONS = [
    "70b int4 128k",
    "llama 3.1 8b fp8 on a 4090",
    "qwen3 235b a22b on h100 or mi300x?",
    "deepseek r1 qlora",
    "ile vram dla mixtral 8x7b?",
    "ต้องใช้ VRAM เท่าไร gemma 3 27b",
    "card a40",
    "gpus",
    "best model i can serve for $300/month",
    "max context for 70b int4 on an a40",
    "how to compute kv cache",
    "llma 3 70b",
    "asdfgh",
]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, d)
    return d


def cache_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("catalog-*.pickle"))


def answers(cat: Catalog) -> list[str]:
    return [json.dumps(ask(q, catalog=cat).to_json(), ensure_ascii=False) for q in QUESTIONS]


def test_cached_catalog_answers_like_a_fresh_one(data: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    fresh = load_catalog(data)
    written = load_catalog(data, cache_dir=cache)  # miss: validated, then written
    assert len(cache_files(cache)) == 1
    cached = load_catalog(data, cache_dir=cache)  # hit: read back
    assert cached is not written
    assert cached.models == fresh.models and cached.fleet == fresh.fleet
    assert cached.messages == fresh.messages and cached.data_dir == data
    assert answers(cached) == answers(fresh) == answers(written)


def test_cached_catalog_carries_its_indexes(data: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_catalog(data, cache_dir=cache)
    cached = load_catalog(data, cache_dir=cache)
    names = set(cached.memo)
    assert any(n.endswith(".model_index") for n in names)
    assert any(n.endswith(".faq_index") for n in names)
    # the parser's name tables too: each walks every alias, ~26 ms together on a cold start
    for table in ("_name_numbers", "_name_contexts", "_version_sizes"):
        assert any(n.endswith(f"catalog_words.{table}") for n in names), table
    before = dict(cached.memo)
    model_index(cached)
    faq_index(cached)
    assert all(cached.memo[n] is before[n] for n in before)  # used, not rebuilt


def test_changed_data_file_is_a_new_key(data: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_catalog(data, cache_dir=cache)
    path = data / "cards.yaml"
    text = path.read_text(encoding="utf-8")
    assert "prices_as_of:" in text
    path.write_text(text.replace("prices_as_of:", "prices_as_of: '2099-01-01' #", 1), "utf-8")
    cat = load_catalog(data, cache_dir=cache)
    assert cat.prices_as_of == "2099-01-01"
    assert len(cache_files(cache)) == 2


def test_changed_message_file_is_a_new_key(data: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    old = load_catalog(data, cache_dir=cache)
    path = data / "messages" / "en.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "\n# a comment\n", "utf-8")
    load_catalog(data, cache_dir=cache)
    assert len(cache_files(cache)) == 2
    assert old.messages == load_catalog(data, cache_dir=cache).messages


def test_broken_data_is_refused_even_with_a_cache(data: Path, tmp_path: Path) -> None:
    from engine.errors import CatalogError

    cache = tmp_path / "cache"
    load_catalog(data, cache_dir=cache)
    (data / "models.yaml").write_text("models: [1, 2", "utf-8")
    with pytest.raises(CatalogError, match=r"models\.yaml"):
        load_catalog(data, cache_dir=cache)


def test_other_code_or_price_book_is_a_new_key(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = ["cards.yaml", "models.yaml"]
    key = cc.cache_key(data, files, "monthly")
    assert key is not None
    assert cc.cache_key(data, files, "hourly") != key
    assert cc.cache_key(data, files, "monthly") == key
    monkeypatch.setattr(cc, "_code_version", lambda: b"other engine code")
    assert cc.cache_key(data, files, "monthly") != key


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b[:-10] + bytes(10),  # payload overwritten
        lambda b: bytes(20) + b[20:],  # key overwritten
        lambda b: b"",  # empty
    ],
    ids=["truncated", "payload", "key", "empty"],
)
def test_damaged_cache_file_is_never_used(data: Path, tmp_path: Path, damage: object) -> None:
    cache = tmp_path / "cache"
    good = load_catalog(data, cache_dir=cache)
    (path,) = cache_files(cache)
    blob = path.read_bytes()
    path.write_bytes(damage(blob))  # type: ignore[operator]
    key = blob[:20]
    assert cc.read(path, key) is None
    again = load_catalog(data, cache_dir=cache)  # rebuilt and rewritten
    assert answers(again) == answers(good)
    assert path.read_bytes()[:20] == key and cc.read(path, key) is not None


def test_valid_pickle_of_something_else_is_not_a_catalog(data: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_catalog(data, cache_dir=cache)
    (path,) = cache_files(cache)
    key = path.read_bytes()[:20]
    cc.write(path, key, {"not": "a catalog"})
    cat = load_catalog(data, cache_dir=cache)
    assert isinstance(cat, Catalog) and cat.models


def test_unwritable_cache_dir_costs_nothing_but_speed(data: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", "utf-8")
    cat = load_catalog(data, cache_dir=blocker / "cache")
    assert answers(cat) == answers(load_catalog(data))


def test_price_book_is_cached_apart(data: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    monthly = load_catalog(data, cache_dir=cache)
    hourly = load_catalog(data, "hourly", cache_dir=cache)
    again = load_catalog(data, "hourly", cache_dir=cache)
    assert len(cache_files(cache)) == 2
    assert hourly.price_book == again.price_book == "hourly" != monthly.price_book
    assert [c.monthly_usd for c in again.cards] == [c.monthly_usd for c in hourly.cards]


def stat_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("stat-*"))


def test_files_changed_just_now_are_hashed_on_every_start(data: Path, tmp_path: Path) -> None:
    """The copy in ``data`` is seconds old: a same-tick edit could keep its stat fields."""
    cache = tmp_path / "cache"
    load_catalog(data, cache_dir=cache)
    load_catalog(data, cache_dir=cache)
    assert len(cache_files(cache)) == 1 and stat_files(cache) == []


def test_remembered_key_skips_hashing_until_a_file_changes(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setattr(cc, "SETTLED_NS", 0)  # treat the fresh copy as settled
    first = load_catalog(data, cache_dir=cache)
    assert len(stat_files(cache)) == 1

    real_key = cc.cache_key
    hashed: list[Path] = []

    def counting(d: Path, files: list[str], price_book: str) -> bytes | None:
        hashed.append(d)
        return real_key(d, files, price_book)

    monkeypatch.setattr(cc, "cache_key", counting)
    again = load_catalog(data, cache_dir=cache)
    assert hashed == [] and answers(again) == answers(first)

    # The same number of bytes with the old modification time put back: the change time moves.
    path = data / "cards.yaml"
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    assert 'prices_as_of: "2026-' in text
    time.sleep(0.05)  # past any coarse timestamp tick
    path.write_text(text.replace('prices_as_of: "2026-', 'prices_as_of: "2031-', 1), "utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    changed = load_catalog(data, cache_dir=cache)
    assert hashed == [data] and changed.prices_as_of.startswith("2031-")
    assert len(cache_files(cache)) == 2 and len(stat_files(cache)) == 2


def test_remembered_key_for_a_missing_catalog_file_rebuilds(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setattr(cc, "SETTLED_NS", 0)
    good = load_catalog(data, cache_dir=cache)
    for path in cache_files(cache):
        path.unlink()
    (stamp,) = stat_files(cache)
    stamp.write_bytes(b"short")  # a damaged note is ignored, the files are hashed again
    again = load_catalog(data, cache_dir=cache)
    assert answers(again) == answers(good) and len(cache_files(cache)) == 1


def test_compiled_and_plain_builds_never_share_a_cache(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A catalog pickled by the plain code does not load into compiled classes (nor back)."""
    from engine import native_guard

    files = ["cards.yaml", "models.yaml"]
    keys = []
    for build in ("", "engine.answer engine.sizing|123:456"):
        monkeypatch.setattr(native_guard, "ACTIVE", build)
        cc._code_version.cache_clear()
        cc._code_stamp.cache_clear()
        stamp = cc.stat_key(data, files, "monthly")
        assert stamp is not None
        keys.append((cc.cache_key(data, files, "monthly"), stamp[0]))
    cc._code_version.cache_clear()
    cc._code_stamp.cache_clear()
    assert keys[0][0] != keys[1][0] and keys[0][1] != keys[1][1]


def test_build_id_names_the_compiled_modules_and_library(tmp_path: Path) -> None:
    from engine import native_guard

    assert native_guard.build_id(str(tmp_path)) == ""  # no build
    (tmp_path / native_guard.STAMP).write_text("engine.a\nengine.b\n", "utf-8")
    lib = tmp_path / f"{native_guard.LIB}.cpython-311-x86_64-linux-gnu.so"
    lib.write_bytes(b"x" * 7)
    first = native_guard.build_id(str(tmp_path))
    assert first.startswith("engine.a engine.b|7:")
    lib.write_bytes(b"y" * 8)  # rebuilt
    assert native_guard.build_id(str(tmp_path)) not in ("", first)
