"""Checks on the parsed data files: schema validation with precise messages, declared entry
counts, the message tables' completeness, and the fleet against the price books. pydantic is
imported on first use, so a process answering from a cached catalog never loads it.

Every problem is a :class:`CatalogError` naming the file, the entry and the field; the catalog
(``engine.catalog``) runs these checks and adds its own: FAQ topics against the messages, and
the alias clashes it finds while indexing.
"""

from __future__ import annotations

from typing import Any, TypeVar

from engine.errors import CatalogError
from engine.frozen import Frozen
from engine.lazyre import lazy
from engine.models import LANGS, CardsFile, HardwareFile, ModelSpec, PriceBook

_PLACEHOLDER = lazy(r"\{(\w+)")

M = TypeVar("M", bound=Frozen)


def entry_label(raw: Any, loc: tuple[int | str, ...]) -> str | None:
    """Name the entry an error sits in by its ``name``/``id`` when the data has one."""
    node = raw
    label: str | None = None
    for i, part in enumerate(loc):
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(part, int) and isinstance(node, dict):
            ident = node.get("id") or node.get("name")
            label = f"{loc[i - 1]}[{part}]" + (f" ({ident})" if ident else "")
    return label


def declared_count(raw: Any, file: str, key: str) -> Any:
    """Check and drop an ``expect_<key>: N`` declaration, so a file cut short is refused.

    A YAML file truncated at an entry boundary is still valid YAML with fewer entries; the
    count, written above the list, survives the cut and tells the two apart.
    """
    if not isinstance(raw, dict) or f"expect_{key}" not in raw:
        return raw
    raw = dict(raw)
    declared = raw.pop(f"expect_{key}")
    entries = raw.get(key)
    if not isinstance(declared, int) or isinstance(declared, bool) or declared < 0:
        raise CatalogError(file, None, f"expect_{key}", "must be a whole number of entries")
    if isinstance(entries, list) and len(entries) != declared:
        raise CatalogError(
            file,
            None,
            key,
            f"{len(entries)} entries but expect_{key} says {declared} "
            "(file cut short? fix the file or the count)",
        )
    return raw


