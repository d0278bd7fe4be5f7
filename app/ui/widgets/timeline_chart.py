"""A subject's facts drawn to scale on a valid-time axis, one band per predicate.

``layout`` is pure: it decides which rows are visible at a "known at" time,
which are retired by then, and packs intervals into lanes so none overlap on
screen. ``axis_line``, ``lane_text`` and ``legend_line`` are pure too: they
draw a layout at a width. ``TimelineChart`` shows them (the axis and the
legend stay put while the lanes scroll) and moves a cursor over the intervals.

How an interval reads: ``▏`` a start that was stated, ``┊`` a start only
heard (held since some time before then), ``@date`` when a todo or plan is
due, ``→`` open-ended, ``¬`` negative, ``×`` and a ``╌`` fill a version
retired by the "known at" time (superseded, corrected, retracted, expired).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone

from memdesk import Fact
from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..text import ellipsize

LABEL_WIDTH = 16
MIN_LABEL_WIDTH = 8
DAY_US = 86_400_000_000
DATE_CELLS = 10  # YYYY-MM-DD
TICK_GAP = 2  # at least this many blank cells between two axis labels
DAY_STEPS = (1, 2, 7, 14)
MONTH_STEPS = (1, 2, 3, 6, 12)
RETIRED_FILL = "╌"


@dataclass(frozen=True)
class Segment:
    fact: Fact
    start: int
    end: int  # open intervals end at the axis's right edge
    retired: bool  # retired as of the "known at" time: drawn dimmed


@dataclass(frozen=True)
class Lane:
    predicate: str
    first: bool  # the predicate's first lane carries its label
    segments: tuple[Segment, ...]


@dataclass(frozen=True)
class Chart:
    lanes: tuple[Lane, ...]
    start: int
    end: int
    known_at: int


def layout(rows: tuple[Fact, ...] | list[Fact], known_at: int, now: int,
           width: int = 100) -> Chart:
    """Lanes for the rows known at ``known_at``: believed rows first, then the
    ones retired by then (dimmed), packed so that no two intervals share screen
    cells in one lane (``width`` = cells of the drawing area)."""
    visible = [r for r in rows if r.told_from <= known_at]  # the told axis
    if not visible:
        return Chart((), now, now + DAY_US, known_at)
    start = min(r.valid_from for r in visible)
    last = max([r.valid_from for r in visible] + [r.valid_to for r in visible if r.valid_to]
               + [r.told_from for r in visible]
               + [t for r in visible for t in (r.event_start, r.event_end) if t is not None])
    # open intervals run to the right edge: a little past the last thing that happened
    end = last + max((last - start) // 8, 7 * DAY_US)
    start -= DAY_US
    span = max(end - start, 1)

    def x(t: int) -> int:
        return int((t - start) * width / span)

    lanes: list[Lane] = []
    for predicate in sorted({r.predicate for r in visible}):
        mine = [r for r in visible if r.predicate == predicate]
        believed = [r for r in mine if r.known_at(known_at)]  # (all told by known_at)
        retired = [r for r in mine if not r.known_at(known_at)]
        packed: list[list[Segment]] = []
        for group, dim in ((believed, False), (retired, True)):
            group_lanes: list[list[Segment]] = []
            for r in sorted(group, key=lambda f: (f.valid_from, f.id)):
                seg = Segment(r, r.valid_from, r.valid_to if r.valid_to is not None else end, dim)
                for lane in group_lanes:
                    prev = lane[-1]
                    if prev.end <= seg.start and max(x(prev.end), x(prev.start) + 1) <= x(seg.start):
                        lane.append(seg)
                        break
                else:
                    group_lanes.append([seg])
            packed.extend(group_lanes)
        for i, lane in enumerate(packed):
            lanes.append(Lane(predicate, i == 0, tuple(lane)))
    return Chart(tuple(lanes), start, end, known_at)


# ------------------------------------------------------------------ drawing
def _zone(tz_minutes: int) -> timezone:
    return timezone(timedelta(minutes=tz_minutes)) if tz_minutes else UTC


def _date(t: int, tz_minutes: int, fmt: str = "%Y-%m-%d") -> str:
    return datetime.fromtimestamp(t / 1e6, _zone(tz_minutes)).strftime(fmt)


def _column(chart: Chart, width: int, t: int) -> int:
    """The cell of time ``t`` in a drawing area ``width`` cells wide (not clamped)."""
    return int((t - chart.start) * width / max(chart.end - chart.start, 1))


def label_width(total: int) -> int:
    """Cells of the predicate column for a chart ``total`` cells wide."""
    return max(MIN_LABEL_WIDTH, min(LABEL_WIDTH, total // 4))


def _calendar(start: int, end: int, tz: int, days: int = 0, months: int = 0) -> list[int]:
    """Local midnights from ``start`` to ``end``: every ``days``-th day (7:
    Mondays), or the first day of every ``months``-th month (12: of years)."""
    zone = _zone(tz)
    first = datetime.fromtimestamp(start / 1e6, zone).date()
    last = datetime.fromtimestamp(end / 1e6, zone).date()
    if days:
        found = [first + timedelta(n) for n in range((last - first).days + 1)]
        found = [d for d in found if (d.toordinal() - 1) % days == 0]  # ordinal 1 is a Monday
    else:
        span = range(first.year * 12 + first.month - 1, last.year * 12 + last.month)
        found = [date(m // 12, m % 12 + 1, 1) for m in span if m % months == 0]
    out = (int(datetime.combine(d, time(), zone).timestamp() * 1_000_000) for d in found)
    return [t for t in out if start <= t <= end]


def ticks(start: int, end: int, width: int, tz: int) -> list[int]:
    """Calendar times (local midnights: whole days, Mondays, first days of
    months or years) between ``start`` and ``end``, spaced so that a date label
    and a gap fit between two of them in ``width`` cells."""
    if width <= 0 or end <= start:
        return []
    room = (DATE_CELLS + TICK_GAP) * (end - start) / width  # µs one label takes
    day_step = next((s for s in DAY_STEPS if s * DAY_US >= room), None)
    if day_step is not None:
        return _calendar(start, end, tz, days=day_step)
    month_step = next((s for s in MONTH_STEPS if s * 28 * DAY_US >= room), None)  # 28: the shortest month
    return _calendar(start, end, tz, months=month_step or 12 * -(-int(room) // (365 * DAY_US)))


def marker(chart: Chart, width: int) -> tuple[int, str]:
    """Where the "known at" marker goes on the axis: ``▼`` at its time, or
    ``◀``/``▶`` at an edge when it lies before or after the drawn span."""
    col = _column(chart, width, chart.known_at)
    if col < 0:
        return 0, "◀"
    if col >= width:
        return width - 1, "▶"
    return col, "▼"


def axis_line(chart: Chart, width: int, tz: int) -> str:
    """The axis: the "known at" marker, and date labels at calendar ticks,
    each whole, none overlapping another or the marker. Exactly ``width`` cells."""
    if width <= 0:
        return ""
    cells = [" "] * width
    mark_at, mark = marker(chart, width)
    cells[mark_at] = mark
    taken = [(mark_at, mark_at + 1)]

    def place(times: list[int], most: int) -> None:
        for t in times:
            if len(taken) > most:
                return
            label = _date(t, tz)
            pos = _column(chart, width, t)
            end = pos + cell_len(label)
            if pos < 0 or end > width:
                continue
            if any(pos < b + TICK_GAP - 1 and a < end + TICK_GAP - 1 for a, b in taken):
                continue  # would touch another label or the marker
            cells[pos:end] = list(label)
            taken.append((pos, end))

    place(ticks(chart.start, chart.end, width, tz), width)
    if len(taken) == 1:  # none of the spaced ticks fits: one label at any midnight that does
        long = chart.end - chart.start > 366 * DAY_US
        place(_calendar(chart.start, chart.end, tz, days=0 if long else 1, months=1), 1)
    return "".join(cells)


def start_edge(fact: Fact) -> str:
    """The mark an interval starts with: how its start is known."""
    if fact.start == "heard":
        return "┊"
    return "▏" if fact.latest_start <= fact.valid_from else "╎"


def segment_body(seg: Segment, width: int, tz: int) -> str:
    """One interval drawn in ``width`` cells: its start edge, a retired mark,
    its value, its due date and an open end, the less important parts
    shortened or left out first when it is narrow."""
    if width <= 0:
        return ""
    fact = seg.fact
    edge = start_edge(fact)
    if width == 1:
        return edge
    head = edge + ("×" if seg.retired else "")
    arrow = "→" if fact.valid_to is None and not seg.retired and width >= 4 else ""
    room = width - cell_len(head) - cell_len(arrow)
    value = ("¬" if fact.polarity == "negative" else "") + fact.object
    due = fact.due
    tag = ""
    if due is not None:
        options = (" @" + _date(due, tz), " @" + _date(due, tz, "%m-%d"), "@")
        fits = [o for o in options if cell_len(o) <= room - min(cell_len(value), 4)]
        tag = fits[0] if fits else ("@" if room >= 1 else "")
    text = ellipsize(value, max(room - cell_len(tag), 0)) + tag
    fill = RETIRED_FILL if seg.retired else " "
    pad = max(room - cell_len(text), 0)
    return set_cell_size(head + text + fill * pad + arrow, width)


def segment_style(seg: Segment, selected: bool, now: int) -> str:
    """Bright for believed intervals (cyan once they ended), dim for retired ones."""
    if selected:
        return "bold reverse" if not seg.retired else "reverse"
    if seg.retired:
        return "dim on grey19"
    if seg.fact.valid_to is not None and seg.fact.valid_to <= now:
        return "on dark_cyan"
    return "bold on dark_green"


def lane_spans(chart: Chart, lane: Lane, width: int) -> list[tuple[int, int]]:
    """The cells [x0, x1) each segment of ``lane`` is drawn in (x1 <= x0: not drawn)."""
    out: list[tuple[int, int]] = []
    col = 0
    for seg in lane.segments:
        x0 = max(0, min(width, _column(chart, width, seg.start)))
        x1 = max(min(width, _column(chart, width, seg.end)), x0 + 1)
        x0 = max(x0, col)
        x1 = min(x1, width)
        out.append((x0, x1))
        col = max(col, x1)
    return out


def lane_text(chart: Chart, lane: Lane, width: int, tz: int, now: int,
              cursor: int | None = None) -> Text:
    """One lane's intervals, ``width`` cells (the drawing area only)."""
    out = Text(no_wrap=True, end="")
    col = 0
    for j, (seg, (x0, x1)) in enumerate(zip(lane.segments, lane_spans(chart, lane, width),
                                            strict=True)):
        if x1 <= x0:
            continue
        out.append(" " * (x0 - col))
        out.append(segment_body(seg, x1 - x0, tz), style=segment_style(seg, j == cursor, now))
        col = x1
    out.append(" " * (width - col))
    return out


