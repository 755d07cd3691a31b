"""Engine speed: 2,000 varied questions through ``engine.ask`` on one core, and fuzzy model
lookup with the catalog inflated to 10,000 aliases.

    .venv/bin/python bench/engine.py [--questions 2000] [--aliases 10000]

Run by hand (not in the test suite); record the table in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import yaml

from engine import ask, load_catalog, warm_up
from engine.catalog import Catalog
from engine.understand import match_models

TABLE = Path(__file__).resolve().parent.parent / "tests" / "queries" / "queries.yaml"


def table_questions() -> list[str]:
    if not TABLE.exists():
        return []
    rows = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    rows = rows.get("queries", rows) if isinstance(rows, dict) else rows
    return [r["q"] for r in rows if isinstance(r, dict) and "q" in r]


def generated(cat: Catalog, n: int, rng: random.Random) -> list[str]:
    names = [m.name for m in cat.models] + [a for m in cat.models for a in m.aliases[:2]]
    sizes = ["7b", "13b", "34b", "70b", "405b", "8b", "32b", "14b", "1t", "0.5b"]
    precs = ["", "bf16", "fp8", "int4", "q4_k_m", "awq", "8bit", "fp16", "Q5_K_S"]
    ctxs = ["", "8k", "32k", "128k", "ctx 16k", "200000 tokens", "1m"]
    batch = ["", "batch 8", "16 users", "4 concurrent"]
    tasks = ["", "", "qlora", "lora", "full fine-tune", "serve"]
    cards = ["", "", "on a 4090", "fits a6000?", "2x a40", "h100 or mi300x?", "on h200"]
    langs = ["{q}", "{q}", "ile vram dla {q}?", "ต้องใช้ VRAM เท่าไร {q}"]
    out = []
    for _ in range(n):
        subject = rng.choice(names) if rng.random() < 0.6 else rng.choice(sizes)
        parts = [
            subject,
            rng.choice(precs),
            rng.choice(ctxs),
            rng.choice(batch),
            rng.choice(tasks),
            rng.choice(cards),
        ]
        q = " ".join(p for p in parts if p)
        out.append(rng.choice(langs).format(q=q))
    out += [
        "card a40",
        "gpus",
        "how to compute kv cache",
        "best model i can serve for $300/month",
        "max context for 70b int4 on an a40",
        "why do gpu counts go 2 4 8",
        "hello",
        "asdfgh",
    ]
    return out


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def bench_ask(cat: Catalog, questions: list[str], warm: list[str]) -> dict[str, float]:
    for q in warm:
        ask(q, catalog=cat)  # warm caches (indexes, regexes) on questions not timed
    times = []
    gc.collect()
    start, cpu_start = time.perf_counter(), time.process_time()
    for q in questions:
        t = time.perf_counter_ns()
        ask(q, catalog=cat)
        times.append((time.perf_counter_ns() - t) / 1e6)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start  # steadier than wall time on a shared machine
    return {
        "n": len(questions),
        "p50_ms": statistics.median(times),
        "p90_ms": pct(times, 90),
        "p99_ms": pct(times, 99),
        "max_ms": max(times),
        "per_s": len(questions) / wall,
        "cpu_per_s": len(questions) / cpu,
    }


def inflate(cat: Catalog, target: int, rng: random.Random) -> Catalog:
    """The same catalog with synthetic alias variants until it holds ``target`` aliases."""
    from engine.catalog import _build
    from engine.models import HardwareFile, PrecisionsFile

    models = list(cat.models)
    total = sum(len(m.aliases) for m in models)
    extra: dict[str, list[str]] = {m.id: list(m.aliases) for m in models}
    i = 0
    while total < target:
        m = models[i % len(models)]
        base = rng.choice(m.aliases or [m.name])
        variant = f"{base}-ft{i}-{rng.choice(['chat', 'instruct', 'gguf', 'awq', 'exl2'])}{i % 97}"
        extra[m.id].append(variant)
        total += 1
        i += 1
    inflated = [m.model_copy(update={"aliases": extra[m.id]}) for m in models]
    return _build(
        cat.data_dir,
        cat.fleet,
        inflated,
        PrecisionsFile(precisions=list(cat.precisions), kv_dtypes=list(cat.kv_dtypes)),
        list(cat.shapes),
        list(cat.faq),
        cat.messages,
        cat.price_books,
        cat.price_book,
        HardwareFile(cards=list(cat.owned_by_name.values())),
    )


def bench_fuzzy(cat: Catalog, n: int, rng: random.Random) -> dict[str, float]:
    words = []
    for _ in range(n):
        m = rng.choice(cat.models)
        w = rng.choice([m.name, *m.aliases[:3]]).lower()
        if rng.random() < 0.5 and len(w) > 4:  # a typo
            j = rng.randrange(len(w))
            w = w[:j] + w[j + 1 :]
        words.append(w)
    for w in words[:20]:
        match_models(cat, w, None)
    times = []
    for w in words:
        t = time.perf_counter_ns()
        match_models(cat, w, None)
        times.append((time.perf_counter_ns() - t) / 1e6)
    return {
        "n": n,
        "p50_ms": statistics.median(times),
        "p99_ms": pct(times, 99),
        "max_ms": max(times),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", type=int, default=2000)
    ap.add_argument("--aliases", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    rng = random.Random(args.seed)
    cat = load_catalog()
    # As every long-running process does after loading (bot.desk.desk_for): pay the first-use
    # costs (patterns, tables, imports) once, then keep the start-up objects out of the
    # collector's walks (settle_heap).
    warm_up(cat)
    gc.collect()
    gc.freeze()
    table = table_questions()
    # distinct questions only: a repeat would measure the number memos, not an answer
    questions = list(dict.fromkeys(table + generated(cat, 2 * args.questions, rng)))
    questions = questions[: args.questions]
    rng.shuffle(questions)
    seen = set(questions)
    warm = [q for q in generated(cat, 100, random.Random(args.seed + 1)) if q not in seen][:50]
    r = bench_ask(cat, questions, warm)
    print(
        f"machine: {platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}"
    )
    print(
        f"questions: {len(table)} from the query table + {r['n'] - min(len(table), r['n'])} generated"
    )
    print()
    print("| benchmark | n | p50 ms | p90 ms | p99 ms | max ms | answers/s | per CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| engine.ask, one core | {r['n']} | {r['p50_ms']:.3f} | {r['p90_ms']:.3f} | {r['p99_ms']:.3f} | {r['max_ms']:.2f} | {r['per_s']:.0f} | {r['cpu_per_s']:.0f} |"
    )
    base_aliases = sum(len(m.aliases) for m in cat.models)
    f1 = bench_fuzzy(cat, 1000, random.Random(args.seed))
    big = inflate(cat, args.aliases, random.Random(args.seed))
    n_big = sum(len(m.aliases) for m in big.models)
    f2 = bench_fuzzy(big, 1000, random.Random(args.seed))
    print(
        f"| fuzzy lookup, {base_aliases} aliases | {f1['n']} | {f1['p50_ms']:.3f} | | {f1['p99_ms']:.3f} | {f1['max_ms']:.2f} | | |"
    )
    print(
        f"| fuzzy lookup, {n_big} aliases | {f2['n']} | {f2['p50_ms']:.3f} | | {f2['p99_ms']:.3f} | {f2['max_ms']:.2f} | | |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
