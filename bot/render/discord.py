"""Answer -> Discord embed and components. Pure: builds objects, sends nothing.

Every text that can carry a user's words is escaped for Markdown and mentions (an embed never
pings, but ``<@&123>`` would still render as a role tag), and every part is cut to Discord's
limits (title 256, description 4096, 25 fields of 256/1024, 6000 in all), counted in UTF-16
units as Discord counts them, so a hostile 4,000-character question still gets an answer.

Buttons and the model menu are :class:`discord.ui.DynamicItem` s whose ``custom_id`` carries
a short token: the adapter keeps the answer under that token, so a click needs neither the
message id nor a per-message :class:`~discord.ui.View` kept in memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import discord

from bot.desk import Limited
from bot.render.common import footer as prices_footer
from bot.render.short import detail_blocks, short_lines
from engine import Answer, Catalog, t

__all__ = [
    "escape",
    "format_details",
    "format_embed",
    "format_limited",
    "has_details",
]

TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELDS_MAX = 25
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 2048
EMBED_TOTAL_MAX = 6000
LABEL_MAX = 80  # button labels
OPTION_MAX = 100  # select option labels and values
ALT_BUTTONS_MAX = 2
ELLIPSIS = "…"
BLANK = "\u200b"  # a field needs a name; continuation fields get an invisible one
TOKEN_PATTERN = r"[0-9a-f]{12}"

_COLORS = {
    "sizing": 0x2E86DE,
    "fit": 0x27AE60,
    "limit": 0x2E86DE,
    "card": 0x8E44AD,
    "cards": 0x8E44AD,
    "budget": 0x16A085,
    "faq": 0x7F8C8D,
    "help": 0x7F8C8D,
    "clarify": 0xF1C40F,
    "error": 0xC0392B,
}
_TIGHT_COLOR = 0xE67E22
_NO_FIT_COLOR = 0xC0392B

_AT = re.compile("@(?!\u200b)")
_TAG = re.compile(r"<(?=[@#/:a])")  # <@user> <@&role> <#channel> </cmd:id> <:emoji:id>
_SCHEME = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]{1,31}):(?=//)")  # https:// steam:// ...
_INVITE = re.compile(r"(?i)\b(discord\.gg|discord(?:app)?\.com/invite|dsc\.gg)/")


def escape(text: str) -> str:
    """Neutralise Markdown, every mention form and links, so user words show as typed.

    A URL someone typed must not come back from the bot as a live link or an embed: a zero
    width space after the scheme's colon (and in invite hosts) stops Discord linking it.
    """
    text = discord.utils.escape_markdown(text)
    text = discord.utils.escape_mentions(text)
    text = _AT.sub("@\u200b", text)
    text = _TAG.sub("<\u200b", text)
    text = _SCHEME.sub(lambda m: m.group(1) + ":\u200b", text)
    return _INVITE.sub(lambda m: m.group(1) + "\u200b/", text)


def _units(text: str) -> int:
    """Length as Discord counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def _clip(text: str, limit: int) -> str:
    """Cut to ``limit`` units with an ellipsis, never leaving half of a ``\\x`` escape."""
    if _units(text) <= limit:
        return text
    budget, used, end = max(0, limit - 1), 0, 0
    for i, ch in enumerate(text):
        used += 2 if ord(ch) > 0xFFFF else 1
        if used > budget:
            break
        end = i + 1
    cut = text[:end]
    trailing = len(cut) - len(cut.rstrip("\\"))
    if trailing % 2:
        cut = cut[:-1]
    return cut + ELLIPSIS


def _chunks(lines: list[str], limit: int, more: str) -> list[str]:
    """Lines packed into values of at most ``limit`` units; an over-long line is clipped."""
    out: list[str] = []
    current: list[str] = []
    size = 0
    for line in (_clip(raw, limit) for raw in lines):
        extra = _units(line) + (1 if current else 0)
        if current and size + extra > limit:
            out.append("\n".join(current))
            current, size = [], 0
            extra = _units(line)
        current.append(line)
        size += extra
    if current:
        out.append("\n".join(current))
    return out or [more]


