"""One-line labels of an answer's parts: the request, a card pick, a fit, the memory rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from engine.answer_types import Answer, Fit, Pick, Request, Section
from engine.catalog import Catalog
from engine.catalog_cache import per_catalog
from engine.lazyre import lazy
from engine.recommend import set_price
from engine.text.fills import partial, percent_template
from engine.text.voice import Voice, ctx_label, message_tables, section


def ctx_text(v: Voice, tokens: int) -> str:
    """A context in the reply language: "8k", "128k", or a count that is no whole k written
    with the language's own thousands separator ("63 754" in Polish, not "63,754")."""
    label = ctx_label(tokens)
    return v.nums[0][tokens] if "," in label else label


def name_before(name: str, precision: str) -> str:
    """A name the precision label follows: a release named for that precision ("Qwen3
    235B-A22B FP8" in FP8) drops it, so the precision is said once."""
    head, _, last = name.rpartition(" ")
    return head if head and last.lower() == precision.lower() else name


def model_label(v: Voice, req: Request, with_precision: bool = False) -> str:
    """The model's name; ``with_precision``: the label goes on to say the precision."""
    m = req.model  # read once: compiled, each read is an attribute lookup
    assert m is not None
    name = m.name
    if name:
        return name_before(name, req.precision) if with_precision else name
    return v.ones["label.bare_size:size"][v.nums[1][m.params_b]]


def request_label(v: Voice, req: Request) -> str:
    ones = v.ones  # these labels' values repeat across answers: a repeat is a read
    name = model_label(v, req, True)
    ctx = ctx_text(v, req.context_tokens)
    if req.task == "inference":
        text = f"{name} · {req.precision.upper()} · {ones['label.context:ctx'][ctx]}"
        if req.batch > 1:
            text += " · " + ones["label.batch:batch"][req.batch]
        if req.kv_dtype != "fp16":
            text += " · " + ones["label.kv:kv"][req.kv_dtype.upper()]
        return text
    text = f"{name} · {v.const['task.' + req.task]} · {ones['label.seq:seq'][ctx]}"
    if req.batch > 1:
        text += " · " + ones["label.batch:batch"][req.batch]
    return text


def pick_line(v: Voice, p: Pick) -> str:
    """A set's line: what the set alone decides (its name, VRAM, price, discount, hourly
    price) is written once per voice into a fill of the headroom alone."""
    sets = v.made.get("pick.sets")  # kept with the voice (one read, not a lookup)
    if sets is None:
        sets = v.made["pick.sets"] = {}
    key = (p.card, p.count, p.monthly_usd, p.discount_pct, p.list_usd, p.hourly_usd)
    made = sets.get(key)
    if made is None:
        made = sets[key] = _set_line(v, p)
    text: str = made[0]((v.rooms[p.headroom_gb],)) + made[1]
    if p.tight:
        text += " " + v.const["pick.tight"]
    return text


def _set_line(v: Voice, p: Pick) -> tuple[Callable[[tuple[Any, ...]], str], str]:
    """(``pick_line``'s fill with the set's values written in, the discount and hourly text)."""
    fill, usd = v.fill, v.usds
    vram = v.gbs[v.cat.card_by_name[p.card].vram_gb * p.count]
    spec = (
        "pick.single:count,card,vram,price,headroom"
        if p.count == 1
        else "pick.set:count,card,vram,price,headroom"
    )
    head = partial(fill, spec, (p.count, p.card, vram, usd[p.monthly_usd]))
    tail = ""
    if p.discount_pct:
        pct = v.nums[0][p.discount_pct]
        tail += " " + fill["pick.discount:pct,list"]((pct, usd[p.list_usd or 0]))
    if p.hourly_usd is not None:
        tail += " " + fill["pick.hourly:price"]((usd[p.hourly_usd],))
    return head, tail


