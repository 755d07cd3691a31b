"""Text for a Mac judged on its GPU's default share of the unified memory."""

from __future__ import annotations

from engine.answer_types import Fit, Request
from engine.text.voice import Voice, ctx_label


def mac_raised_line(v: Voice, f: Fit, req: Request) -> list[str]:
    """A Mac judged on its GPU's default share: the limits once that limit is raised, when
    they are more ([] otherwise)."""
    ctx, users = f.raised_max_context_tokens, f.raised_max_batch
    if ctx is None or users is None:
        return []
    if ctx <= (f.max_context_tokens or 0) and users <= (f.max_batch or 0):
        return []
    return [
        v.t(
            "fit.mac_raised",
            vram=v.gbs[f.vram_gb or 0],
            ctx=ctx_label(ctx),
            batch=req.batch,
            users=v.nums[0][users],
            at=ctx_label(req.context_tokens),
        )
    ]
