"""Follow-ups after a question about one's own hardware stay on it: "does qwen2.5 32b fit on my
4090?", then "how many users at 16k?", "and at 32k?", "what about 4 users?" are about that
4090, not a rental; so too for a card we do not rent, a Mac and a rig of different cards,
in English, Polish and Thai, and through the stored conversation the bots keep."""

from __future__ import annotations

import pytest

from engine import Answer, Catalog, context_of, default_catalog
from tests.chat_support import chat as _chat


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return default_catalog()


def _hardware(a: Answer) -> str | None:
    if a.kind == "limit":
        return a.limit.card if a.limit is not None else None
    return a.fit.card if a.fit is not None else None


CHATS = [
    (
        "en",
        "RTX 4090",
        ["does qwen2.5 32b fit on my 4090?", "how many users at 16k?", "and at 32k?",
         "what about 4 users?", "how many users at 16k?"],
    ),
    (
        "pl",
        "RTX 4090",
        ["czy qwen2.5 32b zmieści się na moim 4090?", "ilu użytkowników przy 16k?",
         "a przy 32k?", "a dla 4 użytkowników?"],
    ),
    (
        "th",
        "RTX 4090",
        ["qwen2.5 32b รันบน 4090 ของผมได้ไหม", "ได้กี่คนที่ 16k", "แล้วที่ 32k ล่ะ",
         "ถ้าผู้ใช้ 4 คนล่ะ"],
    ),
    (
        "en",
        "Radeon RX 7900 XTX",
        ["does qwen2.5 32b fit on my 7900 xtx?", "how many users at 16k?", "and at 32k?",
         "what about 4 users?", "how many users at 16k?"],
    ),
    (
        "en",
        "RTX 3090 + RTX 3080 10GB",
        ["does qwen2.5 32b fit on my 3090 + 3080?", "how many users at 16k?", "and at 32k?",
         "what about 4 users?"],
    ),
    (
        "pl",
        "RTX 3090 + RTX 3080 10GB",
        ["czy qwen2.5 32b zmieści się na moim 3090 + 3080?", "ilu użytkowników przy 16k?",
         "a przy 32k?"],
    ),
]  # fmt: skip


@pytest.mark.parametrize("stored", [False, True])
@pytest.mark.parametrize(("lang", "hw", "texts"), CHATS)
def test_follow_ups_stay_on_the_askers_hardware(
    cat: Catalog, lang: str, hw: str, texts: list[str], stored: bool
) -> None:
    answers = _chat(cat, *texts, stored=stored)
    for text, a in zip(texts, answers, strict=True):
        assert a.lang == lang, text
        assert a.kind in ("fit", "limit"), (text, a.kind, a.headline)
        assert _hardware(a) == hw, (text, a.headline)
        assert a.request is not None and a.request.model is not None
        assert a.request.model.id == "qwen2.5-32b"
        assert hw in a.headline
    users = [a for a, t in zip(answers, texts, strict=True) if "16k" in t]
    assert users and all(a.kind == "limit" and a.request is not None for a in users)
    assert all(a.request is not None and a.request.context_tokens == 16384 for a in users)
    assert answers[2].request is not None and answers[2].request.context_tokens == 32768


def test_a_rig_limit_names_the_rig_without_a_count(cat: Catalog) -> None:
    """ "How many users" on "my 3090 + 3080": the rig as one, not "2× RTX 3090 + ..."."""
    _, b = _chat(cat, "does qwen2.5 32b fit on my 3090 + 3080?", "how many users at 16k?")
    assert b.limit is not None and b.limit.card == "RTX 3090 + RTX 3080 10GB"
    assert "2× RTX 3090" not in b.text


def test_a_mac_stays_a_mac_through_a_limit(cat: Catalog) -> None:
    texts = ["does qwen2.5 32b fit on my mac studio 64gb?", "how many users at 16k?",
             "and at 32k?", "what about 4 users?", "ilu użytkowników przy 16k?"]  # fmt: skip
    answers = _chat(cat, *texts, stored=True)
    for a in answers:  # judged on the Mac's GPU share each time, the Mac named
        hw = a.limit if a.kind == "limit" else a.fit
        assert hw is not None and hw.gpu_share_gb == 48, a.headline
        assert hw.mac == "Mac Studio" and "Mac Studio" in a.text
    lim = answers[1].limit
    assert lim is not None and lim.vram_gb == 64 and lim.mac == "Mac Studio"
    assert lim.gpu_share_gb == 48
    assert answers[2].fit is not None and answers[2].fit.gpu_share_gb == 48
    assert answers[4].kind == "limit" and answers[4].lang == "pl"


def test_a_limit_on_a_card_keeps_no_plain_amount(cat: Catalog) -> None:
    """limit.vram_gb is for a plain amount (a Mac's whole memory) only."""
    _, b = _chat(cat, "does qwen2.5 32b fit on my 4090?", "how many users at 16k?")
    assert b.limit is not None and b.limit.vram_gb is None and b.limit.mac is None
    ctx = context_of(b)
    assert ctx is not None and ctx.pick_card == "RTX 4090" and ctx.vram_gb is None
    j = b.to_json()["limit"]
    assert isinstance(j, dict) and "vram_gb" in j and "mac" in j
