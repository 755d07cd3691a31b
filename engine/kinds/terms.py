"""Notes on the terms of the hardware asked about: how much of a Mac's memory its GPU may use,
and what a monthly price comes to an hour."""

from __future__ import annotations

from typing import Final

from engine.kinds.base import Builder

# The share of a Mac's unified memory its GPU may wire by default: Metal's
# recommendedMaxWorkingSetSize, about three quarters (47-49 GB of 64 GB, 11.8 GB of 16 GB in
# llama.cpp and llmfit reports); `sysctl iogpu.wired_limit_mb` raises it.
MAC_GPU_SHARE: Final = 0.75


def unified_note(b: Builder, vram_gb: float, card: bool = False) -> None:
    """A Mac lets its GPU wire only part of the unified memory by default: said (a fit on a
    Mac is judged against that share: engine/kinds/mac.py). Nothing when the question named
    no Mac, or the hardware is a card (``card``)."""
    if not b.q.unified or card:
        return
    b.caveat("mac_gpu_share", usable=b.gb(vram_gb * MAC_GPU_SHARE), vram=b.gb(vram_gb))


def hourly_note(b: Builder, card: str, count: int, monthly_usd: float) -> None:
    """ "Per hour?": what the monthly price comes to an hour; nothing when it was not asked.
    We rent by the week or month, never by the hour (the provider's terms)."""
    if not b.q.wants_hourly:
        return
    prov = b.cat.fleet.provider
    hw = card if count == 1 else f"{count}× {card}"
    hour, month = b.voice.usds[monthly_usd / prov.hours_per_month], b.voice.usds[monthly_usd]
    b.caveat("per_hour", hw=hw, hour=hour, month=month, days=prov.min_term_days)
