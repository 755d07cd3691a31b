"""What to buy at home to train a model ("what should i buy to fine-tune a 13b", "jaką kartę
kupić do fine-tuningu llama 8b w domu"): the fewest desktop cards that hold the training run.

The same desktop setups and order as inference's (engine/kinds/buying.py), each judged by the
training sizing an owned card's fit uses ("does qlora 13b fit on my 4090": the ladder's one
training rung). When no setup of up to four cards holds the asked method, the lightest
change that does is the lighter method (full, then LoRA, then QLoRA), as the fit's changes say.
"""

from __future__ import annotations

from engine.answer_types import Answer, BuyOption, Request
from engine.kinds.base import Builder
from engine.kinds.buying import HOME_COUNTS, Home, Setup, finish_buy, option, smallest
from engine.kinds.combos import LIGHTER
from engine.kinds.fit import fit_answer
from engine.sizing import LORA_BASE_PRECISION
from engine.text.buying import describe_buying


def _method(req: Request, task: str) -> Request:
    """The request trained with ``task`` instead: its frozen base's precision."""
    prec = LORA_BASE_PRECISION.get(task, "bf16")
    return req.model_copy(update={"task": task, "precision": prec, "weight_parts": None})


def _least(b: Builder, req: Request) -> Setup | None:
    return smallest(Home(b, req), [req.precision], HOME_COUNTS[-1])


def buying_training(b: Builder, req: Request) -> Answer:
    """The fewest desktop cards that hold the training run as asked, else with the lightest
    method that needs fewer (said why); a lighter method on fewer cards listed beside it."""
    req = req.model_copy(update={"card": None, "count": None})
    verdict = _least(b, req)
    shown = req
    found: list[BuyOption] = []
    lighter = [_method(req, t) for t in LIGHTER.get(req.task, ())]
    for r in lighter:
        s = _least(b, r)
        if s is None:
            continue
        if verdict is None:  # the asked method fits no home setup: the lighter one is the answer
            verdict, shown = s, r
        elif s.row.hw.count < verdict.row.hw.count or s.row.hw.vram_gb < verdict.row.hw.vram_gb:
            found.append(option("method", s, r.task))
            break
    if verdict is None:  # not even QLoRA: the fit on the largest card, and the rental
        top = max(Home(b, req).at(1), key=lambda r: r.hw.vram_gb)
        last = lighter[-1] if lighter else req
        answer = fit_answer(b, last, [top.hw])
        describe_buying(b.voice, answer, [], last, None, HOME_COUNTS[-1])
        return finish_buy(b, answer)
    found.insert(0, option("verdict", verdict, shown.task))
    answer = fit_answer(b, shown, [verdict.row.hw])
    answer.__dict__["alternatives"] = []
    full = b.breakdown(req).total if shown is not req else None
    describe_buying(b.voice, answer, found, shown, full, HOME_COUNTS[-1], asked=req)
    v = found[0]
    answer.__dict__["request"] = shown.model_copy(update={"card": v.card, "count": v.count})
    return finish_buy(b, answer)
