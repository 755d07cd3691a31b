"""What a message asks beyond its slots, read only where an answer kind needs it (none of
these runs on the parse of every question): whether the card is the asker's own, whether the
card itself is asked about, whether a follow-up asks what to rent, whether a model to run is
wanted, and whether it is for code.
"""

from __future__ import annotations

import re
from typing import Final
from unicodedata import normalize

from engine.lazyre import lazy

__all__ = [
    "about_card",
    "about_owned_card",
    "asks_price",
    "asks_speed",
    "cheapest_card",
    "owns_hardware",
    "says_single",
    "short_followup",
    "wants_a_model",
    "wants_code",
    "wants_math",
    "wants_rental",
    "wants_to_buy",
    "weighs_cards",
]

# "I have", "we've got", "my", "mam", "ผมมี": a card named alone is the asker's own
_OWNS: Final = lazy(
    r"\b(?:i|we)(?:\s+(?:already\s+)?(?:have|own|got)|'ve\s+got|\s*'?ve)\b|\b(?:my|our)\b"
    r"|\b(?:mam|mamy|posiadam|mój|moja|moje|moim|mojej)\b|(?:ผม|ฉัน|เรา|หนู)มี|ของ(?:ผม|ฉัน|เรา)",
    re.I,
)
# Asked about the card itself, though it is one's own: "what's the bandwidth of my 4090?"
_ABOUT_CARD: Final = lazy(
    r"\b(?:bandwidth|fast|speed|fp8|support\w*|question|memory|price|cost|specs?|hour\w*"
    r"|przepustowo\w*|szybk\w*|pytanie|wspiera\w*|obsługuje)\b|แบนด์วิดท์|ความเร็ว|คำถาม"
)
# A follow-up asking what to rent: the fleet's pick, not the last plain amount
_RENTING: Final = lazy(
    r"\b(?:rent\w*|cheapest|recommend\w*|(?:which|what) (?:card|gpu)s?|wynaj\w*|najtańsz\w*"
    r"|najtansz\w*|jak(?:a|ą|iej) kart\w*)\b|เช่า"
)
# "a good coding model", "what can I run locally": a model is wanted, maybe not yet the hardware
_WANTS_A_MODEL: Final = lazy(
    r"\b(?:local(?:ly)?|at home|on my (?:pc|machine|computer|laptop)|lokalnie|w domu)\b"
    r"|\b(?:what|which|best|good|top) (?:\w+ )?(?:model|llm)s?\b|\bmodels? (?:for|to)\b"
    r"|\bjaki(?:ego|ch)? model|\bmodel(?:u|e)? do\b|ในเครื่อง|โมเดลอะไร"
)
# "how much does it cost", "price of", "ile kosztuje", "ราคา": what a setup costs is asked
_PRICE: Final = lazy(r"\b(?:cost\w*|pric\w*|koszt\w*|cen[aęy])\b|ราคา|ค่าเช่า|ค่าใช้จ่าย")
# "how fast", "tok/s", "tokens per second", "ile tokenów/s", "szybkość", "เร็วแค่ไหน": the
# decode speed is what is asked first
_SPEED: Final = lazy(
    r"\bhow\s+(?:fast|quick\w*)\b|\b(?:tok(?:en)?s?|t)\s*/\s*s(?:ec)?\b|\btps\b"
    r"|\btok(?:en)?s?\s+(?:per|a|an|each|every|na|za)\s+(?:second|sec|sekund\w*)\b"
    r"|\bthroughput\b|\b(?:decode|generation|inference)\s+speed\b|\bspeed\b"
    r"|\btoken[óo]w\s*(?:/|na|w)\s*(?:s\b|sek)|\bszybko\w*|\bpr[ęe]dko\w*|\bjak\s+szybk\w*"
    r"|เร็ว(?:แค่ไหน|เท่าไ[หร]|ไหม|มั้ย|ขนาดไหน)|ความเร็ว|ต่อวินาที|/วินาที"
)
# "X over Y", "X instead of Y", "better than", "upgrade from Y to X", "zamiast", "แทน": two
# cards weighed against each other
_WEIGHS: Final = lazy(
    r"\b(?:over|instead\s+of|rather\s+than|better\s+than|worse\s+than|faster\s+than"
    r"|cheaper\s+than|worth|upgrad\w*|switch\w*|zamiast|lepsz\w*|gorsz\w*|szybsz\w*|warto"
    r"|opłaca\w*|oplaca\w*|przesiad\w*|ta[ńn]sz\w*|dro[żz]sz\w*|more\s+expensive)\b"
    r"|แทน|ดีกว่า|คุ้ม|เร็วกว่า|ถูกกว่า|แพงกว่า|อัปเกรด|อัพเกรด"
)
# "cheapest card with fp8", "cheapest 80gb card", "najtańsza karta", "การ์ดที่ถูกที่สุด"
_CHEAPEST_CARD: Final = lazy(
    r"\b(?:cheapest|least\s+expensive|najta[ńn]sz\w*)\s+(?:\S+\s+)?(?:cards?|gpus?|kart\w*)\b"
    r"|(?:การ์ด|gpu)\S{0,6}ถูกที่สุด"
)
_SINGLE: Final = lazy(
    r"\b(?:single|one|only one|jedn(?:ym|ej|ą|a|en)|pojedyncz\w*)\b|ใบเดียว|ตัวเดียว"
)
# "for coding", "do kodu", "programowania", "เขียนโค้ด": code models only
_CODING: Final = lazy(r"\b(?:cod(?:e|ing|er)|programm\w*|programow\w*|kod\w*)\b|โค้ด|เขียนโปรแกรม")


