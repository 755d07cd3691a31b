"""Start-up warming: it pays every first-use cost it names, its questions reach every kind of
answer, and answers are the same with or without it (a fresh process each way)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bot.desk import Desk, desk_for
from bot.settings import Settings
from engine import ask, catalog_cache, lazyre, load_catalog, warm_up
from engine.warm import WARM_QUESTIONS

ROOT = Path(__file__).resolve().parents[2]


def test_warm_up_compiles_every_pattern_and_builds_every_index() -> None:
    cat = load_catalog()
    warm_up(cat)
    assert lazyre.compile_all() == 0  # nothing left to compile
    missing = [name for name in catalog_cache._BUILDERS if name not in cat.memo]
    assert not missing


def test_compile_all_compiles_a_new_pattern_once() -> None:
    p = lazyre.lazy(r"warm-(\d+)")
    assert "search" not in vars(p)
    assert lazyre.compile_all() >= 1
    assert "search" in vars(p)  # the compiled pattern's own methods now
    assert lazyre.compile_all() == 0
    m = p.search("a warm-42 b")
    assert m is not None and m.group(1) == "42"


def test_the_warm_questions_reach_every_kind_and_language() -> None:
    cat = load_catalog()
    kinds = {ask(q, lang, catalog=cat).kind for q, lang in WARM_QUESTIONS}
    assert {
        "sizing", "fit", "limit", "budget", "capacity", "cards", "card", "faq", "help",
        "clarify", "compare",
    } <= kinds  # fmt: skip
    assert "error" not in kinds
    langs = {ask(q, lang, catalog=cat).lang for q, lang in WARM_QUESTIONS}
    assert langs == {"en", "pl", "th"}


_DUMP = """
import json, sys, yaml
from engine import ask, load_catalog, warm_up
cat = load_catalog()
if sys.argv[1] == "warm":
    warm_up(cat)
rows = yaml.safe_load(open("tests/queries/queries.yaml", encoding="utf-8"))
rows = rows.get("queries", rows) if isinstance(rows, dict) else rows
out = [ask(r["q"], r.get("lang"), catalog=cat).to_json() for r in rows[::3]]
print(json.dumps(out, sort_keys=True, default=str))
"""


def _answers(mode: str) -> list[object]:
    done = subprocess.run(
        [sys.executable, "-c", _DUMP, mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    out: list[object] = json.loads(done.stdout)
    return out


def test_answers_are_the_same_with_and_without_warming() -> None:
    cold, warm = _answers("cold"), _answers("warm")
    assert len(cold) > 100
    assert cold == warm


def test_a_long_running_process_starts_warm(tmp_path: Path) -> None:
    lazyre.lazy(r"not-yet-(\w+)")  # a pattern nobody has used
    settings = Settings(_env_file=None, vramchat_cache_dir="off")
    desk = desk_for(settings, load_catalog())
    assert isinstance(desk, Desk)
    assert lazyre.compile_all() == 0
