"""Aligned terminal tables and human context lengths for ``vram cards`` and ``vram models``."""

from __future__ import annotations

import argparse
import unicodedata

__all__ = ["display_width", "human_tokens", "parse_tokens", "table"]


def display_width(text: str) -> int:
    """Terminal columns: Thai vowel and tone marks (combining, category Mn) take none."""
    return sum(0 if unicodedata.category(ch) == "Mn" else 1 for ch in text)


def table(header: list[str], rows: list[list[str]], right: set[int]) -> str:
    """Columns padded to their widest cell; ``right`` holds the numeric (right-aligned) ones."""
    widths = [max(display_width(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        parts = []
        for i, (cell, width) in enumerate(zip(cells, widths, strict=True)):
            pad = " " * (width - display_width(cell))
            parts.append(pad + cell if i in right else cell + pad)
        return "  ".join(parts).rstrip()

    rule = ["-" * w for w in widths]
    return "\n".join([line(header), line(rule), *(line(r) for r in rows)])


def human_tokens(tokens: int) -> str:
    """131072 -> 128k, 10485760 -> 10M, 163840 -> 160k: how people say context lengths."""
    mib = 1024 * 1024
    if tokens >= mib and tokens % (mib // 4) == 0:
        return f"{tokens / mib:g}M"
    if tokens >= 1024:
        return f"{tokens / 1024:.0f}k" if tokens % 1024 == 0 else f"{tokens / 1024:.1f}k"
    return str(tokens)


def parse_tokens(text: str) -> int:
    """'128k', '1M', '131072' -> tokens (for ``--min-context``): the engine's one reader."""
    from engine import parse_token_count  # only when the option is given: --help stays light

    n = parse_token_count(text)
    if n is None:
        raise argparse.ArgumentTypeError(f"not a context length: {text!r} (try 32k, 128k, 1M)")
    return n
