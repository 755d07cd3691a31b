"""What to buy, or run at home: the verdict is a setup of cards a person can own (hardware.yaml
and the fleet's cards marked `desktop`), judged by physics, never a rental of a datacenter card;
the cheapest rental is one separate last line, and other questions are answered as before."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from engine import Answer, CatalogError, ask, context_of, load_catalog
from engine.catalog import DEFAULT_DATA_DIR, Catalog
from engine.kinds.buying import HOME_COUNTS
from engine.understand.asks import wants_to_buy

DATACENTER = ("MI300X", "H100", "H200", "B200", "A100", "L40S", "L4", "A40")
HOME = {"en": "At home:", "pl": "W domu:", "th": "ที่บ้าน:"}


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def desktop(cat: Catalog) -> set[str]:
    return {c.name for c in cat.cards if c.desktop} | set(cat.owned_by_name)


def check_verdict(a: Answer, cat: Catalog, lang: str) -> None:
    """A buy answer: the verdict setup is desktop cards, named first in the headline; no card
    of the datacenter fleet is the thing to buy; the rental is the section's last line."""
    assert a.kind == "fit" and a.leads_with == "buying", a.text
    assert a.lang == lang
    assert a.buying and a.buying[0].role == "verdict"
    names = desktop(cat)
    for o in a.buying:
        assert o.card in names and set(o.cards) <= names, o
        assert 1 <= o.count <= HOME_COUNTS[-1]
        assert o.headroom_gb >= 0
        if o.count == 1:  # a set's copied cache counts on every card: only one card adds up
            assert o.total_gb + o.headroom_gb == pytest.approx(o.vram_gb)
    v = a.buying[0]
    assert a.headline.startswith(HOME[lang]), a.headline
    assert v.card in a.headline
    buy_part = a.headline.split("(")[0]  # "At home: one RTX 6000 Ada / RTX A6000 "
    assert not any(re.search(rf"\b{d}\b", buy_part) for d in DATACENTER), a.headline
    assert a.fit is not None and a.fit.fits and a.fit.card == v.card
    assert a.fit.count == v.count and a.request is not None
    assert a.request.precision == v.precision
    section = a.sections[0].lines
    assert len(section) == len(a.buying) + (a.recommendation is not None)
    if a.recommendation is not None:  # the rental: the last line, said as a rental
        assert a.recommendation.card in section[-1] and "$" in section[-1]
        assert "$" not in "".join(section[:-1])  # no price beside a setup to buy
    assert a.alternatives == []
    assert any(n.code == "buy_physics" for n in a.caveats)


# (question, language, the verdict's count, its precision, its card's memory in GB)
CASES = [
    ("which gpu should i buy for 70b at home", "en", 1, "int4", 48),
    ("which card to buy for qwen3 32b", "en", 1, "bf16", 96),
    ("what should I buy to run llama 3.1 8b locally", "en", 1, "bf16", 32),
    ("build a home rig for deepseek r1", "en", 4, "int4", 96),
    ("best gpu for running 70b at home with 32k context", "en", 1, "fp8", 96),
    ("what should i buy for llama 70b bf16", "en", 2, "bf16", 96),
    ("gpu to buy for gpt-oss 120b", "en", 1, "mxfp4", 96),
    ("run qwen 7b on my pc", "en", 1, "bf16", 24),
    ("purchase hardware for llama 405b", "en", 3, "q4_k_m", 96),
    ("home lab for mixtral 8x22b", "en", 1, "q4_k_m", 96),
    ("jaką kartę kupić do 70b", "pl", 1, "int4", 48),
    ("co kupić żeby odpalić qwen 32b w domu", "pl", 1, "bf16", 96),
    ("co kupić do llama 3.1 8b", "pl", 1, "bf16", 32),
    ("jaką kartę graficzną kupić do qwen3 32b w int4", "pl", 1, "int4", 32),
    ("na czym uruchomię lokalnie gemma 3 27b", "pl", 1, "bf16", 96),
    ("ควรซื้อการ์ดจออะไรสำหรับ 70b", "th", 1, "int4", 48),
    ("รัน qwen3 32b ที่บ้าน ต้องใช้การ์ดอะไร", "th", 1, "bf16", 96),
    ("ควรซื้อ gpu อะไรรัน llama 3.1 8b", "th", 1, "bf16", 32),
]


@pytest.mark.parametrize(("question", "lang", "count", "precision", "gb"), CASES)
def test_a_buy_question_names_desktop_cards(
    cat: Catalog, question: str, lang: str, count: int, precision: str, gb: float
) -> None:
    a = ask(question, catalog=cat)
    check_verdict(a, cat, lang)
    v = a.buying[0]
    assert (v.count, v.precision, v.vram_gb) == (count, precision, gb), a.headline
    assert v.precision.upper() in a.headline
    if v.decode_tok_s is not None:  # the fit's own decode ceiling on the verdict's setup
        assert v.decode_tok_s == pytest.approx(a.decode_tok_s or 0)


