"""Every kind of broken data file is refused with a message naming the place.

Kinds: missing, empty, not YAML, wrong top-level type, unknown key, missing field, wrong type,
duplicate id/alias, bad cross-reference, across cards.yaml, models.yaml, precisions.yaml,
shapes.yaml, faq.yaml, pricebook_hourly.yaml and messages/*.yaml. tests/engine/test_catalog.py
pins the exact wording of a few cases; this covers the rest of the grid (no case repeats one
there). Each case names what the message must start with (the file, as a path under data/) and
what it must contain (the entry and the field, where there is one).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr

from bot.desk import Desk
from bot.settings import Settings
from bot.web.app import create_app, reload_logged
from engine import CatalogError, load_catalog
from engine.catalog import DEFAULT_DATA_DIR

Edit = Callable[[Path], None]


def text(relpath: str, body: str) -> Edit:
    def edit(data: Path) -> None:
        (data / relpath).write_text(body, encoding="utf-8")

    return edit


def remove(relpath: str) -> Edit:
    def edit(data: Path) -> None:
        (data / relpath).unlink()

    return edit


def change(relpath: str, fn: Callable[[Any], Any]) -> Edit:
    def edit(data: Path) -> None:
        path = data / relpath
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        fn(raw)
        path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), "utf-8")

    return edit


def seq(*edits: Edit) -> Edit:
    def edit(data: Path) -> None:
        for e in edits:
            e(data)

    return edit


def cut_cards(keep: int, *, drop_count: bool = False) -> Edit:
    """cards.yaml cut at an entry boundary, as a half-copied or half-written file ends."""

    def edit(data: Path) -> None:
        path = data / "cards.yaml"
        head, *entries = path.read_text(encoding="utf-8").split("\n  - name: ")
        if drop_count:
            head = re.sub(r"(?m)^expect_cards: \d+\n", "", head)
        path.write_text("\n  - name: ".join([head, *entries[:keep]]) + "\n", encoding="utf-8")

    return edit


def latin1(relpath: str) -> Edit:
    """The file re-saved in a legacy 8-bit encoding by an editor: no longer UTF-8."""

    def edit(data: Path) -> None:
        path = data / relpath
        body = path.read_text(encoding="utf-8")
        path.write_bytes(
            body.replace("\n", "\n# café\n", 3).encode("utf-8").replace("é".encode(), b"\xe9")
        )

    return edit


def first(d: dict[str, Any], key: str) -> dict[str, Any]:
    item: dict[str, Any] = d[key][0]
    return item


@dataclass(frozen=True)
class Case:
    id: str
    edit: Edit
    starts: str  # the file, as named in the message
    has: tuple[str, ...] = ()  # entry / field / problem fragments
    bug: str | None = None  # a known gap: strict xfail with this reason


def dup_model_alias(d: dict[str, Any]) -> None:
    d["models"][1]["aliases"].append(d["models"][0]["aliases"][0])


CASES = [
    # cut short, or not UTF-8
    Case(
        "cards.yaml cut at an entry boundary",
        cut_cards(7),
        "cards.yaml, field cards: 7 entries but expect_cards says 15",
    ),
    Case(
        "cards.yaml count not a number",
        change("cards.yaml", lambda d: d.update(expect_cards="fifteen")),
        "cards.yaml, field expect_cards: must be a whole number",
    ),
    *[
        Case(f"{f} not utf-8", latin1(f), f"{f}: not valid UTF-8 at line 2")
        for f in ("cards.yaml", "models.yaml", "faq.yaml", "messages/pl.yaml")
    ],
    # missing
    Case("models missing", remove("models.yaml"), "models.yaml: file is missing"),
    Case("precisions missing", remove("precisions.yaml"), "precisions.yaml: file is missing"),
    Case("shapes missing", remove("shapes.yaml"), "shapes.yaml: file is missing"),
    Case("faq missing", remove("faq.yaml"), "faq.yaml: file is missing"),
    Case(
        "pricebook missing",
        remove("pricebook_hourly.yaml"),
        "pricebook_hourly.yaml: file is missing",
    ),
    Case(
        "messages/en missing",
        remove("messages/en.yaml"),
        "messages/en.yaml: file is missing",
    ),
    Case(
        "messages/telegram.pl missing",
        remove("messages/telegram.pl.yaml"),
        "messages/telegram.pl.yaml: file is missing",
    ),
    # empty
    *[
        Case(f"{f} empty", text(f, ""), f"{f}: top level must be a mapping")
        for f in (
            "cards.yaml",
            "models.yaml",
            "precisions.yaml",
            "shapes.yaml",
            "faq.yaml",
            "pricebook_hourly.yaml",
            "messages/th.yaml",
            "messages/discord.en.yaml",
        )
    ],
    # not YAML
    *[
        Case(
            f"{f} not yaml",
            text(f, "a: [1, 2\nb: {"),
            f"{f}: not valid YAML at line",
        )
        for f in (
            "cards.yaml",
            "precisions.yaml",
            "shapes.yaml",
            "faq.yaml",
            "pricebook_hourly.yaml",
            "messages/pl.yaml",
        )
    ],
    Case(
        "cards.yaml tab indent",
        text("cards.yaml", "provider:\n\tname: x\n"),
        "cards.yaml: not valid YAML at line 2",
    ),
    # wrong top-level type
    *[
        Case(f"{f} is a list", text(f, "- 1\n- 2\n"), f"{f}: top level must be a mapping")
        for f in (
            "cards.yaml",
            "models.yaml",
            "precisions.yaml",
            "shapes.yaml",
            "faq.yaml",
            "pricebook_hourly.yaml",
            "messages/en.yaml",
            "messages/telegram.th.yaml",
        )
    ],
    Case(
        "models.yaml models is a mapping",
        text("models.yaml", "models:\n  a: 1\n"),
        "models.yaml",
        ("field models",),
    ),
    # unknown key
    Case(
        "cards top-level unknown key",
        change("cards.yaml", lambda d: d.update(cardz=[])),
        "cards.yaml",
        ("field cardz", "unknown key"),
    ),
    Case(
        "models entry unknown key",
        change("models.yaml", lambda d: d["models"][4].update(layer=32)),
        "models.yaml, entry models[4]",
        ("field models.layer", "unknown key"),
    ),
    Case(
        "precisions entry unknown key",
        change("precisions.yaml", lambda d: first(d, "precisions").update(bitz=4)),
        "precisions.yaml, entry precisions[0]",
        ("field precisions.bitz", "unknown key"),
    ),
    Case(
        "kv dtype unknown key",
        change("precisions.yaml", lambda d: first(d, "kv_dtypes").update(byte=1)),
        "precisions.yaml, entry kv_dtypes[0]",
        ("field kv_dtypes.byte", "unknown key"),
    ),
    Case(
        "shapes entry unknown key",
        change("shapes.yaml", lambda d: d["shapes"][2].update(heads=8)),
        "shapes.yaml, entry shapes[2]",
        ("field shapes.heads", "unknown key"),
    ),
    Case(
        "faq topic unknown key",
        change("faq.yaml", lambda d: d["topics"][1].update(title="x")),
        "faq.yaml, entry topics[1]",
        ("field topics.title", "unknown key"),
    ),
    Case(
        "pricebook unknown key",
        change("pricebook_hourly.yaml", lambda d: d.update(hourly_eur={})),
        "pricebook_hourly.yaml",
        ("field hourly_eur", "unknown key"),
    ),
    Case(
        "provider unknown key",
        change("cards.yaml", lambda d: d["provider"].update(currency="EUR")),
        "cards.yaml",
        ("field provider.currency", "unknown key"),
    ),
    # missing field
    Case(
        "models missing field",
        change("models.yaml", lambda d: d["models"][3].pop("head_dim")),
        "models.yaml, entry models[3]",
        ("field models.head_dim", "required field is missing"),
    ),
    Case(
        "precisions missing field",
        change("precisions.yaml", lambda d: first(d, "precisions").pop("bits")),
        "precisions.yaml, entry precisions[0]",
        ("field precisions.bits", "required"),
    ),
    Case(
        "shapes missing field",
        change("shapes.yaml", lambda d: d["shapes"][0].pop("like")),
        "shapes.yaml, entry shapes[0]",
        ("field shapes.like", "required"),
    ),
    Case(
        "faq missing field",
        change("faq.yaml", lambda d: d["topics"][2].pop("keywords")),
        "faq.yaml, entry topics[2]",
        ("field topics.keywords", "required"),
    ),
    Case(
        "pricebook missing field",
        change("pricebook_hourly.yaml", lambda d: d.pop("prices_as_of")),
        "pricebook_hourly.yaml",
        ("field prices_as_of", "required"),
    ),
    Case(
        "cards missing section",
        change("cards.yaml", lambda d: d.pop("cluster")),
        "cards.yaml",
        ("field cluster", "required"),
    ),
    # wrong type
    Case(
        "cards wrong type",
        change("cards.yaml", lambda d: d["cards"][1].update(vram_gb="lots")),
        "cards.yaml, entry cards[1]",
        ("field cards.vram_gb",),
    ),
    Case(
        "precisions wrong type",
        change("precisions.yaml", lambda d: d["precisions"][1].update(bits="four")),
        "precisions.yaml, entry precisions[1]",
        ("field precisions.bits",),
    ),
    Case(
        "shapes wrong type",
        change("shapes.yaml", lambda d: d["shapes"][1].update(layers=[40])),
        "shapes.yaml, entry shapes[1]",
        ("field shapes.layers",),
    ),
    Case(
        "faq wrong type",
        change("faq.yaml", lambda d: d["topics"][0].update(keywords="vram")),
        "faq.yaml, entry topics[0]",
        ("field topics.keywords",),
    ),
    Case(
        "pricebook wrong type",
        change("pricebook_hourly.yaml", lambda d: d["hourly_usd"].update(B200="cheap")),
        "pricebook_hourly.yaml",
        ("field hourly_usd.B200",),
    ),
    Case(
        "faq unknown language",
        change("faq.yaml", lambda d: d["topics"][0]["keywords"].update(de=["wie viel"])),
        "faq.yaml, entry topics[0]",
        ("field topics.keywords.de",),
    ),
    Case(
        "message not a string",
        change("messages/en.yaml", lambda d: d.update({"help.title": ["a", "b"]})),
        "messages/en.yaml, entry help.title: message must be a string",
    ),
    # duplicate id / alias
    Case(
        "models duplicate id",
        change("models.yaml", lambda d: d["models"][5].update(id=d["models"][6]["id"])),
        "models.yaml, entry",
        ("field id", "duplicate id"),
    ),
    Case(
        "models duplicate alias",
        change("models.yaml", dup_model_alias),
        "models.yaml, entry",
        ("field aliases", "is also used by"),
    ),
    Case(
        "cards duplicate name",
        change("cards.yaml", lambda d: d["cards"][2].update(name=d["cards"][3]["name"])),
        "cards.yaml",
        ("field cards.name", "duplicate card name"),
    ),
    Case(
        "precisions duplicate alias",
        change(
            "precisions.yaml",
            lambda d: d["precisions"][1]["aliases"].append(d["precisions"][0]["name"]),
        ),
        "precisions.yaml, entry",
        ("field aliases", "is also used by"),
    ),
    Case(
        "kv dtype duplicate alias",
        change(
            "precisions.yaml",
            lambda d: d["kv_dtypes"][1]["aliases"].append(d["kv_dtypes"][0]["name"]),
        ),
        "precisions.yaml, entry",
        ("field kv_dtypes.aliases", "is also used by"),
    ),
    Case(
        "faq duplicate id",
        change("faq.yaml", lambda d: d["topics"][1].update(id=d["topics"][0]["id"])),
        "faq.yaml, entry",
        ("field id", "duplicate"),
    ),
    Case(
        "message defined twice",
        seq(change("messages/telegram.en.yaml", lambda d: d.update({"help.title": "Hi"}))),
        "messages/telegram.en.yaml, entry help.title: message is defined twice",
    ),
    # bad cross-reference
    Case(
        "cluster card unknown",
        change("cards.yaml", lambda d: d["cluster"].update(card="H300")),
        "cards.yaml, entry cluster, field card: unknown card H300",
    ),
    Case(
        "min_count not a set size",
        change("cards.yaml", lambda d: d["cards"][0].update(min_count=3, set_sizes=[2])),
        "cards.yaml, entry",
        ("field min_count", "must be one of set_sizes"),
    ),
    Case(
        "faq topic without its title message",
        change(
            "faq.yaml",
            lambda d: d["topics"].append(
                {"id": "no_such_topic", "keywords": {"en": ["x"], "pl": ["x"], "th": ["x"]}}
            ),
        ),
        "faq.yaml, entry no_such_topic, field id: no message faq.no_such_topic.title",
    ),
    Case(
        "message only in one language",
        change("messages/th.yaml", lambda d: d.update({"zz.extra": "x"})),
        "messages/th.yaml, entry zz.extra: not in en",
    ),
    Case(
        "pricebook min_count for an unknown card",
        change("pricebook_hourly.yaml", lambda d: d["min_count"].update(H300=2)),
        "pricebook_hourly.yaml",
        ("H300",),
    ),
]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dst = tmp_path_factory.mktemp("pristine") / "data"
    shutil.copytree(DEFAULT_DATA_DIR, dst)
    return dst


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=c.bug)] if c.bug else []
        )
        for c in CASES
    ],
)
def test_broken_data_is_refused_naming_the_place(
    case: Case, pristine: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    shutil.copytree(pristine, data)
    case.edit(data)
    with pytest.raises(CatalogError) as info:
        load_catalog(data)
    message = str(info.value)
    assert message.startswith(case.starts), message
    for fragment in case.has:
        assert fragment in message, message
    assert "\n" not in message and len(message) < 300  # one line an operator can read


# --------------------------------------------------------------------------- reload paths

RELOAD_TOKEN = "data-faults-token-0123456789"


@pytest.fixture
def live(pristine: Path, tmp_path: Path) -> Path:
    data = tmp_path / "live"
    shutil.copytree(pristine, data)
    return data


def test_reload_refuses_a_fleet_that_shrinks_under_the_same_date(live: Path) -> None:
    """Without the count line, losing cards is still refused unless the price list is new."""
    desk = Desk(load_catalog(live))
    cut_cards(7, drop_count=True)(live)
    problem = desk.reload()
    assert problem is not None and problem.startswith("cards.yaml, field cards: 8 card(s) gone")
    assert len(desk.catalog.cards) == 15
    cards = live / "cards.yaml"
    cards.write_text(
        cards.read_text(encoding="utf-8").replace('"2026-09-01"', '"2026-10-01"', 1), "utf-8"
    )
    assert desk.reload() is None
    assert len(desk.catalog.cards) == 7 and desk.catalog.prices_as_of == "2026-10-01"


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (latin1("cards.yaml"), "cards.yaml: not valid UTF-8"),
        (latin1("messages/th.yaml"), "messages/th.yaml: not valid UTF-8"),
        (cut_cards(7), "cards.yaml, field cards: 7 entries"),
        (cut_cards(7, drop_count=True), "cards.yaml, field cards: 8 card(s) gone"),
    ],
    ids=["cards latin-1", "messages latin-1", "cards cut", "cards cut, count removed"],
)
async def test_http_reload_of_a_bad_file_is_409_json_and_old_data_serves(
    live: Path, damage: Edit, reason: str
) -> None:
    settings = Settings(_env_file=None, vramchat_api_token=SecretStr(RELOAD_TOKEN))
    desk = Desk(load_catalog(live))
    auth = {"Authorization": f"Bearer {RELOAD_TOKEN}"}
    async with TestClient(TestServer(create_app(desk, settings), host="127.0.0.1")) as client:
        damage(live)
        resp = await client.post("/v1/reload", headers=auth)
        assert resp.status == 409 and resp.content_type == "application/json"
        error = (await resp.json())["error"]
        assert error["code"] == "reload_refused" and reason in error["message"], error
        cards = await (await client.get("/v1/cards", headers=auth)).json()
        assert len(cards) == 15
    assert await reload_logged(desk) is not None  # the SIGHUP path: refused, never raised
