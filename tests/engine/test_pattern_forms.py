"""Patterns rewritten to open with a literal or a class (so the regex engine skips to the places
they can match) match exactly what their plainer forms do."""

from __future__ import annotations

import itertools
import re

import pytest

from engine import load_catalog
from engine.understand.catalog_words import GLUED_SIZE, catalog_words, trie
from engine.understand.compare import SEPARATOR, VERSUS
from engine.understand.gates import _FOUR_DIGITS
from engine.understand.inflect import _TRAILING_VERSION
from engine.understand.language import _EN_LETTERS
from engine.understand.model_index import _SPACES
from engine.understand.patterns import _THAI_FINE_TUNE, TASKS, WHAT_FITS, WORD
from engine.understand.periods import RENT_TERMS
from engine.understand.slots import _ODD_HINT, NEGATIVE_KM
from engine.understand.stop_words import _ID_PIECES
from engine.understand.variants import _A6000_ADA, _UNKNOWN_CARD, _VERSION


def _texts(pieces: list[str], most: int = 4) -> list[str]:
    """Every run of up to ``most`` pieces, so each one lands before and after each other."""
    out = [""]
    for n in range(1, most + 1):
        out += ["".join(p) for p in itertools.product(pieces, repeat=n)]
    return out


def _same(plain: str, fast: re.Pattern[str], texts: list[str], flags: int = 0) -> None:
    slow = re.compile(plain, flags)
    for t in texts:
        a, b = slow.search(t), fast.search(t)
        assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), t
        assert slow.findall(t) == fast.findall(t), t
        assert slow.split(t) == fast.split(t), t


NUMBERS = ["-", "- ", "1", "23", "e", "e+", "$", " ", ".", "a", "k", "m", "b", "v", "x"]


@pytest.mark.parametrize(
    ("plain", "fast", "pieces"),
    [
        (r"-\s?\$?\s?\d|\de\+?\d|\d{7}", _ODD_HINT, [*NUMBERS, "1234567"]),
        (r"[^\s,;!?()\[\]{}<>\"'`*|=]+", WORD, ["ab", " ", ",", "?", "(", "=", "\u00a0", "."]),
        (r"[-:/_.\s]+", _ID_PIECES, ["a", "-", ":", "/", "_", ".", " ", "\t"]),
        (r"\d{4}", _FOUR_DIGITS, ["1", "23", "a", " ", "\u0663"]),
        (r"[a-z]{3,}", _EN_LETTERS, ["a", "bc", "A", " ", "é", "1"]),
        (r"(?<![\d.])(\d{1,2}\.\d)(\d{1,4}b)\b", GLUED_SIZE, ["1", "23", ".", "b", "a", " "]),
        (r"\s+", _SPACES, [" ", "\t", "a", "\u2003"]),
        (r"(?<=[^\d.])[\d.]+$", _TRAILING_VERSION, ["a", "1", ".", "2", " "]),
        (
            r"(?<![\w.])-(\d+(?:[.,]\d+)?)\s*(k|m)\b(?!\s*(?:usd|\$|b\b|gb\b|/))",
            NEGATIVE_KM,
            [*NUMBERS, "usd", "gb", "/", ",5"],
        ),
        (
            r"(?<![\w.])(?:rtx\s*)?a6000\s*ada(?![\w.])",
            _A6000_ADA,
            ["rtx", "a6000", "ada", " ", ".", "x", "a"],
        ),
        (
            r"(?<![\w.])(l40|a10g?|a16|a30|t4|v100|p100|p40|k80|h800|a800|h20|gh200|b100"
            r"|mi2[15]0x?|rx\s?\d{4}(?:\s?xtx?)?|arc\s?[ab]\d{3}"
            r"|(?:rtx|gtx)\s?\d{3,4}(?:\s?(?:ti|super))?)(?![\w.])",
            _UNKNOWN_CARD,
            ["l40", "a10g", "t4", "mi250x", "rx", "arc", "rtx", "gtx", "4090", " ", "ti", ".", "a"],
        ),
        (
            r"l(?<!\wl)or(?:[ayęeą]|ze|om|ami|ach)\b|(?:โล|ลอ)ร่?า",
            TASKS[1][1],
            ["lor", "a", "ze", "โล", "ลอ", "ร่", "ร", "า", " ", "x"],
        ),
        (
            r"f(?<!\wf)(?:ine[\s-]*t|ajn[\s-]?t[iyj]?j?)un\w*|s(?<!\ws)ft\b|t(?<!\wt)rain(?:ing)?\b"
            r"|d(?<!\wd)o(?:str|ucz)\w*|(?<!\w)(?:do|wy)?tren[iou]\w*|" + "|".join(_THAI_FINE_TUNE),
            TASKS[3][1],
            ["do", "wy", "tren", "i", "str", "train", "sft", " ", "x", "ฝึก"],
        ),
        (
            r"\s+(?:vs\.?|versus|or|czy|albo|lub|kontra)\s+|\s*(?:หรือ|เทียบกับ)\s*",
            SEPARATOR,
            [" ", "vs", "VS.", "or", "Kontra", "\u212aontra", "หรือ", "เทียบกับ", "ห", "a"],
        ),
    ],
)
def test_fast_forms_match_as_plain_ones(
    plain: str, fast: re.Pattern[str], pieces: list[str]
) -> None:
    _same(plain, fast, _texts(pieces), fast.flags & re.IGNORECASE)