def alternatives_section(v: Voice, picks: list[Pick]) -> list[Section]:
    """The "also worth a look" block, or nothing when there are no alternatives."""
    if not picks:
        return []
    lines = [alt_line(v, p) for p in picks]
    return [section(v.const["section.alternatives"], lines)]


_ALTS: Final = {  # each reason's spec, written once
    k: f"alt.{k}:precision" for k in ("cuda", "faster", "roomier", "cheaper_set", "lower_precision")
}


def alt_line(v: Voice, p: Pick) -> str:
    base = pick_line(v, p)
    reasons = v.made.get("alt.reasons")  # each (reason, precision)'s words, once per voice
    if reasons is None:
        reasons = v.made["alt.reasons"] = {}
    reason = reasons.get((p.reason, p.precision))
    if reason is None:
        spec = _ALTS.get(p.reason or "") or f"alt.{p.reason}:precision"
        reason = reasons[p.reason, p.precision] = v.fill[spec](((p.precision or "").upper(),))
    if p.decode_tok_s:
        return f"{base}: {reason} {v.ones['alt.decode:tok'][v.nums[0][p.decode_tok_s]]}"
    return f"{base}: {reason}"


_FIELD: Final = lazy(r"(?<!%)(?:%%)*%\((\w+)\)s")  # the names a %-template fills
#: The full sum above the quick rule by more than this: the rule's 20% margin (a moderate
#: context's cache) falls short, and the line says so rather than stand as a second answer.
QUICK_RULE_SHORT: Final = 1.1
_MEMORY_PARTS: Final = (
    "weights",
    "kv_cache",
    "gradients",
    "master_weights",
    "optimizer",
    "adapters",
    "activations",
    "overhead",
)


@per_catalog
def memory_rows(cat: Catalog) -> dict[str, dict[str, str]]:
    """Per message table, each part's "mem.line" with its name already written in, as a
    ``%``-template of the GB alone (a line that needs more than that is left out)."""
    out: dict[str, dict[str, str]] = {}
    for lang in message_tables(cat):
        v = Voice(cat, lang)
        rows = out[lang] = {}
        for k in _MEMORY_PARTS:
            row = percent_template(v.text("mem.line"), {"part": v.t(f"mem.{k}")})
            if row is not None and set(_FIELD.findall(row)) <= {"gb"}:
                rows[k] = row
    return out


def memory_line(v: Voice, part: str, gb: float, rows: dict[str, str] | None = None) -> str:
    """One part of the memory: its name and GB."""
    row = (memory_rows(v.cat)[v.table_lang] if rows is None else rows).get(part)
    if row is None:
        return v.t("mem.line", part=v.t(f"mem.{part}"), gb=v.gbs[gb])
    return row % {"gb": v.gbs[gb]}


