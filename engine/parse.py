"""Text -> :class:`Query`: what the person asked, in the three languages we answer in.

Slots are pulled out one kind at a time (KV precision before weight precision, sizes before
bare numbers) and removed from the text, so what remains is the model name, which is matched
fuzzily against every name and alias in ``models.yaml``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz, process

from engine.catalog import Catalog, norm
from engine.models import Lang, ModelSpec, Task

MAX_QUERY_CHARS = 4096
K_TOKENS = 1024  # "8k" = 8192 tokens, "128k" = 131072
M_TOKENS = 1024 * 1024

_THAI_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙", "0123456789")
_INVISIBLE = re.compile(
    r"[\u0000-\u0008\u000b-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]"
)
_THAI = re.compile(r"[\u0e00-\u0e7f]")
_PL_CHARS = re.compile(r"[ąćęłńóśźż]")
_PL_WORDS = re.compile(
    r"\b(ile|jaki|jaka|jakie|jakiej|czy|potrzebuj\w*|dla|kontekst\w*|partia|partii|dostrajani\w*"
    r"|dostroi\w*|karta|karty|kart[eę]|zmie[sś]ci\w*|miesi[eę]cznie|u[zż]ytkownik\w*|pami[eę]ci"
    r"|mog[eę]|kosztuje|najta[nń]sz\w*|jak|mie[sś]ci|wystarczy|obliczy[cć]|pytanie)\b"
)

_NUM = r"(\d+(?:[.,]\d+)?)"
_KV = re.compile(
    r"\b(?:kv(?:[\s_-]*cache)?|cache)\s*(?:in\s+|w\s+|=|:)?\s*(fp8|fp16|bf16|fp32|int8|q8_0|q8|8\s*bit|16\s*bit)\b"
    r"|\b(fp8|fp16|bf16|fp32|int8|q8_0|q8|8\s*bit|16\s*bit)\s*(?:kv(?:[\s_-]*cache)?|cache)\b"
    r"|\bkv\s*(8|16)\b"
)
_CONTEXT_KM = re.compile(r"(?<![\w.$])" + _NUM + r"\s*(k|m)\b(?!\s*(?:users?|usd|\$))")
_CONTEXT_WORD = re.compile(
    r"\b(?:ctx|context|kontekst\w*|context\s+length|seq(?:uence)?(?:\s+length)?|บริบท)\s*(?:of|=|:|o\s+d[lł]ugo[sś]ci)?\s*"
    + r"(\d{1,3}(?:[ ,]\d{3})+|\d+)\b(?!\s*[km]\b)"
)
_CONTEXT_TOKENS = re.compile(
    r"(?<![\w.])(\d{1,3}(?:[ ,]\d{3})+|\d+)\s*(?:tokens?|tok|tokenów|tokeny|โทเคน|token)\b"
)
_BIG_NUMBER = re.compile(r"(?<![\w.$])(\d{4,8})(?![\w.]|\s*(?:gb|usd|\$|b\b))")
_BATCH = re.compile(
    r"\b(?:batch(?:[\s_-]*size)?|bs|partia|partii|partią|rozmiar\s+partii|แบตช์|batch)\s*(?:of|=|:|x)?\s*(\d+)\b"
    r"|(?<![\w.$])(\d+)\s*(?:concurrent(?:\s+(?:users?|requests?|sessions?|streams?|conversations?))?"
    r"|users?|requests?|sessions?|conversations?|streams?|parallel(?:\s+\w+)?|people|clients?"
    r"|u[żz]ytkownik\w*|os[oó]b|sesj\w*|r[oó]wnoleg\w*|rozm[oó]w|zapyta[ńn]"
    r"|คน|ผู้ใช้|บทสนทนา|เซสชัน)\b"
    r"|(?:ผู้ใช้|คน)\s*(\d+)"
)
_SIZE = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(b|t)\b(?!\s*/)", re.I)
_MOE_SIZE = re.compile(r"\b(\d+)\s*x\s*(\d+)\s*b\b")
_VRAM_GB = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(?:gb|gib|g)\b(?:\s*(?:of\s+)?(?:vram|card|gpu|karta|karty|karcie))?"
)
_BUDGET = re.compile(
    r"(?:under|below|less\s+than|max(?:imum)?|up\s+to|within|budget(?:\s+of)?|for|poni[żz]ej|do|za|maks\w*"
    r"|bud[żz]et\w*|ไม่เกิน|งบ)?\s*"
    r"(?:\$\s*(\d[\d,\s]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s*(?:\$|usd|dollars?|dolar\w*|ดอลลาร์))"
    r"(?:\s*(?:/|per|a|an|each|na|za|ต่อ)\s*(?:month|mo|miesi[aą]c|mies|เดือน))?"
)
_COUNT_WORDS = {
    "one": 1,
    "two": 2,
    "four": 4,
    "eight": 8,
    "dwie": 2,
    "dwa": 2,
    "cztery": 4,
    "osiem": 8,
    "สอง": 2,
    "สี่": 4,
    "แปด": 8,
    "pair": 2,
    "para": 2,
}

_TASKS: list[tuple[str, Task]] = [
    (r"\bq[\s-]?lora\b", "qlora"),
    (r"\blora\b", "lora"),
    (
        r"\bfull(?:[\s-]*(?:ft|fine[\s-]*tun\w*|finetun\w*|training|train|param\w*))\b"
        r"|\bpe[łl]n\w*\s+(?:dostrajani\w*|fine[\s-]*tun\w*|trening\w*)|\bfft\b|full\s+ft",
        "full",
    ),
    (
        r"\bfine[\s-]*tun\w*|\bfinetun\w*|\bsft\b|\btrain(?:ing)?\b|\bdostr\w*|\btrening\w*"
        r"|ไฟน์จูน|ฝึก|เทรน|fine-tune",
        "full",
    ),
    (
        r"\b(?:serv\w*|inference|infer|run(?:ning)?|host\w*|deploy\w*|inferencj\w*|serwow\w*"
        r"|uruchom\w*)\b|รัน|อนุมาน",
        "inference",
    ),
]
_GENERIC_FT = re.compile(
    r"\bfine[\s-]*tun\w*|\bfinetun\w*|\bsft\b|\btrain(?:ing)?\b|\bdostr\w*|\btrening\w*|ไฟน์จูน|ฝึก|เทรน"
)
_FIT = re.compile(
    r"\b(?:fits?|fitting|will\s+it\s+run|can\s+(?:i|it|you)\s+run|run\s+on|on\s+(?:a|an|one|my)?|mie[sś]ci\w*"
    r"|zmie[sś]ci\w*|na|wystarczy|enough)\b|พอไหม|รันบน|ใส่ได้|ได้ไหม"
)
_LIMIT_CONTEXT = re.compile(
    r"\b(?:max(?:imum)?|longest|biggest|largest|how\s+(?:long|much)\s+context|najd[łl]u[żz]sz\w*|maksymaln\w*)"
    r"\s*(?:\w+\s+){0,2}?(?:context|ctx|kontekst\w*)|บริบท\w*สูงสุด|บริบทยาวสุด"
)
_LIMIT_BATCH = re.compile(
    r"\bhow\s+many\s+(?:\w+\s+){0,2}?(?:users?|requests?|sessions?|conversations?|streams?|concurrent|people)"
    r"|\bmax(?:imum)?\s+(?:batch|users?|concurrency|concurrent)|ilu\s+u[żz]ytkownik\w*|ile\s+(?:sesji|rozm[oó]w)"
    r"|\bmaks\w*\s+(?:partia|u[żz]ytkownik\w*)|กี่คน|ผู้ใช้กี่"
)
_CARDS_LIST = re.compile(
    r"^\s*/?(?:gpus?|cards?|fleet|prices?|pricing|price\s+list|catalog(?:ue)?|karty|cennik|flota|การ์ด|ราคา)\s*[?!.]*\s*$"
    r"|\b(?:list|show|all)\s+(?:the\s+)?(?:gpus|cards|prices)\b|\bwhat\s+(?:gpus|cards)\s+(?:do\s+you\s+have|are\s+there)"
    r"|\bjakie\s+(?:macie\s+)?karty\b|\bwszystkie\s+karty\b|การ์ดทั้งหมด"
)
_CARD_INFO = re.compile(r"\b(?:card|gpu|karta|specs?|info|about|spec|specyfikacja|การ์ด)\b")
_HELP = re.compile(
    r"^\s*/?(?:help|start|pomoc|\?|ช่วย(?:เหลือ)?|hi|hello|hey|cze[sś][cć]|siema|สวัสดี)\s*[!?.]*\s*$"
)
_FOLLOWUP = re.compile(
    r"^\s*(?:and|also|what\s+about|how\s+about|same|now|then|instead|ok|a\s+|i\s+|oraz|a\s+co|to\s+samo|teraz|zamiast"
    r"|แล้ว|และ|ถ้า)\b|\binstead\b|\bzamiast\b|\bsame\s+for\b|\bthe\s+same\b|^\s*(?:with|at|on|for|w|na|z|przy)\b"
)
_STOP = set(
    ["how", "much", "many", "vram", "memory", "gpu", "gpus", "need", "needed", "needs", "do", "does", "i", "you", "we", "my", "to", "for", "run", "running", "serve", "serving", "with", "at", "on", "in", "a", "an", "the", "of", "is", "it", "can", "what", "which", "model", "models", "llm", "size", "and", "or", "fit", "fits", "will", "would", "should", "please", "pls", "plz", "me", "much", "about", "any", "card", "cards", "cheapest", "best", "cost", "costs", "price", "month", "monthly", "per", "tokens", "token", "users", "user", "context", "ctx", "batch", "concurrent", "want", "like", "get", "use", "using", "need?", "required", "require", "enough", "big", "vs", "versus", "instead", "same", "also", "ile", "vram", "potrzebuje", "potrzebuję", "dla", "w", "na", "czy", "jaki", "jaka", "jakie", "model", "modelu", "do", "i", "z", "przy", "oraz", "karta", "karty", "karcie", "kontekst", "kontekstem", "partia", "partii", "mieści", "zmieści", "się", "sie", "a", "co", "to", "samo", "teraz", "zamiast", "miesięcznie", "użytkowników", "tokenów", "jak", "ile", "then", "now", "ok", "okay", "hey", "hi", "hello", "there", "this", "that", "these", "those", "be", "are", "am", "was"]
)
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
    kv_dtype: str | None = None
    context_tokens: int | None = None
    batch: int | None = None
    size_b: float | None = None
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


def clean(text: str) -> tuple[str, bool]:
    """Normalise what people paste: width forms, Thai digits, invisible characters, length."""
    truncated = len(text) > MAX_QUERY_CHARS
    text = text[:MAX_QUERY_CHARS]
    text = unicodedata.normalize("NFKC", text).translate(_THAI_DIGITS)
    text = _INVISIBLE.sub(" ", text)
    text = text.replace("×", "x").replace("–", "-").replace("—", "-")
    return re.sub(r"\s+", " ", text).strip(), truncated


def detect_lang(text: str) -> Lang | None:
    """Thai script or Polish letters/words decide; plain sizing shorthand says nothing."""
    if _THAI.search(text):
        return "th"
    low = text.lower()
    if _PL_CHARS.search(low) or _PL_WORDS.search(low):
        return "pl"
    if re.search(r"[a-z]{3,}", low) and re.search(
        r"\b(how|what|which|does|do|can|need|fit|run|serve|cheapest|much|the|for|and|card|about)\b",
        low,
    ):
        return "en"
    return None


def _num(text: str) -> float:
    return float(text.replace(",", ".").replace(" ", ""))


def _int_grouped(text: str) -> int:
    return int(re.sub(r"[ ,]", "", text))


def _cut(text: str, m: re.Match[str]) -> str:
    return text[: m.start()] + " " + text[m.end() :]


def model_key(text: str) -> str:
    """Split letters from digits and drop separators so 'Llama-3.1-70B' == 'llama3.1 70b'."""
    s = text.lower()
    s = re.sub(r"(?<=[a-z])(?=\d)", " ", s)
    s = re.sub(r"(\d)x (\d)", r"\1x\2", s)  # keep "8x7b" whole
    s = re.sub(r"[-_:/,()\[\]]+", " ", s)
    s = _MODEL_NOISE.sub(" ", s)
    return re.sub(r"\s+", " ", s).strip()


_SIZE_TOKEN = re.compile(r"\b\d+(?:\.\d+)?\s?[bt]\b")


def name_key(text: str) -> str:
    """The name part of a model key: sizes go, because they are checked separately."""
    return re.sub(r"\s+", " ", _SIZE_TOKEN.sub(" ", model_key(text))).strip()


@dataclass(frozen=True)
class _ModelIndex:
    keys: tuple[str, ...]
    owners: tuple[str, ...]


@lru_cache(maxsize=8)
def _model_index(catalog: Catalog) -> _ModelIndex:
    """Cached per catalog (hashed by identity), so a reload builds a fresh index."""
    keys: list[str] = []
    owners: list[str] = []
    seen: set[tuple[str, str]] = set()
    for m in catalog.models:
        names = {m.name, m.id, m.hf_repo, m.hf_repo.split("/")[-1], m.family, *m.aliases}
        for n in names:
            k = name_key(n)
            if k and (k, m.id) not in seen:
                seen.add((k, m.id))
                keys.append(k)
                owners.append(m.id)
    return _ModelIndex(tuple(keys), tuple(owners))


@lru_cache(maxsize=8)
def _card_pattern(aliases: tuple[str, ...]) -> re.Pattern[str]:
    alts = sorted({re.escape(a).replace(r"\ ", r"[\s-]*") for a in aliases}, key=len, reverse=True)
    count = r"(\d+|one|two|four|eight|dwie|dwa|cztery|osiem|pair|para)"
    return re.compile(
        rf"(?:\b{count}\s*(?:x|\*|of)?\s*)?\b({'|'.join(alts)})s?\b(?:\s*(?:x|\*)\s*(\d+)\b)?"
    )


@lru_cache(maxsize=8)
def _alias_pattern(aliases: tuple[str, ...]) -> re.Pattern[str]:
    """One alternation, longest alias first, so 'q4_k_m' wins over 'q4'."""
    alts = sorted({re.escape(a).replace(r"\ ", r"[\s_-]*") for a in aliases}, key=len, reverse=True)
    return re.compile(r"(?<![\w.])(" + "|".join(alts) + r")(?![\w.])")


def size_matches(m: ModelSpec, size_b: float) -> bool:
    return abs(m.nominal_b - size_b) <= 0.05 * max(size_b, 1) or abs(
        m.params_b - size_b
    ) <= 0.05 * max(size_b, 1)


def match_models(catalog: Catalog, words: str, size_b: float | None) -> list[ModelMatch]:
    """Score every model's names against the leftover words; a given size must agree."""
    index = _model_index(catalog)
    key = name_key(words)
    if not key:
        return []
    hits = process.extract(key, index.keys, scorer=fuzz.WRatio, limit=200, score_cutoff=60)
    best: dict[str, float] = {}
    for choice, score, i in hits:
        owner = index.owners[i]
        # Whole-name agreement beats a partial one: "deepseek r1" is R1, not an R1 distill.
        s = max(fuzz.ratio(key, choice), 0.95 * float(score))
        if size_b is not None and not size_matches(catalog.model_by_id[owner], size_b):
            s -= 40  # a Qwen that is not 70B is not what "qwen 70b" asks for
        if s > best.get(owner, 0):
            best[owner] = s
    return sorted(
        (ModelMatch(catalog.model_by_id[k], v) for k, v in best.items()),
        key=lambda mm: (-mm.score, _newer_first(mm.model)),
    )


