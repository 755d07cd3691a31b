"""Text of a "what to buy" answer: the verdict setup first, the other setups, one rental line.

Every number is the fit's or the ladder's (engine/kinds/buying.py); no purchase price exists
in data, so none is written; the cheapest rental is said last, as a rental.
"""

from __future__ import annotations

from engine.answer_types import Answer, BuyOption, Request
from engine.text.fit import describe_fit
from engine.text.labels import ctx_text, model_label
from engine.text.voice import Voice, section


def _cards(o: BuyOption) -> str:
    """ "RTX 4090 / RTX 3090": the first two cards of that memory that hold it."""
    return " / ".join(o.cards[:2])


def _speed(v: Voice, tok: float | None) -> str:
    if tok is None:
        return ""
    return v.t("buy.speed", tok=v.num(tok, 1 if tok < 10 else 0))


def _room(v: Voice, o: BuyOption) -> str:
    return v.t("buy.tight" if o.tight else "buy.room", gb=v.room(o.headroom_gb))


def _setup(v: Voice, o: BuyOption) -> str:
    """ "one RTX 6000 Ada / RTX A6000 (48 GB)", "2× RTX 4090 / RTX 3090 (48 GB)"."""
    vram = v.num(o.vram_gb * o.count, 0 if (o.vram_gb * o.count).is_integer() else 1)
    key = "buy.setup_one" if o.count == 1 else "buy.setup_many"
    return v.t(key, count=o.count, cards=_cards(o), vram=vram)


def _prec(v: Voice, o: BuyOption) -> str:
    """ "INT4", or a training setup's method ("QLoRA", "full fine-tune")."""
    return v.const["task." + o.task] if o.task else o.precision.upper()


def option_line(v: Voice, o: BuyOption) -> str:
    tail = _speed(v, o.decode_tok_s)
    return v.t(
        "buy.option",
        setup=_setup(v, o),
        prec=_prec(v, o),
        total=v.gb(o.total_gb),
        room=_room(v, o),
        speed=(", " + tail) if tail else "",
    )


def _what(v: Voice, req: Request, precision: str) -> str:
    if req.task != "inference":  # "a 13B model, QLoRA, sequence 2k"
        task = v.const["task." + req.task]
        seq = ctx_text(v, req.context_tokens)
        return v.t("buy.train_what", model=model_label(v, req), task=task, seq=seq)
    users = v.t("label.users_one") if req.batch == 1 else v.t("label.users", n=req.batch)
    return v.t(
        "buy.what",
        model=model_label(v, req),
        prec=precision.upper(),
        ctx=ctx_text(v, req.context_tokens),
        users=users,
    )


def headline(
    v: Voice,
    a: Answer,
    found: list[BuyOption],
    req: Request,
    full_gb: float | None,
    most: int,
    asked: Request | None = None,
) -> str:
    """The verdict: the setup, what it holds, the room left and the speed; then why the
    precision is lighter than asked or shipped, when it is (``full_gb``: what it needs in
    that precision; None when the verdict's precision is the one asked or shipped;
    ``most``: the most cards a home setup was tried with; ``asked``: a training request
    whose method no home setup holds, when ``req`` is the lighter method shown)."""
    total = (a.memory_gb or {}).get("total", 0.0)
    if not found:
        return v.t("buy.none", most=most, what=_what(v, req, req.precision), total=v.gb(total))
    top = found[0]
    tail = _speed(v, top.decode_tok_s)
    text = v.t(
        "buy.headline_one" if top.count == 1 else "buy.headline_many",
        setup=_setup(v, top),
        what=_what(v, req, top.precision),
        room=_room(v, top),
        speed=(", " + tail) if tail else "",
    )
    if full_gb is not None and asked is not None and asked.task != "inference":
        task = v.const["task." + asked.task]
        text += " " + v.t("buy.train_too_big", task=task, total=v.gb(full_gb), most=most)
    elif full_gb is not None:
        more = any(o.role == "shipped" for o in found)  # 2 to 4 cards hold it as asked
        key = "buy.too_big" if more else "buy.too_big_most"
        text += " " + v.t(key, prec=req.precision.upper(), total=v.gb(full_gb), most=most)
    return text


def describe_buying(
    v: Voice,
    a: Answer,
    found: list[BuyOption],
    req: Request,
    full_gb: float | None,
    most: int,
    asked: Request | None = None,
) -> None:
    """Fill the fit answer ``a`` (on the verdict's setup) as a "what to buy" answer: the
    setups first, then the fit's own sections without the rental pick's (one line says it)."""
    describe_fit(v, a)  # again: the alternatives were dropped
    lines = [option_line(v, o) for o in found]
    rec = a.recommendation
    if rec is not None:
        prec = (found[0].precision if found else req.precision).upper()
        if req.task != "inference":
            prec = v.const["task." + req.task]
        lines.append(
            v.t("buy.rent", count=rec.count, card=rec.card, price=v.usd(rec.monthly_usd), prec=prec)
        )
    cheapest = v.const["section.cheapest"]
    kept = [s for s in a.sections if s.title != cheapest]
    d = a.__dict__
    d["sections"] = [section(v.t("buy.title"), lines), *kept]
    d["headline"] = headline(v, a, found, req, full_gb, most, asked)
    d["leads_with"] = "buying"
    d["buying"] = found