def legend_line(chart: Chart, width: int, tz: int) -> str:
    """What the marks mean (only those the chart uses) and the "known at" time,
    shortened, then cut, to fit ``width`` cells."""
    facts = [s for lane in chart.lanes for s in lane.segments]
    mark = marker(chart, width)[1] if width > 0 else "▼"
    when = _date(chart.known_at, tz)
    edges = {start_edge(s.fact) for s in facts}
    starts = [(long, short) for edge, long, short in (
        ("▏", "▏stated", "▏"), ("╎", "╎start within a window", "╎window"),
        ("┊", "┊only heard start", "┊heard")) if edge in edges]
    items = [(f"{mark} known at {when}", f"{mark} {when}"),
             (" ".join(long for long, _ in starts), " ".join(short for _, short in starts))]
    if any(s.fact.due is not None for s in facts):
        items.append(("@ due", "@due"))
    if any(s.fact.valid_to is None and not s.retired for s in facts):
        items.append(("→ open-ended", "→open"))
    if any(s.retired for s in facts):
        items.append((f"×{RETIRED_FILL} retired by then", "×retired"))
    if any(s.fact.polarity == "negative" for s in facts):
        items.append(("¬ not", "¬not"))
    # every item short, then as many as fit written out in full, in order
    chosen = [short for _, short in items]
    for i, (long, _) in enumerate(items):
        trial = chosen[:i] + [long] + chosen[i + 1:]
        if cell_len("  ".join(trial)) <= width:
            chosen = trial
    while len(chosen) > 1 and cell_len("  ".join(chosen)) > width:
        chosen.pop()
    text = "  ".join(chosen)
    return text if cell_len(text) <= width else ellipsize(text, width)


