"""The fixed slot patterns (English, Polish, Thai), each gated by a cheap literal scan.

Card and precision spellings come from the catalog (:mod:`engine.understand.catalog_words`).
"""

from __future__ import annotations

import re
from typing import Final

from engine.lazyre import lazy
from engine.models import Task
from engine.understand.counts import COUNT_WORDS
from engine.understand.stop_words import STOP_WORDS as STOP_WORDS

MAX_MENTIONS: Final = 8  # cards, model ids or precisions read from one message
GROUPED: Final = r"(\d{1,3}(?:[ ,]\d{3})+|\d+)"
# "128k", "128 tys.", "128 thousand", "1m", "1 mln": first letter -> multiplier
THOUSANDS: Final = r"k\b|m\b|tys\b\.?|tysi[eę]c\w*|thousand\b|mln\b|million\b|พัน"
KV_TYPES: Final = r"(fp8|fp16|bf16|fp32|int8|q8_0|q8|q4_0|f16|f8|e4m3|e5m2|8[\s-]*bit|16[\s-]*bit)"
KV_WORD: Final = r"(?:kv(?:[\s_-]*cache)?|cache)"
KV_FIRST: Final = lazy(
    r"\b" + KV_WORD + r"\s*(?:in\s+|w\s+|as\s+|=|:)?\s*" + KV_TYPES + r"(?![\w.])"
    r"|\bkv\s*(8|16)\b"
)
KV_AFTER: Final = lazy(r"(?<![\w.])" + KV_TYPES + r"[\s_-]*" + KV_WORD + r"\b")
# Identifiers: HF repos, Ollama tags, hyphenated release names with a size in them. Their
# numbers are part of the name ("Mistral-Nemo-Instruct-2407", "phi-3-mini-128k").
IDENT: Final = lazy(
    r"(?<![\w./:-])(?!(?:ctx|context|batch|bs|kv|cache|seq|budget|q|k|m)\b)(?:"
    r"(?=[\w.\-]*[a-z])[a-z0-9][\w.\-]*/[a-z][\w.\-]*(?::[\w.\-]+)?"
    r"|[a-z][\w.\-]*:(?:\d+(?:\.\d+)?b\b|\d+x\d+b\b|[a-z][\w.]{2,})[\w.\-]*"
    r"|[a-z][\w.]*(?:-[\w.]+)*-\d+(?:\.\d+)?[bkm](?:-[\w.]+)+)(?![\w./:-])"
)
# Where an IDENT can be: a "/" or ":" in the text, or a "-<size>-" inside a release name.
IDENT_DASHED: Final = lazy(r"-\d+(?:\.\d+)?[bkm]-")
# "what can I run on a 4090", "which models fit 48gb", "co uruchomię na a40", "รันอะไรได้บ้าง".
# Only ever asked whether it matches; "\bwhat" is spelt "w(?<!\ww)hat" and so on, so every form
# opens with a letter the regex engine skips to.
WHAT_FITS: Final = lazy(
    r"w(?<!\ww)hat\s+(?:\w+\s+)?(?:fits?|can\s+(?:i|we|you)\s+(?:run|serve|host|fit)|runs?)\b"
    r"|w(?<!\ww)hich\s+models?\b|w(?<!\ww)hat\s+models?\b|b(?<!\wb)iggest\s+model\b"
    r"|l(?<!\wl)argest\s+model\b|h(?<!\wh)ow\s+(?:big|large)\s+(?:an?\s+)?(?:llm|model)s?\b"
    r"|j(?<!\wj)ak\s+du[zż]y\s+model"
    r"|c(?<!\wc)o\s+(?:si[eę]\s+)?(?:uruchomi|zmieszcz|zmie[sś]ci|odpal|wejdzie)"
    r"|j(?<!\wj)aki\s+model|j(?<!\wj)akie\s+modele"
    r"|อะไรได้บ้าง|โมเดลไหน|โมเดลอะไร|รันอะไร|อะไร\S{0,24}ได้บ้าง|ใหญ่สุดเท่าไหร่|ใหญ่ที่สุด"
    r"|j(?<!\wj)aki\s+najwi[eę]kszy"
    r"|c(?<!\wc)o\s+(?:mog[eę]|da\s+si[eę])\s+(?:uruchomi|odpali|postawi)"
    r"|w(?<!\ww)hat\s+(?:\w+\s+)?(?:will|would)\s+(?:fit|run)|w(?<!\ww)hat\s+runs\b"
)
# Number patterns open with one digit and check the character before it after that digit
# ("\d(?<![\w.]\d)" = "(?<![\w.])\d"): a pattern that opens with a character class lets the
# regex engine skip straight to the next digit instead of trying the lookbehind everywhere.
CONTEXT_KM: Final = lazy(
    r"(\d(?<![\w.$/:\-]\d)\d*(?:[.,]\d+)?)\s*(k|m)\b(?!\s*(?:usd|\$|b\b|gb\b))"
)
CONTEXT_WORD: Final = lazy(
    # "\b" as "c(?<!\wc)" per word (every word opens with a \w): the engine skips to them
    r"(?:c(?<!\wc)(?:tx|ontext(?:\s+(?:length|window|size))?)|k(?<!\wk)ontekst\w*"
    r"|s(?<!\ws)eq(?:uence)?(?:\s+len(?:gth)?)?|m(?<!\wm)ax[\s_-]*len|บ(?<!\wบ)ริบท"
    r"|ค(?<!\wค)วามยาว)\s*(?:of|=|:|o\s+d[lł]ugo[sś]ci|length|len)?\s*"
    + GROUPED
    + r"(?:\s*("
    + THOUSANDS
    + r"))?(?![\w.])(?!\s*(?:users?|chats?|sessions?|requests?|concurrent|simultaneous|people"
    r"|u[żz]ytkownik\w*|os[oó]b|sesj\w*|คน|ผู้ใช้))"
)
# "16k context", "32k ctx", "8k kontekstu", "32k tokens of context": the number comes first.
CONTEXT_BEFORE: Final = lazy(
    r"(\d(?<![\w.$/:\-]\d)(?:\d{0,2}(?:[ ,]\d{3})+|\d*(?:[.,]\d+)?))\s*(" + THOUSANDS + r")?\s*"
    r"(?:tokens?\s+(?:of\s+)?|token[óo]w\s+)?(?:context(?:\s+(?:length|window|size))?|ctx"
    r"|kontekst\w*|บริบท)(?![\w=:])"
)
CONTEXT_TOKENS: Final = lazy(
    r"(\d(?<![\w.]\d)(?:\d{0,2}(?:[ ,]\d{3})+|\d*))\s*(" + THOUSANDS + r")?\s*"
    r"(?:tokens?|tok|token[óo]w|tokeny|โทเคน)(?!\w)"
)
BIG_NUMBER: Final = lazy(r"(\d(?<![\w.$/:\-,]\d)\d{3,7})(?![\w.]|\s*(?:gb|gib|usd|\$|b\b|-))")
# The batch slot, as one search that opens with a class of every character a match can open
# with (a digit, or each form's first letter), so the regex engine skips to those; what
# follows is chosen by that character ("(?<=b)atch"; "b(?<!\wb)" is "\bb"). Group 1 holds the
# number after a word; groups 2 and 3 what follows a number's first digit; group 4 the
# number after a Thai word.
_BATCH_WORDS: Final = (
    r"(?:concurrent|simultaneous|parallel|active|r[oó]wnoczesn\w*"
    r"|jednoczesn\w*|aktywn\w*)(?:\s+(?:users?|requests?|sessions?|streams?|chats?"
    r"|conversations?|u[żz]ytkownik\w*|sesj\w*|rozm[oó]w|czat\w*))?"
    r"|users?|requests?|sessions?|conversations?|streams?|chats?|parallel(?:\s+\w+)?|people"
    r"|clients?|sequences?(?![\s_-]*len)|u[żz]ytkownik\w*|os[oó]b|sesj\w*|r[oó]wnoleg\w*|rozm[oó]w|zapyta[ńn]"
)
# Each kind of opening character is tested once ("(?<=[bprแ])(?<!\w[bprแ])" for the words'
# "\b"), so a place inside a word or a number is dropped after a check or two; after a number,
# the first letters of the words that may follow it are one class.
BATCH: Final = lazy(
    r"[\dbprแผค](?:(?<=[bprแ])(?<!\w[bprแ])(?:(?<=b)(?:atch(?:[\s_-]*size)?|s)|(?<=p)arti(?:a|i|ą)"
    r"|(?<=r)ozmiar\s+partii|(?<=แ)บตช์)\s*(?:of|=|:|x)?\s*(\d+)\b"
    r"|(?<=\d)(?<![\w.$]\d)(?:(\d*)\s*(?=[acjoprsuz])(?:" + _BATCH_WORDS + r")(?!\w)"
    r"|(\d*)\s*(?=[คผบเ])(?:คน|ผู้ใช้|บทสนทนา|เซสชัน))"  # Thai runs words together
    r"|(?<=[ผค])(?:(?<=ผ)ู้ใช้|(?<=ค)น)(?:พร้อมกัน)?\s*(\d+))"
)
# A number of users in words: "two users", "dla dwóch użytkowników", "สองคน" (BATCH reads
# digits). The card-count words, and the larger numbers people give users in.
USER_NUMBERS: Final = {
    **{w: n for w, n in COUNT_WORDS.items() if "pa" not in w},  # not "pair", "para"
    **{"five": 5, "six": 6, "ten": 10, "twenty": 20, "pięciu": 5, "pieciu": 5, "trzech": 3},
    **{"dziesięciu": 10, "dziesieciu": 10, "สาม": 3, "ห้า": 5, "สิบ": 10},
}
_WORD_USERS: Final = [w for w in USER_NUMBERS if not "\u0e00" <= w[0] <= "\u0e7f"]  # Thai runs on
_THAI_USERS: Final = [w for w in USER_NUMBERS if w not in _WORD_USERS]
BATCH_IN_WORDS: Final = lazy(
    r"(?<![\w.])("
    + "|".join(sorted(_WORD_USERS, key=len, reverse=True))
    + r")\s+(?:"
    + _BATCH_WORDS
    + r")(?!\w)|("
    + "|".join(_THAI_USERS)
    + r")\s*(?:คน|ผู้ใช้)"
)
SIZE: Final = lazy(
    r"(\d(?<![\w.$]\d)\d*(?:[.,]\d+)?)\s*(b|t|bn|billion|trillion|mld|miliard\w*|bln)\b"
    r"(?!\s*/)(?:\s*(?:params?|parameters?|parametr\w*))?"
)
MOE_SIZE: Final = lazy(r"(\d(?<![\w.]\d)\d*)\s*x\s*(\d+)\s*b\b")
VRAM_GB: Final = lazy(
    r"(\d(?<![\w.]\d)\d*(?:[.,]\d+)?)\s*(gb|gib|g)\b"  # GiB: 2^30 bytes
    r"(?:\s*(?:of\s+)?(?:vram|memory|card|gpu|karta|karty|karcie|pami[eę]ci))?"
)
# "2,000", "2 000" (Polish writes thousands with a space, as our own replies do), "2000", "2k"
MONEY: Final = (
    r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:[ \u00a0]\d{3})+(?![\d.,])|\d+(?:\.\d+)?)"
    r"\s*(k\b|grand\b|tys\b\.?|tysi[eę]c\w*|พัน)?"
)
PER_MONTH: Final = (
    r"(?:\s*(?:/|per|a|an|each|na|za|ต่อ|เดือนละ)\s*(?:month\b|mo\b|miesi[aą]c\w*|mies\b\.?|เดือน)"
    r"|\s*(?:monthly\b|miesi[eę]cznie\b|mies\.|ต่อเดือน|รายเดือน))"
)
BUDGET: Final = lazy(
    r"(?:\$\s*"
    + MONEY
    + r"|(?<![\w.])"
    + MONEY
    + r"\s*(?:\$|usd\b|dollars?\b|dolar\w*|bucks\b|ดอลลาร์))"
    r"(?:\s*(?:/|per|a|an|each|na|za|ต่อ)\s*(?:month\b|mo\b|miesi[aą]c\w*|mies\b|เดือน))?"
    r"|\b(?:budget|bud[żz]et\w*|งบ(?:ประมาณ)?)\s*(?:of|is|=|:|to|wynosi|เดือนละ|ต่อเดือน)?\s*"
    + MONEY
    + r"|(?<![\w.])"
    + MONEY
    + PER_MONTH
    + r"|(?:งบ|เดือนละ)\s*"
    + MONEY
)
# A budget in a currency the prices are not in ("2000 zł", "10000 บาท", "€500"): said back,
# never read as dollars (the fleet is priced in US dollars only, with no exchange rate)
OTHER_MONEY: Final = lazy(
    r"(?<![\w.,])(?<!\d )"
    + MONEY
    + r"\s*(?:z[łl](?:ot\w*)?\b|pln\b|baht\b|thb\b|บาท|€|eur(?:os?)?\b"
    r"|£|gbp\b)|(?:€|£)\s*" + MONEY,
    re.I,
)

