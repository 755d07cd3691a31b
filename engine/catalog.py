"""Load and validate ``data/*.yaml`` into one immutable :class:`Catalog`.

Every problem stops loading with a :class:`CatalogError` naming the file, the entry and the
field, so an operator who breaks a price list learns exactly where, and a running bot that is
asked to reload keeps its old catalog.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import catalog_cache
from engine.datafiles import check_messages, check_models, check_owned, declared_count, validate
from engine.errors import CatalogError
from engine.lazyre import lazy
from engine.models import (
    LANGS,
    Card,
    CardsFile,
    FaqFile,
    FaqTopic,
    HardwareFile,
    KvDtype,
    ModelsFile,
    ModelSpec,
    OwnedCard,
    Precision,
    PrecisionsFile,
    PriceBook,
    Shape,
    ShapesFile,
)

DEFAULT_DATA_DIR = Path(__file__).resolve().parent.parent / "data"
FILES = (
    "cards.yaml",
    "models.yaml",
    "precisions.yaml",
    "shapes.yaml",
    "faq.yaml",
    "pricebook_hourly.yaml",
    "hardware.yaml",
)


_SEPARATORS = lazy(r"[\s_\-]+")


def norm(text: str) -> str:
    """Canonical key for aliases: case and separators do not matter to users."""
    return _SEPARATORS.sub(" ", text.strip().lower())  # the pattern's own method: no re.sub frames


@dataclass(frozen=True, eq=False)
class Catalog:
    """Everything the engine knows, indexed for fast lookup. Passed in, never global."""

    data_dir: Path
    fleet: CardsFile
    models: tuple[ModelSpec, ...]
    precisions: tuple[Precision, ...]
    kv_dtypes: tuple[KvDtype, ...]
    shapes: tuple[Shape, ...]
    faq: tuple[FaqTopic, ...]
    messages: dict[str, dict[str, str]]
    price_books: dict[str, PriceBook]
    price_book: str = "monthly"
    card_by_name: dict[str, Card] = field(default_factory=dict)
    card_alias: dict[str, str] = field(default_factory=dict)
    model_by_id: dict[str, ModelSpec] = field(default_factory=dict)
    precision_by_name: dict[str, Precision] = field(default_factory=dict)
    precision_alias: dict[str, str] = field(default_factory=dict)
    kv_by_name: dict[str, KvDtype] = field(default_factory=dict)
    kv_alias: dict[str, str] = field(default_factory=dict)
    owned_by_name: dict[str, OwnedCard] = field(default_factory=dict)  # hardware.yaml
    owned_alias: dict[str, str] = field(default_factory=dict)
    # Indexes built from this catalog by functions marked @per_catalog, by function name:
    # kept with the catalog (and in its cache file), so a cached start rebuilds none of them.
    memo: dict[str, Any] = field(default_factory=dict, repr=False)
    # The monthly catalog this one was priced from by another book (None: this is it). Card
    # facts a book does not rent (the FAQ's fixed examples) are read from there.
    base: Catalog | None = field(default=None, repr=False)
    # The date of the prices: the price book's, else cards.yaml's (set by __post_init__).
    prices_as_of: str = field(init=False, repr=False)

    @property
    def cards(self) -> list[Card]:
        return list(self.card_by_name.values())

    def __post_init__(self) -> None:
        # read once an answer (engine.kinds.base): a stored field is one attribute read, where
        # a property is a Python call into this module, which stays Python when compiled
        book = self.price_books[self.price_book] if self.price_book != "monthly" else None
        as_of = book.prices_as_of if book is not None else self.fleet.provider.prices_as_of
        object.__setattr__(self, "prices_as_of", as_of)

    def card(self, name: str) -> Card | None:
        """Resolve a card by catalog name or alias (``4090``, ``h100``, ``mi300``)."""
        key = self.card_alias.get(norm(name))
        return self.card_by_name.get(key) if key else None

    def owned(self, name: str) -> OwnedCard | None:
        """A card people own that we do not rent (``4080``, ``7900 xtx``), or None."""
        key = self.owned_alias.get(norm(name))
        return self.owned_by_name.get(key) if key else None

    def discount_pct(self, count: int) -> float:
        best = 0.0
        for d in self.fleet.discounts:
            if count >= d.count:
                best = max(best, d.pct)
        return best

    def with_price_book(self, name: str) -> Catalog:
        """The same catalog priced from another book; only cards that book prices remain."""
        if name == "monthly":
            return self
        if name not in self.price_books:
            raise CatalogError("pricebook", name, None, "no such price book")
        book = self.price_books[name]
        hours = self.fleet.provider.hours_per_month
        cards = [
            c.model_copy(
                update={
                    "monthly_usd": book.hourly_usd[c.name] * hours,
                    "hourly_usd": book.hourly_usd[c.name],
                    "min_count": book.min_count.get(c.name, c.min_count),
                    "caveats": book.caveats.get(c.name, c.caveats),
                }
            )
            for c in self.fleet.cards
            if c.name in book.hourly_usd
        ]
        update: dict[str, Any] = {"cards": cards}
        if self.fleet.cluster.card not in book.hourly_usd and cards:
            # The cluster quote's node card is not in this book: quote nodes of the book's
            # largest set instead, so "beyond one node" still has a node to count in.
            node = max(cards, key=lambda c: c.vram_gb * max(c.set_sizes or [1]))
            update["cluster"] = self.fleet.cluster.model_copy(
                update={"card": node.name, "cards_per_node": max(node.set_sizes or [1])}
            )
        fleet = self.fleet.model_copy(update=update)
        # A card this book does not price is still a card people ask about ("on h100"): judged
        # by physics, as a card we do not rent, never read as part of a model's name.
        unpriced = [
            OwnedCard(
                name=c.name,
                aliases=list(c.aliases),
                vendor=c.vendor,
                arch=c.arch,
                vram_gb=c.vram_gb,
                bandwidth_gbps=c.bandwidth_gbps,
                fp8=c.fp8,
                source=f"cards.yaml (not in the {name} price book)",
            )
            for c in self.fleet.cards
            if c.name not in book.hourly_usd
        ]
        priced = _build(
            self.data_dir,
            fleet,
            list(self.models),
            PrecisionsFile(precisions=list(self.precisions), kv_dtypes=list(self.kv_dtypes)),
            list(self.shapes),
            list(self.faq),
            self.messages,
            self.price_books,
            name,
            HardwareFile(cards=[*self.owned_by_name.values(), *unpriced]),
        )
        object.__setattr__(priced, "base", self)
        return priced


def _read_yaml(path: Path, name: str | None = None) -> Any:
    """Parse one file; ``name`` is how errors call it (``messages/pl.yaml``)."""
    name = name or path.name
    if not path.exists():
        raise CatalogError(name, None, None, "file is missing")
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise CatalogError(name, None, None, f"cannot be read: {exc.strerror}") from exc
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = blob[: exc.start].count(b"\n") + 1
        raise CatalogError(
            name, None, None, f"not valid UTF-8 at line {line} (byte {exc.start})"
        ) from exc
    import yaml  # only when data is parsed: a cached catalog needs neither yaml nor pydantic

    # libyaml's loader is about 7x faster than the pure-Python one; both are the safe loader.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise CatalogError(name, None, None, f"not valid YAML{where}") from exc


def fleet_shrink(old: Catalog, new: Catalog) -> str | None:
    """Why a reload that loses cards under an unchanged price-list date is refused, or None.

    Cards leave the fleet with a new price list; the same date with fewer cards is far more
    likely a half-written or truncated file than a real change.
    """
    if new.prices_as_of != old.prices_as_of:
        return None
    lost = [c.name for c in old.fleet.cards if c.name not in new.card_by_name]
    if not lost:
        return None
    return str(
        CatalogError(
            "cards.yaml",
            None,
            "cards",
            f"{len(lost)} card(s) gone ({', '.join(lost[:3])}{', ...' if len(lost) > 3 else ''}) "
            f"but prices_as_of is still {new.prices_as_of}: change the date to remove cards",
        )
    )


def _unique(
    items: Iterable[tuple[str, str]], file: str, what: str, kind: str = "alias"
) -> dict[str, str]:
    """Map normalised aliases to owners; a clash is an error because lookups would be ambiguous."""
    out: dict[str, str] = {}
    for alias, owner in items:
        key = norm(alias)
        if key in out and out[key] != owner:
            raise CatalogError(file, owner, what, f"{kind} '{alias}' is also used by {out[key]}")
        out[key] = owner
    return out


def _check_fleet(fleet: CardsFile, books: dict[str, PriceBook]) -> None:
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


def _load_messages(data_dir: Path) -> dict[str, dict[str, str]]:
    """``messages/<lang>.yaml`` plus any ``messages/<part>.<lang>.yaml`` (one per adapter)."""
    out: dict[str, dict[str, str]] = {}
    origin: dict[str, str] = {}
    folder = data_dir / "messages"
    parts = sorted({p.name.split(".")[0] for lang in LANGS for p in folder.glob(f"*.{lang}.yaml")})
    for lang in LANGS:
        table: dict[str, str] = {}
        for part in ("", *parts):
            path = folder / (f"{part}.{lang}.yaml" if part else f"{lang}.yaml")
            name = f"messages/{path.name}"
            raw = _read_yaml(path, name)
            if not isinstance(raw, dict):
                raise CatalogError(name, None, None, "top level must be a mapping")
            for key, value in raw.items():
                if not isinstance(value, str):
                    raise CatalogError(name, str(key), None, "message must be a string")
                if str(key) in table:
                    raise CatalogError(name, str(key), None, "message is defined twice")
                table[str(key)] = value
                if lang == "en":
                    origin[str(key)] = part
        out[lang] = table
    check_messages(out, origin)
    return out


def load_catalog(
    data_dir: Path | str | None = None,
    price_book: str = "monthly",
    *,
    cache_dir: Path | str | None = None,
) -> Catalog:
    """Read and cross-check every data file; raise CatalogError on the first problem.

    With ``cache_dir`` (the caller's choice: the engine itself writes nowhere), a catalog
    validated before from byte-identical data files by the same code is read back from a
    pickle there instead; a missing, stale or damaged cache file is ignored and rewritten,
    and a cache that cannot be written costs nothing but the speed.
    """
    d = Path(data_dir) if data_dir is not None else DEFAULT_DATA_DIR
    if cache_dir is None:
        return _load(d, price_book)
    files = [*FILES, *sorted(f"messages/{p.name}" for p in (d / "messages").glob("*.yaml"))]
    cat = catalog_cache.load(Path(cache_dir), d, files, price_book, _load)
    if not isinstance(cat, Catalog):  # written by other code despite the key
        return _load(d, price_book)
    if cat.data_dir != d:  # the same folder, named another way
        object.__setattr__(cat, "data_dir", d)
    return cat


def _load(d: Path, price_book: str) -> Catalog:
    """The full load: parse every file, validate it with pydantic, cross-check."""
    fleet_raw = declared_count(_read_yaml(d / "cards.yaml"), "cards.yaml", "cards")
    fleet = validate(CardsFile, fleet_raw, "cards.yaml")
    models = validate(ModelsFile, _read_yaml(d / "models.yaml"), "models.yaml").models
    precisions = validate(PrecisionsFile, _read_yaml(d / "precisions.yaml"), "precisions.yaml")
    shapes = validate(ShapesFile, _read_yaml(d / "shapes.yaml"), "shapes.yaml").shapes
    faq = validate(FaqFile, _read_yaml(d / "faq.yaml"), "faq.yaml").topics
    book = validate(PriceBook, _read_yaml(d / "pricebook_hourly.yaml"), "pricebook_hourly.yaml")
    books = {book.name: book}
    hw_raw = declared_count(_read_yaml(d / "hardware.yaml"), "hardware.yaml", "cards")
    owned = validate(HardwareFile, hw_raw, "hardware.yaml")
    messages = _load_messages(d)
    _check_fleet(fleet, books)
    check_models(models, {p.name for p in precisions.precisions})
    seen_topics: set[str] = set()
    for t in faq:
        if t.id in seen_topics:
            raise CatalogError("faq.yaml", t.id, "id", "duplicate id")
        seen_topics.add(t.id)
        for lang in LANGS:
            if lang not in t.keywords:
                raise CatalogError("faq.yaml", t.id, f"keywords.{lang}", "missing language")
        if f"faq.{t.id}.title" not in messages["en"]:
            raise CatalogError("faq.yaml", t.id, "id", f"no message faq.{t.id}.title in messages")
    cat = _build(d, fleet, models, precisions, shapes, faq, messages, books, "monthly", owned)
    return cat.with_price_book(price_book)


def _build(
    d: Path,
    fleet: CardsFile,
    models: list[ModelSpec],
    precisions: PrecisionsFile,
    shapes: list[Shape],
    faq: list[FaqTopic],
    messages: dict[str, dict[str, str]],
    books: dict[str, PriceBook],
    book: str,
    owned: HardwareFile,
) -> Catalog:
    card_alias = _unique(
        [(c.name, c.name) for c in fleet.cards]
        + [(a, c.name) for c in fleet.cards for a in c.aliases],
        "cards.yaml",
        "aliases",
    )
    prec_alias = _unique(
        [(p.name, p.name) for p in precisions.precisions]
        + [(a, p.name) for p in precisions.precisions for a in p.aliases],
        "precisions.yaml",
        "aliases",
    )
    kv_alias = _unique(
        [(k.name, k.name) for k in precisions.kv_dtypes]
        + [(a, k.name) for k in precisions.kv_dtypes for a in k.aliases],
        "precisions.yaml",
        "kv_dtypes.aliases",
    )
    _unique(
        [(m.id, m.id) for m in models] + [(a, m.id) for m in models for a in m.aliases],
        "models.yaml",
        "aliases",
    )
    return Catalog(
        data_dir=d,
        fleet=fleet,
        models=tuple(models),
        precisions=tuple(precisions.precisions),
        kv_dtypes=tuple(precisions.kv_dtypes),
        shapes=tuple(shapes),
        faq=tuple(faq),
        messages=messages,
        price_books=books,
        price_book=book,
        card_by_name={c.name: c for c in fleet.cards},
        card_alias=card_alias,
        model_by_id={m.id: m for m in models},
        precision_by_name={p.name: p for p in precisions.precisions},
        precision_alias=prec_alias,
        kv_by_name={k.name: k for k in precisions.kv_dtypes},
        kv_alias=kv_alias,
        owned_by_name={c.name: c for c in owned.cards},
        owned_alias=check_owned(owned, card_alias, norm),
    )
