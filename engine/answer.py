"""``ask(text) -> Answer``: the one entry point every adapter calls.

Parsing says what was asked; this module decides what kind of answer that is, runs the
arithmetic and the card rules, and writes the answer's text blocks in the asker's language.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine import faq as faq_mod
from engine.catalog import Catalog, load_catalog
from engine.i18n import pick_lang, t
from engine.models import (
    Answer,
    BudgetOption,
    Candidate,
    Card,
    CardInfo,
    Fit,
    Lang,
    Limit,
    ModelRef,
    ModelSpec,
    Note,
    Pick,
    Request,
    Section,
)
from engine.parse import MAX_SIZE_B, MIN_SIZE_B, CardAsk, Query, parse
from engine.recommend import (
    Workload,
    alternatives,
    decode_for,
    is_tight,
    recommend,
    set_allowed,
    set_price,
)
from engine.rounding import fmt_gb, fmt_num, fmt_usd
from engine.sizing import (
    FT_SEQ_TOKENS,
    LORA_BASE_PRECISION,
    Breakdown,
    inference,
    kv_bytes_per_token,
    max_batch,
    max_context_tokens,
    quick_rule_gb,
    training,
)

DEFAULT_CONTEXT = 8192
DEFAULT_BATCH = 1
MAX_CONTEXT_CAP = 10 * 1024 * 1024
MAX_BATCH = 100_000
MAX_PARAMS_B = 100_000.0


_FAQ_INDEX = re.compile(r"^\s*/?(?:faq|pytania|czesto zadawane|คำถามที่พบบ่อย)\s*[?!.]*\s*$", re.I)


@dataclass(frozen=True)
class Context:
    """What a follow-up refines: the last request and the card it was answered with."""

    request: Request
    pick_card: str | None = None


@lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    return load_catalog()


def ask(
    text: str,
    lang: str | None = None,
    *,
    locale: str | None = None,
    catalog: Catalog | None = None,
    previous: Context | None = None,
) -> Answer:
    """Answer one question. ``lang`` forces the reply language; ``locale`` is only a hint."""
    cat = catalog or default_catalog()
    q = parse(text or "", cat)
    forced = pick_lang(lang)
    reply_lang: Lang = forced or q.lang or pick_lang(locale) or "en"
    return _Builder(cat, reply_lang, q, previous).build()


def context_of(answer: Answer) -> Context | None:
    """The state a follow-up needs, or None when the answer has no request to refine."""
    if answer.request is None or answer.request.model is None:
        return None
    pick = answer.recommendation.card if answer.recommendation else None
    if answer.fit is not None:
        pick = answer.fit.card
    return Context(answer.request, pick)


# --------------------------------------------------------------------------- helpers


def card_info(cat: Catalog, card: Card) -> CardInfo:
    return CardInfo(
        name=card.name,
        vram_gb=card.vram_gb,
        bandwidth_gbps=card.bandwidth_gbps,
        monthly_usd=card.monthly_usd,
        fp8=card.fp8,
        usd_per_gb_month=card.usd_per_gb_month,
        gbps_per_usd_month=card.gbps_per_usd_month,
        usd_per_gpu_hour=card.monthly_usd / cat.fleet.provider.hours_per_month,
        memory_type=card.memory_type,
        min_count=card.min_count,
        interconnect=card.interconnect,
        link_gbps=card.link_gbps,
        platform=card.platform,
        arch=card.arch,
        regions=card.regions,
        set_sizes=card.set_sizes,
    )


def model_ref(m: ModelSpec) -> ModelRef:
    return ModelRef(
        id=m.id,
        name=m.name,
        params_b=m.params_b,
        active_params_b=m.active_params_b,
        layers=m.layers,
        kv_heads=m.kv_heads,
        head_dim=m.head_dim,
        attention_heads=m.attention_heads,
        assumed=False,
        mla=m.mla,
        sliding_window=m.sliding_window,
        sliding_layers=m.sliding_layers,
        max_context_tokens=m.max_context_tokens,
        shape_source=m.source,
    )


def typical_ref(cat: Catalog, size_b: float) -> ModelRef:
    """A bare size: the guide's typical shape, or the nearest real dense GQA model's shape."""
    for s in cat.shapes:
        if abs(s.params_b - size_b) < 1e-9:
            return ModelRef(
                name=None,
                params_b=size_b,
                layers=s.layers,
                kv_heads=s.kv_heads,
                head_dim=s.head_dim,
                attention_heads=s.attention_heads,
                assumed=True,
                shape_source=s.like,
            )
    dense = [
        m for m in cat.models if m.moe is None and m.mla is None and m.kv_heads < m.attention_heads
    ]
    like = min(dense, key=lambda m: (abs(math.log(m.params_b / size_b)), m.released[::-1]))
    return ModelRef(
        name=None,
        params_b=size_b,
        layers=like.layers,
        kv_heads=like.kv_heads,
        head_dim=like.head_dim,
        attention_heads=like.attention_heads,
        assumed=True,
        shape_source=like.name,
    )


def task_label(cat: Catalog, lang: str, task: str) -> str:
    return t(cat, lang, f"task.{task}")


def precision_label(precision: str) -> str:
    return precision.upper()


def ctx_label(tokens: int) -> str:
    if tokens % (1024 * 1024) == 0:
        return f"{tokens // (1024 * 1024)}M"
    if tokens % 1024 == 0:
        return f"{tokens // 1024}k"
    return f"{tokens:,}"


class ServingRow(BudgetOption):
    """One (model, precision) at the default context, with its cheapest card; per catalog."""

    nominal_b: float
    released_rank: int
    attention_heads: int


@lru_cache(maxsize=8)
def serving_table(cat: Catalog) -> tuple[ServingRow, ...]:
    """Every catalog model served at BF16, FP8 and INT4 (8k, batch 1): computed once."""
    rows: list[ServingRow] = []
    order = {m.id: i for i, m in enumerate(sorted(cat.models, key=lambda m: m.released))}
    for m in cat.models:
        ref = model_ref(m)
        for prec in ("bf16", "fp8", "int4"):
            p = cat.precision_by_name[prec]
            need = inference(ref, p.bytes_per_param, 2.0, DEFAULT_CONTEXT, 1).total
            read = (m.active_params_b or m.params_b) * p.bytes_per_param
            w = Workload(need, "inference", p.needs_fp8, m.attention_heads, read)
            pick, _ = recommend(cat, w)
            rows.append(
                ServingRow(
                    model=m.name,
                    model_id=m.id,
                    params_b=m.params_b,
                    precision=prec,
                    need_gb=need,
                    card=pick.card if pick else "",
                    count=pick.count if pick else 0,
                    monthly_usd=pick.monthly_usd if pick else float("inf"),
                    decode_tok_s=pick.decode_tok_s if pick else None,
                    nominal_b=m.nominal_b,
                    released_rank=order[m.id],
                    attention_heads=m.attention_heads,
                )
            )
    return tuple(rows)


# --------------------------------------------------------------------------- builder


class _Builder:
    """Builds one answer; holds the catalog and language so helpers stay short."""

    def __init__(self, cat: Catalog, lang: Lang, q: Query, prev: Context | None) -> None:
        self.cat = cat
        self.lang = lang
        self.q = q
        self.prev = prev
        self.caveats: list[Note] = []
        self.assumptions: list[Note] = []

    # -- text helpers
    def t(self, key: str, **params: Any) -> str:
        return t(self.cat, self.lang, key, **params)

    def gb(self, value: float) -> str:
        return fmt_gb(value, self.lang)

    def usd(self, value: float) -> str:
        return fmt_usd(value, self.lang)

    def num(self, value: float, decimals: int = 0) -> str:
        return fmt_num(value, decimals, self.lang, trim=True)

    def caveat(self, code: str, **params: Any) -> None:
        if all(n.code != code for n in self.caveats):
            self.caveats.append(
                Note.model_construct(code=code, text=self.t(f"caveat.{code}", **params))
            )

    def assume(self, code: str, **params: Any) -> None:
        if all(n.code != code for n in self.assumptions):
            self.assumptions.append(
                Note.model_construct(code=code, text=self.t(f"assume.{code}", **params))
            )

    def finish(self, answer: Answer) -> Answer:
        """Attach notes and the plain text every platform can fall back to."""
        if self.q.truncated:
            self.caveat("truncated")
        upd: dict[str, Any] = {
            "caveats": self.caveats,
            "assumptions": self.assumptions,
            "prices_as_of": self.cat.prices_as_of,
            "lang": self.lang,
        }
        a = answer.model_copy(update=upd)
        object.__setattr__(a, "text", render_text(a))  # our own fresh copy: set, don't copy again
        return a

    # -- dispatch
    def build(self) -> Answer:
        q = self.q
        if q.wants_help or not q.text:
            return self.help()
        if q.wants_cards and not q.has_subject:
            return self.cards()
        if _FAQ_INDEX.match(q.text):
            return self.faq_index()
        if q.wants_what_fits and not q.has_subject:
            return self.what_fits()
        if q.bad_size_b is not None:
            return self.help(bad_size=True)
        for name in q.unknown_precisions:
            self.caveat("unknown_precision", name=name)
        if q.extra_precisions and q.precision:
            self.caveat(
                "two_precisions",
                used=q.precision.upper(),
                ignored=", ".join(p.upper() for p in q.extra_precisions),
            )
        if q.wants_card_info and not q.has_subject and len(q.cards) == 1 and not q.followup:
            return self.card(q.cards[0].name)  # "card h100" asks about the card itself
        merged = self.merge_followup()
        if merged is None:
            if q.faq_topic is not None and not q.budget_usd:
                return self.faq(q.faq_topic)
            if q.unmatched_model:
                return self.clarify()
            if q.budget_usd is not None:
                return self.budget()
            if q.cards:
                return self.card(q.cards[0].name)
            return self.help(not_understood=True)
        req, model_note = merged
        if model_note:
            self.assume(model_note[0], **model_note[1])
        if q.wants_limit and (q.cards or q.vram_gb or self.prev_card()):
            return self.limit(req)
        if ((q.cards or q.vram_gb) and req.task == "inference") or q.wants_fit:
            return self.fit(req)
        if q.cards and req.task != "inference":
            return self.fit(req)
        if req.card is not None:  # a follow-up keeps checking the card it was about
            return self.fit(req)
        return self.sizing(req)

    def prev_card(self) -> str | None:
        if self.prev is None or not self.q.followup:
            return None
        name = self.prev.pick_card  # may be "24 GB" after a fit against a bare VRAM size
        return name if name in self.cat.card_by_name else None

    # -- request assembly
    def merge_followup(self) -> tuple[Request, tuple[str, dict[str, Any]] | None] | None:
        """Combine what this message says with the conversation's last request."""
        q = self.q
        base: Request | None = None
        if (
            self.prev is not None
            and (q.followup or not q.has_subject)
            and (q.has_modifier or q.followup or q.has_subject)
        ):
            base = self.prev.request
        if not q.has_subject and base is None:
            return None
        if q.unmatched_model and not q.has_subject:
            return None
        note: tuple[str, dict[str, Any]] | None = None
        if q.model is not None:
            ref = model_ref(q.model)
            if q.others:
                note = (
                    "ambiguous_model",
                    {"name": q.model.name, "others": ", ".join(o.model.name for o in q.others)},
                )
        elif q.size_b is not None:
            if q.unmatched_model:
                return None
            size = min(q.size_b, MAX_PARAMS_B)
            ref = typical_ref(self.cat, size)
            note = ("typical_shape", {"size": self.num(size, 1), "like": ref.shape_source})
        else:
            assert base is not None and base.model is not None
            ref = base.model
        task = q.task or (base.task if base else "inference")
        if q.task is None and base is not None and q.precision and base.task == "qlora":
            task = "inference"
        precision = q.precision or (base.precision if base and base.task == task else None)
        if task in LORA_BASE_PRECISION:
            if q.precision and q.precision != LORA_BASE_PRECISION[task]:
                self.caveat("training_precision", base=LORA_BASE_PRECISION[task].upper())
            precision = LORA_BASE_PRECISION[task]
        elif task == "full":
            precision = "bf16"
        precision = precision or "bf16"
        training_task = task != "inference"
        default_ctx = FT_SEQ_TOKENS if training_task else DEFAULT_CONTEXT
        ctx = q.context_tokens or (
            base.context_tokens if base and (base.task != "inference") == training_task else None
        )
        if ctx is None:
            ctx = default_ctx
            if training_task:
                self.assume("ft_defaults", seq=self.num(FT_SEQ_TOKENS))
            else:
                self.assume("default_context", ctx=ctx_label(DEFAULT_CONTEXT))
        ctx = max(1, min(int(ctx), MAX_CONTEXT_CAP))
        batch = q.batch or (base.batch if base else None) or DEFAULT_BATCH
        batch = max(1, min(batch, MAX_BATCH))
        kv = q.kv_dtype or (base.kv_dtype if base else "fp16")
        card, count = (q.cards[0].name, q.cards[0].count) if q.cards else (None, None)
        if not q.cards and base is not None:
            # "what about 2 cards": the card asked about before, or the one recommended.
            card = base.card or (self.prev_card() if q.count is not None else None)
            count = q.count if q.count is not None else base.count
        if q.task_generic and task == "full":
            self.assume("generic_finetune")
        req = Request(
            task=task,
            model=ref,
            precision=precision,
            kv_dtype=kv,
            context_tokens=ctx,
            batch=batch,
            card=card,
            count=count,
        )
        return req, note

    # -- arithmetic shared by several kinds
    def breakdown(self, req: Request) -> Breakdown:
        assert req.model is not None
        if req.task == "inference":
            bpp = self.cat.precision_by_name[req.precision].bytes_per_param
            kvb = self.cat.kv_by_name[req.kv_dtype].bytes
            return inference(req.model, bpp, kvb, req.context_tokens, req.batch)
        return training(req.model, req.task, req.context_tokens, req.batch)

    def workload(self, req: Request, need_gb: float) -> Workload:
        assert req.model is not None
        prec = self.cat.precision_by_name[req.precision]
        read = None
        if req.task == "inference":
            active = req.model.active_params_b or req.model.params_b
            read = active * prec.bytes_per_param
        return Workload(
            need_gb=need_gb,
            task=req.task,
            needs_fp8=prec.needs_fp8 and req.task == "inference",
            attention_heads=req.model.attention_heads,
            weights_read_gb=read,
        )

    def model_notes(self, req: Request) -> None:
        m = req.model
        assert m is not None
        if m.active_params_b:
            self.caveat(
                "moe",
                total=self.num(m.params_b, 1),
                active=self.num(m.active_params_b, 1),
            )
        if m.mla is not None and req.task == "inference":
            self.caveat("mla", rank=m.mla.kv_lora_rank, rope=m.mla.qk_rope_head_dim)
        if m.sliding_window and req.task == "inference" and req.context_tokens > m.sliding_window:
            self.caveat(
                "sliding",
                window=self.num(m.sliding_window),
                layers=m.sliding_layers,
                total=m.layers,
            )
        if m.max_context_tokens and req.context_tokens > m.max_context_tokens:
            self.caveat("beyond_max_context", max=ctx_label(m.max_context_tokens))
        prec = self.cat.precision_by_name[req.precision]
        if prec.needs_fp8 and req.task == "inference":
            no = [c.name for c in self.cat.cards if not c.fp8]
            self.caveat("fp8_cards", cards=", ".join(no))
        if prec.gguf:
            self.caveat("gguf", bits=self.num(prec.bits, 4))
        if req.kv_dtype == "fp8":
            self.caveat("kv_fp8")

    def pick_notes(self, pick: Pick, req: Request) -> None:
        card = self.cat.card_by_name[pick.card]
        if pick.tight:
            self.caveat(
                "tight" if pick.count == 1 else "tight_set",
                headroom=self.gb(pick.headroom_gb),
                per_card=self.gb(pick.headroom_gb / pick.count),
            )
        for code in card.caveats:
            self.caveat(f"card.{code}")
        if pick.count > 1:
            assert req.model is not None
            if req.task == "inference":
                self.caveat(
                    "tensor_parallel",
                    count=pick.count,
                    heads=req.model.attention_heads,
                    link=card.interconnect or "PCIe",
                )
            if card.link_gbps and card.link_gbps < 200:
                self.caveat("slow_link", link=self.num(card.link_gbps))

    # -- kinds
    def sizing(self, req: Request) -> Answer:
        assert req.model is not None
        bd = self.breakdown(req)
        need = bd.total
        w = self.workload(req, need)
        pick, nodes = recommend(self.cat, w)
        alts: list[Pick] = []
        if pick is not None:
            alts = alternatives(self.cat, w, pick)
            alts = self.lower_precision_alt(req, pick, alts)
            self.pick_notes(pick, req)
        else:
            self.caveat("cluster", nodes=nodes, card=self.cat.fleet.cluster.card)
        self.model_notes(req)
        self.training_notes(req)
        prec = self.cat.precision_by_name[req.precision]
        quick = quick_rule_gb(req.model.params_b, prec.bytes_per_param)
        kvbpt = self.kv_per_token(req)
        answer = Answer(
            kind="sizing",
            request=req,
            memory_gb=bd.as_dict(),
            recommendation=pick,
            alternatives=alts,
            decode_tok_s=pick.decode_tok_s if pick else None,
            cluster_nodes=nodes,
            quick_rule_gb=quick if req.task == "inference" else None,
            kv_bytes_per_token=kvbpt,
        )
        return self.finish(self.describe(answer))

    def kv_per_token(self, req: Request) -> float | None:
        if req.task != "inference" or req.model is None:
            return None
        kvb = self.cat.kv_by_name[req.kv_dtype].bytes
        return kv_bytes_per_token(req.model, kvb, req.context_tokens)

    def training_notes(self, req: Request) -> None:
        if req.task == "inference":
            return
        assert req.model is not None
        if req.task == "full":
            self.caveat("zero_offload")
            self.caveat("hf_accounting", gb=self.gb(req.model.params_b * 18))
            lora = training(req.model, "lora", req.context_tokens, req.batch).total
            qlora = training(req.model, "qlora", req.context_tokens, req.batch).total
            self.caveat("cheaper_methods", lora=self.gb(lora), qlora=self.gb(qlora))
        if req.task in ("lora", "qlora"):
            self.assume("lora_defaults")

    def lower_precision_alt(self, req: Request, pick: Pick, alts: list[Pick]) -> list[Pick]:
        """Quantizing onto a small card often beats full precision on a big one."""
        if req.task != "inference" or len(alts) >= 2:
            return alts
        current = self.cat.precision_by_name[req.precision]
        for lower in ("fp8", "int4"):
            p = self.cat.precision_by_name[lower]
            if p.bits >= current.bits:
                continue
            r2 = req.model_copy(update={"precision": lower})
            need = self.breakdown(r2).total
            cheaper, _ = recommend(self.cat, self.workload(r2, need))
            if cheaper is not None and cheaper.monthly_usd <= pick.monthly_usd * 0.6:
                return [
                    *alts,
                    cheaper.model_copy(
                        update={"reason": "lower_precision", "precision": lower, "need_gb": need}
                    ),
                ]
        return alts

    def fit(self, req: Request) -> Answer:
        assert req.model is not None
        bd = self.breakdown(req)
        need = bd.total
        w = self.workload(req, need)
        fits: list[Fit] = []
        asks = list(self.q.cards)
        if not asks and req.card:
            asks = [CardAsk(req.card, req.count)]
        for ask_ in asks:
            card = self.cat.card_by_name[ask_.name]
            count = ask_.count or card.min_count
            why = set_allowed(card, count, w)
            cap = card.vram_gb * count
            headroom = cap - need
            ok = headroom >= 0 and why is None
            _, _, price = set_price(self.cat, card, count)
            fits.append(
                Fit(
                    card=card.name,
                    count=count,
                    fits=ok,
                    headroom_gb=headroom,
                    tight=ok and is_tight(headroom, count),
                    monthly_usd=price,
                    reason=why,
                    vram_gb=cap,
                    decode_tok_s=decode_for(card, count, w.weights_read_gb),
                )
            )
            if why:
                self.caveat(
                    f"why.{why}", card=card.name, count=count, heads=req.model.attention_heads
                )
        if self.q.vram_gb:
            cap = self.q.vram_gb
            fits.append(
                Fit(
                    card=f"{self.num(cap, 1)} GB",
                    count=1,
                    fits=cap >= need,
                    headroom_gb=cap - need,
                    tight=cap >= need and is_tight(cap - need, 1),
                    vram_gb=cap,
                )
            )
        pick, nodes = recommend(self.cat, w)
        self.model_notes(req)
        self.training_notes(req)
        first = fits[0] if fits else None
        if first is not None and first.tight:
            self.caveat(
                "tight" if first.count == 1 else "tight_set",
                headroom=self.gb(first.headroom_gb),
                per_card=self.gb(first.headroom_gb / first.count),
            )
        answer = Answer(
            kind="fit",
            request=req,
            memory_gb=bd.as_dict(),
            recommendation=pick,
            alternatives=[],
            decode_tok_s=first.decode_tok_s if first else None,
            cluster_nodes=nodes,
            fit=first,
            fits=fits,
            kv_bytes_per_token=self.kv_per_token(req),
        )
        return self.finish(self.describe(answer))

    def limit(self, req: Request) -> Answer:
        assert req.model is not None
        if self.q.cards:
            card = self.cat.card_by_name[self.q.cards[0].name]
            count = self.q.cards[0].count or card.min_count
            label, cap = card.name, card.vram_gb * count
        elif self.q.vram_gb:
            label, count, cap = f"{self.num(self.q.vram_gb, 1)} GB", 1, self.q.vram_gb
        else:
            name = self.prev_card() or ""
            card = self.cat.card_by_name[name]
            count, label, cap = card.min_count, card.name, card.vram_gb * card.min_count
        inf = req.model_copy(update={"task": "inference"})
        bd = self.breakdown(inf)
        fixed = bd.parts["weights"] + bd.parts["overhead"]
        free = cap - fixed
        kvb = self.cat.kv_by_name[req.kv_dtype].bytes
        cap_ctx = req.model.max_context_tokens or MAX_CONTEXT_CAP
        mctx = max_context_tokens(req.model, free, kvb, req.batch, cap_ctx)
        mb = max_batch(req.model, free, kvb, req.context_tokens)
        if req.model.max_context_tokens and mctx >= req.model.max_context_tokens:
            self.caveat("limit_model_max", max=ctx_label(req.model.max_context_tokens))
        if free <= 0:
            self.caveat("limit_no_room", need=self.gb(fixed), cap=self.gb(cap))
        self.model_notes(inf)
        self.assumptions = [n for n in self.assumptions if n.code != "default_context"]
        answer = Answer(
            kind="limit",
            request=inf.model_copy(update={"card": label if self.q.cards else None}),
            memory_gb=bd.as_dict(),
            limit=Limit(
                card=label,
                count=count,
                max_context_tokens=mctx,
                max_batch=min(mb, MAX_BATCH),
            ),
            kv_bytes_per_token=self.kv_per_token(inf),
        )
        return self.finish(self.describe(answer))

    def budget(self) -> Answer:
        """The biggest models the monthly budget can serve, each at its best precision."""
        assert self.q.budget_usd is not None
        limit_usd = self.q.budget_usd
        rows = [r for r in serving_table(self.cat) if r.monthly_usd <= limit_usd]
        self.assume("default_context", ctx=ctx_label(DEFAULT_CONTEXT))
        answer = Answer(kind="budget", budget=self.best_per_size(rows), budget_usd=limit_usd)
        return self.finish(self.describe(answer))

    def what_fits(self) -> Answer:
        """The biggest models one card (or set, or VRAM amount) holds, at the best precision."""
        q = self.q
        card: Card | None = None
        if q.cards:
            card = self.cat.card_by_name[q.cards[0].name]
            count = q.cards[0].count or card.min_count
            label, cap = card.name, card.vram_gb * count
            if count > 1:
                label = f"{count}× {card.name}"
        else:
            assert q.vram_gb is not None
            count, label, cap = 1, f"{self.num(q.vram_gb, 1)} GB", q.vram_gb
        rows = []
        for r in serving_table(self.cat):
            if r.need_gb > cap:
                continue
            if card is not None:  # the same set rules as any recommendation (FP8, TP heads)
                needs_fp8 = self.cat.precision_by_name[r.precision].needs_fp8
                w = Workload(r.need_gb, "inference", needs_fp8, r.attention_heads, None)
                if set_allowed(card, count, w) is not None:
                    continue
            rows.append(r.model_copy(update={"card": label, "count": count}))
        self.assume("default_context", ctx=ctx_label(DEFAULT_CONTEXT))
        answer = Answer(
            kind="capacity",
            budget=self.best_per_size(rows),
            fit=Fit(
                card=label, count=count, fits=bool(rows), headroom_gb=0.0, tight=False, vram_gb=cap
            ),
        )
        return self.finish(self.describe(answer))

    def best_per_size(self, rows: list[ServingRow]) -> list[BudgetOption]:
        """One option per model size (newest model of that size), biggest first, at most 5."""
        best: dict[str, ServingRow] = {}
        for r in rows:  # rows come highest precision first per model
            best.setdefault(r.model_id, r)
        ranked = sorted(
            best.values(),
            # a size's newest base model first; distilled derivatives only when nothing else
            key=lambda r: (-r.nominal_b, "distill" in r.model_id, -r.released_rank, r.monthly_usd),
        )
        seen: set[float] = set()
        out: list[BudgetOption] = []
        for r in ranked:
            if r.nominal_b in seen:
                continue
            seen.add(r.nominal_b)
            out.append(BudgetOption(**r.model_dump(include=set(BudgetOption.model_fields))))
            if len(out) == 5:
                break
        return out

    def card(self, name: str) -> Answer:
        card = self.cat.card_by_name[name]
        for code in card.caveats:
            self.caveat(f"card.{code}")
        answer = Answer(kind="card", card=card_info(self.cat, card))
        return self.finish(self.describe(answer))

    def cards(self) -> Answer:
        infos = [card_info(self.cat, c) for c in self.cat.cards]
        return self.finish(self.describe(Answer(kind="cards", cards=infos)))

    def faq(self, topic: str) -> Answer:
        body = faq_mod.answer(self.cat, self.lang, topic)
        title = self.t(f"faq.{topic}.title")
        answer = Answer(
            kind="faq",
            faq_topic=topic,
            headline=title,
            sections=[Section(title="", lines=body)],
        )
        return self.finish(answer)

    def faq_index(self) -> Answer:
        lines = [f"• {self.t(f'faq.{t.id}.title')} (faq {t.id})" for t in self.cat.faq]
        return self.finish(
            Answer(
                kind="faq",
                headline=self.t("faq.index"),
                sections=[Section.model_construct(title="", lines=lines)],
            )
        )

    def clarify(self) -> Answer:
        cands = [
            Candidate(id=o.model.id, name=o.model.name, score=o.score) for o in self.q.others[:5]
        ]
        words = self.q.model_words.strip()
        if cands:
            head = self.t("clarify.which", words=words)
            lines = [f"• {c.name}" for c in cands] + [self.t("clarify.retry")]
        else:
            head = self.t("clarify.unknown", words=words)
            lines = [self.t("help.example")]
        answer = Answer(
            kind="clarify",
            candidates=cands,
            headline=head,
            sections=[Section(title="", lines=lines)],
        )
        return self.finish(answer)

    def help(self, not_understood: bool = False, bad_size: bool = False) -> Answer:
        head = self.t("help.not_understood" if not_understood else "help.title")
        if bad_size:  # "0b", "1e-28t": refused with the range that makes sense
            head = self.t("help.bad_size", min=self.num(MIN_SIZE_B, 2), max=self.num(MAX_SIZE_B))
        lines = [
            self.t("help.intro"),
            self.t("help.examples"),
            "• 70b int4 128k",
            "• llama 3.1 70b fp8 32k batch 8",
            "• does qwen2.5 32b fit on a 4090?",
            "• qlora 13b",
            "• card a40",
            self.t("help.defaults"),
        ]
        return self.finish(
            Answer(kind="help", headline=head, sections=[Section(title="", lines=lines)])
        )

    # -- text blocks
    def describe(self, a: Answer) -> Answer:
        """Headline, sections and the math view for every kind with numbers."""
        from engine.describe import describe

        return describe(self, a)


def render_text(a: Answer) -> str:
    """Plain text: the fallback every platform can show (and what ``vram ask`` prints)."""
    out = [a.headline] if a.headline else []
    for s in a.sections:
        if s.title:
            out.append("")
            out.append(s.title)
        out.extend(s.lines)
    notes = [n.text for n in a.caveats]
    if notes:
        out.append("")
        out.extend(f"! {n}" for n in notes)
    if a.assumptions:
        out.append("")
        out.extend(f"~ {n.text}" for n in a.assumptions)
    return "\n".join(out).strip()


__all__ = ["Context", "ask", "context_of", "default_catalog", "render_text"]
