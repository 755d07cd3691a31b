"""Text of the limit answers (longest context, most users on given hardware): the number that
was asked for leads, and a precision that does not fit gives no "0 tokens" line but the
precisions that do.
"""

from __future__ import annotations

from typing import Any

from engine.answer_types import Answer, Limit, LimitOption, Request
from engine.sizing import GB
from engine.text.labels import ctx_text, memory_line, model_label
from engine.text.voice import Voice, section


def _card(lim: Limit) -> str:
    """The hardware as named: a rig's label ("RTX 3090 + RTX 3060 12GB") counts its cards."""
    return lim.card if lim.count == 1 or " + " in lim.card else f"{lim.count}× {lim.card}"


def _capped(req: Request, tokens: int) -> bool:
    assert req.model is not None
    cap = req.model.max_context_tokens
    return bool(cap) and tokens >= (cap or 0)


def headline(v: Voice, req: Request, lim: Limit, asked: str | None, users_kv8: int | None) -> str:
    """The asked limit first: "about 314 users at 8k", "up to 35k context in Q4_K_M"."""
    params: dict[str, Any] = {
        "card": _card(lim),
        "model": model_label(v, req, True),
        "prec": req.precision.upper(),
        "at": ctx_text(v, req.context_tokens),
    }
    mctx, mb = lim.max_context_tokens or 0, lim.max_batch or 0
    no_user = asked == "batch" and not mb and bool(lim.options)  # "how many users?": none here
    if (mb or mctx) and not no_user:
        if asked == "batch" and mb:
            key = "headline.limit_users" if mb > 1 else "headline.limit_user_one"
            text = v.t(key, users=v.nums[0][mb], **params)
            if users_kv8 and users_kv8 > mb:
                text += v.t("headline.limit_kv8", users_kv8=v.nums[0][users_kv8])
            return text + _engine_note(v, mb, lim.engine_batch, "users")
        if asked == "context":
            key = "headline.limit_ctx_max" if _capped(req, mctx) else "headline.limit_ctx"
            text = v.t(key, ctx=ctx_text(v, mctx), **params)
            return text + _engine_note(v, mctx, lim.engine_context_tokens, "ctx")
        return v.t("headline.limit", **params)
    if not lim.options:
        return v.t("headline.limit_none", **params)
    best = lim.options[0]
    if asked == "context":
        longest = max(lim.options, key=lambda o: o.max_context_tokens)
        text = v.t(
            "headline.limit_other_ctx",
            best=best.precision.upper(),
            ctx=ctx_text(v, best.max_context_tokens),
            **params,
        )
        if longest.max_context_tokens > best.max_context_tokens:
            text += " " + v.t(
                "headline.limit_longest",
                prec_long=longest.precision.upper(),
                ctx=ctx_text(v, longest.max_context_tokens),
            )
        return text
    most = max(lim.options, key=lambda o: o.max_batch)
    if mctx or not best.max_batch:  # it runs at a shorter context, or the best needs FP8 KV
        return _users_elsewhere(v, lim, params, mctx)
    return v.t(
        "headline.limit_other",
        best=best.precision.upper(),
        users=v.nums[0][best.max_batch],
        most=most.precision.upper(),
        most_users=v.nums[0][most.max_batch],
        **params,
    )


def _users_elsewhere(v: Voice, lim: Limit, params: dict[str, Any], mctx: int) -> str:
    """No user at the asked precision and context: why (it does not fit, or only a shorter
    context does), then the heaviest precision that holds one (with an FP8 KV cache if that
    is what it takes, as the fit answer before it said) and the one that holds the most."""
    intro = (
        v.t("headline.limit_no_user", ctx=ctx_text(v, mctx), **params)
        if mctx
        else v.t("headline.limit_not_here", **params)
    )
    best = lim.options[0]
    most = max(lim.options, key=lambda o: o.max_batch)
    at = params["at"]
    if best.max_batch:
        return f"{intro} " + v.t(
            "headline.limit_then",
            best=best.precision.upper(),
            users=v.nums[0][best.max_batch],
            most=most.precision.upper(),
            most_users=v.nums[0][most.max_batch],
            at=at,
        )
    text = f"{intro} " + v.t(
        "headline.limit_then_kv8",
        best=best.precision.upper(),
        users=v.nums[0][best.max_batch_kv_fp8],
        at=at,
    )
    if most.max_batch > best.max_batch_kv_fp8:
        text += " " + v.t(
            "headline.limit_most",
            most=most.precision.upper(),
            most_users=v.nums[0][most.max_batch],
        )
    return text