def _found(rx: re.Pattern[str], texts: list[str]) -> list[bool]:
    return [rx.search(t) is not None for t in texts]


def test_versus_finds_what_it_does_ignoring_case() -> None:
    pieces = [
        "vs",
        "VS",
        "vS",
        "ſ",
        "versus",
        "\u212aontra",
        "Compare",
        "PORÓWN",
        "porown",
        "เทียบ",
        " ",
        "a",
    ]
    texts = _texts(pieces, 3)
    plain = re.compile(r"\bvs\b|versus|kontra|compare|porówn|porown|เทียบ", re.IGNORECASE)
    assert _found(plain, texts) == _found(VERSUS, texts)


def test_rent_terms_finds_what_it_does() -> None:
    pieces = [
        "min",
        "minimal",
        "minimaln",
        "shortest",
        "najkrótsz",
        "rent",
        "term",
        "wynaj",
        "najm",
        " ",
        "x",
        "ขั้นต่ำ",
    ]
    texts = _texts(pieces, 4)
    plain = re.compile(
        r"\b(?:minimum|minimal|min|shortest|najkr[oó]tsz\w*|minimaln\w*)\b(?:\s+\S+){0,3}?\s+"
        r"(?:rent\w*|hire|period|term|lease|wynaj\w*|najem\w*|najm\w*|okres\w*)\b"
        r"|\b(?:rent\w*|wynaj\w*|najm\w*)\s+(?:period|term|okres\w*)\b|ขั้นต่ำ|สั้นที่สุด|สั้นสุด"
    )
    assert _found(plain, texts) == _found(RENT_TERMS, texts)


def test_version_keeps_its_v() -> None:
    plain = re.compile(r"(?<![\w.])v?(\d+\.\d+)(?![\w.])")
    for t in _texts(["v", "3", ".", "1", " ", "a", "v."], 5):
        assert plain.findall(t) == [v.removeprefix("v") for v in _VERSION.findall(t)], t


def test_trie_checks_its_lookbehind_where_a_word_opens() -> None:
    words = {"q4", "q4_k_m", "fp8", "int4"}
    fast = re.compile("(" + trie(words, r"[\s_-]*", r"(?<![\w.]{})") + r")(?![\w.])")
    plain = re.compile(r"(?<![\w.])(" + trie(words, r"[\s_-]*") + r")(?![\w.])")
    for t in _texts(["q4", "_k", "_m", "fp8", "int4", " ", "x", ".", "-"], 4):
        a, b = plain.search(t), fast.search(t)
        assert (a and a.span()) == (b and b.span()), t


def test_catalog_precision_is_the_word_trie() -> None:
    cat = load_catalog()
    spelled = catalog_words(cat).precision
    plain = re.compile(r"(?<![\w.])(" + trie(set(cat.precision_alias), r"[\s_-]*") + r")(?![\w.])")
    for t in (" q4_k_m ", "llama-fp8", " fp8.", "xq4 int4 ", " 4 bit ", "awq-int4 ", " bf16"):
        a, b = plain.search(t), spelled.search(t)
        assert (a and (a.span(), a.group(1))) == (b and (b.span(), b.group(1))), t


def test_what_fits_finds_what_it_does() -> None:
    plain = re.compile(
        r"\bwhat\s+(?:\w+\s+)?(?:fits?|can\s+(?:i|we|you)\s+(?:run|serve|host|fit)|runs?)\b"
        r"|\bwhich\s+models?\b|\bwhat\s+models?\b|\bbiggest\s+model\b|\blargest\s+model\b"
        r"|\bhow\s+(?:big|large)\s+(?:an?\s+)?(?:llm|model)s?\b|\bjak\s+du[zż]y\s+model"
        r"|\bco\s+(?:si[eę]\s+)?(?:uruchomi|zmieszcz|zmie[sś]ci|odpal|wejdzie)|\bjaki\s+model"
        r"|\bjakie\s+modele"
        r"|อะไรได้บ้าง|โมเดลไหน|โมเดลอะไร|รันอะไร|อะไร\S{0,24}ได้บ้าง|ใหญ่สุดเท่าไหร่|ใหญ่ที่สุด"
        r"|\bjaki\s+najwi[eę]kszy|\bco\s+(?:mog[eę]|da\s+si[eę])\s+(?:uruchomi|odpali|postawi)"
        r"|\bwhat\s+(?:\w+\s+)?(?:will|would)\s+(?:fit|run)|\bwhat\s+runs\b"
    )
    pieces = ["what", "which", "how", "big", "jaki", "co", "model", "fits", "can i run", " ", "x"]
    texts = _texts([*pieces, "will", "อะไร", "ได้บ้าง", "się", "odpal"], 4)
    assert _found(plain, texts) == _found(WHAT_FITS, texts)


def test_clean_plain_ascii_path_is_the_general_one() -> None:
    """clean's printable-ASCII shortcut gives what its general steps give (markup, spaces)."""
    from engine.understand.normalise import _MARKUP, clean

    for t in _texts(["a", " ", "  ", "*", "**", "_", "__", "<b>", "`", "~~", "|", "||", "\t"]):
        markup = any(m in t for m in ("<", "**", "__", "`", "~~", "||"))
        want = " ".join((_MARKUP.sub(" ", t) if markup else t).split())
        assert clean(t) == (want, False), repr(t)