@per_catalog
def memory_fills(cat: Catalog) -> dict[str, dict[str, tuple[str, str]]]:
    """Per message table, each part's "mem.line" with its name already written in, as the
    text before and after its GB (``memory_rows``' row, one field): a line is then two
    concatenations, cheaper than the row's ``%``."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for lang, rows in memory_rows(cat).items():
        out[lang] = {}
        for k, row in rows.items():
            field = _FIELD.search(row)
            if field is not None and len(_FIELD.findall(row)) == 1:  # the "gb" field, once
                cut = field.end() - len("%(gb)s")  # the match starts at the %% pairs before it
                head, tail = row[:cut], row[field.end() :]
                out[lang][k] = (head.replace("%%", "%"), tail.replace("%%", "%"))
    return out


def memory_lines(v: Voice, a: Answer) -> list[str]:
    mem = a.memory_gb or {}
    # this voice's rows, kept with it (one read, not a lookup); typed, a line is two str adds
    rows: dict[str, tuple[str, str]] | None = v.made.get("mem.rows")
    if rows is None:
        rows = v.made["mem.rows"] = memory_fills(v.cat)[v.table_lang]
    gb, fill = v.gbs, v.fill
    orders = v.made.get("mem.orders")  # by the breakdown's keys: its parts in order, each row
    if orders is None:
        orders = v.made["mem.orders"] = {}
    keys = tuple(mem)
    shown: tuple[tuple[str, tuple[str, str] | None], ...] | None = orders.get(keys)
    if shown is None:
        shown = orders[keys] = tuple((k, rows.get(k)) for k in _MEMORY_PARTS if k in mem)
    lines = [
        row[0] + gb[mem[k]] + row[1] if row is not None else memory_line(v, k, mem[k])
        for k, row in shown
    ]
    lines.append(fill["mem.total:gb"]((gb[mem.get("total", 0)],)))
    quick = a.quick_rule_gb
    if quick is not None:
        # the rule's 20% is a moderate context's cache: past it, say the rule falls short
        low = mem.get("total", 0) > quick * QUICK_RULE_SHORT
        spec = "mem.quick_rule_low:gb" if low else "mem.quick_rule:gb"
        lines.append(fill[spec]((gb[quick],)))
    return lines


def fit_line(v: Voice, f: Fit) -> str:
    amount = f.card not in v.cat.card_by_name  # a plain amount ("64 GB"): no "64 GB has 64 GB"
    if f.fits:
        spec = _FIT_SPECS[f.tight, amount]
    elif f.headroom_gb >= 0:  # room enough, but the weights cannot run there
        spec = "fit.no_fp8:card,cap,headroom"
    else:
        spec = "fit.no_amount:card,cap,headroom" if amount else "fit.no:card,cap,headroom"
    return v.fill[spec](
        (
            f.card if f.count == 1 else f"{f.count}× {f.card}",
            v.gbs[f.vram_gb or 0],
            v.rooms[f.headroom_gb] if f.fits else v.rooms[-f.headroom_gb],  # "<0.1 GB short"
        )
    )


_FIT_SPECS: Final = {  # fits: (tight, a plain amount) -> spec
    (False, False): "fit.yes:card,cap,headroom",
    (False, True): "fit.yes_amount:card,cap,headroom",
    (True, False): "fit.yes_tight:card,cap,headroom",
    (True, True): "fit.yes_tight_amount:card,cap,headroom",
}


def card_lines(v: Voice, c: Any) -> list[str]:
    prov = v.cat.fleet.provider
    week_of = prov.min_term_days * 24 / prov.hours_per_month  # a week's share of a month
    card = v.cat.card_by_name.get(c.name)
    least = card.min_count if card is not None else 1
    if card is not None and least > 1:  # rented only in sets: the smallest set's week
        week = set_price(v.cat, card, least)[2] * week_of
        term = v.t("card.min_term_set", week=v.usds[week], days=prov.min_term_days, min=least,
                   card=c.name)  # fmt: skip
    else:
        term = v.t("card.min_term", week=v.usds[c.monthly_usd * week_of], days=prov.min_term_days)
    return [
        v.t(
            "card.memory", vram=v.gbs[c.vram_gb], type=c.memory_type, bw=v.nums[0][c.bandwidth_gbps]
        ),
        v.t("card.price", price=v.usds[c.monthly_usd], hour=v.usds[c.usd_per_gpu_hour]),
        term,
        v.t(
            "card.econ", per_gb=v.usds[c.usd_per_gb_month], per_usd=v.nums[2][c.gbps_per_usd_month]
        ),
        v.t("card.fp8_yes" if c.fp8 else "card.fp8_no"),
        v.t("card.platform", platform=c.platform, arch=c.arch),
        v.t("card.sets", sizes=", ".join(str(n) for n in c.set_sizes), min=c.min_count)
        if c.set_sizes
        else v.t("card.sets_single"),
        v.t("card.link", link=v.link(c.interconnect), gbps=v.nums[0][c.link_gbps or 0]),
        v.t("card.regions", regions=", ".join(c.regions)),
    ]
