"""Cards people own that we do not rent (data/hardware.yaml): read in questions, judged by
physics (fit.offered false, the cheapest rental a separate line), and the data file refused
with the file, the entry and the field named when it is wrong."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import Answer, CatalogError, ask, load_catalog
from engine.catalog import DEFAULT_DATA_DIR, norm


def _text(a: Answer) -> str:
    lines = [a.headline or ""]
    for s in a.sections:
        lines.extend(s.lines)
    lines.extend(n.text for n in a.caveats)
    return "\n".join(lines)


def test_every_owned_card_is_sourced_and_apart_from_the_fleet() -> None:
    cat = load_catalog()
    assert len(cat.owned_by_name) >= 20
    fleet = set(cat.card_alias)
    for card in cat.owned_by_name.values():
        assert card.source.strip()
        assert card.vram_gb > 0 and card.bandwidth_gbps > 0
        for alias in (card.name, *card.aliases):
            assert norm(alias) not in fleet, alias
            assert cat.card(alias) is None and cat.owned(alias) is card


@pytest.mark.parametrize(
    ("q", "lang"),
    [
        ("will qwen3-coder-30b run on a 4080", "en"),
        ("czy qwen3-coder-30b zadziała na 4080?", "pl"),
        ("qwen3-coder-30b รันบน 4080 ได้ไหม", "th"),
    ],
)
def test_a_4080_is_a_card_not_a_context(q: str, lang: str) -> None:
    a = ask(q)
    assert a.lang == lang
    assert a.kind == "fit" and a.fit is not None and a.request is not None
    assert a.request.context_tokens != 4080
    assert a.fit.card == "RTX 4080" and a.fit.vram_gb == 16
    assert a.fit.offered is False and a.fit.monthly_usd is None
    assert a.fit.fits is False  # BF16 of a 30B model is far over 16 GB
    # the ladder still runs on the owned card, and a rental that does the job is separate
    assert a.fit.options and all(o.total_gb > 0 for o in a.fit.options)
    assert a.recommendation is not None and a.recommendation.card in load_catalog().card_by_name
    assert "16 GB" in _text(a).replace("16,0", "16")


def test_owned_card_fit_uses_its_own_bandwidth_and_fp8() -> None:
    cat = load_catalog()
    a = ask("llama 3.1 8b int4 on a 4060 ti 16gb")
    assert a.fit is not None and a.fit.card == "RTX 4060 Ti 16GB" and a.fit.fits
    assert a.fit.offered is False
    assert a.fit.rental is not None and a.fit.rental.card in cat.card_by_name
    ceiling = a.fit.decode_tok_s
    assert ceiling is not None
    weights = a.memory_gb["weights"] if a.memory_gb else 0
    assert ceiling == pytest.approx(288 / weights, rel=0.05)  # 288 GB/s over the weights read
    # FP8 runs on Ada, not on Ampere
    ada = ask("llama 3.1 8b fp8 on a 4070")
    amp = ask("llama 3.1 8b fp8 on a 3070")
    assert ada.fit is not None and any(o.precision == "fp8" for o in ada.fit.options)
    assert amp.fit is not None and all(o.precision != "fp8" for o in amp.fit.options)


def test_two_owned_cards_are_judged_as_a_set() -> None:
    a = ask("llama 3.1 8b on 2x 3060")
    assert a.fit is not None and a.fit.card == "RTX 3060 12GB" and a.fit.count == 2
    assert a.fit.vram_gb == 24 and a.fit.fits and a.fit.offered is False
    assert "(0 GB/s)" not in _text(a) and " 0 GB/s" not in _text(a)


def test_an_owned_card_that_is_too_small_names_more_of_it() -> None:
    a = ask("qwen3 32b on a 7900 xtx")
    assert a.fit is not None and a.fit.card == "Radeon RX 7900 XTX"
    cards = [c for c in a.fit.changes if c.change == "cards"]
    assert cards and all(c.count > 1 for c in cards)
    assert all(c.headroom_gb >= 0 for c in a.fit.changes)


def test_owned_card_limit_question() -> None:
    a = ask("how many users on a 5080 for qwen3 8b int4")
    assert a.kind == "limit" and a.limit is not None
    assert a.limit.card == "RTX 5080" and a.limit.max_batch > 1


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "We do not rent the RTX 4080"), ("pl", "Nie wynajmujemy karty RTX 4080")],
)
def test_the_answer_says_we_do_not_rent_it(lang: str, words: str) -> None:
    a = ask("qwen3 14b on a 4080", lang)
    assert words in _text(a)


def test_the_rented_cards_are_still_rented() -> None:
    a = ask("qwen3 8b on a 4090")
    assert a.fit is not None and a.fit.card == "RTX 4090" and a.fit.offered is True


def _edit(tmp_path: Path, fn: Any) -> Path:
    data = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, data)
    path = data / "hardware.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    fn(raw)
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    return data


@pytest.mark.parametrize(
    ("fn", "fragments"),
    [
        (lambda d: d["cards"][0]["aliases"].append("4090"), ("RTX 3060 12GB", "aliases", "4090")),
        (lambda d: d["cards"][1]["aliases"].append("3060"), ("RTX 3070", "aliases", "3060")),
        (lambda d: d["cards"][0].update(source=" "), ("RTX 3060 12GB", "source")),
        (lambda d: d["cards"][2].update(vram_gb=0), ("RTX 3080 10GB", "vram_gb")),
        (lambda d: d["cards"][3].pop("bandwidth_gbps"), ("RTX 3080 12GB", "bandwidth_gbps")),
        (lambda d: d["cards"][0].update(price=1), ("RTX 3060 12GB", "unknown key")),
        (lambda d: d["cards"].pop(), ("expect_cards",)),
    ],
)
def test_a_bad_hardware_file_is_refused_naming_the_place(
    tmp_path: Path, fn: Any, fragments: tuple[str, ...]
) -> None:
    with pytest.raises(CatalogError) as info:
        load_catalog(_edit(tmp_path, fn))
    message = str(info.value)
    assert message.startswith("hardware.yaml"), message
    for f in fragments:
        assert f in message, message
