"""The period a budget is said in ("$2/hr", "2 usd/h", "$50 a day", "$200/week").

Prices are monthly; a budget said per hour is marked ``wants_hourly`` (the answer multiplies
it by the provider's hours in a month), one per day or week becomes the month it comes to
here. Without this, "/hr" was dropped and "$2/hr" read as $2 a month, and "/h" was left
behind as a model's name.
"""

from __future__ import annotations

import re
from typing import Final

from engine.catalog import Catalog
from engine.lazyre import lazy
from engine.understand.query import Query

# Right after the amount: a separator and a unit, or one word that says both. Latin words end
# at a word's edge; Thai runs on without a space ("ต่อชั่วโมงใช้โมเดลไหน").
PERIOD: Final = lazy(
    r"(?:\s*(?:\$|usd\b|dollars?\b|dolar\w*|bucks\b|ดอลลาร์))?"  # "budżet 100 $ tygodniowo"
    r"\s*(?:(?:/|per\b|an?\b|each\b|na\b|za\b|po\b)\s*"
    r"(?:(hours?|hrs?|h|godzin[ęeyaą]?|godz\b\.?)|(days?|d|dzie[nń]|dob[ęeyaą]?)"
    r"|(weeks?|wk|tydzie[nń]|tygodni[eua]?))(?!\w)"
    r"|(hourly|godzinowo|za\s+godzin[ęe])(?!\w)|(daily|dziennie)(?!\w)|(weekly|tygodniowo)(?!\w)"
    r"|(?:ต่อ\s*|ละ\s*|ราย)(?:(ชั่วโมง|ชม\.?)|(วัน)|(สัปดาห์|อาทิตย์)))"
)
_UNITS: Final = ("hour", "day", "week")


def period_after(s: str, end: int) -> tuple[str | None, int]:
    """The period said right after a money amount that ends at ``end``, and where it ends."""
    m = PERIOD.match(s, end)
    if m is None or m.lastindex is None:
        return None, end
    return _UNITS[(m.lastindex - 1) % 3], m.end()


def cut_money(q: Query, s: str, m: re.Match[str], catalog: Catalog) -> str:
    """Cut a money match and the period after it from ``s``; a budget per day or week is the
    month it comes to (hours in a month / 24 days), one per hour is marked for the answer.
    An amount in another currency keeps its period in what is said back ("8 zł/h")."""
    unit, end = period_after(s, m.end())
    if unit is not None and q.other_money is not None:
        q.other_money = s[m.start() : end].strip()
    elif unit == "hour":
        q.wants_hourly = True
    elif unit is not None and q.budget_usd is not None:
        hours = catalog.fleet.provider.hours_per_month
        q.budget_usd *= hours / (24 if unit == "day" else 24 * 7)
    return s[: m.start()] + " " + s[end:]


# The rental terms of a card ("minimum rental for an RTX A5000", "najkrótszy wynajem a40",
# "เช่าขั้นต่ำ"): the card's sheet, with its minimum term and that week's price, not the FAQ
# on when not to rent.
# Only asked whether it matches: "\b(?:minimum|...)<then a rental word>" is spelt out per word
# ("m(?<!\wm)inimum" is "\bminimum"), so every form opens with a letter the regex engine skips to.
_RENT_WORD: Final = (
    r"\b(?:\s+\S+){0,3}?\s+(?:rent\w*|hire|period|term|lease|wynaj\w*|najem\w*|najm\w*|okres\w*)\b"
)
_RENT_TERM: Final = r"\s+(?:period|term|okres\w*)\b"
RENT_TERMS: Final = lazy(
    "|".join(w + _RENT_WORD for w in (
        r"m(?<!\wm)in(?:imum|imal|)", r"s(?<!\ws)hortest", r"n(?<!\wn)ajkr[oó]tsz\w*",
        r"m(?<!\wm)inimaln\w*",
    ))
    + "|"
    + "|".join(w + _RENT_TERM for w in (r"r(?<!\wr)ent\w*", r"w(?<!\ww)ynaj\w*", r"n(?<!\wn)ajm\w*"))
    + r"|ขั้นต่ำ|สั้นที่สุด|สั้นสุด"
)  # fmt: skip


def says_rent_terms(low: str) -> bool:
    """Whether ``low`` asks a card's rental terms (``RENT_TERMS``): first whether it holds a
    word that opens one of its forms ("naj" is in "najkr", "najm" and "wynaj")."""
    return (
        "min" in low or "rent" in low or "naj" in low or "shortest" in low
        or "ขั้นต่ำ" in low or "สั้น" in low
    ) and RENT_TERMS.search(low) is not None  # fmt: skip
