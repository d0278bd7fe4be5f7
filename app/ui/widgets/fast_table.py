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

Two things it does that DataTable does not:

* **columns fit the table's width**: the columns named ``flex`` share what the
  others leave of the width (in proportion to their content, none narrower
  than its label), so the last columns are never pushed off screen; the table
  refits when it is resized or its content changes;
* **a cell wider than its column ends in "…"**, cut by display width (a CJK
  character takes two cells), instead of being cropped mid-word.

Textual is pinned (8.2.8): the methods overridden here are DataTable's
private rendering methods of that version.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._segment_tools import line_crop
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widgets import DataTable

from ..text import ellipsize

T = TypeVar("T")


MIN_FLEX = 6
"""No flexible column gets narrower than this (or its label)."""


def plain_line(cell: object) -> str | None:
    """The text of a cell that can be drawn without Rich's pipeline, else None:
    a one-line Text without spans (a style of its own is fine)."""
    if (type(cell) is not Text or cell._spans or cell.justify is not None
            or cell.overflow not in (None, "ellipsis") or cell.no_wrap is False):
        return None
    plain = cell.plain
    if "\n" in plain or "\t" in plain or "\r" in plain:
        return None
    return plain


def flex_widths(available: int, natural: dict[str, int], flex: tuple[str, ...],
                minimum: dict[str, int]) -> dict[str, int]:
    """Content widths for the ``flex`` columns when the columns' ``natural``
    content widths (padding excluded) do not fit in ``available`` cells of
    content. The flexible columns share what the others leave, fairly: one
    that needs less than an equal share keeps its natural width and the rest
    is shared by the others (so a short subject column stays whole while a
    long text column gives way); none goes below its ``minimum``. Empty when
    everything fits."""
    if sum(natural.values()) <= available or not flex:
        return {}
    room = available - sum(w for k, w in natural.items() if k not in flex)
    widths: dict[str, int] = {}
    left = sorted(flex, key=lambda k: natural.get(k, 0))
    while left:
        share = room // len(left)
        key = left[0]
        if natural.get(key, 0) <= share:  # needs less than its share: keeps what it needs
            widths[key] = natural.get(key, 0)
        else:  # every column left needs more: they split the room evenly
            for i, key in enumerate(left):
                widths[key] = share + (1 if i < room - share * len(left) else 0)
            break
        room -= widths[key]
        left.pop(0)
    return {k: max(w, minimum.get(k, MIN_FLEX)) for k, w in widths.items()}


