"""Text that fits the screen: cut by display width (a CJK character takes two
cells) with an ellipsis, and counts with the right plural. Every screen cuts
text through these, never by slicing strings. Stored text is shown through
``shown`` (``core.names.shown``: a newline, ESC or bidi override as a visible
escape), here or where a pane puts it whole."""

from __future__ import annotations

from memdesk import shown, shown_all
from rich.cells import cell_len, set_cell_size
from rich.text import Text

from ..tables import minute_text

__all__ = ["ELLIPSIS", "ellipsize", "fitted", "plural", "short_time", "shown", "shown_all"]

ELLIPSIS = "…"


def ellipsize(text: str, width: int) -> str:
    """``text`` on one line (``shown``: control and format characters as
    visible escapes; runs of spaces as one) cut to at most ``width`` cells,
    ending in "…" when it was cut."""
    flat = " ".join(shown(text).split())
    if cell_len(flat) <= width:
        return flat
    if width <= 0:
        return ""
    # set_cell_size pads with a space where a wide character did not fit
    head = set_cell_size(flat, width - 1).rstrip(" ")
    return head + ELLIPSIS


def fitted(text: str, width: int, style: str = "") -> Text:
    """``ellipsize`` as a one-line rich Text in ``style``."""
    return Text(ellipsize(text, width), style=style, no_wrap=True, overflow="ellipsis")


def plural(count: int, singular: str, many: str | None = None) -> str:
    """"1 conflict", "2 conflicts", "0 conflicts" (``many`` for irregular words)."""
    return f"{count} {singular if count == 1 else (many or singular + 's')}"


def short_time(iso: str | None, open_end: str = "…") -> str:
    """An ISO time from a JSON-ready dict as "YYYY-MM-DD HH:MM" (``open_end``
    when None), marked "⁺" when it lies inside that minute (a start right
    after an instant of evidence: 10:00:00.000001)."""
    if not iso:
        return open_end
    return minute_text(iso)