def validate(model: type[M], raw: Any, file: str) -> M:
    if not isinstance(raw, dict):
        raise CatalogError(file, None, None, "top level must be a mapping")
    from pydantic import ValidationError

    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        entry = entry_label(raw, loc)
        fld = ".".join(str(p) for p in loc if not isinstance(p, int)) or None
        if err["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
            problem = "unknown key (check the spelling)"
        elif err["type"] == "missing":
            problem = "required field is missing"
        else:
            problem = err["msg"]
        raise CatalogError(file, entry, fld, problem) from exc


def check_messages(messages: dict[str, dict[str, str]], origin: dict[str, str]) -> None:
    """Every message must exist in every language with the same placeholders.

    ``origin`` maps a key to the file part it lives in ("" for <lang>.yaml, "telegram" for
    telegram.<lang>.yaml), so a missing key is reported in the file that should hold it.
    """
    en = messages["en"]

    def where(lang: str, key: str) -> str:
        part = origin.get(key, "")
        return f"messages/{part + '.' if part else ''}{lang}.yaml"

    for lang in LANGS:
        table = messages[lang]
        for key, text in en.items():
            if key not in table:
                raise CatalogError(where(lang, key), key, None, "message is missing")
            if set(_PLACEHOLDER.findall(text)) != set(_PLACEHOLDER.findall(table[key])):
                raise CatalogError(where(lang, key), key, None, "placeholders differ from English")
        extra = set(table) - set(en)
        if extra:
            key = sorted(extra)[0]
            raise CatalogError(where(lang, key), key, None, "not in en")


def check_models(models: list[ModelSpec], precisions: set[str]) -> None:
    seen: set[str] = set()
    for m in models:
        f = "models.yaml"
        if m.id in seen:
            raise CatalogError(f, m.id, "id", "duplicate id")
        seen.add(m.id)
        if m.mla is None and m.attention_heads % m.kv_heads:
            raise CatalogError(f, m.id, "kv_heads", "must divide attention_heads")
        if (m.sliding_window is None) != (m.sliding_layers == 0) and m.layer_types is None:
            raise CatalogError(
                f, m.id, "sliding_layers", "must be set exactly when sliding_window is"
            )
        if m.sliding_layers > m.layers:
            raise CatalogError(f, m.id, "sliding_layers", "cannot exceed layers")
        if m.active_params_b is not None and m.active_params_b > m.params_b:
            raise CatalogError(f, m.id, "active_params_b", "cannot exceed params_b")
        if (m.moe is None) != (m.active_params_b is None):
            raise CatalogError(f, m.id, "active_params_b", "MoE models need it, dense ones not")
        if not m.source.strip():
            raise CatalogError(f, m.id, "source", "must name where the values were read")
        if not m.tasks:
            raise CatalogError(
                f, m.id, "tasks", "name at least one of chat, code, reasoning, vision"
            )
        check_model_parts(m, precisions)
    for m in models:
        if m.variant_of is not None and (m.variant_of not in seen or m.variant_of == m.id):
            raise CatalogError(f, m.id, "variant_of", f"no other entry has id {m.variant_of}")


def check_model_parts(m: ModelSpec, precisions: set[str]) -> None:  # noqa: C901 (one list of checks)
    """The issue-12 fields: precisions by name, layer counts that add up, states where needed."""
    f = "models.yaml"
    if m.moe is not None:
        if m.moe.expert_intermediate_size is None or m.moe.moe_layers is None:
            raise CatalogError(
                f, m.id, "moe", "needs expert_intermediate_size and moe_layers from config.json"
            )
        if m.moe.moe_layers > m.layers:
            raise CatalogError(f, m.id, "moe.moe_layers", "cannot exceed layers")
        width = m.moe.expert_hidden_size or m.hidden_size
        experts = m.moe.moe_layers * m.moe.experts * m.moe.expert_matrices * width
        experts *= m.moe.expert_intermediate_size
        embeddings = m.vocab_size * m.hidden_size * (1 if m.tie_word_embeddings else 2)
        if experts + embeddings >= m.params_b * 1e9:
            raise CatalogError(
                f, m.id, "params_b", "routed experts and embeddings from the config exceed it"
            )
    native = m.native_precision
    for part in ("experts", "dense", "embeddings"):
        name = getattr(native, part)
        if name is not None and name not in precisions:
            raise CatalogError(f, m.id, f"native_precision.{part}", f"unknown precision {name}")
    if native.experts is not None and m.moe is None:
        raise CatalogError(f, m.id, "native_precision.experts", "only MoE models have experts")
    if not native.source.strip():
        raise CatalogError(f, m.id, "native_precision.source", "must say where it was read")
    if m.ollama_precision is not None and m.ollama_precision not in precisions:
        raise CatalogError(f, m.id, "ollama_precision", f"unknown precision {m.ollama_precision}")
    lt = m.layer_types
    if lt is not None:
        if lt.total != m.layers:
            raise CatalogError(
                f, m.id, "layer_types", f"counts add up to {lt.total}, not layers ({m.layers})"
            )
        if lt.sliding and m.sliding_window is None:
            raise CatalogError(f, m.id, "layer_types.sliding", "needs sliding_window")
        if lt.sliding != m.sliding_layers:
            raise CatalogError(f, m.id, "sliding_layers", "must equal layer_types.sliding")
        if (lt.linear or lt.mamba) and m.recurrent_state is None:
            raise CatalogError(f, m.id, "recurrent_state", "linear / mamba layers need it")
    if m.recurrent_state is not None and (lt is None or not (lt.linear or lt.mamba)):
        raise CatalogError(f, m.id, "recurrent_state", "only for linear / mamba layers")
    if m.full_attention is not None and not m.sliding_layers and lt is None:
        raise CatalogError(f, m.id, "full_attention", "only when layer kinds differ")


def check_owned(hardware: HardwareFile, card_alias: dict[str, str], norm: Any) -> dict[str, str]:
    """Owned cards: a source each, names and aliases unique and apart from the fleet's (a
    rented card is never read as an owned one). Returns normalised alias -> card name."""
    f = "hardware.yaml"
    out: dict[str, str] = {}
    for c in hardware.cards:
        if not c.source.strip():
            raise CatalogError(f, c.name, "source", "must name where the figures were read")
        for alias in (c.name, *c.aliases):
            key = norm(alias)
            if key in card_alias:
                raise CatalogError(
                    f, c.name, "aliases", f"alias '{alias}' is a rented card's ({card_alias[key]})"
                )
            if key in out and out[key] != c.name:
                raise CatalogError(
                    f, c.name, "aliases", f"alias '{alias}' is also used by {out[key]}"
                )
            out[key] = c.name
    return out


def check_fleet(fleet: CardsFile, books: dict[str, PriceBook]) -> None:  # noqa: C901 (one list of checks)
    """Cross-check cards.yaml with itself and the price books (tiers, regions, card names)."""
    f = "cards.yaml"
    names = {c.name for c in fleet.cards}
    if len(names) != len(fleet.cards):
        raise CatalogError(f, None, "cards.name", "duplicate card name")
    counts = {d.count for d in fleet.discounts}
    regions = {r.id for r in fleet.provider.regions}
    for c in fleet.cards:
        for n in c.set_sizes:
            if n < 2 or n not in counts:
                raise CatalogError(f, c.name, "set_sizes", f"{n} has no discount tier")
        if c.min_count > 1 and c.min_count not in c.set_sizes:
            raise CatalogError(f, c.name, "min_count", "must be one of set_sizes")
        if c.desktop and c.min_count != 1:  # one bought card holds what one rented card does
            raise CatalogError(f, c.name, "desktop", "a desktop card must be rentable singly")
        for r in c.regions:
            if r not in regions:
                raise CatalogError(f, c.name, "regions", f"unknown region {r}")
    if fleet.cluster.card not in names:
        raise CatalogError(f, "cluster", "card", f"unknown card {fleet.cluster.card}")
    for book in books.values():
        for fld in ("hourly_usd", "min_count", "caveats", "market_low_hourly_usd"):
            for name in getattr(book, fld):
                if name not in names:
                    raise CatalogError(f"pricebook_{book.name}.yaml", name, fld, "unknown card")