def _newer_first(m: ModelSpec) -> str:
    """Sort key: newer releases first (inverted YYYY-MM string)."""
    return "".join(chr(0x7F - ord(c)) for c in m.released)


def parse(text: str, catalog: Catalog) -> Query:
    raw, truncated = clean(text)
    q = Query(text=raw, truncated=truncated, lang=detect_lang(raw))
    s = " " + raw.lower() + " "

    if _HELP.match(s):
        q.wants_help = True
        return q
    if m := re.match(r"^\s*/?faq\b\s*(\S*)", s):
        ids = {t.id for t in catalog.faq}
        if m.group(1) in ids:
            q.faq_topic = m.group(1)
            return q
    if _CARDS_LIST.search(s):
        q.wants_cards = True
    q.followup = bool(_FOLLOWUP.search(s))

    if m := _LIMIT_CONTEXT.search(s):
        q.wants_limit = "context"
        s = _cut(s, m)
    elif m := _LIMIT_BATCH.search(s):
        q.wants_limit = "batch"
        s = _cut(s, m)

    # Cards first: "a40" or "4090" must not be read as sizes or context.
    aliases = tuple(a for c in catalog.cards for a in (c.name.lower(), *c.aliases))
    pat = _card_pattern(aliases)
    while m := pat.search(s):
        name = catalog.card(m.group(2))
        if name is None:
            break
        n = m.group(1) or m.group(3)
        count = None
        if n:
            count = _COUNT_WORDS.get(n) or (int(n) if n.isdigit() else None)
        q.cards.append(CardAsk(name.name, count))
        s = _cut(s, m)

    if m := _MOE_SIZE.search(s):
        q.model_words += f" {m.group(1)}x{m.group(2)}b"
        s = _cut(s, m)

    if m := _KV.search(s):
        token = next(g for g in m.groups() if g)
        token = {"8": "fp8", "16": "fp16"}.get(token, token)
        key = catalog.kv_alias.get(norm(token.replace(" ", "")))
        q.kv_dtype = key or "fp8"
        s = _cut(s, m)

    pat_p = _alias_pattern(tuple(catalog.precision_alias))
    if m := pat_p.search(s):
        q.precision = catalog.precision_alias[norm(m.group(1))]
        s = _cut(s, m)

    if m := _BUDGET.search(s):
        value = m.group(1) or m.group(2)
        if value and value.strip():
            q.budget_usd = _num(re.sub(r"[,\s]", "", value))
            s = _cut(s, m)

    for rx, kind in ((_CONTEXT_WORD, "word"), (_CONTEXT_TOKENS, "tokens")):
        if q.context_tokens is None and (m := rx.search(s)):
            q.context_tokens = _int_grouped(m.group(1))
            s = _cut(s, m)
    if q.context_tokens is None and (m := _CONTEXT_KM.search(s)):
        unit = K_TOKENS if m.group(2) == "k" else M_TOKENS
        q.context_tokens = round(_num(m.group(1)) * unit)
        s = _cut(s, m)

    if m := _BATCH.search(s):
        q.batch = int(next(g for g in m.groups() if g))
        s = _cut(s, m)

    if m := _VRAM_GB.search(s):
        q.vram_gb = _num(m.group(1))
        s = _cut(s, m)

    if m := _SIZE.search(s):
        value = _num(m.group(1))
        q.size_b = value * 1000 if m.group(2).lower() == "t" else value
        s = _cut(s, m)

    if q.context_tokens is None and (m := _BIG_NUMBER.search(s)):
        q.context_tokens = int(m.group(1))
        s = _cut(s, m)

    for rx, task in _TASKS:
        if m := re.search(rx, s):
            q.task = task
            q.task_generic = task == "full" and not re.search(r"full|pe[łl]n|fft", s)
            s = _cut(s, m)
            break
    if q.task is None and _GENERIC_FT.search(s):
        q.task, q.task_generic = "full", True

    q.wants_fit = bool(_FIT.search(s)) and bool(q.cards or q.vram_gb)
    q.wants_card_info = bool(q.cards) and bool(_CARD_INFO.search(s))
    q.faq_topic = match_faq(catalog, raw.lower())

    # Whatever is left that looks like words is the model name.
    words = [
        w
        for w in re.findall(r"[a-z][a-z0-9.+\-]*(?::[\w.\-]+)?|(?<![\w.])\d+(?:\.\d+)?(?![\w.])", s)
        if w not in _STOP
    ]
    if q.size_b is None and q.faq_topic is None:
        nums = [w for w in words if re.fullmatch(r"\d+(?:\.\d+)?", w)]
        named = [w for w in words if not re.fullmatch(r"\d+(?:\.\d+)?", w)]
        # "lama3 70" or "qwen 2.5 32": a trailing bare number after a name is the size.
        if named and nums:
            cand = _num(nums[-1])
            if 0.1 <= cand <= 2000 and not re.fullmatch(r"[1-4](?:\.\d)?", nums[-1]):
                q.size_b = cand
                words.remove(nums[-1])
    q.model_words = (q.model_words + " " + " ".join(words)).strip()
    if re.search(r"[a-z]{2,}", q.model_words) or "x" in q.model_words:
        ranked = match_models(catalog, q.model_words, q.size_b)
        if q.faq_topic and not q.size_b and ranked and ranked[0].score < 90:
            ranked = []  # general questions carry words that are not model names
        top = [r for r in ranked if r.score >= ranked[0].score - 4] if ranked else []
        exact = [r for r in top if name_key(r.model.name) == name_key(q.model_words)]
        if len(exact) == 1 and q.size_b is None:  # "deepseek r1" names one model outright
            top = exact + [r for r in top if r is not exact[0]]
            ranked = top
            top = exact
        sizes = {r.model.nominal_b for r in top}
        if ranked and ranked[0].score >= 85 and (len(sizes) == 1 or q.size_b is not None):
            q.model, q.model_score = ranked[0].model, ranked[0].score
            q.others = [
                r
                for r in ranked[1:]
                if r.score >= ranked[0].score - 15
                and size_matches(r.model, ranked[0].model.nominal_b)
            ][:3]
        elif ranked and ranked[0].score >= 85:
            q.unmatched_model = True  # same family, several sizes: ask which
            q.others = sorted(top, key=lambda r: r.model.params_b)[:5]
        elif ranked and ranked[0].score >= 50:
            q.unmatched_model = True
            q.others = ranked[:5]
        elif re.search(r"[a-z]{3,}", q.model_words) and not q.faq_topic:
            q.unmatched_model = True
    return q


def match_faq(catalog: Catalog, text: str) -> str | None:
    """The FAQ topic whose keywords the text mentions most (phrases count by length)."""
    best, best_score = None, 0.0
    for topic in catalog.faq:
        score = 0.0
        for words in topic.keywords.values():
            for kw in words:
                if kw.lower() in text:
                    score += 1 + len(kw) / 20
        if score > best_score:
            best, best_score = topic.id, score
    return best if best_score >= 1.5 else None
