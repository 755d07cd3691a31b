"""Answers about Apple Silicon Macs: the machine named, the verdict judged against the memory
its GPU may use by default, limits at that share, and "q4" read as what a Mac runs."""

from __future__ import annotations

import pytest

from engine import Answer, Catalog, ask, default_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return default_catalog()


def _assumptions(a: Answer) -> list[str]:
    return [n.code for n in a.assumptions]


@pytest.mark.parametrize(
    ("text", "asked", "gguf"),
    [
        ("macbook pro m3 max 36gb - can it run mixtral 8x7b q4?", "int4", "q4_k_m"),
        ("llama 3.1 8b 8bit on m4 mac mini 16gb", "int8", "q8_0"),
        ("czy mac studio m3 ultra 192gb uciągnie llama 3.1 70b w int4?", "int4", "q4_k_m"),
        ("mac mini m4 24gb รัน qwen3 8b 4bit ได้ไหม", "int4", "q4_k_m"),
    ],
)
def test_a_loose_precision_on_a_mac_is_the_gguf_it_runs(
    cat: Catalog, text: str, asked: str, gguf: str
) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "fit" and a.request is not None
    assert a.request.precision == gguf
    assert "mac_precision" in _assumptions(a)
    assert gguf.upper() in a.text and "MLX" in a.text


def test_mixtral_q4_on_a_mac_weighs_q4_k_m(cat: Catalog) -> None:
    a = ask("macbook pro m3 max 36gb - can it run mixtral 8x7b q4?", catalog=cat)
    assert a.memory_gb is not None
    assert 28.0 < a.memory_gb["weights"] < 28.6  # 46.7B at 4.84 bits, not INT4's 23.4 GB


@pytest.mark.parametrize(
    "text", ["mixtral 8x7b q4 on an a40", "mixtral 8x7b q4 in 36gb", "llama 3.1 8b 8bit on a 4090"]
)
def test_a_loose_precision_elsewhere_stays_as_it_was(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    assert a.request is not None and a.request.precision in ("int4", "int8")
    assert "mac_precision" not in _assumptions(a)


def _first(a: Answer) -> str:
    from bot.render.short import short_lines

    return short_lines(a, default_catalog())[0]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("macbook pro m3 max 36gb - can it run mixtral 8x7b q4?", "MacBook Pro M3 Max"),
        ("llama 3.3 70b q4 on m2 max 96gb", "Mac M2 Max"),
        ("qwen3 8b on m4 mac mini 16gb", "Mac mini M4"),
        ("czy mac studio m3 ultra 192gb uciągnie llama 3.1 70b q8?", "Mac Studio M3 Ultra"),
    ],
)
def test_the_answer_names_the_mac_never_a_bare_amount(cat: Catalog, text: str, name: str) -> None:
    a = ask(text, catalog=cat)
    assert a.fit is not None and a.fit.mac == name
    gb = f"{a.fit.vram_gb:.0f} GB"
    assert a.fit.card.startswith(name) and gb in a.fit.card
    assert name in a.headline and name in _first(a)
    assert f"1× {gb}" not in _first(a) and f"1× {name}" not in _first(a)


def test_a_fit_past_the_default_share_fits_only_after_raising_the_limit(cat: Catalog) -> None:
    a = ask("macbook pro m3 max 36gb - can it run mixtral 8x7b q4?", catalog=cat)
    f = a.fit
    assert f is not None and a.memory_gb is not None
    need = a.memory_gb["total"]
    assert f.gpu_share_gb == 27.0 and f.vram_gb == 36.0 and need > 27.0
    assert f.fits and f.raise_limit_mb is not None
    assert need <= f.raise_limit_mb / 1024 <= 36 - 2  # it loads, and macOS keeps 2 GB
    first = _first(a)
    assert first.startswith("⚠️") and "iogpu.wired_limit_mb=" + str(f.raise_limit_mb) in first
    assert a.headline.startswith("Yes, after raising the GPU limit")
    assert "mac_raise_limit" in [c.code for c in a.caveats]
    pl = ask("czy macbook pro m3 max 36gb uciągnie mixtral 8x7b q4?", catalog=cat)
    assert pl.headline.startswith("Tak, po podniesieniu limitu GPU")
    th = ask("macbook pro m3 max 36gb รัน mixtral 8x7b q4 ได้ไหม", catalog=cat)
    assert th.headline.startswith("ได้ หลังปรับขีดจำกัด GPU")


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("Qwen3 32B on my M4 Pro 48GB in Q4_K_M at 32k?", 36.0),
        ("llama 3.3 70b q4 on m2 max 96gb", 72.0),
    ],
)
def test_the_room_is_judged_against_the_default_share(
    cat: Catalog, text: str, share: float
) -> None:
    a = ask(text, catalog=cat)
    f = a.fit
    assert f is not None and a.memory_gb is not None and f.fits and f.raise_limit_mb is None
    assert f.gpu_share_gb == share
    assert abs(f.headroom_gb - (share - a.memory_gb["total"])) < 1e-9
    assert "for the GPU by default" in a.headline and "mac_gpu_share" in [c.code for c in a.caveats]


