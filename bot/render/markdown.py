"""Markdown for tickets and helpdesks: bold headline, titled sections, quoted caveats."""

from __future__ import annotations

import re

from bot.render import footer
from engine import Answer, Catalog
from engine.i18n import t

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def escape_md(text: str) -> str:
    """Neutralise Markdown and HTML so user words cannot format or link anything."""
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text.replace("@", "@\u200b")


def format_markdown(answer: Answer, catalog: Catalog, math: bool = False) -> str:
    out: list[str] = []
    if answer.headline:
        out.append(f"**{escape_md(answer.headline)}**")
    for section in answer.sections:
        out.append("")
        if section.title:
            out.append(f"**{escape_md(section.title)}**")
        out.extend(
            f"- {escape_md(line.lstrip('• '))}" if len(section.lines) > 1 else escape_md(line)
            for line in section.lines
        )
    if answer.caveats:
        out.append("")
        out.append(f"**{escape_md(t(catalog, answer.lang, 'render.watch_out'))}**")
        out.extend(f"> {escape_md(n.text)}" for n in answer.caveats)
    if answer.assumptions:
        out.append("")
        out.append(f"**{escape_md(t(catalog, answer.lang, 'render.assumptions'))}**")
        out.extend(f"- _{escape_md(n.text)}_" for n in answer.assumptions)
    if math and answer.math:
        out.append("")
        out.append(f"**{escape_md(t(catalog, answer.lang, 'render.show_math'))}**")
        out.append("```")
        out.extend(line.replace("`", "'") for line in answer.math)
        out.append("```")
    if note := footer(answer, catalog):
        out.append("")
        out.append(f"_{escape_md(note)}_")
    return "\n".join(out).strip()
