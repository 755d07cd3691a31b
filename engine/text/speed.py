"""A speed question's first sentence: the single-stream decode ceiling, before the fit."""

from __future__ import annotations

from engine.answer_types import Answer, Pick, Request
from engine.text.labels import model_label
from engine.text.voice import Voice


def _label(v: Voice, req: Request) -> str:
    return f"{model_label(v, req, True)} {req.precision.upper()}"


def speed_lead(v: Voice, a: Answer) -> str:
    """The ceiling of what the hardware holds: the asked precision, else the best rung that
    fits (said so); "" when there is no single fit to speak of ("A or B": the choice says)."""
    req, f = a.request, a.fit
    if req is None or f is None or len(a.fits) > 1:
        return ""
    hw = f.card if f.count == 1 else f"{f.count}× {f.card}"
    if not f.decode_tok_s and (f.fits or f.best is not None):  # it runs: no bandwidth known
        # (a Mac, a plain amount): said as such, never "holds it at no precision"; the fit
        # headline after it says at which precision it runs
        return v.t("headline.speed_no_figure", hw=f.mac or hw)
    if not f.decode_tok_s:
        return v.fill["headline.speed_none:request,hw"]((_label(v, req), hw))
    tok = v.nums[0][f.decode_tok_s]
    if f.fits or f.best is None:
        return v.fill["headline.speed:tok,request,hw"]((tok, _label(v, req), hw))
    spec = "headline.speed_best:tok,prec,best,hw"
    return v.fill[spec]((tok, req.precision.upper(), f.best.precision.upper(), hw))


def rental_speed_lead(v: Voice, req: Request, p: Pick) -> str:
    """A speed question with no hardware named: the ceiling on the set the answer picks."""
    hw = p.card if p.count == 1 else f"{p.count}× {p.card}"
    return v.fill["headline.speed:tok,request,hw"](
        (v.nums[0][p.decode_tok_s or 0.0], _label(v, req), hw)
    )


def lead_with(a: Answer, lead: str) -> None:
    """The headline opens with ``lead`` (the renderers then put the headline first)."""
    if lead:
        a.__dict__.update(headline=lead + " " + a.headline, leads_with="speed")
