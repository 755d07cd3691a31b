"""A "how many users?" after a fit answer that reached a setup ("and at 32k?": INT4 with an FP8
KV cache) is judged at that setup: it names the INT4 rung and its one user, never says only a
sub-4-bit format fits; and a users question whose answer is no user at the asked context
leads with the users, not "how far it stretches", in English, Polish and Thai."""

from __future__ import annotations

import pytest

from engine import Catalog, default_catalog
from tests.chat_support import chat as _chat


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return default_catalog()


CHATS = [
    ("en", ["does qwen2.5 32b fit on my 4090?", "and at 32k?", "how many users?"]),
    ("pl", ["czy qwen2.5 32b zmieści się na moim 4090?", "a przy 32k?", "ilu użytkowników?"]),
    ("th", ["qwen2.5 32b รันบน 4090 ของผมได้ไหม", "แล้วที่ 32k ล่ะ", "กี่คน"]),
]  # fmt: skip


@pytest.mark.parametrize(("lang", "texts"), CHATS)
def test_users_follow_up_keeps_the_int4_fp8_kv_setup(
    cat: Catalog, lang: str, texts: list[str]
) -> None:
    fit32, users = _chat(cat, *texts)[1:]
    assert fit32.lang == lang and fit32.fit is not None
    assert "INT4" in fit32.headline and "FP8" in fit32.headline  # the setup reached
    assert users.kind == "limit" and users.limit is not None
    assert users.request is not None and users.request.context_tokens == 32 * 1024
    best = users.limit.options[0]
    assert best.precision == "int4"
    assert best.max_batch == 0 and best.max_batch_kv_fp8 == 1  # one user, with an FP8 cache
    assert all(not o.precision.startswith("iq") for o in users.limit.options)
    assert "INT4" in users.headline and "FP8" in users.headline
    assert "IQ3" not in users.headline
    assert not any(n.code == "low_bits_limit" for n in users.caveats)
    lines = [line for s in users.sections for line in s.lines]
    assert any(line.startswith("INT4:") and "FP8" in line for line in lines)


def test_english_wording(cat: Catalog) -> None:
    users = _chat(cat, *CHATS[0][1])[2]
    assert users.headline == (
        "Qwen2.5 32B BF16 does not fit on RTX 4090. "
        "INT4 with an FP8 KV cache does: 1 at 32k context."
    )
    assert "Below 4 bits" not in users.text


@pytest.mark.parametrize(
    ("lang", "texts", "wrong"),
    [
        ("en", ["llama 3 8b on a 4090 at 128k?", "how many users?"], "how far it stretches"),
        ("th", ["llama 3 8b บน 4090 ที่ 128k ได้ไหม", "กี่คน"], "ขยายได้ไกลแค่ไหน"),
    ],
)
def test_users_question_with_no_user_at_the_context_reads_as_users(
    cat: Catalog, lang: str, texts: list[str], wrong: str
) -> None:
    users = _chat(cat, *texts)[-1]
    assert users.kind == "limit" and users.lang == lang and users.limit is not None
    assert users.limit.max_batch == 0 and users.limit.options
    assert wrong not in users.headline
    assert users.limit.options[0].precision.upper() in users.headline
    lines = [line for s in users.sections for line in s.lines]
    assert not any(line.endswith(": 0") for line in lines)  # no "most users at 128k: 0"
