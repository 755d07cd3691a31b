"""Text -> :class:`Query`: what the person asked, in the three languages we answer in.

Slots are pulled out one kind at a time (cards before sizes, KV precision before weight
precision, budgets before contexts, sizes before bare numbers) and cut from the text, so what
remains is the model name. That is matched against every name and alias in ``models.yaml``
token by token: typos through rapidfuzz, versions a person left out ("llama 70b") cost a
little, words the name does not have cost a lot. Everything per catalog is built once and
cached (the catalog hashes by identity); nothing on the per-question path compiles a regex
or walks the alias list.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz, process

from engine.catalog import Catalog, norm
from engine.models import Lang, ModelSpec, Task

MAX_QUERY_CHARS = 4096
MAX_MODEL_TOKENS = 8  # name tokens scored; the rest of a long message is not a model name
MIN_SIZE_B = 0.01  # 10 million parameters: below this a "model size" is a typo
MAX_SIZE_B = 100_000.0  # numbers past these are typos or tests, not workloads
MAX_VRAM_GB = 100_000.0
MAX_BUDGET_USD = 100_000_000.0
MAX_TOKENS = 1 << 40
NORMALISE_CHARS = 4 * MAX_QUERY_CHARS  # NFKC may also shrink text (composition): read a margin
MAX_CARDS = 1024
MAX_MENTIONS = 8  # cards or model ids read from one message
MAX_NAME_CHARS = 80  # longer "words" are pasted noise, not a model name (HF ids are ~40)
K_TOKENS = 1024  # "8k" = 8192 tokens, "128k" = 131072
M_TOKENS = 1024 * 1024

# Model matching (scores are 0-100; see match_models).
VERSION_WEIGHT = 0.15  # a version the person left out ("llama 70b") costs this much of a word
NOISE_WEIGHT = 0.3  # a word like no catalog word ("nemotron") counts this much against a match
PARTIAL_VERSION = 0.5  # "3" for "3.1": right major version, minor not given
TYPO_CUTOFF = 80.0  # "lama" ~ "llama" (89); "qwen" ~ "qwq" (57) is not a typo
TYPO_CAP = 0.95  # a typo never scores like the word itself
ACCEPT = 80.0  # take the best match without asking
ACCEPT_UNDERSPECIFIED = 65.0  # "kimi", "deepseek 671b": every word fits, the name has more
TIE = 3.0  # matches this close to the best are "it could also be"
CANDIDATE = 50.0  # below this a model is not worth offering
SIZE_PENALTY = 40.0  # "qwen 70b" is not a Qwen of another size
CANDIDATE_BUDGET = 64  # names scored, shared among the query's words (shortest names first)
ALL_WORDS_CANDIDATES = 128  # names holding every query word, scored when this few
SIZE_CLOSENESS = 100.0  # points off per 100% size difference within the 5% tolerance

_THAI_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙", "0123456789")
_INVISIBLE = re.compile(
    r"[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    r"\u2060-\u206f\ufe00-\ufe0f\ufeff\ufff9-\ufffb]"
)
_MARKUP = re.compile(r"</?[a-z][a-z0-9]{0,10}(?:\s[^<>]{0,80})?/?>|\*\*|__|`+|~~|\|\|", re.I)
_SPACES = re.compile(r"\s+")
_THAI = re.compile(r"[\u0e00-\u0e7f]")
_PL_CHARS = re.compile(r"[ąćęłńóśźż]")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Language from words (a set lookup per word, not a regex tried at every position).
_PL_WORDS = _words(
    "ile ilu jaki jaka jakie jakiej czy dla partia partii karta karty karte kartę kartach "
    "miesiecznie miesięcznie miesiac miesiąc pamieci pamięci moge mogę kosztuje jak miesci "
    "mieści wystarczy obliczyc obliczyć pytanie pomoc najlepszy uruchomic uruchomić dwoch dwóch "
    "dwie cennik mam prosze proszę macie w na z zamiast tego teraz samo oraz przy"
)
_PL_STEMS = (
    "potrzebuj", "kontekst", "dostrajani", "dostroi", "zmiesci", "zmieści", "uzytkownik",
    "użytkownik", "najtansz", "najtańsz", "dzialaj", "działaj",
)  # fmt: skip
_EN_WORDS = _words(
    "how what whats which does do can need fit fits run serve cheapest much many the for and "
    "card about please english with max under best biggest longest is will"
)
_WORD_EDGES = ".,;:!?()[]{}<>\"'`*|=-/"
_EN_LETTERS = re.compile(r"[a-z]{3,}")

_GROUPED = r"(\d{1,3}(?:[ ,]\d{3})+|\d+)"
# "128k", "128 tys.", "128 thousand", "1m", "1 mln": first letter -> multiplier
_THOUSANDS = r"k\b|m\b|tys\b\.?|tysi[eę]c\w*|thousand\b|mln\b|million\b|พัน"
_UNITS = {"k": K_TOKENS, "t": K_TOKENS, "พ": K_TOKENS, "m": M_TOKENS}
_KV_TYPES = r"(fp8|fp16|bf16|fp32|int8|q8_0|q8|f16|f8|e4m3|e5m2|8[\s-]*bit|16[\s-]*bit)"
_KV_WORD = r"(?:kv(?:[\s_-]*cache)?|cache)"
_KV_FIRST = re.compile(
    r"\b" + _KV_WORD + r"\s*(?:in\s+|w\s+|as\s+|=|:)?\s*" + _KV_TYPES + r"(?![\w.])"
    r"|\bkv\s*(8|16)\b"
)
_KV_AFTER = re.compile(r"(?<![\w.])" + _KV_TYPES + r"[\s_-]*" + _KV_WORD + r"\b")
# Identifiers: HF repos, Ollama tags, hyphenated release names with a size in them. Their
# numbers are part of the name ("Mistral-Nemo-Instruct-2407", "phi-3-mini-128k").
_IDENT = re.compile(
    r"(?<![\w./:-])(?!(?:ctx|context|batch|bs|kv|cache|seq|budget|q|k|m)\b)(?:"
    r"(?=[\w.\-]*[a-z])[a-z0-9][\w.\-]*/[a-z][\w.\-]*(?::[\w.\-]+)?"
    r"|[a-z][\w.\-]*:(?:\d+(?:\.\d+)?b\b|\d+x\d+b\b|[a-z][\w.]{2,})[\w.\-]*"
    r"|[a-z][\w.]*(?:-[\w.]+)*-\d+(?:\.\d+)?[bkm](?:-[\w.]+)+)(?![\w./:-])"
)
# "what can I run on a 4090", "which models fit 48gb", "co uruchomię na a40", "รันอะไรได้บ้าง"
_WHAT_FITS = re.compile(
    r"\bwhat\s+(?:\w+\s+)?(?:fits?|can\s+(?:i|we|you)\s+(?:run|serve|host|fit)|runs?)\b"
    r"|\bwhich\s+models?\b|\bwhat\s+models?\b|\bbiggest\s+model\b|\blargest\s+model\b"
    r"|\bco\s+(?:uruchomi|zmieszcz|zmie[sś]ci|odpal)|\bjaki\s+model|\bjakie\s+modele"
    r"|อะไรได้บ้าง|โมเดลไหน"
)
_CONTEXT_KM = re.compile(r"(?<![\w.$/:\-])(\d+(?:[.,]\d+)?)\s*(k|m)\b(?!\s*(?:usd|\$|b\b|gb\b))")
_CONTEXT_WORD = re.compile(
    r"\b(?:ctx|context(?:\s+(?:length|window|size))?|kontekst\w*|seq(?:uence)?(?:\s+len(?:gth)?)?"
    r"|max[\s_-]*len|บริบท|ความยาว)\s*(?:of|=|:|o\s+d[lł]ugo[sś]ci|length|len)?\s*"
    + _GROUPED
    + r"(?:\s*("
    + _THOUSANDS
    + r"))?(?![\w.])"
)
_CONTEXT_TOKENS = re.compile(
    r"(?<![\w.])" + _GROUPED + r"\s*(" + _THOUSANDS + r")?\s*"
    r"(?:tokens?|tok|token[óo]w|tokeny|โทเคน)(?!\w)"
)
_BIG_NUMBER = re.compile(r"(?<![\w.$/:\-,])(\d{4,8})(?![\w.]|\s*(?:gb|gib|usd|\$|b\b|-))")
_BATCH = re.compile(
    r"\b(?:batch(?:[\s_-]*size)?|bs|partia|partii|partią|rozmiar\s+partii|แบตช์)\s*(?:of|=|:|x)?"
    r"\s*(\d+)\b"
    r"|(?<![\w.$])(\d+)\s*(?:concurrent(?:\s+(?:users?|requests?|sessions?|streams?|chats?))?"
    r"|users?|requests?|sessions?|conversations?|streams?|chats?|parallel(?:\s+\w+)?|people"
    r"|clients?|sequences?|u[żz]ytkownik\w*|os[oó]b|sesj\w*|r[oó]wnoleg\w*|rozm[oó]w|zapyta[ńn]"
    r"|คน|ผู้ใช้|บทสนทนา|เซสชัน)(?!\w)"
    r"|(?:ผู้ใช้|คน)\s*(\d+)"
)
_SIZE = re.compile(
    r"(?<![\w.$])(\d+(?:[.,]\d+)?)\s*(b|t|bn|billion|trillion|mld|miliard\w*|bln)\b"
    r"(?!\s*/)(?:\s*(?:params?|parameters?|parametr\w*))?"
)
_MOE_SIZE = re.compile(r"(?<![\w.])(\d+)\s*x\s*(\d+)\s*b\b")
_VRAM_GB = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(?:gb|gib|g)\b"
    r"(?:\s*(?:of\s+)?(?:vram|memory|card|gpu|karta|karty|karcie|pami[eę]ci))?"
)
_MONEY = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(k\b)?"
_BUDGET = re.compile(
    r"(?:\$\s*"
    + _MONEY
    + r"|(?<![\w.])"
    + _MONEY
    + r"\s*(?:\$|usd\b|dollars?\b|dolar\w*|bucks\b|ดอลลาร์))"
    r"(?:\s*(?:/|per|a|an|each|na|za|ต่อ)\s*(?:month\b|mo\b|miesi[aą]c\w*|mies\b|เดือน))?"
    r"|\b(?:budget|bud[żz]et\w*|งบ(?:ประมาณ)?)\s*(?:of|is|=|:|to|wynosi)?\s*" + _MONEY
)
_COUNT_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "eight": 8,
    "pair": 2,
    "a pair of": 2,
    "dwie": 2,
    "dwa": 2,
    "dwóch": 2,
    "dwoch": 2,
    "para": 2,
    "trzy": 3,
    "cztery": 4,
    "czterech": 4,
    "osiem": 8,
    "ośmiu": 8,
    "สอง": 2,
    "สี่": 4,
    "แปด": 8,
}
_COUNT = (
    r"(1[0-6](?!\d)|[1-9](?!\d)|" + "|".join(sorted(_COUNT_WORDS, key=len, reverse=True)) + r")"
)
_CARD_NOUN = r"(?:cards?|gpus?|kart\w*|karty|การ์ด|ใบ)"
_GPU_COUNT = re.compile(
    r"(?<![\w.])(\d+|"
    + "|".join(sorted(_COUNT_WORDS, key=len, reverse=True))
    + r")"
    + r"\s*(?:x\s*)?"
    + _CARD_NOUN
    + r"(?!\w)"
    r"|(?:การ์ด|gpu)\s*(\d+)\s*(?:ใบ|ตัว)"
)


def _hint(*words: str) -> re.Pattern[str]:
    """A bare alternation of literals: the regex engine skips to their first letters, so this
    is a cheap gate before a pattern that would otherwise be tried at every position."""
    return re.compile("|".join(re.escape(w) for w in words))


# (pattern, task, generic?, words one of which must be there for the pattern to be tried)
_TASK_RULES: tuple[tuple[str, Task, bool, tuple[str, ...]], ...] = (
    (r"\bq[\s-]?lora\b", "qlora", False, ("lora",)),
    (r"\blora\b", "lora", False, ("lora",)),
    (
        r"\bfull(?:[\s-]*(?:ft|fine[\s-]*tun\w*|finetun\w*|training|train|param\w*))\b"
        r"|\bpe[łl]n\w*\s+(?:dostrajani\w*|fine[\s-]*tun\w*|trening\w*)|\bfft\b"
        r"|\b(?:train\w*|pre[\s-]?train\w*)\s+(?:\w+\s+){0,3}?from\s+scratch"
        r"|ไฟน์จูนเต็ม|ไฟน์จูนแบบเต็ม",
        "full",
        False,
        ("full", "pełn", "peln", "fft", "scratch", "ไฟน์จูน"),
    ),
    (
        r"\bfine[\s-]*tun\w*|\bfinetun\w*|\bsft\b|\btrain(?:ing)?\b|\bdostr\w*|\btrening\w*"
        r"|\btrenowa\w*|ไฟน์จูน|ฝึก|เทรน",
        "full",
        True,
        ("fine", "sft", "train", "dostr", "trening", "trenowa", "ไฟน์จูน", "ฝึก", "เทรน"),
    ),
    (
        r"\b(?:serv\w*|inference|infer|deploy\w*|inferencj\w*|serwow\w*|hostowa\w*)\b"
        r"|อนุมาน",
        "inference",
        False,
        ("serv", "infer", "deploy", "serwow", "hostowa", "อนุมาน"),
    ),
)
_TASKS = tuple(
    (_hint(*hints), re.compile(rx), task, generic) for rx, task, generic, hints in _TASK_RULES
)
_FIT = re.compile(
    r"\b(?:fits?|fitting|will\s+it\s+run|can\s+(?:i|it|you)\s+run|run\s+on|on|in|into"
    r"|mie[sś]ci\w*|zmie[sś]ci\w*|na|wystarcz\w*|enough)\b|พอไหม|รันบน|ใส่ได้|ได้ไหม|บน"
)
_LIMIT_CONTEXT = re.compile(
    r"\b(?:max(?:imum|imal)?|longest|biggest|largest|how\s+(?:long|much|big)(?:\s+an?)?"
    r"|najd[łl]u[żz]sz\w*|maksymaln\w*|najwi[eę]ksz\w*|maks\w*)\s+(?:\S+\s+){0,2}?"
    r"(?:context|ctx|kontekst\w*|sequence)"
    r"|บริบท\S{0,12}?(?:สูงสุด|ยาวสุด|ยาวที่สุด|ได้เท่าไหร่)"
)
_LIMIT_BATCH = re.compile(
    r"\bhow\s+many\s+(?:\S+\s+){0,3}?(?:users?|requests?|sessions?|conversations?|streams?"
    r"|concurrent|people|sequences?|chats?|clients?)"
    r"|\bmax(?:imum)?\s+(?:batch|users?|concurrency|concurrent|sessions?|requests?)"
    r"|\bilu\s+(?:\S+\s+){0,2}?u[żz]ytkownik\w*|\bile\s+(?:\S+\s+){0,2}?(?:sesji|rozm[oó]w|zapyta[ńn]"
    r"|u[żz]ytkownik\w*)|\bmaks\w*\s+(?:partia|partii|u[żz]ytkownik\w*)"
    r"|กี่คน|ผู้ใช้กี่|ได้กี่"
)
_CARDS_LIST = re.compile(
    r"^\s*/?(?:gpus?|cards?|fleet|prices?|pricing|price\s+list|catalog(?:ue)?|karty|cennik|flota"
    r"|การ์ด|ราคา)\s*[?!.]*\s*$"
    r"|\b(?:list|show|all)\s+(?:me\s+)?(?:the\s+|all\s+|your\s+)?(?:gpus|cards|prices)\b"
    r"|\bwhat\s+(?:gpus|cards)\s+(?:do\s+you\s+have|are\s+there|can\s+i\s+rent)"
    r"|\bjakie\s+(?:macie\s+)?karty\b|\bwszystkie\s+karty\b|การ์ดทั้งหมด|มีการ์ดอะไรบ้าง"
)
_CARD_INFO = re.compile(
    r"\b(?:card|gpu|karta|specs?|info|about|specyfikacja|kosztuje|price|cost)\b|การ์ด|ราคา"
)
_HELP = re.compile(
    r"^\s*/?(?:help|start|pomoc|\?+|ช่วย(?:เหลือ)?|hi|hello|hey|cze[sś][cć]|siema|dzie[nń]\s+dobry"
    r"|สวัสดี(?:ครับ|ค่ะ)?)\s*[!?.]*\s*$"
)
_FAQ_COMMAND = re.compile(r"^\s*/?faq\b\s*(\S*)")
_FOLLOWUP = re.compile(  # .match: how a follow-up starts
    r"\s*(?:(?:and|also|what\s+about|how\s+about|same|now|then|instead|ok|okay|a|i|oraz|a\s+co"
    r"|to\s+samo|teraz|zamiast|with|at|on|for|w|na|z|przy|dla)\b|แล้ว|และ|ถ้า)"
)
_FOLLOWUP_ANYWHERE = re.compile(r"\b(?:instead|zamiast|same\s+for|the\s+same)\b")
_FOLLOWUP_HINTS = _hint("instead", "zamiast", "same")
_CARDS_HINTS = _hint(
    "gpu", "card", "fleet", "price", "pricing", "catalog", "kart", "cennik", "flota", "การ์ด",
    "ราคา",
)  # fmt: skip
_LIMIT_CONTEXT_HINTS = _hint("context", "ctx", "kontekst", "sequence", "บริบท")
_LIMIT_BATCH_HINTS = _hint("how many", "max", "ilu", "ile", "maks", "กี่")
_COUNT_HINTS = _hint("card", "gpu", "kart", "การ์ด")
_BUDGET_HINTS = _hint("$", "usd", "dol", "buck", "budget", "budż", "budz", "งบ", "ดอลลาร์")
_IDENT_HINTS = _hint("/", ":", "-")
_KV_HINTS = _hint("kv", "cache")
_CONTEXT_WORD_HINTS = _hint("ctx", "context", "kontekst", "seq", "max", "บริบท", "ความยาว")
_TOKENS_HINTS = _hint("tok", "โทเคน")
_BATCH_HINTS = _hint(
    "batch", "bs", "parti", "user", "concurrent", "request", "session", "conversation", "stream",
    "chat", "parallel", "people", "client", "sequence", "żytkown", "zytkown", "osob", "osób",
    "sesj", "równoleg", "rownoleg", "rozm", "zapyta", "คน", "ผู้ใช้", "บทสนทนา", "เซสชัน", "แบตช์",
)  # fmt: skip
_DIGIT = re.compile(r"\d")
# Spellings of a precision or quant type; any of these the catalog does not know is reported.
_PRECISION_LIKE = re.compile(
    r"(?<![\w.])(?:i?q\d+(?:[_-]?[a-z0-9]{1,3}){0,3}|(?:nv|mx)?fp\d+|bf\d+|int\d+|nf\d+"
    r"|w\d+a\d+|\d+[\s-]?bits?)(?![\w.])"
)
_PRECISION_SEPARATORS = re.compile(r"[\s_-]+")


def _scan(full: re.Pattern[str], scan: re.Pattern[str], s: str, back: int) -> re.Match[str] | None:
    """``full.search(s)``, begun just before the first place the fast ``scan`` finds. ``back``
    covers what ``full`` may match before that (a card's count: "a pair of", "2 x")."""
    if (m := scan.search(s)) is None:
        return None
    return full.search(s, max(0, m.start() - back))


_COUNT_BEFORE = re.compile(
    r"(?<![\w.])" + _COUNT + r"\s*(?:x|\*|of)?\s*(?:" + _CARD_NOUN + r"\s+)?$"
)
_COUNT_HINT = re.compile(r"\d|" + "|".join(_COUNT_WORDS))
_AFTER_CARD = re.compile(r"s?\b(?:\s*(?:x|\*)\s*(\d+)\b)?")


def _find_card(s: str, pats: _Patterns, pos: int) -> tuple[int, int, str, str | None] | None:
    """The next card named at or after ``pos``: (start, end, alias, count) where start/end
    cover "2x", "two", "a40 x2" around the alias."""
    while m := pats.card_scan.search(s, pos):
        a, b = m.span()
        pos = a + 1
        tail = s[max(0, a - 24) : a]
        before = _COUNT_BEFORE.search(tail) if _COUNT_HINT.search(tail) else None
        prev = tail[-1:]
        if (prev.isalnum() or prev in "._") and not (prev in "x*" and before):
            continue  # "ba40", "rtx4090" inside a longer word (but "4x4090" is a count)
        after = _AFTER_CARD.match(s, b)
        if after is None:
            continue
        start = a - len(tail) + before.start() if before else a
        count = (before.group(1) if before else None) or after.group(1)
        return start, after.end(), m.group(0), count
    return None


_WORD = re.compile(r"[^\s,;!?()\[\]{}<>\"'`*|=]+")
_NAMEISH = re.compile(r"[a-z0-9][a-z0-9.+_:/\-]*")
_NUMBER_WORD = re.compile(r"\d+(?:\.\d+)?")
_SMALL_VERSION = re.compile(r"[1-4](?:\.\d)?")
_LETTER = re.compile(r"[a-z]")
_ID_LIKE = re.compile(r"[a-z]{2}[\w.\-]*?\d|[a-z]/[a-z]|[a-z]:\w")  # on one short word
_EDGE_SEPARATORS = re.compile(r"(?<!\S)[-:/_.]+|[-:/_.]+(?!\S)")
_SEPARATORS = re.compile(r"[-_:/,()\[\]]+")
_LETTER_DIGIT = re.compile(r"(?<=[a-z])(?=\d)")
_MOE_JOIN = re.compile(r"(\d)x (\d)")
_SIZE_TOKEN = re.compile(r"\b\d+(?:\.\d+)?\s?[bt]\b")
_GLUED_SIZE = re.compile(r"^([a-z][a-z]+)(\d+(?:\.\d+)?)b$")

# Words that are never part of a model name (suggest.py reads this set too).
_STOP_WORDS = (
    "how much many vram memory gpu gpus need needed needs do does i you we my to for run "
    "running serve serving with at on in a an the of is it can what which model models llm "
    "size and or fit fits will would should please pls plz me about any card cards cheapest "
    "best cost costs price month monthly per tokens token users user context ctx batch "
    "concurrent want like get use using required require enough big vs versus instead same "
    "also ile potrzebuje potrzebuję dla w na czy jaki jaka jakie modelu z przy oraz karta "
    "karty karcie kontekst kontekstem partia partii mieści zmieści się sie co samo teraz "
    "zamiast miesięcznie użytkowników tokenów jak then now ok okay hey hi hello there this "
    "that these those be are am was max maximum longest biggest largest long good great new "
    "newest latest local locally could got give tell show know check say says said if from by "
    "as so just only one two three four eight our your its their kind sort type version quick "
    "question thanks thank thx pytanie english polish thai answer weights weight params "
    "parameters parameter billion quantized quantised quant quantization fine tune tuning "
    "inference infer host hosting deploy deployment training train chat instruct base hf gguf "
    "api server servers setup rig machine box home cloud rent renting rental hire there's "
    "what's whats i'm im it's dollars dollar usd bucks budget under below within upto up less "
    "than more most mo each around approx approximately roughly minimum min least total "
    "overall all every shall may might must let lets let's estimate calculate compute figure "
    "out sizing sized work works working go going make making possible ever really actually "
    "still even anyway other else via bit bits fp precision cache kv people concurrency "
    "requests request sessions session streams stream parallel k m gb gib ram mój moja moje "
    "mam chcę chce proszę prosze dzięki dziekuje dziękuję modele najlepszy najlepsza najlepsze "
    "za miesiąc miesiac miesiące miesięcy uruchomić uruchomic mogę moge można mozna kosztuje "
    "koszt cena taniej tanio dwie dwóch dwa trzy cztery osiem kartach kartami kart razem jedna "
    "jeden jako działają dzialaja działa dziala pamięci pamieci potrzeba potrzebne wystarczy "
    "zmieszczę zmieszcze odpalić odpalic lokalnie ilu jaką jakiego który która które czym "
    "ktora ktore ktory najwięcej najwiecej maksymalny maksymalnie najdłuższy najdluzszy "
    "uzytkownikow użytkownika sesji rozmów coding chatbot assistant agent rag production prod "
    "dev test testing cheap fast faster speed quality vision multimodal"
)
STOP_WORDS = frozenset(_STOP_WORDS.split())  # also suggest.py's
_MODEL_NOISE = re.compile(
    r"\b(?:instruct|chat|hf|it|base|gguf|ggml|awq|gptq|exl2|mlx|preview|latest|text|ollama)\b"
)


@dataclass
class CardAsk:
    name: str
    count: int | None = None


@dataclass
class ModelMatch:
    model: ModelSpec
    score: float


@dataclass
class Query:
    """What the text says; ``None`` means the person did not say it."""

    text: str
    lang: Lang | None = None
    task: Task | None = None
    task_generic: bool = False
    precision: str | None = None
    extra_precisions: list[str] = field(default_factory=list)
    unknown_precisions: list[str] = field(default_factory=list)
    kv_dtype: str | None = None
    context_tokens: int | None = None
    batch: int | None = None
    size_b: float | None = None
    bad_size_b: float | None = None  # a size nobody means ("0b", "1e-28t"): refused
    model: ModelSpec | None = None
    model_score: float = 0.0
    others: list[ModelMatch] = field(default_factory=list)
    model_words: str = ""
    unmatched_model: bool = False
    cards: list[CardAsk] = field(default_factory=list)
    count: int | None = None
    vram_gb: float | None = None
    budget_usd: float | None = None
    faq_topic: str | None = None
    wants_fit: bool = False
    wants_what_fits: bool = False
    wants_limit: str | None = None
    wants_cards: bool = False
    wants_card_info: bool = False
    wants_help: bool = False
    followup: bool = False
    truncated: bool = False

    @property
    def has_subject(self) -> bool:
        return self.model is not None or self.size_b is not None

    @property
    def has_modifier(self) -> bool:
        return any(
            v is not None
            for v in (
                self.task,
                self.precision,
                self.kv_dtype,
                self.context_tokens,
                self.batch,
                self.count,
                self.vram_gb,
                self.budget_usd,
            )
        ) or bool(self.cards)


# --------------------------------------------------------------------------- text helpers


def clean(text: str) -> tuple[str, bool]:
    """Normalise what people paste: width forms, Thai digits, invisible characters, markup."""
    long = len(text) > NORMALISE_CHARS
    text = text[:NORMALISE_CHARS]
    if not text.isascii():
        # The cap counts characters after NFKC, which can turn one character into 18.
        text = unicodedata.normalize("NFKC", text)
        if _THAI.search(text):
            text = text.translate(_THAI_DIGITS)
    truncated = long or len(text) > MAX_QUERY_CHARS
    text = text[:MAX_QUERY_CHARS]
    text = _INVISIBLE.sub(" ", text)
    text = _MARKUP.sub(" ", text)
    text = text.replace("×", "x").replace("–", "-").replace("—", "-").replace("’", "'")
    return _SPACES.sub(" ", text).strip(), truncated


def detect_lang(text: str) -> Lang | None:
    """Thai script or Polish letters/words decide; plain sizing shorthand says nothing."""
    if _THAI.search(text):
        return "th"
    low = text.lower()
    if _PL_CHARS.search(low):
        return "pl"
    words = [w.strip(_WORD_EDGES) for w in low.split()]
    if any(w in _PL_WORDS or w.startswith(_PL_STEMS) for w in words):
        return "pl"
    if _EN_LETTERS.search(low) and any(w in _EN_WORDS for w in words):
        return "en"
    return None


def _num(text: str) -> float:
    return float(text.replace(",", ".").replace(" ", ""))


def _tokens(value: float) -> int:
    """A token count from a float that may be huge ("9" * 400 + "k"): bounded before int()."""
    return round(value) if value < MAX_TOKENS else MAX_TOKENS


def _precision_of(catalog: Catalog, pats: _Patterns, text: str) -> str | None:
    """The catalog precision a matched spelling names: separators do not matter ("q4_KM",
    "q4-k-m" and "q4km" are all Q4_K_M)."""
    compact = _PRECISION_SEPARATORS.sub("", text.lower())
    return pats.precision_compact.get(compact) or catalog.precision_alias.get(norm(text))


def _unknown_precisions(q: Query, s: str, pats: _Patterns) -> str:
    """Precision-looking words left over ("4 bits", "q9", "fp4"): a plural of a known one is
    that one; the rest are types we do not know, reported, never guessed. Returns the rest."""
    for m in _PRECISION_LIKE.finditer(s):
        compact = _PRECISION_SEPARATORS.sub("", m.group(0))
        name = pats.precision_compact.get(compact.removesuffix("s"))
        if name is not None and q.precision is None:
            q.precision = name
        elif name is None and m.group(0) not in q.unknown_precisions:
            q.unknown_precisions.append(m.group(0))
        if len(q.unknown_precisions) >= MAX_MENTIONS:
            break
    return _PRECISION_LIKE.sub(" ", s) if q.unknown_precisions or q.precision else s


def _int_grouped(text: str) -> int:
    return int(text.replace(" ", "").replace(",", ""))


def _money(value: str, thousands: str | None) -> float:
    amount = float(value.replace(",", ""))
    return amount * 1000 if thousands else amount


def _cut(text: str, m: re.Match[str]) -> str:
    return text[: m.start()] + " " + text[m.end() :]


@lru_cache(maxsize=4096)
def model_key(text: str) -> str:
    """Split letters from digits and drop separators so 'Llama-3.1-70B' == 'llama3.1 70b'."""
    s = _LETTER_DIGIT.sub(" ", text.lower())
    s = _MOE_JOIN.sub(r"\1x\2", s)  # keep "8x7b" whole
    s = _SEPARATORS.sub(" ", s)
    s = _MODEL_NOISE.sub(" ", s)
    return _SPACES.sub(" ", s).strip()


@lru_cache(maxsize=4096)
def name_key(text: str) -> str:
    """The name part of a model key: sizes go, because they are checked separately."""
    return _SPACES.sub(" ", _SIZE_TOKEN.sub(" ", model_key(text))).strip()


def size_matches(m: ModelSpec, size_b: float) -> bool:
    """A stated size fits a model's nominal, exact or (MoE names: "17B-16E") active size."""
    tol = 0.05 * max(size_b, 1)
    sizes = (m.nominal_b, m.params_b, m.active_params_b or -1.0)
    return any(abs(s - size_b) <= tol for s in sizes)


# --------------------------------------------------------------------------- model index


def _is_version(token: str) -> bool:
    return _NUMBER_WORD.fullmatch(token) is not None


@dataclass(frozen=True, eq=False)
class _TokenIndex:
    """Unique name keys as token tuples, with the inverted lists that make scoring cheap."""

    models: tuple[ModelSpec, ...]
    newest_rank: tuple[int, ...]  # model position -> 0 for the newest release
    keys: tuple[str, ...]
    key_tokens: tuple[tuple[str, ...], ...]
    key_where: tuple[dict[str, tuple[int, ...]], ...]  # token -> its positions in the key
    key_weights: tuple[tuple[float, ...], ...]
    key_total: tuple[float, ...]
    key_owners: tuple[tuple[int, ...], ...]
    joined: tuple[str, ...]  # names/families without spaces: "gptoss", "deepseekr1"
    joined_ids: tuple[int, ...]  # the key each of those is
    postings: dict[str, tuple[int, ...]]  # token -> keys holding it, shortest keys first
    posting_sets: dict[str, frozenset[int]]
    words: tuple[str, ...]  # vocabulary tokens that are not plain numbers (typo targets)
    words_by_initial: dict[str, tuple[str, ...]]  # the same, by first letter (typos rarely hit it)
    versions: tuple[str, ...]  # numeric tokens ("3.1", "2.5")
    minors: dict[str, tuple[str, ...]]  # "3" -> ("3.1", "3.2", "3.3"): versions under a major
    vocab: frozenset[str]
    heads: frozenset[str]  # first word of a family ("llama", "qwen") and MoE shapes ("8x7b")
    name_joined: tuple[str, ...]  # per model: its display name's key without spaces
    aliases: dict[str, int]  # norm(alias) -> model position, for aliases with one owner


@lru_cache(maxsize=8)
def _token_index(catalog: Catalog) -> _TokenIndex:
    models = tuple(catalog.models)
    key_ids: dict[str, int] = {}
    owners: list[list[int]] = []
    alias_owner: dict[str, set[int]] = {}
    heads: set[str] = set()
    base_keys: set[str] = set()  # from names, ids and families: what people glue together
    for pos, m in enumerate(models):
        base_keys.update(name_key(n) for n in (m.name, m.id, m.family))
        family = name_key(m.family).split()
        if family:
            heads.add(family[0])
        for n in (m.name, m.id, m.hf_repo, m.hf_repo.split("/")[-1], m.family, *m.aliases):
            k = name_key(n)
            if not k:
                continue
            if k not in key_ids:
                key_ids[k] = len(owners)
                owners.append([])
            if pos not in owners[key_ids[k]]:
                owners[key_ids[k]].append(pos)
        for a in (m.id, *m.aliases):
            alias_owner.setdefault(norm(a), set()).add(pos)
    keys = tuple(key_ids)
    key_tokens = tuple(tuple(k.split()) for k in keys)
    weights = tuple(
        tuple(VERSION_WEIGHT if _is_version(t) else 1.0 for t in ts) for ts in key_tokens
    )
    postings: dict[str, list[int]] = {}
    for i, toks in enumerate(key_tokens):
        for t in set(toks):
            postings.setdefault(t, []).append(i)
            if "x" in t and _MOE_SIZE.fullmatch(t):
                heads.add(t)
    order = sorted(range(len(models)), key=lambda i: models[i].released, reverse=True)
    rank = [0] * len(models)
    for r, i in enumerate(order):
        rank[i] = r
    vocab = frozenset(postings)
    totals = tuple(sum(w) for w in weights)
    short = [key_ids[k] for k in sorted(base_keys) if k]
    return _TokenIndex(
        models=models,
        newest_rank=tuple(rank),
        keys=keys,
        key_tokens=key_tokens,
        key_where=tuple(
            {t: tuple(j for j, u in enumerate(ts) if u == t) for t in ts} for ts in key_tokens
        ),
        key_weights=weights,
        key_total=totals,
        key_owners=tuple(tuple(o) for o in owners),
        joined=tuple(keys[i].replace(" ", "") for i in short),
        joined_ids=tuple(short),
        postings={t: tuple(sorted(v, key=lambda i: (totals[i], i))) for t, v in postings.items()},
        posting_sets={t: frozenset(v) for t, v in postings.items()},
        words=tuple(sorted(t for t in vocab if not _is_version(t))),
        words_by_initial=_by_initial(t for t in vocab if not _is_version(t)),
        versions=tuple(sorted(t for t in vocab if _is_version(t))),
        minors=_minors(t for t in vocab if _is_version(t)),
        vocab=vocab,
        heads=frozenset(heads),
        name_joined=tuple(name_key(m.name).replace(" ", "") for m in models),
        aliases={a: next(iter(o)) for a, o in alias_owner.items() if len(o) == 1},
    )


def _minors(versions: Iterable[str]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for v in versions:
        major, dot, _ = v.partition(".")
        if dot:
            out.setdefault(major, []).append(v)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _by_initial(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for w in words:
        out.setdefault(w[0], []).append(w)
    return {k: tuple(sorted(v)) for k, v in out.items()}


@lru_cache(maxsize=4096)
def _token_matches(index: _TokenIndex, token: str) -> tuple[tuple[str, float], ...]:
    """Vocabulary tokens this query token may stand for, with how well (1.0 = itself)."""
    out: dict[str, float] = {}
    if token in index.vocab:
        out[token] = 1.0
    if _is_version(token):
        for v in index.minors.get(token, ()):  # "3" for "3.1": the family's minor versions
            out.setdefault(v, PARTIAL_VERSION)
    elif len(token) >= 4:
        # Words with the same first letter first: a small list, and where typos almost
        # always land; the whole vocabulary only when that finds nothing.
        for pool in (index.words_by_initial.get(token[0], ()), index.words):
            hits = process.extract(
                token, pool, scorer=fuzz.ratio, score_cutoff=TYPO_CUTOFF, limit=4
            )
            for word, score, _ in hits:
                out.setdefault(word, min(score / 100, TYPO_CAP))
            if hits:
                break
    return tuple(sorted(out.items(), key=lambda vq: -vq[1]))


@dataclass(frozen=True)
class _Ranked:
    pos: int
    score: float
    complete: bool  # every word the person gave is in the name
    head: bool  # and one of them is a family's first word


def _score_key(
    index: _TokenIndex, kid: int, qinfo: tuple[tuple[float, tuple[tuple[str, float], ...]], ...]
) -> tuple[float, bool, bool]:
    """Half how much of the name the words cover, half how much of the words the name has."""
    where = index.key_where[kid]
    weights = index.key_weights[kid]
    used: set[int] = set()
    got_k = got_q = total_q = 0.0
    complete, head = True, False
    for wq, matches in qinfo:  # matches: best quality first
        total_q += wq
        best_j, best, token = -1, 0.0, ""
        for v, quality in matches:
            for j in where.get(v, ()):
                if j not in used:
                    best_j, best, token = j, quality, v
                    break
            if best_j >= 0:
                break
        if best_j < 0:
            if wq >= 1.0:
                complete = False
            continue
        used.add(best_j)
        got_k += best * weights[best_j]
        got_q += best * wq
        if best < TYPO_CUTOFF / 100:
            complete = False
        if token in index.heads:
            head = True
    kc = got_k / index.key_total[kid]
    qc = got_q / total_q if total_q else 0.0
    return 50 * kc + 50 * qc, complete, head


@lru_cache(maxsize=4096)
def _rank(index: _TokenIndex, key: str, size_b: float | None) -> tuple[_Ranked, ...]:
    """Every model worth mentioning for these name words, best first (cached: names repeat)."""
    qtoks = key.split()[:MAX_MODEL_TOKENS]
    if not qtoks:
        return ()
    qinfo: list[tuple[float, tuple[tuple[str, float], ...]]] = []
    # Candidates: for each word, the shortest names holding it (a family's own names), plus
    # every name holding all the words (a long alias typed out), so the scoring loop below
    # stays small however many aliases the catalog has.
    candidates: set[int] = set()
    common: set[int] | None = None
    per_word = max(8, CANDIDATE_BUDGET // len(qtoks))
    for t in qtoks:
        matches = _token_matches(index, t)
        noise = not matches and not _is_version(t)
        qinfo.append((NOISE_WEIGHT if noise else 1.0, matches))
        holding: set[int] = set()
        for v, _ in matches:
            if not _is_version(v):  # "3.1" or "7" alone would list half the catalog
                candidates.update(index.postings[v][:per_word])
            holding |= index.posting_sets[v]
        if matches:
            common = holding if common is None else common & holding
    if common is not None and len(common) <= ALL_WORDS_CANDIDATES:
        candidates |= common
    frozen = tuple(qinfo)
    best: dict[int, tuple[float, bool, bool]] = {}
    for kid in candidates:
        s = _score_key(index, kid, frozen)
        for pos in index.key_owners[kid]:
            if s[0] > best.get(pos, (-1.0, False, False))[0]:
                best[pos] = s
    top = max((s[0] for s in best.values()), default=0.0)
    joined = "".join(qtoks)
    if top < ACCEPT and len(joined) >= 4:
        # Glued names: "deepseekr1", "codellama", "mistralnemo".
        for _, score, j in process.extract(
            joined, index.joined, scorer=fuzz.ratio, score_cutoff=88, limit=8
        ):
            for pos in index.key_owners[index.joined_ids[j]]:
                if score > best.get(pos, (-1.0, False, False))[0]:
                    best[pos] = (float(score), True, True)
    out: list[_Ranked] = []
    for pos, (score, complete, head) in best.items():
        if size_b is not None:
            m = index.models[pos]
            if not size_matches(m, size_b):
                score -= SIZE_PENALTY
            else:  # "qwen3 32b" is Qwen3 32B, not the 30.5B MoE that is within 5%
                sizes = (m.nominal_b, m.params_b, m.active_params_b or -1.0)
                score -= SIZE_CLOSENESS * min(abs(x - size_b) for x in sizes) / max(size_b, 1)
        if score >= CANDIDATE - SIZE_PENALTY:
            out.append(_Ranked(pos, score, complete, head))
    out.sort(key=lambda r: (-r.score, index.newest_rank[r.pos]))
    return tuple(out[:12])


def match_models(catalog: Catalog, words: str, size_b: float | None) -> list[ModelMatch]:
    """Score the catalog's models against the name words; a given size must agree.

    Scores run 0-100: half is how much of the model's name the words cover (a left-out
    version counts little), half how much of the words the name explains. Ties go to the
    newest release.
    """
    index = _token_index(catalog)
    return [ModelMatch(index.models[r.pos], r.score) for r in _rank(index, name_key(words), size_b)]


# --------------------------------------------------------------------------- per-catalog regexes


@dataclass(frozen=True)
class _Patterns:
    card_scan: re.Pattern[str]  # every card alias, as a trie: finds a card fast
    precision: re.Pattern[str]
    precision_scan: re.Pattern[str]
    precision_compact: dict[str, str]  # alias without separators -> precision name
    faq_topics: tuple[str, ...]
    faq_anchors: dict[str, tuple[tuple[str, int, float], ...]]  # trigram -> (keyword, topic, w)
    faq_short: tuple[tuple[str, int, float], ...]  # keywords under three characters
    faq_ids: frozenset[str]
    card_vram: dict[str, float]


def _trie(words: set[str], space: str) -> str:
    """One regex for many literal words, as a trie ("q4(?:_(?:k_m|0))?"): the engine then
    rejects a position after a letter or two instead of trying every word. Longer words win
    (each optional tail is greedy); a space in a word matches ``space``."""
    root: dict[str, dict] = {}  # type: ignore[type-arg]
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:  # type: ignore[type-arg]
        alts = [
            (space if ch == " " else re.escape(ch)) + emit(child)
            for ch, child in sorted(node.items())
            if ch
        ]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if "" in node:
            return "(?:" + body + ")?"
        return body

    return emit(root)


@lru_cache(maxsize=8)
def _patterns(catalog: Catalog) -> _Patterns:
    cards = _trie({a.lower() for c in catalog.cards for a in (c.name, *c.aliases)}, r"[\s-]*")
    precisions = _trie(set(catalog.precision_alias), r"[\s_-]*")
    # FAQ keywords, each filed under its rarest three-letter piece: a question then only
    # checks the few keywords whose piece it contains, not all two hundred.
    entries = [
        (kw.lower(), i, 1 + len(kw) / 20)
        for i, t in enumerate(catalog.faq)
        for words in t.keywords.values()
        for kw in words
    ]
    grams: dict[str, int] = {}
    for kw, _, _ in entries:
        for g in {kw[j : j + 3] for j in range(len(kw) - 2)}:
            grams[g] = grams.get(g, 0) + 1
    anchors: dict[str, list[tuple[str, int, float]]] = {}
    short: list[tuple[str, int, float]] = []
    for e in entries:
        kw = e[0]
        if len(kw) < 3:
            short.append(e)
            continue
        anchor = min({kw[j : j + 3] for j in range(len(kw) - 2)}, key=lambda g: (grams[g], g))
        anchors.setdefault(anchor, []).append(e)
    return _Patterns(
        card_scan=re.compile(cards),
        precision=re.compile(r"(?<![\w.])(" + precisions + r")(?![\w.])"),
        precision_scan=re.compile(precisions),
        precision_compact={
            _PRECISION_SEPARATORS.sub("", alias): name
            for alias, name in sorted(catalog.precision_alias.items())
        },
        faq_topics=tuple(t.id for t in catalog.faq),
        faq_anchors={g: tuple(v) for g, v in anchors.items()},
        faq_short=tuple(short),
        faq_ids=frozenset(t.id for t in catalog.faq),
        card_vram={c.name: c.vram_gb for c in catalog.cards},
    )


def match_faq(catalog: Catalog, text: str) -> str | None:
    """The FAQ topic whose keywords the text mentions most (phrases count by length)."""
    pats = _patterns(catalog)
    scores = [0.0] * len(pats.faq_topics)
    for kw, topic, weight in pats.faq_short:
        if kw in text:
            scores[topic] += weight
    seen: set[str] = set()
    anchors = pats.faq_anchors
    for j in range(len(text) - 2):
        g = text[j : j + 3]
        if g in anchors and g not in seen:
            seen.add(g)
            for kw, topic, weight in anchors[g]:
                if kw in text:
                    scores[topic] += weight
    best, best_score = None, 0.0
    for name, score in zip(pats.faq_topics, scores, strict=True):
        if score > best_score:
            best, best_score = name, score
    return best if best_score >= 1.5 else None


# --------------------------------------------------------------------------- parse


def parse(text: str, catalog: Catalog) -> Query:
    raw, truncated = clean(text)
    q = Query(text=raw, truncated=truncated, lang=detect_lang(raw))
    s = " " + raw.lower() + " "
    pats = _patterns(catalog)

    if _HELP.match(s):
        q.wants_help = True
        return q
    if (m := _FAQ_COMMAND.match(s)) and m.group(1) in pats.faq_ids:
        q.faq_topic = m.group(1)
        return q
    # Cheap substring checks first: most regexes below only run when their words are there.
    digits = _DIGIT.search(s) is not None
    if _CARDS_HINTS.search(s) and _CARDS_LIST.search(s):
        q.wants_cards = True
    q.followup = bool(_FOLLOWUP.match(s)) or (
        _FOLLOWUP_HINTS.search(s) is not None and _FOLLOWUP_ANYWHERE.search(s) is not None
    )
    if _LIMIT_CONTEXT_HINTS.search(s) and _LIMIT_CONTEXT.search(s):
        q.wants_limit = "context"
    elif _LIMIT_BATCH_HINTS.search(s) and _LIMIT_BATCH.search(s):
        q.wants_limit = "batch"

    # Cards first: "a40" or "4090" must not be read as sizes or context.
    pos, seen = 0, 0
    while digits and seen < MAX_MENTIONS and (found := _find_card(s, pats, pos)):
        seen += 1
        start, end, alias, n = found
        card = catalog.card(alias)
        if card is None:
            pos = start + 1
            continue
        count = (_COUNT_WORDS.get(n) or (int(n) if n.isdigit() else None)) if n else None
        if all(c.name != card.name for c in q.cards):
            q.cards.append(CardAsk(card.name, count))
        s = s[:start] + " " + s[end:]
        pos = start
    if _COUNT_HINTS.search(s) and (m := _GPU_COUNT.search(s)):
        n = m.group(1) or m.group(2)
        q.count = _COUNT_WORDS.get(n) or (int(n) if n.isdigit() else None)
        s = _cut(s, m)
        if q.cards and q.cards[0].count is None:
            q.cards[0].count = q.count

    if _BUDGET_HINTS.search(s) and (m := _BUDGET.search(s)):
        value = m.group(1) or m.group(3) or m.group(5)
        thousands = m.group(2) or m.group(4) or m.group(6)
        q.budget_usd = _money(value, thousands)
        s = _cut(s, m)

    # Names with their own numbers ("Qwen/Qwen2.5-32B-Instruct", "llama3.1:70b-q4_K_M").
    idents: list[str] = []
    while len(idents) < MAX_MENTIONS and _IDENT_HINTS.search(s) and (m := _IDENT.search(s)):
        idents.append(m.group(0))
        s = _cut(s, m)

    if digits and "x" in s and (m := _MOE_SIZE.search(s)):
        q.model_words += f" {m.group(1)}x{m.group(2)}b"
        s = _cut(s, m)

    if _KV_HINTS.search(s) and (m := _KV_FIRST.search(s) or _KV_AFTER.search(s)):
        token = next(g for g in m.groups() if g)
        token = {"8": "fp8", "16": "fp16"}.get(token, token)
        q.kv_dtype = catalog.kv_alias.get(norm(token.replace(" ", "").replace("-", ""))) or "fp8"
        s = _cut(s, m)

    while m := _scan(pats.precision, pats.precision_scan, s, 0):  # "fp8 int4": first wins
        name = _precision_of(catalog, pats, m.group(1))
        if name is not None and q.precision is None:
            q.precision = name
        elif name is not None and len(q.extra_precisions) < MAX_MENTIONS:
            q.extra_precisions.append(name)
        s = _cut(s, m)
    if digits:
        s = _unknown_precisions(q, s, pats)

    size_neighbor = ""
    if digits:
        s, size_neighbor = _numbers(q, s, pats)

    for hint, rx, task, generic in _TASKS:
        if hint.search(s) and rx.search(s):
            if q.task is None:
                q.task, q.task_generic = task, generic
            s = rx.sub(" ", s)  # "dostrajanie lora": the method names the task, both words go

    # A VRAM amount always asks "does it fit"; a card may also just be the subject.
    q.wants_fit = q.vram_gb is not None or (bool(q.cards) and _FIT.search(s) is not None)
    q.wants_card_info = bool(q.cards) and bool(_CARD_INFO.search(s))
    q.wants_what_fits = bool(q.cards or q.vram_gb) and bool(_WHAT_FITS.search(raw.lower()))
    q.faq_topic = match_faq(catalog, raw.lower())

    for ident in idents:
        rest = " " + ident + " "
        if q.precision is None and (m := _scan(pats.precision, pats.precision_scan, rest, 0)):
            q.precision = _precision_of(catalog, pats, m.group(1))
            rest = _cut(rest, m)
        if q.precision is None:
            rest = _unknown_precisions(q, rest, pats)
        if q.size_b is None and (m := _SIZE.search(rest)):
            q.size_b = _size(m.group(1), m.group(2))
            rest = _cut(rest, m)
            # The id names the model: "zephyr-7b-beta" is not a typical 7B, ask about it.
            size_neighbor = _EDGE_SEPARATORS.sub(" ", rest).split()[0] if rest.strip() else ""
        q.model_words += " " + rest.strip()

    _read_model(q, s, catalog, size_neighbor)
    _bound(q)
    if q.wants_limit and not q.has_subject:
        q.followup = True  # "max context?" asks about the last model
    return q


def _numbers(q: Query, s: str, pats: _Patterns) -> tuple[str, str]:
    """Context, batch, VRAM, size: the slots that are numbers. Returns the rest of the text
    and the word right before the size ("zephyr" in "zephyr 7b")."""
    if (_CONTEXT_WORD_HINTS.search(s) and (m := _CONTEXT_WORD.search(s))) or (
        _TOKENS_HINTS.search(s) and (m := _CONTEXT_TOKENS.search(s))
    ):
        q.context_tokens = _int_grouped(m.group(1)) * _UNITS.get((m.group(2) or " ")[0], 1)
        s = _cut(s, m)
    elif m := _CONTEXT_KM.search(s):
        unit = K_TOKENS if m.group(2) == "k" else M_TOKENS
        q.context_tokens = _tokens(_num(m.group(1)) * unit)
        s = _cut(s, m)

    if _BATCH_HINTS.search(s) and (m := _BATCH.search(s)):
        q.batch = int(next(g for g in m.groups() if g))
        s = _cut(s, m)

    if m := _VRAM_GB.search(s):
        q.vram_gb = _num(m.group(1))
        s = _cut(s, m)
        # "a 4090 24gb" restates the card's memory; it is not a second thing to check.
        if any(abs(pats.card_vram[c.name] - q.vram_gb) <= 1 for c in q.cards):
            q.vram_gb = None

    size_neighbor = ""
    if m := _SIZE.search(s):
        q.size_b = _size(m.group(1), m.group(2))
        before = s[: m.start()].rstrip()
        size_neighbor = before[before.rfind(" ") + 1 :]
        s = _cut(s, m)

    if q.context_tokens is None and (m := _BIG_NUMBER.search(s)):
        q.context_tokens = int(m.group(1))
        s = _cut(s, m)
    return s, size_neighbor


def _bound(q: Query) -> None:
    """Numbers nobody means ("0b", a 300-digit VRAM) must not reach the arithmetic."""
    if q.size_b is not None and not MIN_SIZE_B <= q.size_b <= MAX_SIZE_B:
        q.bad_size_b = 0.0 if math.isnan(q.size_b) else q.size_b
        q.size_b = None
    if q.vram_gb is not None:
        q.vram_gb = min(q.vram_gb, MAX_VRAM_GB) if q.vram_gb > 0 else None
    if q.budget_usd is not None:
        q.budget_usd = min(q.budget_usd, MAX_BUDGET_USD)
    if q.context_tokens is not None:
        q.context_tokens = min(q.context_tokens, MAX_TOKENS)
    if q.batch is not None:
        q.batch = min(q.batch, MAX_TOKENS)
    if q.count is not None:
        q.count = min(q.count, MAX_CARDS) or None
    for c in q.cards:
        if c.count is not None:
            c.count = min(c.count, MAX_CARDS) or None


def _size(value: str, unit: str) -> float:
    n = _num(value)
    return n * 1000 if unit.lower() in ("t", "trillion") else n


def _name_words(s: str) -> list[str]:
    """What is left that could be part of a model name: ASCII tokens that are not filler."""
    words: list[str] = []
    for w in _WORD.findall(s):
        w = w.strip(".-:/_")
        ok = w and len(w) <= MAX_NAME_CHARS and w.isascii() and w not in STOP_WORDS
        if ok and _NAMEISH.fullmatch(w):
            words.append(w)
            if len(words) == MAX_MODEL_TOKENS * 2:
                break
    return words


def _read_model(q: Query, s: str, catalog: Catalog, size_neighbor: str = "") -> None:
    """Whatever is left that looks like words is the model name: match it, or say why not."""
    words = _name_words(s)
    if q.size_b is None and q.faq_topic is None:
        nums = [w for w in words if _NUMBER_WORD.fullmatch(w)]
        named = [w for w in words if not _NUMBER_WORD.fullmatch(w)]
        # "lama3 70" or "qwen 2.5 32": a trailing bare number after a name is the size.
        if named and nums:
            cand = _num(nums[-1])
            if 0.1 <= cand <= 2000 and not _SMALL_VERSION.fullmatch(nums[-1]):
                q.size_b = cand
                words.remove(nums[-1])
        elif (
            len(named) == 1
            and (g := _GLUED_SIZE.match(named[0]))
            and g.group(1) in _token_index(catalog).heads
        ):
            # "mistral7b": a family word with the size glued on.
            q.size_b = _num(g.group(2))
            words = [g.group(1)]
    joined = _EDGE_SEPARATORS.sub(" ", q.model_words + " " + " ".join(words))
    q.model_words = _SPACES.sub(" ", joined).strip()  # "qwen/qwen2.5 instruct", for messages
    key = name_key(q.model_words)
    if not key or not _LETTER.search(key):
        return
    index = _token_index(catalog)
    ranked = _rank(index, key, q.size_b)
    if q.faq_topic and q.size_b is None and ranked and ranked[0].score < 90:
        ranked = ()  # general questions carry words that are not model names
    if not ranked or ranked[0].score < CANDIDATE:
        # Words no model resembles: a word right before the size ("zephyr 7b") or an id
        # ("gpt-4") names a model we do not know (ask, never guess its shape); other words
        # ("70b for coding") were just not a model.
        near_size = bool(size_neighbor) and size_neighbor in q.model_words.split()
        id_like = any(_ID_LIKE.search(w) for w in q.model_words.split())
        if not q.faq_topic and (near_size or id_like):
            q.unmatched_model = True
        q.others = [ModelMatch(index.models[r.pos], r.score) for r in ranked[:5]]
        return
    best = ranked[0]
    top = [r for r in ranked if r.score >= best.score - TIE]
    if q.size_b is None:
        # The person typed one model's own name ("deepseek r1") or an alias ("mixtral").
        joined = key.replace(" ", "")
        own = [r for r in top if index.name_joined[r.pos] == joined]
        alias = index.aliases.get(norm(q.model_words))
        if len(own) == 1:
            top = own
        elif alias is not None and any(r.pos == alias for r in top):
            top = [r for r in top if r.pos == alias]
        best = top[0]
    sizes = {index.models[r.pos].nominal_b for r in top}
    accept = best.score >= ACCEPT or (
        best.score >= ACCEPT_UNDERSPECIFIED and best.complete and best.head
    )
    if accept and (len(sizes) == 1 or q.size_b is not None):
        model = index.models[best.pos]
        q.model, q.model_score = model, best.score
        q.others = [
            ModelMatch(index.models[r.pos], r.score)
            for r in top
            if r is not best and size_matches(index.models[r.pos], model.nominal_b)
        ][:3]
    elif accept:
        q.unmatched_model = True  # same family, several sizes: ask which
        by_size = sorted(top, key=lambda r: index.models[r.pos].params_b)
        q.others = [ModelMatch(index.models[r.pos], r.score) for r in by_size[:5]]
    else:
        q.unmatched_model = True
        q.others = [
            ModelMatch(index.models[r.pos], r.score) for r in ranked[:5] if r.score >= CANDIDATE
        ]