class TimelineChart(ScrollView, can_focus=True):
    """Draws a ``Chart``: the axis on top and the legend below stay in place,
    the lanes between them scroll. Arrows or h/j/k/l move between intervals
    (the lanes scroll to keep the cursor in view), enter selects, a click
    selects the interval under the pointer."""

    BINDINGS = [
        Binding("left,h", "move(0, -1)", "Prev", show=False, id="timeline.left"),
        Binding("right,l", "move(0, 1)", "Next", show=False, id="timeline.right"),
        Binding("up,k", "move(-1, 0)", "Up", show=False, id="timeline.up"),
        Binding("down,j", "move(1, 0)", "Down", show=False, id="timeline.down"),
        Binding("enter", "select", "Details", id="timeline.select"),
    ]

    DEFAULT_CSS = """
    TimelineChart {
        height: auto;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 0;
        scrollbar-gutter: stable;
    }
    """

    class Selected(Message):
        """The cursor moved to (or enter was pressed on) an interval."""

        def __init__(self, fact: Fact, chosen: bool) -> None:
            self.fact = fact
            self.chosen = chosen
            super().__init__()

    cursor: reactive[tuple[int, int]] = reactive((0, 0))

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self._rows: tuple[Fact, ...] = ()
        self._known_at = 0
        self._now = 0
        self._chart: Chart | None = None
        self._tz = 0

    # ----------------------------------------------------------------- data
    def show(self, rows: tuple[Fact, ...], known_at: int, now: int) -> None:
        """Replace the data; keeps the cursor on the same fact when it is still drawn."""
        old = self.selected_fact
        self._rows, self._known_at, self._now = rows, known_at, now
        self._tz = rows[0].tz if rows else 0
        self._relayout()
        if old is not None:
            self._seek(old.id)
        self.watch_cursor()

    def _relayout(self) -> None:
        self._chart = layout(self._rows, self._known_at, self._now, self._area_width())
        lanes = self._chart.lanes
        lane = min(self.cursor[0], max(len(lanes) - 1, 0))
        seg = min(self.cursor[1], max(len(lanes[lane].segments) - 1, 0)) if lanes else 0
        self.set_reactive(TimelineChart.cursor, (lane, seg))
        self.virtual_size = Size(self._width(), len(lanes) + 2 if lanes else 1)
        self.refresh(layout=True)

    def _seek(self, fact_id: int) -> None:
        for i, lane in enumerate(self._chart.lanes if self._chart else ()):
            for j, seg in enumerate(lane.segments):
                if seg.fact.id == fact_id:
                    self.set_reactive(TimelineChart.cursor, (i, j))
                    return

    def _width(self) -> int:
        """Cells of one line: the widget less its border, padding and scrollbar gutter."""
        return self.scrollable_content_region.width or 120

    def _label_width(self) -> int:
        return label_width(self._width())

    def _area_width(self) -> int:
        """Cells of the drawing area: the line less the predicate column and a space."""
        return max(self._width() - self._label_width() - 1, 1)

    def on_resize(self) -> None:
        old = self.selected_fact
        self._relayout()
        if old is not None:
            self._seek(old.id)
        self._keep_cursor_in_view()

    @property
    def chart(self) -> Chart | None:
        return self._chart

    @property
    def selected_fact(self) -> Fact | None:
        chart = self._chart
        if not chart or not chart.lanes:
            return None
        lane, seg = self.cursor
        if lane >= len(chart.lanes) or seg >= len(chart.lanes[lane].segments):
            return None
        return chart.lanes[lane].segments[seg].fact

    # -------------------------------------------------------------- actions
    def action_move(self, d_lane: int, d_seg: int) -> None:
        chart = self._chart
        if not chart or not chart.lanes:
            return
        lane, seg = self.cursor
        if d_lane:
            target = max(0, min(len(chart.lanes) - 1, lane + d_lane))
            if target != lane:
                here = chart.lanes[lane].segments[seg].start
                segs = chart.lanes[target].segments
                seg = min(range(len(segs)), key=lambda j: abs(segs[j].start - here))
                lane = target
        else:
            seg = max(0, min(len(chart.lanes[lane].segments) - 1, seg + d_seg))
        self.cursor = (lane, seg)

    def watch_cursor(self) -> None:
        self._keep_cursor_in_view()
        self.refresh()
        fact = self.selected_fact
        if fact is not None:
            self.post_message(self.Selected(fact, chosen=False))

    def action_select(self) -> None:
        fact = self.selected_fact
        if fact is not None:
            self.post_message(self.Selected(fact, chosen=True))

    def on_click(self, event: events.Click) -> None:
        """Put the cursor on the interval under the pointer."""
        offset = event.get_content_offset(self)
        chart = self._chart
        if offset is None or chart is None:
            return
        lane = self._lane_at(offset.y)
        col = offset.x - self._label_width() - 1
        if lane is None or col < 0:
            return
        spans = lane_spans(chart, chart.lanes[lane], self._area_width())
        for j, (x0, x1) in enumerate(spans):
            if x0 <= col < x1:
                self.cursor = (lane, j)
                return

    # ------------------------------------------------------------ scrolling
    def _visible_lanes(self) -> int:
        """How many lanes fit between the axis and the legend."""
        return max(self.scrollable_content_region.height - 2, 0)

    def _lane_at(self, y: int) -> int | None:
        """The lane drawn on line ``y`` of the widget, if one is."""
        chart = self._chart
        if chart is None or not 1 <= y <= self._visible_lanes():
            return None
        lane = int(self.scroll_y) + y - 1
        return lane if lane < len(chart.lanes) else None

    def _keep_cursor_in_view(self) -> None:
        shown = self._visible_lanes()
        if not shown or not self._chart or not self._chart.lanes:
            return
        lane, top = self.cursor[0], int(self.scroll_y)
        if lane < top:
            self.scroll_to(y=lane, animate=False)
        elif lane >= top + shown:
            self.scroll_to(y=lane - shown + 1, animate=False)

    # ------------------------------------------------------------ rendering
    def render_line(self, y: int) -> Strip:
        width = self._width()
        base = self.rich_style
        line = self._line(y, width)
        line.stylize_before(base)
        return Strip(line.render(self.app.console)).crop_extend(0, width, base)

    def _line(self, y: int, width: int) -> Text:
        chart = self._chart
        if chart is None or not chart.lanes:
            if y == 0:
                return Text("nothing was known about this subject at that time", style="italic")
            return Text()
        label_w = self._label_width()
        area = self._area_width()
        shown = min(self._visible_lanes(), len(chart.lanes))
        if y == 0:
            head = set_cell_size(ellipsize("valid time", label_w), label_w) + " "
            return Text(head + axis_line(chart, area, self._tz), style="dim", end="")
        if y == shown + 1:
            return Text(legend_line(chart, width, self._tz), style="dim", end="")
        lane_no = self._lane_at(y)
        if lane_no is None:
            return Text()
        lane = chart.lanes[lane_no]
        label = ellipsize(lane.predicate, label_w) if lane.first else ""
        out = Text(no_wrap=True, end="")
        out.append(set_cell_size(label, label_w) + " ", style="bold" if lane.first else "")
        cursor = self.cursor[1] if self.cursor[0] == lane_no else None
        out.append(lane_text(chart, lane, area, self._tz, self._now, cursor))
        return out