# An owned card asked about itself: "rx 7900 xtx specs", "is a 3060 good for llms?", "worth
# it?", "czy 4070 ti super nada się do llm", "4060 ti 16gb ดีไหม"
_ABOUT_OWNED: Final = lazy(
    r"\b(?:spec\w*|bandwidth|memory|vram|fp8|support\w*|cards?|gpus?|info|about|pric\w*|cost\w*"
    r"|worth|good|decent|enough|any|ok|okay|fine|great|nada\w*|dobr\w*|warto|wystarcz\w*"
    r"|op[łl]aca\w*|sens\w*|przepustowo\w*|pami[ęe]\w*|kart\w*|koszt\w*|cen\w*|specyfikac\w*"
    r"|rent\w*|wynaj\w*|buy\w*|purchas\w*|kupi\w*|kupowa\w*|kupno|zakup\w*)\b"
    r"|ซื้อ|สเปค|สเป็ค|ดีไหม|ดีมั้ย|ดีมั๊ย|คุ้ม|พอไหม|พอมั้ย|การ์ด|แบนด์วิดท์|ราคา|ใช้ได้ไหม|เช่า"
)
# what else such a question may leave among the model words: what the card is for
_OWNED_FILLER: Final = frozenset(
    (
        *("llm", "llms", "ai", "local", "locally", "jest", "it", "use", "usage", "buy", "buying"),
        *("purchase", "purchasing", "kupić", "kupic", "kupować", "kupowac", "kupno", "zakup"),
        *("home", "domu", "now", "today", "teraz", "still", "nadal", "wciąż", "ซื้อ"),
    )
)


def about_owned_card(low: str, model_words: str) -> bool:
    """Whether an owned card is asked about itself (its specs, whether it is any good for
    LLMs), not a model on it: such a word is there, and the words left over for a model are
    only such words ("specs", "llms"), never a model's name; a code or model hunt is a list."""
    if "model" in low or "kod" in low or _ABOUT_OWNED.search(low) is None or wants_code(low):
        return False
    return all(w in _OWNED_FILLER or _ABOUT_OWNED.fullmatch(w) for w in model_words.split())


# "which gpu should i buy", "at home", "home rig", "locally", "on my pc", "consumer card",
# "kupić", "w domu", "lokalnie", "ซื้อ", "ที่บ้าน": the cards a person can own are asked about
_BUY: Final = lazy(
    r"\b(?:buy\w*|purchas\w*|at home|home[- ]?(?:rig|lab|server|setup|pc|build|computer)s?"
    r"|homelab\w*|locally|local (?:rig|setup|machine|pc|box|build|hardware)"
    r"|(?:on|for) (?:my|a|our) (?:own )?(?:pc|desktop|computer|machine|workstation|gaming pc)"
    r"|consumer (?:cards?|gpus?|hardware)|desktop (?:cards?|gpus?|pc)"
    r"|kupi\w*|kupowa\w*|zakup\w*|w domu|domow\w*|lokalnie"
    r"|na (?:moim|swoim|w[łl]asnym) (?:komputerze|pc|kompie|sprz[ęe]cie|desktopie)"
    r"|konsumenck\w*)\b|ซื้อ|ที่บ้าน|เครื่องตัวเอง|คอมตัวเอง"
)
# renting is said too ("buy or rent?"): the fleet's answer, as before
_RENT_WORDS: Final = ("rent", "wynaj", "เช่า")


