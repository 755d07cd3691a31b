"""Markdown for tickets and helpdesks: bold headline, titled sections, quoted caveats."""

from __future__ import annotations

import re

from bot.render.common import footer
from bot.render.short import short_lines
from engine import Answer, Catalog, t

# Only what can format or link mid-line; "(80 GB)" stays as typed (a link needs "[..]" first,
# and those are escaped), so a copied answer pastes cleanly into ticket systems.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")
_MD_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)])")


def escape_md(text: str) -> str:
    """Neutralise Markdown and HTML so user words cannot format or link anything."""
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = _MD_LINE_START.sub(lambda m: m[1] + "\\" + m[2], text)
    return text.replace("@", "@\u200b")


def format_markdown(answer: Answer, catalog: Catalog, math: bool = False) -> str:
    """The short form (verdict in bold) first, then every section, caveat and assumption."""
    first, *rest = short_lines(answer, catalog, more_line=False)
    out: list[str] = [f"**{escape_md(first)}**"]
    out.extend(f"{escape_md(line)}  " for line in rest)
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
    if (math or answer.show_math) and answer.math:  # or asked in the words
        out.append("")
        out.append(f"**{escape_md(t(catalog, answer.lang, 'render.show_math'))}**")
        out.append("```")
        out.extend(line.replace("`", "'") for line in answer.math)
        out.append("```")
    if note := footer(answer, catalog):
        out.append("")
        out.append(f"_{escape_md(note)}_")
    return "\n".join(out).strip()
