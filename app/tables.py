"""Plain-text tables that line up Chinese and English alike (wide characters
count as two columns). Every cell is one line: stored text is shown through
``core.names.shown`` (a newline, ESC or bidi override as a visible escape)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from memdesk import shown


def width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def clip(text: str, limit: int) -> str:
    """``text`` as one line (``shown``, runs of spaces as one) cut to
    ``limit`` columns, ending in "…" when it was cut."""
    text = " ".join(shown(str(text)).split())
    if width(text) <= limit:
        return text
    out, used = [], 0
    for ch in text:
        w = width(ch)
        if used + w > limit - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], max_col: int = 40) -> str:
    """Render rows under headers; cells are clipped to ``max_col`` columns."""
    cells = [[clip("" if c is None else str(c), max_col) for c in row] for row in rows]
    widths = [width(h) for h in headers]
    for row in cells:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], width(c))

    def line(values: Sequence[str]) -> str:
        return "  ".join(v + " " * (widths[i] - width(v)) for i, v in enumerate(values)).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(r) for r in cells)
    return "\n".join(out)


def start_phrase(start: dict[str, Any]) -> str:
    """How a fact's valid start came to be known (``Fact.to_dict()["start"]``),
    in words: "start stated 2026-06-01", "start bounded: between 2026-06-01
    10:00 and 2026-06-30 (after what was said of the value before)"."""
    why = {"bounded": " (after what was said of the value before)",
           "clamped": " (the stated time lay before what was said of the value before; "
                      "moved after it)"}.get(start["kind"], "")
    if start["kind"] == "heard":  # "heard 2026-06-01 10:00 (held since before)"
        return "start only " + start["text"]
    return f"start {start['text']}{why}"


def start_brief(start: dict[str, Any]) -> str:
    """A fact's start in a few words beside its valid time (which gives the
    earliest instant): "start stated", "start only heard", "start bounded,
    by 2026-06-30" (the latest it can be)."""
    kind, latest = start["kind"], start.get("latest") or ""
    if kind == "heard":
        return "start only heard"
    if latest[:16] == (start.get("earliest") or "")[:16]:
        return f"start {kind}"
    last = start["text"].rsplit(" and ", 1)[-1] if " and " in start["text"] else latest[:10]
    why = {"bounded": " after what was said before",
           "clamped": " after what was said before, though stated earlier"}.get(kind, "")
    return f"start {kind}{why}, by {last}"


def start_cell(start: dict[str, Any]) -> str:
    """A fact's start for a table cell: its kind, and its bounds when it is
    not exact ("bounded ≤06-30")."""
    kind, earliest, latest = start["kind"], start.get("earliest"), start.get("latest")
    if kind == "heard" or not latest or latest[:16] == (earliest or "")[:16]:
        return kind
    return f"{kind} ≤{latest[5:10]}"


def minute_text(iso: str) -> str:
    """An ISO 8601 time to the minute ("2026-06-01 10:00"), marked "⁺" when it
    lies inside that minute (a start right after an instant of evidence:
    10:00:00.000001)."""
    short = iso[:16].replace("T", " ")
    rest = iso[16:].split("+")[0].split("Z")[0]
    rest = rest[:-6] if len(rest) > 6 and rest[-6] == "-" else rest  # a negative offset
    return short if rest in ("", ":00") else short + "⁺"