def _engine_note(v: Voice, full: int, share: int | None, what: str) -> str:
    """The asked limit at the engine's default share of memory, when it is less than at 100%
    (a limit found by filling the memory sits at the edge by construction)."""
    if share is None or share >= full:
        return ""
    if share == 0:
        return v.t("headline.limit_engine_none")
    return v.t("headline.limit_engine_" + what, n=v.nums[0][share])


def _option_line(v: Voice, o: LimitOption, req: Request) -> str:
    if not o.max_batch:  # fits only with an FP8 KV cache: its figures are with that cache
        return v.t(
            "limit.option_kv8",
            prec=o.precision.upper(),
            users_kv8=v.nums[0][o.max_batch_kv_fp8],
            at=ctx_text(v, req.context_tokens),
            ctx=ctx_text(v, o.max_context_tokens),
        )
    return v.t(
        "limit.option" if o.max_batch != 1 else "limit.option_one",
        prec=o.precision.upper(),
        users=v.nums[0][o.max_batch],
        users_kv8=v.nums[0][o.max_batch_kv_fp8],
        at=ctx_text(v, req.context_tokens),
        ctx=ctx_text(v, o.max_context_tokens),
    )


def describe_limit(
    v: Voice, a: Answer, asked: str | None = None, users_kv8: int | None = None
) -> Answer:
    req, lim = a.request, a.limit
    assert req is not None and lim is not None and a.memory_gb is not None
    mctx, mb = lim.max_context_tokens or 0, lim.max_batch or 0
    label = f"{mctx / 1024:.0f}k"  # the longest context, short
    if mctx or mb:
        lines = [v.t("limit.context", tokens=v.nums[0][mctx], label=label, batch=req.batch)]
        if mb or not lim.options:  # no "0 users" line when the precisions that hold one follow
            lines.append(
                v.t("limit.batch", batch=v.nums[0][mb], ctx=ctx_text(v, req.context_tokens))
            )
        ctx90, mb90 = lim.engine_context_tokens, lim.engine_batch
        if ctx90 is not None and mb90 is not None and (ctx90 < mctx or mb90 < mb):
            lines.append(_other_share(v, "limit.engine", ctx90, mb90, req))
        up_ctx, up_users = lim.raised_context_tokens, lim.raised_batch
        if up_ctx is not None and up_users is not None and (up_ctx > mctx or up_users > mb):
            lines.append(_other_share(v, "limit.mac_raised", up_ctx, up_users, req))
    else:  # nothing at the asked precision: say so once, then what does fit
        lines = [v.t("limit.no_fit", prec=req.precision.upper(), card=_card(lim))]
    lines += [_option_line(v, o, req) for o in lim.options]
    mem = a.memory_gb
    per_token = a.kv_bytes_per_token or 0
    memory = [
        memory_line(v, "weights", mem["weights"]),
        memory_line(v, "overhead", mem["overhead"]),
    ]
    kv_gb = mctx * per_token * req.batch / GB  # the cache the longest context fills
    if kv_gb > 0:  # and what that adds up to
        kb = v.nums[0][per_token / 1000]
        memory.append(v.t("limit.kv_at_max", label=label, gb=v.gbs[kv_gb], kb=kb))
        memory.append(v.t("mem.total", gb=v.gbs[mem["weights"] + mem["overhead"] + kv_gb]))
    sections = [section(v.t("section.limit"), lines), section(v.t("section.memory"), memory)]
    mathl = [
        v.t(
            "math.limit",
            bytes=v.nums[0][per_token],
            free=v.nums[2][max(0.0, kv_gb)],
        )
    ]
    # the caller hands over an answer it has just built and nothing else holds: filled in
    # place, not copied
    d = a.__dict__
    d["headline"] = headline(v, req, lim, asked, users_kv8)
    d["sections"] = sections
    d["math"] = mathl
    return a


def _other_share(v: Voice, key: str, tokens: int, users: int, req: Request) -> str:
    """The limits at another share of the memory (vLLM's 90%, a Mac's raised GPU limit)."""
    ctx = ctx_text(v, req.context_tokens)
    return v.t(key, tokens=v.nums[0][tokens], batch=req.batch, users=v.nums[0][users], ctx=ctx)
