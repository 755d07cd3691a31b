"""Load and validate ``data/*.yaml`` into one immutable :class:`Catalog`.

Every problem stops loading with a :class:`CatalogError` naming the file, the entry and the
field, so an operator who breaks a price list learns exactly where, and a running bot that is
asked to reload keeps its old catalog.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine import catalog_cache
from engine.datafile_read import load_messages, read_yaml
from engine.datafiles import check_fleet, check_models, check_owned, declared_count, validate
from engine.errors import CatalogError
from engine.frozen import _SET, FrozenInstanceError
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


class Catalog:
    """Everything the engine knows, indexed for fast lookup. Passed in, never global.

    Immutable and compared by identity; a plain class rather than a dataclass, whose import
    and decoration cost more of a cold start than the catalog's own loading.
    """

    data_dir: Path
    fleet: CardsFile
    models: tuple[ModelSpec, ...]
    precisions: tuple[Precision, ...]
    kv_dtypes: tuple[KvDtype, ...]
    shapes: tuple[Shape, ...]
    faq: tuple[FaqTopic, ...]
    messages: dict[str, dict[str, str]]
    price_books: dict[str, PriceBook]
    price_book: str
    card_by_name: dict[str, Card]
    card_alias: dict[str, str]
    model_by_id: dict[str, ModelSpec]
    precision_by_name: dict[str, Precision]
    precision_alias: dict[str, str]
    kv_by_name: dict[str, KvDtype]
    kv_alias: dict[str, str]
    owned_by_name: dict[str, OwnedCard]  # hardware.yaml
    owned_alias: dict[str, str]
    # Indexes built from this catalog by functions marked @per_catalog, by function name:
    # kept with the catalog (and in its cache file), so a cached start rebuilds none of them.
    memo: dict[str, Any]
    # The monthly catalog this one was priced from by another book (None: this is it). Card
    # facts a book does not rent (the FAQ's fixed examples) are read from there.
    base: Catalog | None
    # The date of the prices: the price book's, else cards.yaml's. Read once an answer
    # (engine.kinds.base): a stored field is one attribute read, where a property is a Python
    # call into this module, which stays Python when compiled.
    prices_as_of: str

    def __init__(
        self,
        data_dir: Path,
        fleet: CardsFile,
        models: tuple[ModelSpec, ...],
        precisions: tuple[Precision, ...],
        kv_dtypes: tuple[KvDtype, ...],
        shapes: tuple[Shape, ...],
        faq: tuple[FaqTopic, ...],
        messages: dict[str, dict[str, str]],
        price_books: dict[str, PriceBook],
        price_book: str = "monthly",
        card_by_name: dict[str, Card] | None = None,
        card_alias: dict[str, str] | None = None,
        model_by_id: dict[str, ModelSpec] | None = None,
        precision_by_name: dict[str, Precision] | None = None,
        precision_alias: dict[str, str] | None = None,
        kv_by_name: dict[str, KvDtype] | None = None,
        kv_alias: dict[str, str] | None = None,
        owned_by_name: dict[str, OwnedCard] | None = None,
        owned_alias: dict[str, str] | None = None,
        memo: dict[str, Any] | None = None,
        base: Catalog | None = None,
    ) -> None:
        book = price_books[price_book] if price_book != "monthly" else None
        _SET(
            self,
            "__dict__",
            {
                "data_dir": data_dir,
                "fleet": fleet,
                "models": models,
                "precisions": precisions,
                "kv_dtypes": kv_dtypes,
                "shapes": shapes,
                "faq": faq,
                "messages": messages,
                "price_books": price_books,
                "price_book": price_book,
                "card_by_name": {} if card_by_name is None else card_by_name,
                "card_alias": {} if card_alias is None else card_alias,
                "model_by_id": {} if model_by_id is None else model_by_id,
                "precision_by_name": {} if precision_by_name is None else precision_by_name,
                "precision_alias": {} if precision_alias is None else precision_alias,
                "kv_by_name": {} if kv_by_name is None else kv_by_name,
                "kv_alias": {} if kv_alias is None else kv_alias,
                "owned_by_name": {} if owned_by_name is None else owned_by_name,
                "owned_alias": {} if owned_alias is None else owned_alias,
                "memo": {} if memo is None else memo,
                "base": base,
                "prices_as_of": fleet.provider.prices_as_of if book is None else book.prices_as_of,
            },
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __repr__(self) -> str:
        return f"Catalog(data_dir={self.data_dir!r}, price_book={self.price_book!r})"

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Catalog:
        """A shallow copy with ``update`` applied (a fresh ``memo`` builds its own indexes);
        ``prices_as_of`` is set again by ``__init__`` from the fields it is read from."""
        fields = {**self.__dict__, **(update or {})}
        del fields["prices_as_of"]
        return Catalog(**fields)

    @property
    def cards(self) -> list[Card]:
        return list(self.card_by_name.values())

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
    fleet_raw = declared_count(read_yaml(d / "cards.yaml"), "cards.yaml", "cards")
    fleet = validate(CardsFile, fleet_raw, "cards.yaml")
    models = validate(ModelsFile, read_yaml(d / "models.yaml"), "models.yaml").models
    precisions = validate(PrecisionsFile, read_yaml(d / "precisions.yaml"), "precisions.yaml")
    shapes = validate(ShapesFile, read_yaml(d / "shapes.yaml"), "shapes.yaml").shapes
    faq = validate(FaqFile, read_yaml(d / "faq.yaml"), "faq.yaml").topics
    book = validate(PriceBook, read_yaml(d / "pricebook_hourly.yaml"), "pricebook_hourly.yaml")
    books = {book.name: book}
    hw_raw = declared_count(read_yaml(d / "hardware.yaml"), "hardware.yaml", "cards")
    owned = validate(HardwareFile, hw_raw, "hardware.yaml")
    messages = load_messages(d)
    check_fleet(fleet, books)
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