@dataclass
class _Budget:
    """What is left of the 6000-unit embed total."""

    left: int = EMBED_TOTAL_MAX
    fields: list[tuple[str, str]] = field(default_factory=list)

    def take(self, text: str, limit: int) -> str:
        text = _clip(text, min(limit, max(1, self.left)))
        self.left -= _units(text)
        return text

    def add_field(self, name: str, value: str) -> bool:
        """Add a field if there is room for a useful part of it; False once full."""
        if len(self.fields) >= FIELDS_MAX:
            return False
        name = _clip(name or BLANK, FIELD_NAME_MAX)
        room = min(FIELD_VALUE_MAX, self.left - _units(name))
        if room < 16:
            return False
        if value.startswith("```\n") and value.endswith("\n```") and _units(value) > room:
            value = f"```\n{_clip(value[4:-4], room - 8)}\n```"  # clip inside the fence
        else:
            value = _clip(value, room)
        self.left -= _units(name) + _units(value)
        self.fields.append((name, value))
        return True


def _color(answer: Answer) -> int:
    if answer.kind == "fit" and answer.fit is not None and not answer.fit.fits:
        return _NO_FIT_COLOR
    if any(n.code.startswith("tight") for n in answer.caveats):
        return _TIGHT_COLOR
    return _COLORS.get(answer.kind, 0x5865F2)


def _escape_lines(lines: list[str], bullet: str = "") -> list[str]:
    """Escaped lines, each cut first; stops once more text than an embed can show is ready
    (escaping thousands of hostile characters nobody will see is wasted time)."""
    out: list[str] = []
    size = 0
    for line in lines:
        if not line.strip():
            continue
        text = bullet + escape(_clip(line, DESCRIPTION_MAX))
        out.append(text)
        size += _units(text)
        if size > EMBED_TOTAL_MAX:
            break
    return out


def _bullets(lines: list[str]) -> list[str]:
    return _escape_lines(lines, "• ")


def format_embed(answer: Answer, catalog: Catalog, math: bool = False) -> discord.Embed:
    """The short form by default (verdict, card and price in the title, at most 8 lines);
    with ``math`` the details embed the details button shows: every section, the math,
    the caveats and the assumptions."""
    if math:
        return format_details(answer, catalog, math=True)
    footer = prices_footer(answer, catalog)
    lines = short_lines(answer, catalog, footer)
    if footer:
        lines = lines[:-1]
    title = escape(_clip(lines[0], TITLE_MAX - 8))
    body = "\n".join(escape(line) for line in lines[1:])
    embed = discord.Embed(
        title=_clip(title, TITLE_MAX),
        description=_clip(body, DESCRIPTION_MAX) or None,
        color=_color(answer),
    )
    if footer:
        embed.set_footer(text=_clip(escape(footer), FOOTER_MAX))
    return embed


def has_details(answer: Answer, catalog: Catalog) -> bool:
    """Whether the details embed shows anything the short form leaves out."""
    return bool(answer.math or detail_blocks(answer, catalog))


def format_details(answer: Answer, catalog: Catalog, math: bool = False) -> discord.Embed:
    """The whole answer as one embed: headline, sections as fields, caveats, assumptions."""
    budget = _Budget()
    footer = prices_footer(answer, catalog)
    if footer:
        footer = budget.take(escape(footer), FOOTER_MAX)
    title = budget.take(escape(_clip(answer.headline or answer.kind, TITLE_MAX)), TITLE_MAX)
    loose, loose_count, titled = _split_sections(answer)
    reserve = min(1500, 300 * len(titled) + (200 if answer.caveats else 0))
    description = _description(answer, catalog, budget, loose, loose_count, reserve)
    _fill(
        budget,
        _blocks(answer, catalog, titled, math),
        escape(t(catalog, answer.lang, "dc.more", n=0)),
    )
    embed = discord.Embed(title=title, description=description or None, color=_color(answer))
    for name, value in budget.fields:
        embed.add_field(name=name, value=value, inline=_fits_inline(value))
    if footer:
        embed.set_footer(text=footer)
    return embed


