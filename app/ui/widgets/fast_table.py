"""A DataTable that repaints faster, drawing exactly what DataTable draws.

Profiling the review queue on the 2-core test machine showed that repainting a
table of one-line rows spent most of its time in two places:

* every cell went through Rich's full render pipeline (``Styled`` around
  ``Padding`` around ``Text``, wrapped, cropped and split into lines): about
  a millisecond per cell, a few hundred cells per repaint after a row is
  removed or added (DataTable then drops all its caches) or the table scrolls;
* ``rich_style`` and the zebra-stripe component styles were recomputed for
  every line (each walks the widget's ancestors and their CSS).

``FastTable`` draws a plain one-line ``Text`` cell (no spans, no style of its
own, no tab or newline) straight into segments: left padding, the text cropped
(or padded) to the column, right padding, all in the cell's style, the same
segments DataTable's pipeline yields. Anything else (the header, labels,
styled or multi-line cells, rows taller than one line) goes through
DataTable's own code. Styles are computed once per repaint instead of once per
line. ``tests/test_app.py`` checks the cells against DataTable's own output.

Three things it does that DataTable does not:

* **columns fit the table's width**: the columns named ``flex`` (the ones a
  person reads: a value, a text) share what the others leave of the width,
  fairly, none narrower than its label, so the last columns are never pushed
  off screen; a flex column with a ``caps`` entry (a subject) asks for no more
  than its cap while the others are cut, and gets back what they leave over;
  the table refits when it is resized or its content changes;
* **columns that matter less step aside**: while a flex column would get less
  than ``want`` cells (or its whole content, if shorter), the ``optional``
  columns are left out, in their order (what they show is in the screen's
  detail pane); they come back when the table is wide enough again. The
  table keeps every row's cells for all its columns and rebuilds itself when
  the set shown changes;
* **a cell wider than its column ends in "…"**, cut by display width (a CJK
  character takes two cells), instead of being cropped mid-word.

Only Textual's public API is used: the table overrides ``render_line`` (the
Line API, as ``Textualize/toolong`` draws its logs) and reads DataTable's
public accessors (``ordered_rows``, ``get_row``, ``get_component_styles``,
``get_pseudo_class_state``); the rows it does not draw itself go to
``DataTable.render_line``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text, TextType
from textual import events
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from ..text import ellipsize

T = TypeVar("T")


MIN_FLEX = 6
"""No flexible column gets narrower than this (or its label)."""


def plain_line(cell: object) -> str | None:
    """The text of a cell that can be drawn without Rich's pipeline, else None:
    a one-line Text without spans (a style of its own is fine)."""
    if (type(cell) is not Text or cell.spans or cell.justify is not None
            or cell.overflow not in (None, "ellipsis") or cell.no_wrap is False):
        return None
    plain = cell.plain
    if "\n" in plain or "\t" in plain or "\r" in plain:
        return None
    return plain


def flex_widths(available: int, natural: dict[str, int], flex: tuple[str, ...],
                minimum: dict[str, int], caps: dict[str, int] | None = None) -> dict[str, int]:
    """Content widths for the ``flex`` columns when the columns' ``natural``
    content widths (padding excluded) do not fit in ``available`` cells of
    content. The flexible columns share what the others leave, fairly: one
    that needs less than an equal share keeps its natural width and the rest
    is shared by the others (so a short subject column stays whole while a
    long text column gives way); a column in ``caps`` needs no more than its
    cap there, and gets back what the others leave over; none goes below its
    ``minimum``. Empty when everything fits."""
    if sum(natural.values()) <= available or not flex:
        return {}
    caps = caps or {}
    need = {k: min(natural.get(k, 0), caps.get(k, natural.get(k, 0))) for k in flex}
    room = available - sum(w for k, w in natural.items() if k not in flex)
    widths: dict[str, int] = {}
    left = sorted(flex, key=lambda k: need[k])
    spare = room
    while left:
        share = spare // len(left)
        key = left[0]
        if need[key] <= share:  # needs less than its share: keeps what it needs
            widths[key] = need[key]
        else:  # every column left needs more: they split the room evenly
            for i, key in enumerate(left):
                widths[key] = share + (1 if i < spare - share * len(left) else 0)
            break
        spare -= widths[key]
        left.pop(0)
    spare = room - sum(widths.values())
    for key in flex:  # what the others left over goes back to the capped columns
        if spare <= 0:
            break
        more = min(spare, natural.get(key, 0) - widths[key])
        if more > 0:
            widths[key] += more
            spare -= more
    return {k: max(w, minimum.get(k, MIN_FLEX)) for k, w in widths.items()}


def plan_columns(available: int, natural: dict[str, int], minimum: dict[str, int],
                 flex: tuple[str, ...], caps: dict[str, int], optional: tuple[str, ...],
                 want: int, pad: int) -> tuple[tuple[str, ...], dict[str, int]]:
    """Which ``optional`` columns to leave out, and the flex columns' widths,
    for ``available`` cells (padding included, ``pad`` per column): the
    optional columns go, in order, while a flex column would get less than
    ``want`` cells or, if it needs less, its whole (capped) content."""
    hidden: list[str] = []
    while True:
        shown = {k: w for k, w in natural.items() if k not in hidden}
        widths = flex_widths(available - pad * len(shown), shown, flex,
                             {k: minimum.get(k, MIN_FLEX) for k in shown}, caps)
        short = any(widths.get(k, shown[k]) < min(shown[k], caps.get(k, shown[k]), want)
                    for k in flex if k in shown)
        going = next((k for k in optional if k in shown), None)
        if not short or going is None:
            return tuple(hidden), widths
        hidden.append(going)


def cell_width(cell: object) -> int:
    """The cells a table cell's widest line takes."""
    text = cell.plain if isinstance(cell, Text) else str(cell)
    return max((cell_len(line) for line in text.splitlines()), default=0)


