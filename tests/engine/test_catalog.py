"""Broken data files are refused with a message naming the file, the entry and the field."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from engine import CatalogError, load_catalog
from engine.catalog import DEFAULT_DATA_DIR


@pytest.fixture
def data(tmp_path: Path) -> Path:
    dst = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, dst)
    return dst


def edit_yaml(path: Path, change: Callable[[dict], None]) -> None:  # type: ignore[type-arg]
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(raw)
    path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")


def refused(data: Path) -> str:
    with pytest.raises(CatalogError) as info:
        load_catalog(data)
    return str(info.value)


def test_shipped_data_loads() -> None:
    cat = load_catalog()
    assert len(cat.cards) == 15
    assert len(cat.models) >= 60
    assert cat.prices_as_of == "2026-09-01"


def test_missing_file(data: Path) -> None:
    (data / "cards.yaml").unlink()
    assert refused(data) == "cards.yaml: file is missing"


def test_not_yaml(data: Path) -> None:
    (data / "models.yaml").write_text("models:\n  - id: x\n   bad: [", encoding="utf-8")
    msg = refused(data)
    assert msg.startswith("models.yaml: not valid YAML at line")


def test_unknown_key_names_entry_and_field(data: Path) -> None:
    edit_yaml(data / "cards.yaml", lambda d: d["cards"][3].update(vram_gbs=80))
    assert refused(data) == (
        "cards.yaml, entry cards[3] (H100 SXM), field cards.vram_gbs: unknown key (check the spelling)"
    )


def test_missing_field(data: Path) -> None:
    edit_yaml(data / "cards.yaml", lambda d: d["cards"][0].pop("monthly_usd"))
    assert refused(data) == (
        "cards.yaml, entry cards[0] (MI300X), field cards.monthly_usd: required field is missing"
    )


def test_wrong_type(data: Path) -> None:
    edit_yaml(data / "models.yaml", lambda d: d["models"][2].update(layers="eighty"))
    msg = refused(data)
    assert msg.startswith("models.yaml, entry models[2] (llama-2-70b), field models.layers:")


def test_negative_price(data: Path) -> None:
    edit_yaml(data / "cards.yaml", lambda d: d["cards"][9].update(monthly_usd=-240))
    assert "entry cards[9] (A40), field cards.monthly_usd" in refused(data)


def test_duplicate_alias(data: Path) -> None:
    edit_yaml(data / "cards.yaml", lambda d: d["cards"][1]["aliases"].append("h100"))
    assert (
        refused(data)
        == "cards.yaml, entry H100 SXM, field aliases: alias 'h100' is also used by B200"
    )


def test_inconsistent_model(data: Path) -> None:
    edit_yaml(data / "models.yaml", lambda d: d["models"][0].update(kv_heads=7))
    assert (
        refused(data)
        == "models.yaml, entry llama-2-7b, field kv_heads: must divide attention_heads"
    )


def test_set_size_without_discount(data: Path) -> None:
    edit_yaml(data / "cards.yaml", lambda d: d["cards"][5].update(set_sizes=[2, 3]))
    assert refused(data) == "cards.yaml, entry A100 SXM, field set_sizes: 3 has no discount tier"


def test_unknown_region(data: Path) -> None:
    edit_yaml(data / "cards.yaml", lambda d: d["cards"][2].update(regions=["AMS-1"]))
    assert refused(data) == "cards.yaml, entry H200 SXM, field regions: unknown region AMS-1"


def test_price_book_unknown_card(data: Path) -> None:
    edit_yaml(data / "pricebook_hourly.yaml", lambda d: d["hourly_usd"].update(H300=9.0))
    assert refused(data) == "pricebook_hourly.yaml, entry H300, field hourly_usd: unknown card"


def test_message_missing_in_a_language(data: Path) -> None:
    edit_yaml(data / "messages" / "th.yaml", lambda d: d.pop("help.title"))
    assert refused(data) == "messages/th.yaml, entry help.title: message is missing"


def test_message_placeholder_mismatch(data: Path) -> None:
    edit_yaml(data / "messages" / "pl.yaml", lambda d: d.update({"mem.total": "Razem: {gbs} GB"}))
    assert refused(data) == "messages/pl.yaml, entry mem.total: placeholders differ from English"


def test_faq_topic_without_language(data: Path) -> None:
    edit_yaml(data / "faq.yaml", lambda d: d["topics"][0]["keywords"].pop("th"))
    assert refused(data) == "faq.yaml, entry compute_vram, field keywords.th: missing language"


def test_hourly_price_book_selects_its_cards() -> None:
    cat = load_catalog(price_book="hourly")
    assert {c.name for c in cat.cards} == {"B200", "L40S"}
    assert cat.card_by_name["L40S"].monthly_usd == pytest.approx(0.82 * 720)
    assert cat.prices_as_of == "2026-10-29"


def test_faq_numbers_follow_the_price_list(data: Path) -> None:
    """FAQ figures are computed at answer time: a new A40 price shows up in the answer."""
    from engine import ask

    before = ask("which gpu has the cheapest vram per gb", catalog=load_catalog(data)).text
    assert "A40: 48 GB for $240 a month, $5 per GB" in before
    edit_yaml(data / "cards.yaml", lambda d: d["cards"][9].update(monthly_usd=216))
    after = ask("which gpu has the cheapest vram per gb", catalog=load_catalog(data)).text
    assert "A40: 48 GB for $216 a month, $4.50 per GB" in after


def test_missing_adapter_message_names_the_adapter_file(data: Path) -> None:
    path = data / "messages" / "telegram.pl.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    key = sorted(raw)[0]
    edit_yaml(path, lambda d: d.pop(key))
    assert refused(data) == f"messages/telegram.pl.yaml, entry {key}: message is missing"


def test_catalog_has_120_sourced_models_with_native_precision(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The issue's bar: at least 120 models, each saying where its values were read and what
    its official checkpoint stores; `vram check-data` reports that count."""
    from bot.cli import main

    cat = load_catalog()
    assert len(cat.models) >= 120
    assert len({m.id for m in cat.models}) == len(cat.models)
    for m in cat.models:
        assert m.source.strip() and m.native_precision.source.strip(), m.id
        assert m.native_precision.dense in cat.precision_by_name, m.id
        assert m.native_precision.embeddings in cat.precision_by_name, m.id
        if m.native_precision.experts is not None:
            assert m.native_precision.experts in cat.precision_by_name, m.id
    assert main(["check-data"]) == 0
    out = capsys.readouterr().out
    assert f", {len(cat.models)} models, " in out