INLINE_MAX_LINES = 3
INLINE_MAX_CHARS = 40


def _fits_inline(value: str) -> bool:
    """Short fields sit side by side (Discord puts up to three in a row); long ones and code
    blocks keep the full width."""
    lines = value.split("\n")
    return (
        not value.startswith("```")
        and len(lines) <= INLINE_MAX_LINES
        and all(_units(line) <= INLINE_MAX_CHARS for line in lines)
    )


def _split_sections(answer: Answer) -> tuple[list[str], int, list[tuple[str, list[str]]]]:
    """Untitled sections (the description's lines, and how many) and titled ones (fields)."""
    loose: list[str] = []
    loose_count = 0
    titled: list[tuple[str, list[str]]] = []
    for section in answer.sections:
        lines = _escape_lines(section.lines)
        if not lines:
            continue
        if section.title:
            titled.append((escape(_clip(section.title, FIELD_NAME_MAX)), lines))
        else:
            loose.extend(lines)
            loose_count += sum(1 for line in section.lines if line.strip())
    return loose, loose_count, titled


def _description(
    answer: Answer,
    catalog: Catalog,
    budget: _Budget,
    loose: list[str],
    loose_count: int,
    reserve: int,
) -> str:
    """As many loose lines as fit, with "and N more" when some do not."""
    if not loose:
        return ""
    room = min(DESCRIPTION_MAX, max(64, budget.left - reserve))
    more = t(catalog, answer.lang, "dc.more", n=0)
    description = budget.take(_chunks(loose, room, more)[0], room)
    shown = description.count("\n") + 1
    if shown < loose_count:
        note = "\n" + escape(t(catalog, answer.lang, "dc.more", n=loose_count - shown))
        if _units(description + note) <= room:
            budget.left -= _units(note)
            description += note
    return description


def _blocks(
    answer: Answer, catalog: Catalog, titled: list[tuple[str, list[str]]], math: bool
) -> list[tuple[str, list[str], bool]]:
    """(field name, lines, is code) for the sections, the math, caveats and assumptions."""
    lang = answer.lang
    blocks: list[tuple[str, list[str], bool]] = [(name, lines, False) for name, lines in titled]
    if (math or answer.show_math) and answer.math:  # or asked in the words
        math_lines = [_clip(line, FIELD_VALUE_MAX) for line in answer.math[:200]]
        blocks.append((escape(t(catalog, lang, "render.show_math")), math_lines, True))
    if answer.caveats:
        name = "⚠️ " + escape(t(catalog, lang, "render.watch_out"))
        blocks.append((name, _bullets([n.text for n in answer.caveats]), False))
    if answer.assumptions:
        name = escape(t(catalog, lang, "render.assumptions"))
        blocks.append((name, _bullets([n.text for n in answer.assumptions]), False))
    return blocks


def _fill(budget: _Budget, blocks: list[tuple[str, list[str], bool]], more: str) -> None:
    """Add the blocks as fields, in order, until the embed's budget is spent."""
    for name, lines, code in blocks:
        if code:
            safe = [line.replace("`", "'") for line in lines]
            values = [f"```\n{v}\n```" for v in _chunks(safe, FIELD_VALUE_MAX - 8, more)]
        else:
            values = _chunks(lines, FIELD_VALUE_MAX, more)
        for i, value in enumerate(values):
            if not budget.add_field(name if i == 0 else BLANK, value):
                return


def format_limited(limited: Limited, catalog: Catalog) -> str:
    """The polite refusal when a user asks faster than the per-user limit allows."""
    return escape(t(catalog, limited.lang, "render.rate_limited", seconds=limited.seconds))