# An inline shape: "80 layers, 8 kv heads, 64 heads, head_dim 128", "80 warstw", "80 ชั้น".
SHAPE_WORDS: Final = lazy(
    r"(?<![\w.])(\d{1,6})\s*(?:-\s*)?(layers?|warstw\w*|ชั้น|เลเยอร์|kv[\s_-]*heads?"
    r"|key[\s_-]*value[\s_-]*heads?|gł[oó]wic\w*\s+kv|kv[\s_-]*gł[oó]wic\w*"
    r"|(?:attention[\s_-]*|query[\s_-]*|q[\s_-]*)?heads?|gł[oó]wic\w*|hidden(?:[\s_-]*size)?)"
    r"(?!\w)|\b(head[\s_-]*dim\w*|hidden[\s_-]*size|num[\s_-]*layers)\s*(?:=|:|of)?\s*(\d{1,6})\b"
)


def shape_field(word: str) -> str:
    """Which shape field an inline word names ("kv heads" -> kv_heads)."""
    if "kv" in word or "value" in word:
        return "kv_heads"
    if "dim" in word:
        return "head_dim"
    if "hidden" in word:
        return "hidden"
    if "head" in word or "głow" in word or "glow" in word:
        return "attention_heads"
    return "layers"


# Each hint's literals, for reading every gate off the question's words in one pass.
HINT_WORDS: Final[dict[int, tuple[str, ...]]] = {}