def wants_to_buy(low: str) -> bool:
    """Whether the words ask what to buy or run at home ("which gpu should i buy for 70b",
    "co kupić do qwen 32b", "รัน 70b ที่บ้าน"): literals first, the search only when one is
    there, so the other questions pay a few substring tests."""
    if not (
        "buy" in low or "purchas" in low or "home" in low or "local" in low or "my " in low
        or "consumer" in low or "desktop" in low or "kup" in low or "w domu" in low
        or "domow" in low or "lokaln" in low or "ซื้อ" in low or "บ้าน" in low
        or "ตัวเอง" in low or "a pc" in low or "our " in low or "moim " in low
        or "swoim " in low or "asnym " in low
    ):  # fmt: skip
        return False
    if any(w in low for w in _RENT_WORDS):
        return False
    return _BUY.search(low) is not None


def owns_hardware(low: str) -> bool:
    return _OWNS.search(low) is not None


def about_card(low: str) -> bool:
    return _ABOUT_CARD.search(low) is not None


def wants_rental(low: str) -> bool:
    return _RENTING.search(low) is not None


def wants_code(low: str) -> bool:
    return _CODING.search(low) is not None


def wants_a_model(low: str) -> bool:
    """Whether the words ask for a model to run ("a coding model", "what can I run locally")."""
    return wants_code(low) or _WANTS_A_MODEL.search(low) is not None


def asks_price(low: str) -> bool:
    # substrings first: the search runs on a question only when one of its words is there
    if not ("cost" in low or "pric" in low or "koszt" in low or "cen" in low or "ค่า" in low
            or "ราคา" in low):  # fmt: skip
        return False
    return _PRICE.search(low) is not None


def asks_speed(low: str) -> bool:
    """Whether the decode speed is asked ("how fast", "tok/s", "ile tokenów/s", "เร็วแค่ไหน"):
    first whether a literal that each of its forms holds is there (the search costs ~10 µs)."""
    if not (
        "speed" in low or "fast" in low or "sec" in low or "tps" in low or "quick" in low
        or "throughput" in low or "szybk" in low or "dko" in low or "sek" in low
        or "tokenów" in low or "tokenow" in low or "เร็ว" in low or "วินาที" in low
        or ("/" in low and _slash_s(low))
    ):  # fmt: skip
        return False
    return _SPEED.search(low) is not None


def _slash_s(low: str) -> bool:
    """Whether a "/" has an "s" after it, spaces between allowed (``\\s*/\\s*s``: "tok/s")."""
    at = low.find("/")
    while at >= 0:
        if low[at + 1 :].lstrip()[:1] == "s":
            return True
        at = low.find("/", at + 1)
    return False


def weighs_cards(low: str) -> bool:
    """Whether two cards named are weighed against each other ("is the h200 worth it over
    h100?", "4090 instead of a 3090", "h100 zamiast a100", "l40s ดีกว่า a100 ไหม")."""
    return _WEIGHS.search(low) is not None


def cheapest_card(low: str) -> bool:
    """Whether the cheapest card itself is asked for ("cheapest card with fp8")."""
    return _CHEAPEST_CARD.search(low) is not None


def says_single(low: str) -> bool:
    """ "a single h100", "one h100", "na jednym", "ใบเดียว": one card, said in words."""
    return _SINGLE.search(low) is not None