def test_the_users_are_counted_at_the_share_and_after_raising_it(cat: Catalog) -> None:
    a = ask("Qwen3 32B on my M4 Pro 48GB in Q4_K_M at 32k?", catalog=cat)
    f = a.fit
    assert f is not None
    assert f.max_batch == 1  # (36 - 19.8 - 2) / 8.59 GB per 32k user
    assert f.raised_max_batch == 3  # (48 - 19.8 - 2) / 8.59 once the limit is raised
    assert "only one user at 32k" in a.text and "whole 48 GB" in a.text


@pytest.mark.parametrize("lang", ["en", "pl", "th"])
def test_a_limit_on_a_mac_is_at_the_share_with_the_raised_figure(cat: Catalog, lang: str) -> None:
    text = {
        "en": "how many users can qwen3 32b q4_k_m serve on an m4 pro 48gb at 32k",
        "pl": "ilu użytkowników obsłuży qwen3 32b q4_k_m na m4 pro 48gb przy 32k",
        "th": "qwen3 32b q4_k_m บน m4 pro 48gb รองรับผู้ใช้ได้กี่คนที่ 32k",
    }[lang]
    a = ask(text, catalog=cat)
    lim = a.limit
    assert a.kind == "limit" and a.lang == lang and lim is not None
    assert (lim.max_batch, lim.raised_batch, lim.gpu_share_gb) == (1, 3, 36.0)
    assert lim.engine_batch is None  # no vLLM 90% plan on a Mac
    assert "Mac M4 Pro" in a.headline and "iogpu.wired_limit_mb" in a.text


def test_a_heavier_precision_after_raising_the_limit_is_named(cat: Catalog) -> None:
    a = ask("llama 3.1 70b on my 64gb mac", catalog=cat)
    f = a.fit
    assert f is not None and f.best is not None and not f.fits
    assert f.best.precision == "q4_k_m" and f.best.total_gb <= 48  # loads as it comes
    over = [c for c in a.caveats if c.code == "mac_gpu_share_over"]
    assert over and "Q5_K_M" in over[0].text and "iogpu.wired_limit_mb=" in over[0].text
    assert all(o.precision not in ("int4", "int8") for o in f.options)  # no CUDA-only rungs


def test_a_follow_up_stays_on_the_mac(cat: Catalog) -> None:
    from engine import context_of

    before = ask("70b on m2 ultra 192gb", catalog=cat)
    a = ask("and at 128k?", catalog=cat, previous=context_of(before))
    assert a.fit is not None and a.fit.mac == "Mac M2 Ultra" and a.fit.gpu_share_gb == 144.0


def test_a_raised_limit_is_what_the_headroom_and_limits_are_judged_on(cat: Catalog) -> None:
    """The command (wired_limit_mb=N) and "X GB to spare, up to K context" describe one
    setting: the figures are on the N MiB the command gives the GPU, not the whole memory."""
    a = ask("70b fp16 on m2 ultra 192gb", catalog=cat)
    f = a.fit
    assert f is not None and a.memory_gb is not None and f.raise_limit_mb is not None
    limit_gb = f.raise_limit_mb * 2**20 / 1e9
    assert abs(f.headroom_gb - (limit_gb - a.memory_gb["total"])) < 1e-9
    assert f.headroom_gb < 192 - a.memory_gb["total"] - 20  # not the whole memory's spare
    assert f.vram_gb == 192.0  # the Mac is still named by its whole memory
