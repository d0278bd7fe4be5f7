"""A subject's facts drawn to scale on a valid-time axis, one band per predicate.

``layout`` is pure: it decides which rows are visible at a "known at" time,
which are dimmed (retired by then), and packs intervals into lanes so none
overlap on screen. ``TimelineChart`` renders that layout and moves a cursor
over the intervals.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

from memdesk.core import Fact
from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

LABEL_WIDTH = 16
DAY_US = 86_400_000_000


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
    visible = [r for r in rows if r.recorded_at <= known_at]
    if not visible:
        return Chart((), now, now + DAY_US, known_at)
    start = min(r.valid_from for r in visible)
    last = max([r.valid_from for r in visible] + [r.valid_to for r in visible if r.valid_to]
               + [r.recorded_at for r in visible])
    # open intervals run to the right edge: a little past the last thing that happened
    end = last + max((last - start) // 8, 7 * DAY_US)
    start -= DAY_US
    span = max(end - start, 1)

    def x(t: int) -> int:
        return int((t - start) * width / span)

    lanes: list[Lane] = []
    for predicate in sorted({r.predicate for r in visible}):
        mine = [r for r in visible if r.predicate == predicate]
        believed = [r for r in mine if r.retired_at is None or r.retired_at > known_at]
        retired = [r for r in mine if not (r.retired_at is None or r.retired_at > known_at)]
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


def _date(t: int, tz_minutes: int) -> str:
    zone = timezone(timedelta(minutes=tz_minutes)) if tz_minutes else UTC
    return datetime.fromtimestamp(t / 1e6, zone).strftime("%Y-%m-%d")


class TimelineChart(Widget, can_focus=True):
    """Draws a ``Chart``; arrows or h/j/k/l move between intervals, enter selects."""

    BINDINGS = [
        Binding("left,h", "move(0, -1)", "Prev", show=False, id="timeline.left"),
        Binding("right,l", "move(0, 1)", "Next", show=False, id="timeline.right"),
        Binding("up,k", "move(-1, 0)", "Up", show=False, id="timeline.up"),
        Binding("down,j", "move(1, 0)", "Down", show=False, id="timeline.down"),
        Binding("enter", "select", "Details", id="timeline.select"),
    ]

    DEFAULT_CSS = """
    TimelineChart { height: auto; min-height: 3; }
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
        self.refresh(layout=True)
        self.watch_cursor()

    def _relayout(self) -> None:
        self._chart = layout(self._rows, self._known_at, self._now, self._area_width())
        lanes = self._chart.lanes
        lane = min(self.cursor[0], max(len(lanes) - 1, 0))
        seg = min(self.cursor[1], max(len(lanes[lane].segments) - 1, 0)) if lanes else 0
        self.set_reactive(TimelineChart.cursor, (lane, seg))

    def _seek(self, fact_id: int) -> None:
        for i, lane in enumerate(self._chart.lanes if self._chart else ()):
            for j, seg in enumerate(lane.segments):
                if seg.fact.id == fact_id:
                    self.set_reactive(TimelineChart.cursor, (i, j))
                    return

    def _area_width(self) -> int:
        return max((self.size.width or 120) - LABEL_WIDTH - 1, 20)

    def on_resize(self) -> None:
        self._relayout()

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
        fact = self.selected_fact
        if fact is not None:
            self.post_message(self.Selected(fact, chosen=False))

    def action_select(self) -> None:
        fact = self.selected_fact
        if fact is not None:
            self.post_message(self.Selected(fact, chosen=True))

    # ------------------------------------------------------------ rendering
    def get_content_height(self, container, viewport, width: int) -> int:  # noqa: ANN001
        return (len(self._chart.lanes) if self._chart else 1) + 2

    def render(self) -> Text:
        chart = self._chart
        width = self._area_width()
        out = Text(no_wrap=True, overflow="crop")
        if chart is None or not chart.lanes:
            out.append("nothing was known about this subject at that time", style="italic")
            return out
        span = max(chart.end - chart.start, 1)

        def x(t: int) -> int:
            return max(0, min(width, int((t - chart.start) * width / span)))

        out.append(self._axis(chart, width, x))
        for i, lane in enumerate(chart.lanes):
            out.append("\n")
            label = lane.predicate if lane.first else ""
            out.append(set_cell_size(label, LABEL_WIDTH) + " ", style="bold" if lane.first else "")
            col = 0
            for j, seg in enumerate(lane.segments):
                x0, x1 = x(seg.start), max(x(seg.end), x(seg.start) + 1)
                x0 = max(x0, col)
                if x1 <= x0:
                    continue
                if x0 > col:
                    out.append(" " * (x0 - col))
                w = x1 - x0
                fact = seg.fact
                text = fact.object if fact.polarity != "negative" else f"¬{fact.object}"
                if fact.event_start not in (None, fact.valid_from):  # a dated item: when due
                    text += " @" + _date(fact.event_start, fact.tz)
                edge = "┊" if fact.start_stated is False and seg.start == fact.valid_from else "▏"
                body = set_cell_size((edge + text) if w > 1 else edge, w)
                if seg.fact.valid_to is None and w >= 4:
                    body = set_cell_size(body, w - 1) + "→"
                out.append(body, style=self._style(seg, (i, j) == self.cursor))
                col = x1
            if col < width:
                out.append(" " * (width - col))
        known = Text(f"\nknown at {_date(chart.known_at, self._tz)}"
                     " (▼)   bright = believed then   dim = retired by then   ¬ = negative   → open-ended"
                     "   ┊ = start only heard   @ = due",
                     style="dim")
        out.append(known)
        return out

    def _axis(self, chart: Chart, width: int, x) -> Text:  # noqa: ANN001
        line = [" "] * width
        ticks = 5
        for k in range(ticks + 1):
            t = chart.start + (chart.end - chart.start) * k // ticks
            label = _date(t, self._tz)
            pos = min(x(t), width - cell_len(label))
            for n, ch in enumerate(label):
                if 0 <= pos + n < width:
                    line[pos + n] = ch
        marker = x(self._chart.known_at) if self._chart else -1
        if 0 <= marker < width and line[marker] == " ":
            line[marker] = "▼"
        return Text(set_cell_size("valid time", LABEL_WIDTH) + " " + "".join(line), style="dim")

    def _style(self, seg: Segment, selected: bool) -> str:
        if selected:
            return "bold reverse" if not seg.retired else "reverse"
        if seg.retired:
            return "dim on grey19"
        if seg.fact.valid_to is not None and seg.fact.valid_to <= self._now:
            return "on dark_cyan"
        return "bold on dark_green"
