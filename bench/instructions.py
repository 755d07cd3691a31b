"""Instructions per answer on ``bench/engine.py``'s own pass, counted by valgrind: on a shared
host wall time moves by tens of percent between runs, an instruction count by under 1 %.

    python bench/instructions.py [--python .venv/bin/python] [--questions 2000]

Runs the pass twice under ``valgrind --tool=cachegrind`` (with the questions and with none)
and prints the difference per question. Needs valgrind (Debian: apt-get install valgrind).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_pass(n: int) -> None:
    """bench/engine.py's pass: warm-up, 50 warm questions, then ``n`` distinct questions."""
    import gc

    sys.path.insert(0, str(HERE.parent))
    spec = importlib.util.spec_from_file_location("bench_engine", HERE / "engine.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from engine import ask, load_catalog, warm_up

    cat = load_catalog()
    warm_up(cat)
    gc.collect()
    gc.freeze()
    rng = random.Random(7)
    questions = list(dict.fromkeys(bench.table_questions() + bench.generated(cat, 4000, rng)))
    questions = questions[:2000]
    rng.shuffle(questions)
    seen = set(questions)
    warm = [q for q in bench.generated(cat, 100, random.Random(8)) if q not in seen][:50]
    for q in warm:
        ask(q, catalog=cat)
    for q in questions[:n]:
        ask(q, catalog=cat)


def count(python: str, n: int) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         python, __file__, "--pass", str(n)],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    m = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if m is None:
        raise SystemExit("valgrind printed no instruction count")
    return int(m.group(1).replace(",", ""))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--questions", type=int, default=2000)
    ap.add_argument("--pass", dest="inner", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner is not None:
        run_pass(args.inner)
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    base, full = count(args.python, 0), count(args.python, args.questions)
    print(f"{(full - base) // args.questions} instructions per answer ({args.python})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
