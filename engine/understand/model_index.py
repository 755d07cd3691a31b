"""The one model index: every catalog name and alias as tokens, built once per catalog.

Parsing reads the name keys (sizes taken out: they are checked apart); autocomplete reads the
completion keys (sizes kept: "llama 70b" completes to a 70B). Both views come from one build,
cached by catalog identity, so a reload builds a fresh index for both.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Final

from engine.catalog import Catalog, norm
from engine.catalog_cache import per_catalog
from engine.lazyre import lazy
from engine.models import ModelSpec
from engine.understand.patterns import MOE_SIZE, NUMBER_WORD

# a version the person left out ("llama 70b") costs this much of a word
VERSION_WEIGHT: Final = 0.15
_SEPARATORS: Final = lazy(r"[-_:/,()\[\]]+")
_LETTER_DIGIT: Final = lazy(r"(?<=[a-z])(?=\d)")
_MOE_JOIN: Final = lazy(r"(\d)x (\d)")
_SIZE_TOKEN: Final = lazy(r"\b\d+(?:\.\d+)?\s?[bt]\b")
_SPACES: Final = lazy(r"\s\s*")  # "\s+", opening with the class: see patterns.WORD
_MODEL_NOISE: Final = lazy(
    r"\b(?:instruct|chat|hf|it|base|gguf|ggml|awq|gptq|exl2|mlx|preview|latest|text|ollama)\b"
)


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


def is_version(token: str) -> bool:
    return NUMBER_WORD.fullmatch(token) is not None


_INDEX_FIELDS: Final = (
    "models",
    "newest_rank",
    "keys",
    "key_tokens",
    "key_where",
    "key_weights",
    "key_total",
    "key_owners",
    "key_sets",
    "token_weight",
    "model_sizes",
    "joined",
    "joined_ids",
    "postings",
    "posting_sets",
    "words",
    "words_by_initial",
    "versions",
    "minors",
    "vocab",
    "heads",
    "name_joined",
    "aliases",
    "precision_variants",
    "completion",
    "word_kinds",
)


class ModelIndex:
    """Unique name keys as token tuples, with the inverted lists that make scoring cheap."""

    models: tuple[ModelSpec, ...]
    newest_rank: tuple[int, ...]  # model position -> 0 for the newest release
    keys: tuple[str, ...]
    key_tokens: tuple[tuple[str, ...], ...]
    key_where: tuple[dict[str, tuple[int, ...]], ...]  # token -> its positions in the key
    key_weights: tuple[tuple[float, ...], ...]
    key_total: tuple[float, ...]
    key_owners: tuple[tuple[int, ...], ...]
    key_sets: tuple[frozenset[str], ...]  # each key's tokens, for one membership test a word
    token_weight: dict[str, float]  # what a token is worth in any key holding it
    model_sizes: tuple[tuple[float, float, float], ...]  # nominal, exact, active (or -1)
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
    name_joined: tuple[str, ...]  # per model: its display name's key (sizes kept), no spaces
    aliases: dict[str, int]  # norm(alias) -> model position, for aliases with one owner
    # (model id, precision key) -> the official release in that precision ("GLM-4.5 FP8")
    precision_variants: dict[tuple[str, str], int]
    completion: CompletionKeys  # the same names with their sizes, for autocomplete
    # A written word -> what it is as a name word (model_match), filled as words are met.
    word_kinds: dict[str, tuple[str, int]]

    def __init__(
        self,
        models: tuple[ModelSpec, ...],
        newest_rank: tuple[int, ...],
        keys: tuple[str, ...],
        key_tokens: tuple[tuple[str, ...], ...],
        key_where: tuple[dict[str, tuple[int, ...]], ...],
        key_weights: tuple[tuple[float, ...], ...],
        key_total: tuple[float, ...],
        key_owners: tuple[tuple[int, ...], ...],
        key_sets: tuple[frozenset[str], ...],
        token_weight: dict[str, float],
        model_sizes: tuple[tuple[float, float, float], ...],
        joined: tuple[str, ...],
        joined_ids: tuple[int, ...],
        postings: dict[str, tuple[int, ...]],
        posting_sets: dict[str, frozenset[int]],
        words: tuple[str, ...],
        words_by_initial: dict[str, tuple[str, ...]],
        versions: tuple[str, ...],
        minors: dict[str, tuple[str, ...]],
        vocab: frozenset[str],
        heads: frozenset[str],
        name_joined: tuple[str, ...],
        aliases: dict[str, int],
        precision_variants: dict[tuple[str, str], int],
        completion: CompletionKeys,
        word_kinds: dict[str, tuple[str, int]] | None = None,
    ) -> None:
        self.models = models
        self.newest_rank = newest_rank
        self.keys = keys
        self.key_tokens = key_tokens
        self.key_where = key_where
        self.key_weights = key_weights
        self.key_total = key_total
        self.key_owners = key_owners
        self.key_sets = key_sets
        self.token_weight = token_weight
        self.model_sizes = model_sizes
        self.joined = joined
        self.joined_ids = joined_ids
        self.postings = postings
        self.posting_sets = posting_sets
        self.words = words
        self.words_by_initial = words_by_initial
        self.versions = versions
        self.minors = minors
        self.vocab = vocab
        self.heads = heads
        self.name_joined = name_joined
        self.aliases = aliases
        self.precision_variants = precision_variants
        self.completion = completion
        self.word_kinds = {} if word_kinds is None else word_kinds

    def __reduce__(self) -> tuple[type[ModelIndex], tuple[object, ...]]:
        """Pickled field by field (the catalog cache): compiled (deploy/native.py), a class
        with required ``__init__`` arguments cannot be rebuilt without them."""
        return ModelIndex, tuple(getattr(self, n) for n in _INDEX_FIELDS)


_COMPLETION_FIELDS: Final = (
    "vocab",
    "vocab_ids",
    "postings",
    "key_lengths",
    "owners",
    "models",
    "newest_rank",
)


class CompletionKeys:
    """Model keys with sizes kept, as token ids, plus the inverted lists autocomplete scores."""

    vocab: tuple[str, ...]
    vocab_ids: dict[str, int]
    postings: tuple[tuple[int, ...], ...]  # token id -> keys containing it
    key_lengths: tuple[int, ...]  # tokens per key
    owners: tuple[int, ...]  # key -> model position
    models: tuple[ModelSpec, ...]
    newest_rank: tuple[int, ...]  # model position -> 0 for the newest release

    def __init__(
        self,
        vocab: tuple[str, ...],
        vocab_ids: dict[str, int],
        postings: tuple[tuple[int, ...], ...],
        key_lengths: tuple[int, ...],
        owners: tuple[int, ...],
        models: tuple[ModelSpec, ...],
        newest_rank: tuple[int, ...],
    ) -> None:
        self.vocab = vocab
        self.vocab_ids = vocab_ids
        self.postings = postings
        self.key_lengths = key_lengths
        self.owners = owners
        self.models = models
        self.newest_rank = newest_rank

    def __reduce__(self) -> tuple[type[CompletionKeys], tuple[object, ...]]:
        """Pickled field by field (the catalog cache): compiled (deploy/native.py), a class
        with required ``__init__`` arguments cannot be rebuilt without them."""
        return CompletionKeys, tuple(getattr(self, n) for n in _COMPLETION_FIELDS)


def _completion_keys(models: tuple[ModelSpec, ...], rank: list[int]) -> CompletionKeys:
    vocab: dict[str, int] = {}
    postings: list[list[int]] = []
    lengths: list[int] = []
    owners: list[int] = []
    for i, m in enumerate(models):
        seen: set[str] = set()
        for name in (m.name, m.id, m.hf_repo.split("/")[-1], *m.aliases):
            key = model_key(name)
            if not key or key in seen:
                continue
            seen.add(key)
            tokens = dict.fromkeys(key.split())
            for tok in tokens:
                if tok not in vocab:
                    vocab[tok] = len(vocab)
                    postings.append([])
                postings[vocab[tok]].append(len(owners))
            lengths.append(len(tokens))
            owners.append(i)
    return CompletionKeys(
        vocab=tuple(vocab),
        vocab_ids=vocab,
        postings=tuple(tuple(p) for p in postings),
        key_lengths=tuple(lengths),
        owners=tuple(owners),
        models=models,
        newest_rank=tuple(rank),
    )


@per_catalog
def model_index(catalog: Catalog) -> ModelIndex:
    """Built once per catalog object (hashed by identity): a reload gets a fresh index."""
    models = tuple(catalog.models)
    key_ids: dict[str, int] = {}
    owners: list[list[int]] = []
    alias_owner: dict[str, set[int]] = {}
    heads: set[str] = set()
    base_keys: set[str] = set()  # from names, ids and families: what people glue together
    # A family named after its first model ("GLM-4.5", "MiniMax-M2") is that model's name, not
    # a name of its later members: "glm 4.5" must not reach GLM-4.7 through the family.
    own_names = {name_key(n) for m in models for n in (m.name, m.id)}
    for pos, m in enumerate(models):
        base_keys.update(name_key(n) for n in (m.name, m.id, m.family))
        family = name_key(m.family).split()
        if family:
            heads.add(family[0])
        mine = {name_key(m.name), name_key(m.id)}
        fam = () if name_key(m.family) in own_names - mine else (m.family,)
        for n in (m.name, m.id, m.hf_repo, m.hf_repo.split("/")[-1], *fam, *m.aliases):
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
        tuple(VERSION_WEIGHT if is_version(t) else 1.0 for t in ts) for ts in key_tokens
    )
    postings: dict[str, list[int]] = {}
    for i, toks in enumerate(key_tokens):
        for t in set(toks):
            postings.setdefault(t, []).append(i)
            if "x" in t and MOE_SIZE.fullmatch(t):
                heads.add(t)
    order = sorted(range(len(models)), key=lambda i: models[i].released, reverse=True)
    rank = [0] * len(models)
    for r, i in enumerate(order):
        rank[i] = r
    vocab = frozenset(postings)
    totals = tuple(sum(w) for w in weights)
    short = [key_ids[k] for k in sorted(base_keys) if k]
    return ModelIndex(
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
        key_sets=tuple(frozenset(ts) for ts in key_tokens),
        token_weight={t: VERSION_WEIGHT if is_version(t) else 1.0 for t in vocab},
        model_sizes=tuple((m.nominal_b, m.params_b, m.active_params_b or -1.0) for m in models),
        joined=tuple(keys[i].replace(" ", "") for i in short),
        joined_ids=tuple(short),
        postings={t: tuple(sorted(v, key=lambda i: (totals[i], i))) for t, v in postings.items()},
        posting_sets={t: frozenset(v) for t, v in postings.items()},
        words=tuple(sorted(t for t in vocab if not is_version(t))),
        words_by_initial=_by_initial(t for t in vocab if not is_version(t)),
        versions=tuple(sorted(t for t in vocab if is_version(t))),
        minors=_minors(t for t in vocab if is_version(t)),
        vocab=vocab,
        heads=frozenset(heads),
        name_joined=tuple(model_key(m.name).replace(" ", "") for m in models),
        aliases={a: next(iter(o)) for a, o in alias_owner.items() if len(o) == 1},
        completion=_completion_keys(models, rank),
        precision_variants=_precision_variants(models),
    )


def _precision_variants(models: tuple[ModelSpec, ...]) -> dict[tuple[str, str], int]:
    """Variants named as their base plus a precision word: "GLM-4.5" + "FP8"."""
    by_id = {m.id: m for m in models}
    out: dict[tuple[str, str], int] = {}
    for pos, m in enumerate(models):
        base = by_id.get(m.variant_of or "")
        if base is None:
            continue
        head, tail = model_key(base.name), model_key(m.name)
        if tail.startswith(head + " "):
            out[(base.id, tail[len(head) + 1 :])] = pos
    return out


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