def test_seventy_b_at_home_in_four_bits_with_the_other_setups(cat: Catalog) -> None:
    """70B does not fit one desktop card as it ships: the fewest cards in 4-bit, then two
    24 GB cards, the 96 GB workstation card at its heaviest roomy rung, and BF16 on two."""
    a = ask("which gpu should i buy for 70b at home", catalog=cat)
    roles = [(o.role, o.count, o.vram_gb, o.precision) for o in a.buying]
    assert roles == [
        ("verdict", 1, 48, "int4"),
        ("pair", 2, 24, "int4"),
        ("workstation", 1, 96, "fp8"),
        ("shipped", 2, 96, "bf16"),
    ]
    assert a.buying[0].cards[:2] == ["RTX 6000 Ada", "RTX A6000"]
    assert a.buying[1].cards[:2] == ["RTX 4090", "RTX 3090"]
    assert "In BF16 it needs 145 GB" in a.headline
    assert "8.3 GB left" in a.headline and "about 27 tok/s" in a.headline
    assert a.recommendation is not None and a.recommendation.card == "A40"
    assert a.sections[0].lines[-1] == "Or rent instead: 1× A40 at $240/month (INT4)"


def test_an_asked_precision_is_kept_on_up_to_four_cards(cat: Catalog) -> None:
    a = ask("what should i buy for llama 70b bf16", catalog=cat)
    assert (a.buying[0].count, a.buying[0].card) == (2, "RTX PRO 6000 Blackwell")
    assert "more than" not in a.headline  # held as asked: no lighter precision said


def test_nothing_a_desktop_holds_says_so_and_rents(cat: Catalog) -> None:
    a = ask("buy gpu for kimi k2", catalog=cat)
    assert a.leads_with == "buying" and a.buying == []
    assert a.headline.startswith("No desktop setup of up to 4 cards holds Kimi K2")
    assert a.sections[0].lines[0].startswith("Or rent instead:")
    assert not any(n.code == "fp8_cards" for n in a.caveats)


def test_a_follow_up_refines_the_setup_chosen(cat: Catalog) -> None:
    a = ask("which gpu should i buy for 70b at home", catalog=cat)
    b = ask("and at 32k?", catalog=cat, previous=context_of(a))
    assert b.kind == "fit" and b.fit is not None and b.fit.card == "RTX 6000 Ada"
    assert b.request is not None and b.request.context_tokens == 32768


@pytest.mark.parametrize(
    "question",
    [
        "70b int4 128k",
        "cheapest card for 70b",
        "llama 3.1 70b fp8 32k",
        "how many h100 for deepseek v3",
        "qwen3 32b on a100",
        "buy or rent llama 70b?",  # renting is said too: the fleet's answer
    ],
)
def test_rental_questions_are_unchanged(cat: Catalog, question: str) -> None:
    a = ask(question, catalog=cat)
    assert a.buying == [] and a.leads_with is None
    assert not any(h in a.headline for h in HOME.values())


def test_rental_answers_keep_their_datacenter_pick(cat: Catalog) -> None:
    a = ask("70b int4 128k", catalog=cat)
    assert a.kind == "sizing" and a.recommendation is not None
    b = ask("cheapest card for 70b", catalog=cat)
    assert b.kind == "sizing" and b.recommendation is not None
    assert b.recommendation.card == "MI300X"


def test_named_hardware_stays_a_fit_on_it(cat: Catalog) -> None:
    """A card named with the buy words is judged on that card, as before."""
    for q in ("should i buy a 4090 for 70b", "does qwen3 32b fit on my 4080"):
        a = ask(q, catalog=cat)
        assert a.kind == "fit" and a.buying == [] and a.leads_with is None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("which gpu should i buy for 70b at home", True),
        ("home rig for 70b", True),
        ("llama 8b on my pc", True),
        ("na moim komputerze qwen 8b", True),
        ("รัน 70b ที่บ้าน", True),
        ("70b int4 128k", False),
        ("my h100 for 70b", False),
        ("buy or rent 70b", False),
        ("cheapest card for 70b", False),
    ],
)
def test_the_buy_words(text: str, said: bool) -> None:
    assert wants_to_buy(text) is said


def test_the_desktop_flag_is_data(cat: Catalog) -> None:
    """The fleet's desktop cards are marked in cards.yaml, rentable singly; no datacenter
    card is one."""
    marked = {c.name for c in cat.cards if c.desktop}
    assert marked == {"RTX 3090", "RTX 4090", "RTX 5090", "RTX A5000", "RTX A6000", "RTX 6000 Ada"}
    assert all(cat.card_by_name[n].min_count == 1 for n in marked)


def _desktop_b200(raw: dict) -> None:  # type: ignore[type-arg]
    next(c for c in raw["cards"] if c["name"] == "B200")["desktop"] = True


def _desktop_yes(raw: dict) -> None:  # type: ignore[type-arg]
    raw["cards"][0]["desktop"] = "sometimes"


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (_desktop_b200, "cards.yaml, entry B200, field desktop: a desktop card must be rentable"),
        (_desktop_yes, "desktop"),
    ],
)
def test_a_bad_desktop_flag_is_refused(tmp_path: Path, change: object, said: str) -> None:
    dst = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, dst)
    path = dst / "cards.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(raw)  # type: ignore[operator]
    path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalog(dst)
    assert said in str(info.value)