class FastTable(DataTable):
    """DataTable with cheaper repaints (see the module docstring)."""

    _pass_styles: dict[object, Any] | None = None  # set while a repaint runs
    _content_version = 0  # bumped whenever a cell's value changes

    def __init__(self, *args, flex: tuple[str, ...] = (), **kwargs) -> None:  # noqa: ANN002, ANN003
        self._body_lines: LRUCache[tuple, Strip] = LRUCache(1024)  # DataTable's init clears it
        self._removed: dict[object, int] = {}  # row key -> times removed
        self.flex = flex  # keys of the columns that give way when the table is too narrow
        super().__init__(*args, **kwargs)
        if flex:  # the columns always fit: no horizontal scrollbar to take a line
            self.styles.overflow_x = "hidden"

    # ------------------------------------------------------------- fitting
    def _update_dimensions(self, new_rows) -> None:  # noqa: ANN001
        super()._update_dimensions(new_rows)
        self.fit_columns()

    def on_resize(self) -> None:
        self.fit_columns()

    def fit_columns(self) -> None:
        """Give the flexible columns what the others leave of the width (see
        the module docstring); every column keeps its content width when all fit."""
        if not self.flex or not self.columns:
            return
        pad = 2 * self.cell_padding
        # the vertical scrollbar's room is kept free: it comes and goes with the
        # rows, and its coming does not resize the table (no refit would follow)
        available = self.size.width - self.styles.scrollbar_size_vertical
        if available <= 0:
            return
        columns = self.ordered_columns
        natural = {str(c.key.value): c.content_width for c in columns}
        minimum = {str(c.key.value): max(MIN_FLEX, cell_len(c.label.plain)) for c in columns}
        widths = flex_widths(available - pad * len(columns) - self._row_label_column_width,
                             natural, self.flex, minimum)
        changed = False
        for column in columns:
            width = widths.get(str(column.key.value))
            auto, target = (True, column.width) if width is None else (False, width)
            if column.auto_width != auto or column.width != target:
                column.auto_width, column.width = auto, target
                changed = True
        if changed:
            self._clear_caches()
            self.virtual_size = Size(
                sum(c.get_render_width(self) for c in columns) + self._row_label_column_width,
                self.virtual_size.height)
            self.refresh()

    def _clear_caches(self) -> None:
        super()._clear_caches()
        self._body_lines.clear()

    def update_cell(self, row_key, column_key, value, *, update_width: bool = False) -> None:  # noqa: ANN001
        self._content_version += 1
        super().update_cell(row_key, column_key, value, update_width=update_width)

    def remove_row(self, row_key) -> None:  # noqa: ANN001
        # a row added again later under the same key may hold other cells
        self._removed[row_key] = self._removed.get(row_key, 0) + 1
        super().remove_row(row_key)

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

    def render_line(self, y: int) -> Strip:
        # DataTable.render_line, with the widget's style computed once per repaint
        width, _height = self.size
        scroll_x, scroll_y = self.scroll_offset
        fixed_keys = (self._row_locations.get_key(index) for index in range(self.fixed_rows))
        fixed_rows_height = sum(self.get_row_height(key) for key in fixed_keys if key is not None)
        if self.show_header:
            fixed_rows_height += self.get_row_height(self._header_row_key)
        if y >= fixed_rows_height:
            y += scroll_y
        base = self._cached_style("base", lambda: self.rich_style)
        return self._render_line(y, scroll_x, scroll_x + width, base)

    def _render_line(self, y: int, x1: int, x2: int, base_style: Style) -> Strip:
        """A body line, cached per row: DataTable keys its line caches on the
        cursor position and on a counter bumped by every added or removed row,
        so moving the cursor (or scrolling) repainted every visible row from
        scratch. Here a row's line is reused until something that changes how
        that row looks changes: its cells, its index (zebra stripe, click
        metadata), whether the cursor or hover is on it, the column widths,
        the focus. Rows of plain one-line cells only; others go to DataTable."""
        if (self.cursor_type != "row" or self.fixed_columns or self.fixed_rows
                or (self._labelled_row_exists and self.show_row_labels)):
            return super()._render_line(y, x1, x2, base_style)
        try:
            row_key, line_no = self._get_offsets(y)
        except LookupError:
            return super()._render_line(y, x1, x2, base_style)
        row_index = self._row_locations.get(row_key)
        row = self.rows.get(row_key)
        if row_index is None or row is None or row.height != 1:  # the header, tall rows
            return super()._render_line(y, x1, x2, base_style)
        widths = self._cached_style("widths", lambda: tuple(
            column.get_render_width(self) for column in self.ordered_columns))
        cursor = row_index == self.cursor_coordinate.row
        hover = row_index == self.hover_coordinate.row
        key = (row_key, row_index, x1, x2, self.size.width, base_style, widths, cursor, hover,
               self.show_cursor, self._show_hover_cursor, self._pseudo_class_state,
               self._content_version, self._removed.get(row_key, 0),
               self._row_label_column_width)
        strip = self._body_lines.get(key)
        if strip is None:
            cells = self._data[row_key]
            if any(plain_line(cells.get(column.key)) is None for column in self.ordered_columns):
                return super()._render_line(y, x1, x2, base_style)
            strip = self._body_lines[key] = self._draw_row(
                row_index, widths, base_style, x1, x2, cursor, hover)
        return strip

    def _draw_row(self, row_index: int, widths: tuple[int, ...], base_style: Style, x1: int,
                  x2: int, cursor: bool, hover: bool) -> Strip:
        """One row of plain cells, as DataTable's ``_render_line_in_row`` and
        ``_render_line`` draw it (no fixed columns, no row labels)."""
        row_style = self._get_row_style(row_index, base_style)
        segments: list[Segment] = []
        for column_index, width in enumerate(widths):
            segments.extend(self._render_cell(row_index, column_index, row_style, width,
                                              cursor=cursor, hover=hover)[0])
        # DataTable extends the row's style to the widget's right edge
        width = self.size.width
        remaining = max(0, width - sum(widths) - self._row_label_column_width)
        extend_style, _ = self._get_styles_to_render_cell(
            False, False, False, hover, cursor, self.show_cursor, self._show_hover_cursor,
            False, False)
        extend_style = row_style + extend_style + Style.from_meta(
            {"row": row_index, "column": 0, "out_of_bounds": True})
        segments.append(Segment(" " * remaining, extend_style))
        return Strip(line_crop(segments, x1, x2, width)).adjust_cell_length(
            width, base_style).simplify()

    def _get_row_style(self, row_index: int, base_style: Style) -> Style:
        if row_index >= self.fixed_rows and not self.zebra_stripes:
            return base_style
        key = ("row", -1 if row_index == -1 else
               -2 if row_index < self.fixed_rows else row_index % 2)
        return self._cached_style(key, lambda: super(FastTable, self)._get_row_style(
            row_index, base_style))

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int,
                     cursor: bool = False, hover: bool = False) -> list[list[Segment]]:
        if row_index < self.fixed_rows or column_index < self.fixed_columns:
            # the header, row labels and fixed cells: DataTable's own code
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        row = self.rows.get(row_key) if row_key is not None else None
        if row_key is None or row is None or row.height != 1 or self.cell_padding * 2 > width:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        column_key = self._column_locations.get_key(column_index)
        cell = self._data[row_key].get(column_key) if column_key is not None else None
        text = plain_line(cell)
        if text is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        component_style, post_style = self._get_styles_to_render_cell(
            False, False, False, hover, cursor, self.show_cursor, self._show_hover_cursor,
            self.cursor_foreground_priority == "css", self.cursor_background_priority == "css")
        style = (base_style + Style.from_meta({"row": row_index, "column": column_index})
                 + component_style + post_style)
        inner = width - 2 * self.cell_padding
        if cell_len(text) > inner:
            text = ellipsize(text, inner)
        pad = " " * self.cell_padding
        line = [Segment(pad, style)] if pad else []
        if text:
            own = cell.style  # type: ignore[union-attr]
            line.append(Segment(text, style + (own if isinstance(own, Style) else Style.parse(own))
                                if own else style))
        fill = inner - cell_len(text)
        if fill:
            line.append(Segment(" " * fill, style))
        if pad:
            line.append(Segment(pad, style))
        return [line]
