"""Apple Silicon Macs: the machine as the person named it, the share of its unified memory the
GPU may use by default (the share a fit and a limit are judged against), the `sysctl` value
that lets a model past it, and what a loose "q4"/"8bit" means on a Mac."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Final, Protocol

from engine.answer_types import Answer, Fit
from engine.kinds.base import Builder
from engine.kinds.serving import current_cutoff
from engine.kinds.terms import MAC_GPU_SHARE
from engine.lazyre import lazy
from engine.text.labels import name_before
from engine.understand.catalog_words import MAC

# Loose precision words on a Mac: no plain-INT4/INT8 runtime there (bitsandbytes, AWQ and
# GPTQ kernels are CUDA's); llama.cpp and Ollama run GGUF, and Ollama's default tags are
# Q4_K_M (MLX 4-bit at group size 64 is 4.5 bits: Q4_0's weight).
MAC_PRECISION: Final = {"int4": "q4_k_m", "int8": "q8_0"}
_MLX_LIKE: Final = {"int4": ("4", "Q4_0"), "int8": ("8", "Q8_0")}  # MLX at group 64: 4.5 / 8.5 bits
# What a raised limit leaves macOS at least, GB (the rest of the machine must still run).
MAC_OS_RESERVE_GB: Final = 2.0
_WORDS: Final = {
    "macbook": "MacBook",
    "mac": "Mac",
    "imac": "iMac",
    "pro": "Pro",
    "air": "Air",
    "studio": "Studio",
    "mini": "mini",
    "max": "Max",
    "ultra": "Ultra",
}
_CHIP: Final = lazy(r"\bm([1-5])(?:\s*(pro|max|ultra))?\b")
_SPLIT: Final = lazy(r"(macbook|imac|mac)\s*(pro|air|studio|mini)?")


def mac_name(b: Builder) -> str:
    """The Mac this message names, else the one the conversation was about."""
    said = said_mac(b.q.text)
    if said is None and b.prev is not None and b.prev.mac:
        return b.prev.mac
    return said or "Mac"


def said_mac(text: str) -> str | None:
    """ "macbook pro m3 max" -> "MacBook Pro M3 Max", "m4 pro" -> "Mac M4 Pro": the machine,
    then the chip, as said (None: no Mac named)."""
    m = MAC.search(text)
    if m is None:
        return None
    said = m.group(0).lower()
    chip = _CHIP.search(said)
    chip_name = ""
    if chip is not None:
        chip_name = f"M{chip.group(1)}" + (f" {_WORDS[chip.group(2)]}" if chip.group(2) else "")
        said = said[: chip.start()] + " " + said[chip.end() :]
    machine = _SPLIT.search(said)
    name = "Mac"
    if machine is not None:
        name = " ".join(_WORDS[w] for w in machine.groups() if w)
    return f"{name} {chip_name}".strip()


def gpu_share(vram_gb: float) -> float:
    """The memory a Mac's GPU may wire by default (Metal's working-set limit)."""
    return vram_gb * MAC_GPU_SHARE


MIB_GB: Final = 2**20 / 1e9  # `iogpu.wired_limit_mb` counts MiB


def wired_limit_gb(mb: int) -> float:
    """The memory (GB) an `iogpu.wired_limit_mb` value gives the GPU."""
    return mb * MIB_GB


def raise_limit_mb(need_gb: float, vram_gb: float) -> int:
    """The `iogpu.wired_limit_mb` value that lets ``need_gb`` load: the need and 1 GB more,
    in whole GB, but leaving macOS ``MAC_OS_RESERVE_GB`` where that still holds the need."""
    whole = math.ceil(need_gb) + 1
    room = math.floor(vram_gb - MAC_OS_RESERVE_GB)
    return max(min(whole, room), math.ceil(need_gb)) * 1024


def mac_precision(b: Builder, precision: str | None) -> str | None:
    """A Mac asked about with "q4", "int4", "4bit" ("8bit", "int8"): the GGUF type its
    runtimes run, said in the answer; any other precision as asked."""
    if precision is None or not b.q.unified or precision not in MAC_PRECISION:
        return precision
    gguf = MAC_PRECISION[precision]
    bits, mlx = _MLX_LIKE[precision]
    b.assume("mac_precision", bits=bits, gguf=gguf.upper(), mlx=mlx)
    return gguf


def mac_label(b: Builder, vram_gb: float, share_gb: float | None) -> str:
    """The Mac as named, with its memory, and the GPU's default share when it is judged on it:
    the name every line of the answer gives the hardware."""
    name, vram = mac_name(b), b.gb(vram_gb)
    if share_gb is None:
        return b.voice.t("mac.hw", name=name, vram=vram)
    return b.voice.t("mac.hw_share", name=name, vram=vram, share=b.gb(share_gb))


def mac_notes(b: Builder, f: Fit, whole: Fit | None) -> None:
    """What the GPU's default share means for this answer: the `sysctl` that lets it load
    (only the whole memory holds it), the heavier precision that loads once it is raised, or
    the share the figures were judged against."""
    vram = f.vram_gb or 0.0
    usable, cap = b.gb(gpu_share(vram)), b.gb(vram)
    if f.raise_limit_mb is not None:
        b.caveat("mac_raise_limit", usable=usable, vram=cap, mb=f.raise_limit_mb)
        return
    more = whole.best if whole is not None else None
    if more is not None and (f.best is None or more.total_gb > f.best.total_gb):
        mb = raise_limit_mb(more.total_gb, vram)
        prec, total = more.precision.upper(), b.gb(more.total_gb)
        b.caveat("mac_gpu_share_over", usable=usable, vram=cap, prec=prec, total=total, mb=mb)
        return
    b.caveat("mac_gpu_share", usable=usable, vram=cap)


def mac_share(b: Builder, card: object | None) -> float | None:
    """The memory a list on a Mac is judged against (its GPU's default share); None for a
    card or any amount that is not a Mac's."""
    if not b.q.unified or card is not None or b.q.owned or b.q.vram_gb is None:
        return None
    return gpu_share(b.q.vram_gb)


class _Row(Protocol):
    """What a list's row (engine/kinds/serving.ServingRow) gives a Mac's note."""

    @property
    def model(self) -> str: ...
    @property
    def model_id(self) -> str: ...
    @property
    def precision(self) -> str: ...
    @property
    def need_gb(self) -> float: ...
    @property
    def code(self) -> bool: ...
    @property
    def released(self) -> str | None: ...


def mac_listing(
    b: Builder,
    answer: Answer,
    share: float | None,
    ranked: Iterable[Sequence[_Row]],
    coding: bool = False,
) -> None:
    """A Mac's list (``share``: None when the list is not a Mac's), judged on the GPU's
    default share like its fit answer: the share and the Mac named on the answer's ``fit``,
    and the first current model (in the list's order) that no precision fits in the share but one
    loads once the limit is raised (``ranked``: each model's rows, heaviest precision first;
    ``coding``: code models only)."""
    f = answer.fit
    if share is None or f is None or f.vram_gb is None:
        return
    d = f.__dict__
    d["gpu_share_gb"], d["mac"] = share, mac_name(b)
    cutoff = current_cutoff(b.cat)  # a current model only, as the list leads with
    for rows in ranked:  # a model no row of which fits the share, one of which fits it all
        if (rows[0].released or "") < cutoff:
            return  # the current models rank first: none is left
        if (coding and not rows[0].code) or min(r.need_gb for r in rows) <= share:
            continue
        r = next((r for r in rows if r.need_gb <= f.vram_gb), None)
        if r is None:
            continue
        b.caveat(
            "mac_list_raised",
            vram=b.gb(f.vram_gb),
            mb=raise_limit_mb(r.need_gb, f.vram_gb),
            model=name_before(r.model, r.precision),
            prec=r.precision.upper(),
            need=b.gb(r.need_gb),
        )
        return