def hint(*words: str) -> re.Pattern[str]:
    """A bare alternation of literals: the regex engine skips to their first letters, so this
    is a cheap gate before a pattern that would otherwise be tried at every position."""
    rx = lazy("|".join(re.escape(w) for w in words))
    HINT_WORDS[id(rx)] = words
    return rx


def whole_words(*words: str) -> str:
    """``\\b(?:w1|w2|...)\\b`` for a test of whether it matches anywhere, each word opening with
    a plain letter: written as "c(?<!\\wc)..." per word, the regex engine skips to those letters."""
    return "|".join(f"{w[0]}(?<!\\w{w[0]}){w[1:]}\\b" for w in words)


_THAI_FINE_TUNE: Final = ("ไฟน์จูน", "ไฟน์ทูน", "ฟายทูน", "ฟายจูน", "ฟายน์จูน", "ปรับจูน", "ฝึก", "เทรน")
_LORA_CASE, _LORA = r"(?:[ayęeą]|ze|om|ami|ach)\b", ("lor", "ลอร", "โลร")  # Polish cases, Thai
# (pattern, task, generic?, words one of which must be there for the pattern to be tried);
# every form opens with a literal character, so the regex engine skips to those.
_TASK_RULES: Final[tuple[tuple[str, Task, bool, tuple[str, ...]], ...]] = (  # "\b" as "q(?<!\wq)"
    (r"q(?<!\wq)[\s-]?lor" + _LORA_CASE + r"|คิว\s*(?:โล|ลอ)ร่?า", "qlora", False, _LORA),
    (r"l(?<!\wl)or" + _LORA_CASE + r"|โลร่?า|ลอร่?า", "lora", False, _LORA),  # "zrobię lorę"
    (
        r"f(?<!\wf)ull(?:[\s-]*(?:ft|fine[\s-]*tun\w*|finetun\w*|training|train|param\w*))\b"
        r"|p(?<!\wp)e[łl]n\w*\s+(?:dostrajani\w*|fine[\s-]*tun\w*|trening\w*)|f(?<!\wf)ft\b"
        r"|t(?<!\wt)rain\w*\s+(?:\w+\s+){0,3}?from\s+scratch"
        r"|p(?<!\wp)re[\s-]?train\w*\s+(?:\w+\s+){0,3}?from\s+scratch"
        r"|ไฟน์จูนเต็ม|ไฟน์จูนแบบเต็ม|แบบ\s*(?:full|เต็ม)",  # "แบบ full": the full kind
        "full",
        False,
        ("full", "pełn", "peln", "fft", "scratch", "ไฟน์จูน", "แบบ"),
    ),
    (
        r"f(?<!\wf)(?:ine[\s-]*t|ajn[\s-]?t[iyj]?j?)un\w*|s(?<!\ws)ft\b|t(?<!\wt)rain(?:ing)?\b"
        # "(?<!\w)(?:do|wy)?tren", per first letter
        r"|d(?<!\wd)o(?:str|ucz)\w*|d(?<!\wd)otren[iou]\w*|w(?<!\ww)ytren[iou]\w*"
        r"|t(?<!\wt)ren[iou]\w*|" + "|".join(_THAI_FINE_TUNE),
        "full",
        True,
        ("fine", "sft", "train", "dostr", "tren", "doucz", "fajn", *_THAI_FINE_TUNE),
    ),
    (
        r"s(?<!\ws)erv\w*\b|i(?<!\wi)nference\b|i(?<!\wi)nfer\b|d(?<!\wd)eploy\w*\b"
        r"|i(?<!\wi)nferencj\w*\b|s(?<!\ws)erwow\w*\b|h(?<!\wh)ostowa\w*\b|อนุมาน",
        "inference",
        False,
        ("serv", "infer", "deploy", "serwow", "hostowa", "อนุมาน"),
    ),
)
TASKS: Final = tuple(
    (hint(*hints), lazy(rx), task, generic) for rx, task, generic, hints in _TASK_RULES
)
TASK_HINTS: Final = hint(*sorted({w for rule in _TASK_RULES for w in rule[3]}))  # any TASKS gate
FIT: Final = lazy(  # only ever asked whether it matches: see whole_words
    whole_words(
        "fits?", "fitting", r"will\s+it\s+run", r"can\s+(?:i|it|you)\s+run", r"run\s+on", "on",
        "in", "into", r"mie[sś]ci\w*", r"zmie[sś]ci\w*", "na", r"wystarcz\w*", "enough",
    )
    + "|พอไหม|รันบน|ใส่ได้|ได้ไหม|บน"
)  # fmt: skip
# Each form opens with a letter ("\bhow" as "h(?<!\wh)ow"; a group of words is spelt out per
# word), so the regex engine skips to those letters instead of trying every place.
_LIMIT_CONTEXT_OF: Final = r"\s+(?:\S+\s+){0,2}?(?:context|ctx|kontekst\w*|sequence)"
_LIMIT_CONTEXT_MAX: Final = r"\s*\S{0,12}?(?:สูงสุด|ยาวสุด|ยาวที่สุด|ได้เท่าไหร่|ได้กี่)"
LIMIT_CONTEXT: Final = lazy(
    "|".join(
        w + _LIMIT_CONTEXT_OF
        for w in (
            r"m(?<!\wm)ax(?:imum|imal)?", r"l(?<!\wl)ongest", r"b(?<!\wb)iggest",
            r"l(?<!\wl)argest", r"h(?<!\wh)ow\s+(?:long|much|big)(?:\s+an?)?",
            r"n(?<!\wn)ajd[łl]u[żz]sz\w*", r"m(?<!\wm)aksymaln\w*", r"n(?<!\wn)ajwi[eę]ksz\w*",
            r"m(?<!\wm)aks\w*",
        )
    )
    + "|"
    + "|".join(w + _LIMIT_CONTEXT_MAX for w in ("บริบท", "context", "ctx"))
    + r"|h(?<!\wh)ow\s+many\s+(?:\S+\s+){0,2}?(?:tokens?|k\b)"
    r"|h(?<!\wh)ow\s+(?:long|much)\s+(?:of\s+)?(?:a\s+)?(?:context|ctx|prompt)"
    r"|i(?<!\wi)le\s+(?:\S+\s+){0,2}?(?:token[óo]w|kontekstu)"
    r"|j(?<!\wj)ak\s+d[łl]ugi\s+kontekst|กี่โทเคน|โทเคนได้กี่|ยาวได้แค่ไหน"
)  # fmt: skip
LIMIT_BATCH: Final = lazy(
    r"h(?<!\wh)ow\s+many\s+(?:\S+\s+){0,3}?(?:users?|requests?|sessions?|conversations?"
    r"|streams?|concurrent|people|sequences?|chats?|clients?)"
    r"|m(?<!\wm)ax(?:imum)?\s+(?:batch|users?|concurrency|concurrent|sessions?|requests?)"
    r"|i(?<!\wi)lu\s+(?:\S+\s+){0,2}?(?:u[żz]ytkownik|user)\w*|i(?<!\wi)le\s+(?:\S+\s+){0,2}?"
    r"(?:sesji|rozm[oó]w|zapyta[ńn]|u[żz]ytkownik\w*|user\w*)"
    r"|m(?<!\wm)aks\w*\s+(?:partia|partii|u[żz]ytkownik\w*)|กี่คน|ผู้ใช้กี่|ได้กี่"
)
CARDS_LIST: Final = lazy(
    r"^\s*/?(?:gpus?|cards?|fleet|prices?|pricing|price\s+list|catalog(?:ue)?|karty|cennik|flota"
    r"|การ์ด|ราคา)\s*[?!.]*\s*$"
    r"|\b(?:list|show|all)\s+(?:me\s+)?(?:the\s+|all\s+|your\s+)?(?:gpus|cards|prices)\b"
    r"|\bwhat\s+(?:gpus|cards)\s+(?:do\s+you\s+have|are\s+there|can\s+i\s+rent)"
    r"|\bjakie\s+(?:macie\s+)?karty\b|\bwszystkie\s+karty\b|การ์ดทั้งหมด|มีการ์ดอะไรบ้าง"
    r"|\b(?:poka[żz]|wy[śs]wietl|podaj|lista)\s+(?:mi\s+)?(?:wszystkie\s+|dost[eę]pne\s+)?"
    r"(?:karty|kart|gpu|cennik)\b|\bjakie\s+(?:s[aą]\s+)?(?:dost[eę]pne\s+)?(?:karty|gpu)\b"
    r"|ขอดู(?:รายการ)?การ์ด|มีจีพียูอะไรบ้าง|มี\s*gpu\s*อะไรบ้าง|ดูราคาการ์ด"
)
CARD_INFO: Final = lazy(  # only ever asked whether it matches
    whole_words("card", "gpu", "karta", "specs?", "info", "about", "specyfikacja", "kosztuje",
                "price", "cost") + "|การ์ด|ราคา"
)  # fmt: skip
CARD_INFO_HINTS: Final = hint(  # a piece of every CARD_INFO word
    "card", "gpu", "karta", "spec", "info", "about", "kosztuje", "price", "cost", "การ์ด", "ราคา"
)  # fmt: skip
HELP: Final = lazy(
    r"^\s*/?(?:help|start|pomoc|\?+|ช่วย(?:เหลือ)?|hi|hello|hey|cze[sś][cć]|siema|dzie[nń]\s+dobry"
    r"|สวัสดี(?:ครับ|ค่ะ)?)\s*[!?.]*\s*$"
)
# Renting by the hour: "na godziny", "per hour", "/h", "รายชั่วโมง" (the FAQ, not the card sheet).
HOURLY: Final = lazy(
    r"\b(?:na|za|po|per|by\s+the|an?|each)\s+(?:godzin\w*|godz\b|hours?\b|hr\b)|\bhourly\b"
    r"|\bgodzinow\w*|\bgodzinn\w*|ต่อชั่วโมง|รายชั่วโมง|ชั่วโมงละ|ชม\."
)
HOURLY_HINTS: Final = hint("godz", "hour", "hr", "ชั่วโมง", "ชม.")
HOURLY_TOPIC: Final = "hourly_vs_monthly"
FAQ_COMMAND: Final = lazy(r"^\s*/?faq\b\s*(\S*)")
FOLLOWUP: Final = lazy(  # .match: how a follow-up starts
    r"\s*(?:(?:and|also|what\s+about|how\s+about|same|now|then|instead|ok|okay|a|i|oraz|a\s+co"
    r"|to\s+samo|teraz|zamiast|with|at|on|for|w|na|z|przy|dla)\b|แล้ว|และ|ถ้า)"
)
# FOLLOWUP's forms that are one word, and the first words of its two-word ones.
_FOLLOW_WORDS: Final = frozenset(
    ("and", "also", "same", "now", "then", "instead", "ok", "okay", "a", "i", "oraz", "teraz",
     "zamiast", "with", "at", "on", "for", "w", "na", "z", "przy", "dla")
)  # fmt: skip
_FOLLOW_PAIRS: Final = {"what": "about", "how": "about", "to": "samo"}