class FastTable(DataTable):
    """DataTable with cheaper repaints (see the module docstring)."""

    _pass_styles: dict[object, Any] | None = None  # set while a repaint runs
    _content_version = 0  # bumped whenever a cell's value changes

    def __init__(self, *args, flex: tuple[str, ...] = (),  # noqa: ANN002, ANN003
                 caps: dict[str, int] | None = None, optional: tuple[str, ...] = (),
                 want: int = 0, **kwargs) -> None:
        self._body_lines: LRUCache[tuple, Strip] = LRUCache(1024)  # DataTable's init clears it
        self._removed: dict[object, int] = {}  # row key -> times removed
        self.flex = flex  # keys of the columns that give way when the table is too narrow
        self.caps = caps or {}  # flex columns that ask for no more than this while others are cut
        self.optional = optional  # columns left out (in this order) while a flex one is short
        self.want = want  # what a flex column should get before optional columns go
        self.hidden: tuple[str, ...] = ()  # the optional columns left out now
        self._all_columns: list[tuple[str, TextType]] = []  # (key, label), shown or not
        self._natural: dict[str, int] = {}  # key -> widest label or cell ever added
        self._cells: dict[RowKey, tuple[object, ...]] = {}  # every row's cells, all columns
        self._replanning = False
        self._refit_pending = False
        self._hover_shown = False  # whether DataTable shows the hovered row (the mouse is in use)
        self._tall_rows = 0  # rows taller than one line: DataTable draws the table then
        self._labelled = False  # whether a row has a label: DataTable draws the table then
        self._header_widths: tuple[int, ...] | None = None  # the column widths the header was drawn at
        super().__init__(*args, **kwargs)
        if flex:  # the columns always fit: no horizontal scrollbar to take a line
            self.styles.overflow_x = "hidden"

    # ------------------------------------------------- the mouse's faint cursor
    # DataTable shows the hovered row only while the mouse is in use; the same
    # rule, from the public events, decides it for the cursor's row drawn here
    def on_mouse_move(self, event: events.MouseMove) -> None:
        meta = event.style.meta
        self._hover_shown = bool(meta) and not (self.cursor_type != "row" and meta.get("out_of_bounds", False))

    def on_click(self) -> None:
        self._hover_shown = True

    def on_leave(self) -> None:
        self._hover_shown = False

    def on_key(self) -> None:
        self._hover_shown = False

    # ------------------------------------------------------------- fitting
    def on_resize(self) -> None:
        self.fit_columns()

    def _refit_soon(self) -> None:
        """Fit the columns once the changes made now are drawn (once for a batch of rows)."""
        if self._refit_pending or not self.is_attached:
            return  # not mounted yet: its first resize fits it
        self._refit_pending = True
        self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        self._refit_pending = False
        self.fit_columns()

    # --------------------------------------------- every column's cells kept
    def add_column(self, label: TextType, *, width: int | None = None, key: str | None = None,
                   default: object | None = None) -> ColumnKey:
        name = key if key is not None else f"column-{len(self._all_columns)}"
        self._all_columns.append((name, label))
        plain = Text.from_markup(label).plain if isinstance(label, str) else label.plain
        self._natural[name] = cell_len(plain)
        self._refit_soon()
        if name in self.hidden:
            return ColumnKey(name)
        return super().add_column(label, width=width, key=name, default=default)

    def add_row(self, *cells: object, height: int | None = 1, key: str | None = None,
                label: TextType | None = None) -> RowKey:
        """Add a row: ``cells`` for every column added, shown or left out."""
        for (name, _), cell in zip(self._all_columns, cells, strict=False):
            width = cell_width(cell)
            if width > self._natural[name]:
                self._natural[name] = width
        row_key = super().add_row(*self._shown_cells(cells), height=height, key=key, label=label)
        self._cells[row_key] = cells
        self._tall_rows += height != 1
        self._labelled = self._labelled or label is not None
        self._refit_soon()
        return row_key

    def all_cells(self, row_key: RowKey | str) -> dict[str, object]:
        """A row's cells by column key, the columns left out included."""
        cells = self._cells[row_key if isinstance(row_key, RowKey) else RowKey(row_key)]
        return {name: cell for (name, _), cell in zip(self._all_columns, cells, strict=False)}

    def _shown_cells(self, cells: tuple[object, ...]) -> list[object]:
        if not self.hidden:
            return list(cells)
        return [cell for (name, _), cell in zip(self._all_columns, cells, strict=False)
                if name not in self.hidden]

    def clear(self, columns: bool = False) -> FastTable:
        super().clear(columns)
        self._tall_rows, self._labelled = 0, False
        self._content_version += 1
        if not self._replanning:
            self._cells.clear()
            self._natural = {}
            for name, label in self._all_columns:
                plain = Text.from_markup(label).plain if isinstance(label, str) else label.plain
                self._natural[name] = cell_len(plain)
            if columns:
                self._all_columns.clear()
                self._natural.clear()
        return self

    def _show_columns(self, hidden: tuple[str, ...]) -> None:
        """Show every column but ``hidden``: the table is rebuilt from the
        cells it keeps, rows in the same order, the cursor on the same row."""
        if hidden == self.hidden:
            return
        order = [row.key for row in self.ordered_rows]
        cursor, scroll_y = self.cursor_row, self.scroll_y
        kept, self._cells = self._cells, {}
        self.hidden = hidden
        self._replanning = True
        try:
            self.clear(columns=True)
            for name, label in self._all_columns:
                if name not in hidden:
                    super().add_column(label, key=name)
            for row_key in order:
                cells = kept[row_key]
                self._cells[super().add_row(*self._shown_cells(cells), key=row_key.value)] = cells
        finally:
            self._replanning = False
        if order:
            self.move_cursor(row=min(cursor, len(order) - 1), animate=False, scroll=False)
            self.scroll_y = scroll_y
        self._refit_soon()  # the columns shown now fitted

    def fit_columns(self) -> None:
        """Give the flexible columns what the others leave of the width, and
        leave out optional columns while a flexible one would be short (see
        the module docstring); every column keeps its content width when all fit."""
        if not self.flex or not self.columns:
            return
        pad = 2 * self.cell_padding
        # the vertical scrollbar's room is kept free: it comes and goes with the
        # rows, and its coming does not resize the table (no refit would follow)
        available = self.size.width - self.styles.scrollbar_size_vertical
        if available <= 0:
            return
        minimum = {name: max(MIN_FLEX, self._natural_label(label))
                   for name, label in self._all_columns}
        labels = self._label_width()
        hidden, widths = plan_columns(available - labels, self._natural,
                                      minimum, self.flex, self.caps, self.optional, self.want,
                                      pad)
        if hidden != self.hidden:  # rebuilt once this refit is over; it refits itself then
            self.call_later(self._show_columns, hidden)
            return
        columns = self.ordered_columns
        changed = False
        for column in columns:
            width = widths.get(str(column.key.value))
            auto, target = (True, column.width) if width is None else (False, width)
            if column.auto_width != auto or column.width != target:
                column.auto_width, column.width = auto, target
                changed = True
        if changed:
            self.notify_style_update()  # DataTable's drawn cells are cached without their width
            self.virtual_size = Size(sum(c.get_render_width(self) for c in columns) + labels,
                                     self.virtual_size.height)
            self.refresh()

    def _label_width(self) -> int:
        """The cells the row labels' column takes (none unless a row has a label and they show)."""
        if not (self._labelled and self.show_row_labels):
            return 0
        widest = max((cell_len(row.label.plain) for row in self.rows.values() if row.label is not None),
                     default=0)
        return widest + 2 * self.cell_padding

    @staticmethod
    def _natural_label(label: TextType) -> int:
        return cell_len(Text.from_markup(label).plain if isinstance(label, str) else label.plain)

    def update_cell(self, row_key, column_key, value, *, update_width: bool = False) -> None:  # noqa: ANN001
        self._content_version += 1
        name = str(column_key.value if isinstance(column_key, ColumnKey) else column_key)
        names = [n for n, _ in self._all_columns]
        cells = self._cells.get(row_key)  # a RowKey is found by its string too
        if cells is not None and name in names:
            at = names.index(name)
            self._cells[row_key] = (*cells[:at], value, *cells[at + 1:])
            self._natural[name] = max(self._natural[name], cell_width(value))
        if name not in self.hidden:
            super().update_cell(row_key, column_key, value, update_width=update_width)
        self._refit_soon()

    def remove_row(self, row_key) -> None:  # noqa: ANN001
        # a row added again later under the same key may hold other cells
        self._removed[row_key] = self._removed.get(row_key, 0) + 1
        row = self.rows.get(row_key if isinstance(row_key, RowKey) else RowKey(row_key))
        if row is not None:
            self._tall_rows -= row.height != 1
        super().remove_row(row_key)
        self._cells.pop(row_key, None)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._pass_styles = {}
        try:
            return super().render_lines(crop)
        finally:
            self._pass_styles = None

    def _cached_style(self, key: object, compute: Callable[[], T]) -> T:
        styles = self._pass_styles
        if styles is None:
            return compute()
        style = styles.get(key)
        if style is None:
            style = styles[key] = compute()
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._body_lines.clear()

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the widget (Textual's Line API): a body row of plain cells is drawn here
        (``_fast_line``); everything else (the header, a row the mouse is on other than the
        cursor's, styled or tall cells, fixed columns) by DataTable."""
        strip = self._fast_line(y)
        if strip is not None:
            return strip
        if self.show_header and y < self.header_height:
            self._forget_stale_header()
        return super().render_line(y)

    def _column_widths(self) -> tuple[int, ...]:
        """Every shown column's drawn width (padding included), worked out once per repaint."""
        return self._cached_style("widths", lambda: tuple(
            column.get_render_width(self) for column in self.ordered_columns))

    def _forget_stale_header(self) -> None:
        """DataTable measures the rows added since the last idle moment and widens its
        auto-width columns then, without forgetting the header it drew before (its caches
        are keyed on a change counter that measuring does not bump, and a table of fixed
        height gets no resize to bump it). The rows drawn here use the widths of now, so a
        header drawn in between stayed narrower than its rows. The widths the header was
        drawn at are kept; when they differ now, DataTable's drawn lines are dropped."""
        widths = self._column_widths()
        if widths != self._header_widths:
            if self._header_widths is not None:
                self.notify_style_update()
            self._header_widths = widths

    def _fast_line(self, y: int) -> Strip | None:
        """A body line, cached per row: DataTable keys its line caches on the cursor position
        and on a counter bumped by every added or removed row, so moving the cursor (or
        scrolling) repainted every visible row from scratch. Here a row's line is reused until
        something that changes how that row looks changes: its cells, its index (zebra stripe,
        click metadata), the column widths, the widget's pseudo-classes (focus). None: not such
        a line, DataTable draws it."""
        if (self.cursor_type != "row" or self.fixed_columns or self.fixed_rows or self._tall_rows
                or (self._labelled and self.show_row_labels)):
            return None
        header = self.header_height if self.show_header else 0
        if y < header:
            return None
        scroll_x, scroll_y = self.scroll_offset
        row_index = y - header + scroll_y
        rows = self.ordered_rows
        cursor = self.show_cursor and row_index == self.cursor_coordinate.row
        hover = row_index == self.hover_coordinate.row
        if row_index >= len(rows) or (hover and not cursor):
            return None
        row_key = rows[row_index].key
        width = self.size.width
        base = self._cached_style("base", lambda: self.rich_style)
        widths = self._column_widths()
        if any(w < 2 * self.cell_padding for w in widths):
            return None
        state = self._cached_style("state", self.get_pseudo_class_state)
        hover = hover and self._hover_shown
        key = (row_key, row_index, scroll_x, width, base, widths, state, self.zebra_stripes, cursor, hover,
               self._content_version, self._removed.get(row_key, 0))
        strip = self._body_lines.get(key)
        if strip is None:
            cells = self.get_row(row_key)
            texts = [plain_line(cell) for cell in cells]
            if any(text is None for text in texts):
                return None
            strip = self._body_lines[key] = self._draw_row(row_index, cells, texts, widths, base,
                                                           scroll_x, cursor, hover)
        return strip

    def _draw_row(self, row_index: int, cells: list[object], texts: list[str | None],
                  widths: tuple[int, ...], base_style: Style, x1: int, cursor: bool, hover: bool) -> Strip:
        """One row of plain cells as DataTable draws it (no fixed columns, no row labels): each
        cell in the row's style (and the cursor's, the hover's) with its place as click metadata,
        the row's style extended to the widget's right edge."""
        row_style = self._row_style(row_index, base_style)
        component = Style()
        if hover:
            component += self.get_component_rich_style("datatable--hover")
        if cursor:
            component += self.get_component_rich_style("datatable--cursor")
        post = ((Style.from_color(color=component.color) if self.cursor_foreground_priority == "css"
                 else Style.null())
                + (Style.from_color(bgcolor=component.bgcolor) if self.cursor_background_priority == "css"
                   else Style.null()))
        segments: list[Segment] = []
        for column_index, (cell, text, width) in enumerate(zip(cells, texts, widths, strict=True)):
            style = row_style + Style.from_meta({"row": row_index, "column": column_index}) + component + post
            segments.extend(self._cell_segments(cell, text or "", style, width))
        width = self.size.width
        remaining = max(0, width - sum(widths))
        extend_style = row_style + component + Style.from_meta(
            {"row": row_index, "column": 0, "out_of_bounds": True})
        segments.append(Segment(" " * remaining, extend_style))
        return Strip(segments).crop(x1, x1 + width).adjust_cell_length(width, base_style).simplify()

    def _row_style(self, row_index: int, base_style: Style) -> Style:
        """A body row's style: its zebra stripe's, else the widget's."""
        if not self.zebra_stripes:
            return base_style
        component = "datatable--odd-row" if row_index % 2 else "datatable--even-row"
        return self._cached_style(("row", component),
                                  lambda: self.get_component_styles(component).rich_style)

    def _cell_segments(self, cell: object, text: str, style: Style, width: int) -> list[Segment]:
        """A plain one-line cell (its ``text``, ``plain_line``) in ``style`` padded to ``width``,
        ending in "…" when cut."""
        inner = width - 2 * self.cell_padding
        if cell_len(text) > inner:
            text = ellipsize(text, inner)
        pad = " " * self.cell_padding
        line = [Segment(pad, style)] if pad else []
        if text:
            own = cell.style  # type: ignore[attr-defined]
            line.append(Segment(text, style + (own if isinstance(own, Style) else Style.parse(own))
                                if own else style))
        fill = inner - cell_len(text)
        if fill:
            line.append(Segment(" " * fill, style))
        if pad:
            line.append(Segment(pad, style))
        return line