# A follow-up of a word or two after an answer: "cheaper?" asks the same need at a lower
# price, "why?" the reasons of the last answer (its breakdown). Read on the whole message,
# lowercased, the punctuation around it dropped; each form with the language it is in.
_CHEAPER: Final = lazy(
    r"(?:(?:is there |are there |got |anything |something |any |a )?cheaper"
    r"(?: (?:option|one|card|setup|choice)s?)?(?: please)?"
    r"|(?:which|what)(?: one)? is cheaper,? (?:that|this|it|owning|buying)? ?or (?:rent\w*|the cloud)"
    r"|cheaper to rent)"
)
_CHEAPER_PL: Final = lazy(
    r"(?:a |coś |cos |jest coś |jest cos )?(?:taniej|tańsz\w*|tansz\w*)(?: opcja)?"
)
_CHEAPER_TH: Final = lazy(
    r"(?:มี)?(?:อะไร|ตัว|อัน)?ถูกกว่า(?:นี้)?(?:มีไหม|มั้ย|ไหม|ไม๊|บ้าง|ล่ะ)?(?:ครับ|คะ|ค่ะ)?"
)
# "how fast is it?", "jak szybko?", "เร็วแค่ไหน": the last request again, its speed first
_SPEED_EN: Final = lazy(
    r"(?:(?:and|so|ok|but) )?(?:how fast(?: (?:is it|is that|will it (?:be|run)|does it run))?"
    r"|(?:what(?:'s| is| about) )?(?:the )?(?:speed|tok/s|t/s|tokens? per second|throughput))"
    r"(?: then| there)?"
)
_SPEED_PL: Final = lazy(
    r"(?:a )?(?:jak szybko(?: (?:to )?(?:działa|będzie|pójdzie))?|ile tokenów(?: na sekundę|/s)?"
    r"|(?:a )?szybkość|prędkość)"
)
_SPEED_TH: Final = lazy(
    normalize(
        "NFKC", r"(?:แล้ว)?(?:เร็วแค่ไหน|ความเร็ว(?:เท่าไหร่|เท่าไร)?|กี่ ?token ?ต่อวินาที)(?:ครับ|คะ|ค่ะ|ล่ะ)?"
    )
)
_WHY: Final = lazy(
    r"(?:but |and |ok |so )?(?:why|how come)(?: (?:so|that|this|it|that one|this one|not))?"
)
_WHY_PL: Final = lazy(r"(?:a )?(?:dlaczego|czemu|skąd|skad)(?: (?:tak|ta|to|ten))?")
# in the parser's NFKC form: a Thai "ำ" is "ํา" there
_WHY_TH: Final = lazy(normalize("NFKC", r"(?:แล้ว)?(?:ทำไม|เพราะอะไร)(?:ครับ|คะ|ค่ะ|ล่ะ)?"))
# "show the math", "explain", "pokaż obliczenia", "แสดงวิธีคิด": the answer with its math
# (the Thai in the parser's NFKC form, as _WHY_TH)
_MATH: Final = lazy(
    r"\b(?:show(?: me)?(?: the| your)? (?:math|maths|calculation\w*|working)|explain\w*"
    r"|poka[żz](?: mi)? (?:obliczeni\w*|wylicze\w*|rachun\w*)|wyja[śs]ni\w*)\b"
    + normalize("NFKC", r"|แสดงวิธีคิด|แสดงการคำนวณ|วิธีคิด|อธิบาย")
)
_MATH_EN: Final = lazy(
    r"(?:(?:please|ok|and|so|can you|could you) )*(?:show(?: me)?(?: the| your)? "
    r"(?:math|maths|calculations?|working)|explain(?: it| that| this| the math)?|the math|math)"
    r"(?: please)?"
)
_MATH_PL: Final = lazy(
    r"(?:a |to )?(?:poka[żz](?: mi)? (?:obliczenia|wyliczenia|rachunki)|wyja[śs]nij(?: to)?"
    r"|obliczenia)(?: prosz[ęe])?"
)
_MATH_TH: Final = lazy(
    normalize("NFKC", r"(?:ช่วย)?(?:แสดงวิธีคิด|แสดงการคำนวณ|อธิบาย)(?:หน่อย|ให้ดู)?(?:ครับ|คะ|ค่ะ)?")
)
# a literal each _MATH form holds (the Thai in the parser's NFKC form), looked for first
_TH_MATH: Final = tuple(normalize("NFKC", w) for w in ("วิธีคิด", "คำนวณ", "อธิบาย"))
_ENDS: Final = " ?!.,;:\t\n"


def wants_math(low: str) -> bool:
    """Whether the words ask to see the math ("show the math", "explain", "pokaż obliczenia")."""
    if not (
        "math" in low or "expla" in low or "calcul" in low or "oblicz" in low or "wylicz" in low
        or "wyja" in low or "rachun" in low or "working" in low or _TH_MATH[0] in low
        or _TH_MATH[1] in low or _TH_MATH[2] in low
    ):  # fmt: skip
        return False
    return _MATH.search(low) is not None


def short_followup(low: str) -> tuple[str, str] | None:
    """("cheaper", "why", "math" or "speed", its language) when the whole message is such a short
    follow-up ("cheaper?", "taniej?", "ทำไม", "show the math"); None for any other (a cheap
    length test first)."""
    s = low.strip(_ENDS)
    if not s or len(s) > 48:
        return None
    for what, lang, pattern in (
        ("cheaper", "en", _CHEAPER),
        ("cheaper", "pl", _CHEAPER_PL),
        ("cheaper", "th", _CHEAPER_TH),
        ("why", "en", _WHY),
        ("why", "pl", _WHY_PL),
        ("why", "th", _WHY_TH),
        ("math", "en", _MATH_EN),
        ("math", "pl", _MATH_PL),
        ("math", "th", _MATH_TH),
        ("speed", "en", _SPEED_EN),
        ("speed", "pl", _SPEED_PL),
        ("speed", "th", _SPEED_TH),
    ):
        if pattern.fullmatch(s) is not None:
            return what, lang
    return None


_NO_BRIDGE: Final = lazy(r"(?:without|\bno|\bbez|ไม่มี)\s*(?:an?\s+|the\s+)?nvlink")


def bridge_said(text: str) -> bool:
    """ "my two 3090s with NVLink": the pair has its bridge ("without NVLink": it has not)."""
    low = text.lower()
    return "nvlink" in low and _NO_BRIDGE.search(low) is None