def opens_followup(s: str) -> bool:
    """``FOLLOWUP.match(s)``, read off the first word when it is ASCII letters and digits
    (each one-word form then is that word, as the ``\\b`` after it ends it): most questions."""
    words = s.split(None, 1)  # str.split's whitespace is regex \s
    if not words:
        return False
    first = words[0]
    if not (first.isascii() and first.isalnum()):
        return FOLLOWUP.match(s) is not None
    if first in _FOLLOW_WORDS:
        return True
    pair = _FOLLOW_PAIRS.get(first)
    return pair is not None and pair in s and FOLLOWUP.match(s) is not None


FOLLOWUP_ANYWHERE: Final = lazy(r"\b(?:instead|zamiast|same\s+for|the\s+same)\b")
CARDS_HINTS: Final = hint(
    "gpu", "card", "fleet", "price", "pricing", "catalog", "kart", "cennik", "flota", "การ์ด",
    "ราคา", "จีพียู",
)  # fmt: skip
LIMIT_CONTEXT_HINTS: Final = hint(
    "context", "ctx", "kontekst", "sequence", "บริบท", "token", "tokenów", "โทเคน", "how many",
    "how long", "prompt", "jak dług", "jak dlug", "ยาวได้",
)  # fmt: skip
# Every WHAT_FITS form starts with one of these (the text's only whitespace is " ").
WHAT_FITS_HINTS: Final = hint(
    "what ", "which ", "biggest ", "largest ", "how ", "jak", "co ", "อะไร", "โมเดล", "ใหญ่",
)  # fmt: skip
LIMIT_BATCH_HINTS: Final = hint("how many", "max", "ilu", "ile", "maks", "กี่")
# What each LIMIT_CONTEXT / LIMIT_BATCH form asks about (a second gate: "ile vram" alone is not)
LIMIT_CONTEXT_ASKS: Final = hint(
    "max", "maks", "longest", "biggest", "largest", "how ", "najd", "najwi", "บริบท", "ile ",
    "jak ", "กี่", "ยาวได้", "สูงสุด", "ยาวสุด", "ยาวที่สุด",
)  # fmt: skip
LIMIT_BATCH_ASKS: Final = hint(
    "user", "request", "session", "conversation", "stream", "concurren", "people", "sequence",
    "chat", "client", "batch", "sesji", "rozm", "zapyta", "ytkownik", "parti", "กี่",
)  # fmt: skip
COUNT_HINTS: Final = hint("card", "gpu", "kart", "การ์ด", "ใบ")
OTHER_MONEY_HINTS: Final = hint("zł", "zl", "pln", "baht", "thb", "บาท", "€", "eur", "£", "gbp")
SHAPE_HINTS: Final = hint("layer", "head", "warstw", "głowic", "glowic", "ชั้น", "เลเยอร์", "hidden")
# Every BUDGET form holds one of these, or "mo" as a word's end ("$50/mo"): that one is kept
# apart (MONTH_SHORT_HINTS), as "mo" is in most questions ("model", "more").
BUDGET_HINTS: Final = hint(
    "$", "usd", "dol", "buck", "budget", "budż", "budz", "งบ", "ดอลลาร์", "month", "mies",
    "เดือน",
)  # fmt: skip
MONTH_SHORT_HINTS: Final = hint("mo")
MONTH_SHORT: Final = lazy(r"mo\b")
CONTEXT_WORD_HINTS: Final = hint("ctx", "context", "kontekst", "seq", "max", "บริบท", "ความยาว")
# every CONTEXT_BEFORE ends so
CONTEXT_NOUN_HINTS: Final = hint("ctx", "context", "kontekst", "บริบท")
BATCH_HINTS: Final = hint(
    "batch", "bs", "parti", "user", "concurrent", "request", "session", "conversation", "stream",
    "chat", "parallel", "people", "client", "sequence", "żytkown", "zytkown", "osob", "osób",
    "sesj", "równoleg", "rownoleg", "rozm", "zapyta", "simultan", "czat", "active", "aktywn", "คน", "ผู้ใช้", "บทสนทนา", "เซสชัน", "แบตช์",
)  # fmt: skip
DIGIT: Final = lazy(r"\d")
# Spellings of a precision or quant type; any of these the catalog does not know is reported.
PRECISION_LIKE: Final = lazy(
    r"(?<![\w.])(?:i?q\d+(?:[_-]?[a-z0-9]{1,3}){0,3}|(?:nv|mx)?fp\d+|bf\d+|int\d+|nf\d+"
    r"|w\d+a\d+|\d+[\s-]?bits?|\d+[\s-]?bit(?:ach|ów|ow|y|ami|owa|owe|owej|owy|owym|ową)"
    r")(?![\w.])|(?<![\w.])\d+\s*บิต"  # Thai: the next word follows without a space
)
# What every PRECISION_LIKE form holds: a prefix's last letter (q, fp, bf, int, nf, w) right
# before a digit, or "bit" / "บิต": a looser gate than the forms, but a single character class.
_PRECISION_LETTER_DIGIT: Final = lazy(r"[pqtfw]\d")


