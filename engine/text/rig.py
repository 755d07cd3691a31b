"""Text of a fit on a person's own rig of different cards: what the rig is, each card's share
of the option shown, and the speed of layers run in turn (engine/kinds/rig.py)."""

from __future__ import annotations

from engine.answer_types import Answer, Fit, RigCard
from engine.text.voice import Voice


def _name(c: RigCard) -> str:
    return c.card if c.count == 1 else f"{c.count}× {c.card}"


def rig_lines(v: Voice, a: Answer) -> list[str]:
    """The rig as one, then the share each card holds (when something is shown on it)."""
    f = a.fit
    if f is None or not a.rig:
        return []
    num, gb = v.nums[0], v.gbs
    parts = ", ".join(
        v.t("fit.rig_card", card=_name(c), cap=gb[c.vram_gb * c.count]) for c in a.rig
    )
    out = [v.t("fit.rig", hw=f.card, cap=gb[f.vram_gb or 0], parts=parts)]
    if any(c.layers for c in a.rig):
        shown = f.precision if f.fits or f.best is None else f.best.precision
        shares = "; ".join(
            v.t(
                "fit.rig_share_card",
                card=_name(c),
                layers=num[c.layers],
                used=gb[c.used_gb],
                cap=gb[c.vram_gb * c.count],
            )
            for c in a.rig
        )
        out.append(v.t("fit.rig_share", prec=(shown or "").upper(), shares=shares))
    return out


def rig_speed(v: Voice, f: Fit) -> list[str]:
    """The ceiling of one stream whose token passes the cards in turn."""
    if not f.decode_tok_s:
        return []
    num = v.nums[0]
    line = v.t("decode.line_rig", tok=num[f.decode_tok_s])
    if f.decode_kv_tok_s:
        line += " · " + v.t("decode.kv_line", tok=num[f.decode_kv_tok_s])
    return [line]
