"""A Mac's "what can I run" list is judged on the memory its GPU may use by default (75% of
the unified memory), as a Mac's fit answer is, and says so in its heading; what loads only
after raising the limit is a note, never a row."""

from __future__ import annotations

import pytest

from engine import Catalog, ask, context_of, default_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return default_catalog()


@pytest.mark.parametrize(
    ("text", "lang", "heading"),
    [
        (
            "mac studio 128gb what can i run",
            "en",
            "What fits in a 128 GB Mac Studio (96 GB for the GPU by default)",
        ),
        (
            "co uruchomię na mac studio 128gb",
            "pl",
            "Co zmieści się na Mac Studio z 128 GB (domyślnie 96 GB dla GPU)",
        ),
        (
            "mac studio 128gb รันอะไรได้บ้าง",
            "th",
            "โมเดลที่ใส่ได้บน Mac Studio 128 GB (ค่าเริ่มต้นให้ GPU ใช้ 96 GB)",
        ),
    ],
)
def test_a_mac_list_is_judged_on_the_gpu_share(
    cat: Catalog, text: str, lang: str, heading: str
) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "capacity" and a.lang == lang
    assert a.headline == heading
    f = a.fit
    assert f is not None and f.vram_gb == 128 and f.gpu_share_gb == 96 and f.mac == "Mac Studio"
    assert a.budget and all(r.need_gb <= 96 for r in a.budget)
    # the rows the whole memory held before (MiniMax-M2.7 at 119 GB, Qwen3-VL 235B at 122 GB)
    assert not any(r.need_gb > 96 for r in a.budget)
    assert "mac_gpu_share" in [c.code for c in a.caveats]
    # in what a Mac runs: GGUF (or the release's own MXFP4), never INT4 or FP8 kernels
    assert {r.precision for r in a.budget} <= {"bf16", "q8_0", "q4_k_m", "mxfp4"}
    assert "Q4_K_M" in a.text and " in INT4" not in a.text and " w INT4" not in a.text


def test_the_list_agrees_with_the_mac_fit_answer(cat: Catalog) -> None:
    """The biggest row of the list fits the Mac as its fit answer says; the model the note
    names loads there only after raising the limit, as the fit answer says too."""
    a = ask("what can i run on my mac studio 192gb?", catalog=cat)
    assert a.fit is not None and a.fit.gpu_share_gb == 144
    top = a.budget[0]
    fit = ask(f"does {top.model} {top.precision} fit on a mac studio 192gb", catalog=cat)
    assert fit.fit is not None and fit.fit.fits and fit.fit.raise_limit_mb is None
    raised = next(c for c in a.caveats if c.code == "mac_list_raised")
    assert "Qwen3-VL 235B-A22B Instruct in Q4_K_M" in raised.text
    assert "iogpu.wired_limit_mb=" in raised.text and "<MB>" not in raised.text
    over = ask("does qwen3-vl 235b-a22b instruct q4_k_m fit on a mac studio 192gb", catalog=cat)
    assert over.fit is not None and over.fit.raise_limit_mb is not None
    assert f"iogpu.wired_limit_mb={over.fit.raise_limit_mb}" in raised.text


def test_the_raised_limit_note_names_only_a_current_model(cat: Catalog) -> None:
    """128 GB: no current model needs more than the 96 GB share and fits the whole memory
    (the older Falcon 180B would), so there is no such note."""
    a = ask("mac studio 128gb what can i run", catalog=cat)
    assert "mac_list_raised" not in [c.code for c in a.caveats]


def test_plain_memory_is_still_judged_whole(cat: Catalog) -> None:
    a = ask("what fits in 128gb", catalog=cat)
    assert a.fit is not None and a.fit.gpu_share_gb is None and a.fit.mac is None
    assert a.headline == "What fits in 128 GB of VRAM"
    assert any(r.need_gb > 96 for r in a.budget)


def test_a_mac_list_follow_up_stays_on_the_mac_share(cat: Catalog) -> None:
    a = ask("mac studio 128gb what can i run", catalog=cat)
    b = ask("and at 32k?", catalog=cat, previous=context_of(a))
    assert b.kind == "capacity" and b.fit is not None and b.fit.gpu_share_gb == 96
    assert b.headline.startswith("What fits in a 128 GB Mac (96 GB for the GPU by default)")
    assert "32k" in b.headline and all(r.need_gb <= 96 for r in b.budget)
    c = ask("a dla 4 użytkowników?", catalog=cat, previous=context_of(b))
    assert c.lang == "pl" and c.fit is not None and c.fit.gpu_share_gb == 96
    assert all(r.need_gb <= 96 and r.batch == 4 for r in c.budget)