def may_name_precision(s: str) -> bool:
    """A cheap superset of ``PRECISION_LIKE.search(s)``: most questions name none."""
    return "bit" in s or "บิต" in s or _PRECISION_LETTER_DIGIT.search(s) is not None


# A Polish or Thai ending on a bit count: "4 bitach" -> "4bit" before the lookup.
BIT_ENDING: Final = lazy(r"(?<=\d)[\s-]*(?:bit(?:ach|ów|ow|y|ami|owa|owe|owej|owy|owym|ową|s)|บิต)$")
PRECISION_SEPARATORS: Final = lazy(r"[\s_-]+")


# "[^...]+" as "[^...][^...]*": a pattern that opens with a class (not a repeat of one) lets
# the regex engine skip straight to the next place it can match.
WORD: Final = lazy(r"[^\s,;!?()\[\]{}<>\"'`*|=][^\s,;!?()\[\]{}<>\"'`*|=]*")
NAMEISH: Final = lazy(r"[a-z0-9][a-z0-9.+_:/\-]*")
NUMBER_WORD: Final = lazy(r"\d+(?:\.\d+)?")
SMALL_VERSION: Final = lazy(r"[1-4](?:\.\d)?")
LETTER: Final = lazy(r"[a-z]")
ID_LIKE: Final = lazy(r"[a-z]{2}[\w.\-]*?\d|[a-z]/[a-z]|[a-z]:\w")  # on one short word
# Separators at a word's edge; "[-:/_.](?<!\S[-:/_.])" is "(?<!\S)[-:/_.]", opening with a class.
EDGE_SEPARATORS: Final = lazy(r"[-:/_.](?:(?<!\S[-:/_.])[-:/_.]*|[-:/_.]*(?!\S))")
GLUED_SIZE: Final = lazy(r"^([a-z][a-z]+)(\d+(?:\.\d+)?)b$")
