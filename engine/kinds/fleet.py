"""The answers about the fleet rather than one workload: what a budget buys, what a card
holds, one card's facts and the whole price list (the rows they read: engine/kinds/serving.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Final

from engine.answer_types import Answer, BudgetOption, Fit, Section
from engine.catalog import Catalog
from engine.catalog_cache import per_catalog
from engine.kinds.base import Builder
from engine.kinds.hardware import asked_hardware
from engine.kinds.mac import mac_listing, mac_share
from engine.kinds.serving import ServingRow, Shape, by_rank, current_cutoff
from engine.kinds.serving import serving_table as serving_table  # where it was read before
from engine.kinds.terms import unified_note
from engine.limits import DEFAULT_CONTEXT, MAX_BATCH, MAX_CONTEXT_TOKENS
from engine.models import Card, OwnedCard
from engine.recommend import (
    NODE_CARDS,
    Workload,
    cheapest_holding_set,
    decode_for,
    set_allowed,
    set_price,
)
from engine.refs import card_info
from engine.sizing import decode_ceiling_tok_s
from engine.text.blocks import budget_blocks, describe
from engine.understand.asks import wants_code

# --------------------------------------------------------------------------- builder


def budget(b: Builder) -> Answer:
    """The biggest models the monthly budget can serve, each at its best precision."""
    assert b.q.budget_usd is not None
    limit_usd = b.q.budget_usd
    shape = asked_shape(b)
    coding = wants_code(b.q.text.lower())  # "for coding": code models only

    def firsts() -> Iterator[tuple[ServingRow, dict[str, Any] | None]]:
        for rows in by_rank(b.cat, shape):  # each model's first row within the budget
            for r in rows:
                if coding and not r.code:
                    break
                if r.monthly_usd <= limit_usd:
                    yield r, None
                    break
                # the rule's pick is one dearer card; a budget may buy a set that holds it
                alt = cheapest_set(b.cat, r)
                if alt is not None and alt[2] <= limit_usd:
                    card, count, price, tok = alt
                    yield (
                        r,
                        {"card": card, "count": count, "monthly_usd": price, "decode_tok_s": tok},
                    )
                    break

    b.assume_defaults(b.q.context_tokens is not None, b.q.batch is not None)
    if coding:
        b.assume("coding_only")
    answer = Answer(kind="budget", budget=best_per_size(b, firsts()), budget_usd=limit_usd)
    answer.__dict__.update(budget_blocks(b.voice, answer, shape[:2]))
    return b.finish(answer)


def cheapest_set(cat: Catalog, r: ServingRow) -> tuple[str, int, float, float | None] | None:
    """(card, count, price, decode ceiling) of the cheapest set of any size that serves the
    row, single cards included; None when none does. Per catalog and row, made once."""
    memo = _sets_by_row(cat)
    key = (r.model_id, r.precision, r.need_gb)
    if key in memo:
        return memo[key]
    needs_fp8 = cat.precision_by_name[r.precision].needs_fp8
    w = Workload(r.need_gb, "inference", needs_fp8, r.attention_heads, r.read_gb)
    found = cheapest_holding_set(cat, w)  # the fleet's own search, singles among the sets
    hit = None
    if found is not None:
        card, count = found
        hit = (card.name, count, set_price(cat, card, count)[2], decode_for(card, count, r.read_gb))
    if len(memo) >= _SETS_MEMO_MAX:  # rows at asked contexts and users: any number of them
        memo.clear()
    memo[key] = hit
    return hit


#: Rows kept per catalog: every model at each precision a few times over; past it the memo
#: starts again, so a long-running bot asked at ever new contexts does not grow without end.
_SETS_MEMO_MAX: Final = 8192


@per_catalog
def _sets_by_row(
    cat: Catalog,
) -> dict[tuple[str, str, float], tuple[str, int, float, float | None] | None]:
    return {}


def what_fits(b: Builder) -> Answer:
    """The biggest models the asked hardware holds, at the best precision, with that
    hardware's own price (when we rent it) and speed; a set we do not rent still holds them."""
    card, count, label, cap = asked_hardware(b)
    shape = asked_shape(b)
    unified_note(b, cap, card=card is not None)  # a Mac's memory: the GPU's share of it
    share = mac_share(b, card)  # a Mac is judged on that share, as its fit answer is
    judged = share or cap
    ranked = by_rank(b.cat, shape, share is not None)  # a Mac's in what its runtimes run
    coding = wants_code(b.q.text.lower())
    price = set_price(b.cat, card, count)[2] if card is not None else 0.0  # the same every row
    allowed: dict[tuple[bool, int], bool] = {}
    by_name = b.cat.precision_by_name

    mine = b.cat.owned_by_name[b.q.owned[0].name] if card is None and b.q.owned else None

    def shown(r: ServingRow) -> dict[str, Any] | None:
        """What the row shows on the asked hardware, or None when that does not run it."""
        needs_fp8 = by_name[r.precision].needs_fp8
        if card is None:
            return _not_rented(r, mine, label, count, needs_fp8)
        if needs_fp8 and not card.fp8:
            return None
        # set_allowed reads the FP8 need, the task and the heads (the card and count are
        # fixed, the task is always inference and this Workload never sets kv_heads)
        ok = allowed.get((needs_fp8, r.attention_heads))
        if ok is None:
            w = Workload(r.need_gb, "inference", needs_fp8, r.attention_heads, r.read_gb)
            ok = allowed[needs_fp8, r.attention_heads] = set_allowed(card, count, w) is None
        upd: dict[str, Any] = {
            "card": label,
            "count": count,
            "decode_tok_s": decode_for(card, count, r.read_gb),
        }
        if ok:
            upd["monthly_usd"] = price
        else:
            upd.update(offered=False, rent_card=r.card, rent_count=r.count)
        return upd

    def firsts() -> Iterator[tuple[ServingRow, dict[str, Any] | None]]:
        for rows in ranked:  # each model's first row the hardware holds
            for r in rows:
                if r.need_gb > judged or (coding and not r.code):
                    continue
                upd = shown(r)
                if upd is not None:
                    yield r, upd
                    break

    b.assume_defaults(b.q.context_tokens is not None, b.q.batch is not None)
    if coding:
        b.assume("coding_only")
    listed = best_per_size(b, firsts())  # a model that fits is listed: nothing fits if none
    answer = Answer(
        kind="capacity",
        budget=listed,
        fit=Fit(
            card=label, count=count, fits=bool(listed), headroom_gb=0.0, tight=False, vram_gb=cap
        ),
    )
    mac_listing(b, answer, share, ranked, coding)  # (nothing when it is not a Mac)
    said = b.q.context_tokens is not None or b.q.batch is not None
    answer.__dict__.update(budget_blocks(b.voice, answer, shape[:2] if said else None))
    return b.finish(answer)


def _not_rented(
    r: ServingRow, mine: OwnedCard | None, label: str, count: int, needs_fp8: bool
) -> dict[str, Any] | None:
    """A row on hardware we do not rent: the rental that runs it; on one's own card also its
    speed there (a set pools its bandwidth as a rented one does), and no FP8 row without FP8."""
    upd: dict[str, Any] = {"offered": False, "rent_card": r.card, "rent_count": r.count,
                           "decode_tok_s": None}  # fmt: skip
    if mine is None:  # a plain amount: the hardware is not known
        return upd
    if needs_fp8 and not mine.fp8:
        return None
    tok = decode_ceiling_tok_s(mine.bandwidth_gbps * min(count, NODE_CARDS), r.read_gb)
    upd.update(card=label, count=count, decode_tok_s=tok)
    return upd


def asked_shape(b: Builder) -> Shape:
    """The context, users and KV cache a list is sized at: as asked, else 8k and one user."""
    q = b.q
    ctx = min(max(q.context_tokens or DEFAULT_CONTEXT, 1), MAX_CONTEXT_TOKENS)
    return ctx, min(max(q.batch or 1, 1), MAX_BATCH), q.kv_dtype or "fp16"


def best_per_size(
    b: Builder, firsts: Iterator[tuple[ServingRow, dict[str, Any] | None]]
) -> list[BudgetOption]:
    """One option per model size (newest model of that size), biggest first, at most 5.

    ``firsts`` gives each model's row in rank order (with what it shows differently, if
    anything), read only as far as the list needs."""
    cutoff = current_cutoff(b.cat)
    fields = _option_fields()

    def option(r: ServingRow, upd: dict[str, Any] | None) -> BudgetOption:
        values = r.model_dump(include=fields)
        if upd is not None:
            values.update(upd)
        return BudgetOption(**values)

    seen: set[float] = set()
    out: list[BudgetOption] = []
    # and the biggest current model that runs as released, when the sizes above leave it out
    # (gpt-oss-20b in its own MXFP4 on 24 GB): people name those models by their release
    keep: tuple[ServingRow, dict[str, Any] | None] | None = None
    for r, upd in firsts:
        current = (r.released or "") >= cutoff
        if len(out) < 5 and r.nominal_b not in seen:
            seen.add(r.nominal_b)
            out.append(option(r, upd))
        if keep is None and r.shipped and current:
            keep = r, upd
        if len(out) == 5 and (keep is not None or not current):
            break  # current models rank first: none later runs as released and is current
    if keep is not None and keep[0].model_id not in {o.model_id for o in out}:
        out.append(option(*keep))
    return out


@lru_cache(maxsize=1)
def _option_fields() -> set[str]:
    return set(BudgetOption.model_fields)


def card(b: Builder, name: str) -> Answer:
    card = b.cat.card_by_name[name]
    for code in card.caveats:
        b.caveat(f"card.{code}")
    answer = describe(b.voice, Answer(kind="card", card=card_info(b.cat, card)))
    count = next((c.count for c in b.q.cards if c.name == name), None)
    if count is not None and count > 1:  # "4x a100 price": the set leads, the card follows
        answer.sections.insert(0, Section(title="", lines=[answer.headline]))
        answer.__dict__["headline"] = _set_line(b, card, count)
    return b.finish(answer)


def _set_line(b: Builder, card: Card, count: int) -> str:
    """What ``count`` of the card costs as a set we rent, or which sets we rent instead."""
    if count in card.set_sizes:
        list_usd, pct, price = set_price(b.cat, card, count)
        hours = b.cat.fleet.provider.hours_per_month
        line = b.t(
            "card.set_price",
            count=count,
            card=card.name,
            vram=b.gb(card.vram_gb * count),
            price=b.usd(price),
            list=b.usd(list_usd),
            pct=b.num(pct),
        )  # and the set's own GPU-hour: its discount is in it, unlike the card's list price
        hour = b.usd(price / count / hours)
        return line + ". " + b.t("card.set_hour", hour=hour, price=b.usd(price), count=count,
                                hours=b.num(hours))  # fmt: skip
    if card.set_sizes:
        sizes = ", ".join(str(n) for n in card.set_sizes)
        return b.t("card.no_such_set", count=count, card=card.name, sizes=sizes)
    return b.t("card.single_only", count=count, card=card.name)


def cards(b: Builder) -> Answer:
    infos = [card_info(b.cat, c) for c in b.cat.cards]
    return b.finish(describe(b.voice, Answer(kind="cards", cards=infos)))
