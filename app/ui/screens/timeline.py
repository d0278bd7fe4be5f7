"""Timeline: one subject's facts per predicate on a valid-time axis, with a
"known at" control that replays what the system believed on a chosen day."""

from __future__ import annotations

from datetime import timedelta, timezone

from memdesk import InvalidInput, read_moment
from rich.cells import cell_len
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Label, Static

from ...tables import start_brief
from ..service import FactDetail, TimelineData
from ..text import ellipsize, plural, short_time, shown, shown_all
from ..widgets.desk_header import DeskHeader
from ..widgets.keybar import KeyBar
from ..widgets.timeline_chart import TimelineChart
from .base import Fetched, MemdeskScreen, when


class TimelineLoaded(Fetched):
    def __init__(self, data: TimelineData) -> None:
        self.data = data
        super().__init__()


class FactLoaded(Fetched):
    def __init__(self, detail: FactDetail) -> None:
        self.detail = detail
        super().__init__()


def change_points(data: TimelineData) -> list[int]:
    """Every told time at which belief about the subject changed (the told
    axis: when the store was told what wrote or retired a row)."""
    points = {r.told_from for r in data.rows}
    points |= {t for r in data.rows if (t := r.told_until) is not None}
    return sorted(points)


KNOWN_AT_HINTS = (
    "known at (YYYY-MM-DD, or empty for now)",
    "known at YYYY-MM-DD (empty: now)",
    "known at YYYY-MM-DD",
    "known at",
)
"""The "known at" input's placeholder, longest first: the longest that fits is shown."""
KNOWN_AT_VALUE = "YYYY-MM-DD HH:MM"  # what the input shows once a time is set


def known_at_fit(bar_width: int, gutter: int) -> tuple[str, int]:
    """The placeholder and the width of the "known at" input on a bar
    ``bar_width`` cells wide (``gutter`` = the input's border and padding): the
    longest hint whose input takes at most half the bar, the input as wide as
    that hint or a set time needs (plus the cursor's cell)."""
    room = max(bar_width // 2 - gutter - 1, 0)
    hint = next((h for h in KNOWN_AT_HINTS if cell_len(h) <= room), KNOWN_AT_HINTS[-1])
    return hint, max(cell_len(hint), cell_len(KNOWN_AT_VALUE)) + 1 + gutter


def _flow(parts: list[Text], width: int, sep: str = "  ") -> list[Text]:
    """``parts`` on as few lines of ``width`` cells as they fit on whole, in
    order; a part wider than a line is cut with an ellipsis."""
    lines: list[Text] = []
    line = Text()
    for part in parts:
        if part.cell_len > width:
            part = Text(ellipsize(part.plain, width), style=part.style)
        if line.plain and line.cell_len + cell_len(sep) + part.cell_len > width:
            lines.append(line)
            line = Text()
        if line.plain:
            line.append(sep)
        line.append_text(part)
    if line.plain:
        lines.append(line)
    return lines


def fact_text(detail: FactDetail, width: int = 100) -> Text:
    """The details panel, ``width`` cells wide: the row's fields on a few lines,
    then its provenance chain, one line a step (long texts cut: the audit
    screen, ``p``, shows the whole chain)."""
    f = shown_all(detail.fact)  # stored text, one line each
    width = max(width, 20)
    status = f["status"]
    src = f.get("source") or {}
    parts = [Text(f"fact {f['id']}", style="bold"),
             Text(f"{f['predicate']} = {'¬' if f['polarity'] == 'negative' else ''}{f['object']}",
                  style="bold"),
             Text(f"[{status}]", style="green" if status == "active" else "yellow")]
    if src:
        parts.append(Text(f"from {src['session']}#{src['turn']}", style="dim"))
    times = [Text(f"valid {short_time(f['valid_from'])} → {short_time(f['valid_to'])}"),
             Text(f"({start_brief(f['start'])})", style="dim"),
             Text(f"told {short_time(f['known_from'])}")]
    if f.get("retired_at"):  # on the told axis; the audit screen shows when it was recorded
        times.append(Text(f"retired {short_time(f['known_until'])} ({f.get('retire_reason')})",
                          style="yellow"))
    elif f.get("expires_at"):
        times.append(Text(f"expires {short_time(f['expires_at'])}", style="dim"))
    event = f.get("event_time")
    if event:
        end = f"–{short_time(event['end'])}" if event.get("end") else ""
        due = f["due"] is not None  # a todo's or plan's own time (a move's is its start)
        times.append(Text(f"{'due' if due else 'event'} {short_time(event['start'])}{end}",
                          style="bold" if due else ""))
    mentions = f.get("mentions", 1)
    more = [Text(f"{f['polarity']} · {f['scope']} · confidence {f['confidence']:.2f}"
                 + (f" · {src['kind']}" if src else "")),
            Text(f"{f['extractor']} · {plural(mentions, 'mention')}")]
    lines = _flow(parts, width, "  ") + _flow(times, width, "   ") + _flow(more, width, "   ")
    if detail.audit is not None and detail.audit.chain:
        lines.append(Text(ellipsize("provenance (p: the whole chain in the audit screen)", width),
                          style="bold"))
        previous = ""
        for step in detail.audit.chain:
            at = when(step.at, step.tz)
            stamp = at if at != previous else " " * cell_len(at)
            previous = at
            line = Text(f"{stamp}  ", style="cyan")
            line.append(f"{step.step:<10} ", style="cyan")
            rest = width - line.cell_len
            line.append(ellipsize(f"{step.actor}: {step.summary}", rest))
            lines.append(line)
    out = Text("\n").join(lines)
    out.no_wrap = True
    return out


SELECT_HINT = "select an interval (arrows or h/j/k/l) to see its details and provenance"


class FactPanel(Static):
    """The details panel's text (in a scrolling box): redraws its fact for its width."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(SELECT_HINT, id=id, classes=classes)
        self.detail: FactDetail | None = None

    def show(self, detail: FactDetail) -> None:
        self.detail = detail
        self._draw()

    def clear(self, hint: str = SELECT_HINT) -> None:
        """No fact to show (nothing drawn at the "known at" time)."""
        self.detail = None
        self.update(hint)

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if self.detail is not None:
            self.update(fact_text(self.detail, self.scrollable_content_region.width or 100))


class TimelineScreen(MemdeskScreen):
    """A subject's per-predicate timeline."""

    BINDINGS = [
        Binding("left_square_bracket", "known_step(-1)", "Known −", id="timeline.known_prev"),
        Binding("right_square_bracket", "known_step(1)", "Known +", id="timeline.known_next"),
        Binding("n", "known_now", "Known now", id="timeline.known_now"),
        Binding("t", "focus_known", "Known at…", id="timeline.known_input"),
        Binding("p", "audit", "Audit", id="timeline.audit"),
        Binding("r", "reload", "Reload", id="timeline.reload"),
        Binding("escape", "leave_input", "Chart", show=False, id="timeline.chart"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.data: TimelineData | None = None
        self.known_at: int | None = None  # None = now

    def compose(self) -> ComposeResult:
        yield DeskHeader()
        with Horizontal(id="timeline-bar", classes="bar"):
            yield Label("", id="timeline-subject")
            yield Input(placeholder=KNOWN_AT_HINTS[0], id="known-at")
        yield TimelineChart(id="timeline-chart")
        with VerticalScroll(id="fact-detail", classes="panel"):
            yield FactPanel(id="fact-text")
        yield KeyBar()

    def on_mount(self) -> None:
        if not self.built:
            return
        self.query_one(TimelineChart).focus()
        self._fit_known_at()

    def on_resize(self, event: events.Resize) -> None:
        # (Textual also calls MemdeskScreen.on_resize, which sets ``narrow``)
        self._fit_known_at()

    def _fit_known_at(self) -> None:
        """Size the "known at" input and pick a placeholder that fits it whole."""
        for field in self.query("#known-at").results(Input):
            bar = self.query_one("#timeline-bar")
            hint, width = known_at_fit(self.size.width - bar.styles.gutter.width,
                                       field.styles.gutter.width)
            field.placeholder = hint
            field.styles.width = width

    def on_screen_resume(self) -> None:
        if not self.built:
            return
        subject = self.memdesk.subject
        if subject and (self.data is None or self.data.subject != subject):
            self.hold_keys("timeline")  # keys typed next move in this subject's chart
            self.load(subject)
        elif not subject and self.memdesk.overview is not None:
            self.query_one("#timeline-subject", Label).update(
                "this store holds no facts yet: ingest a conversation or import facts "
                "(memdesk ingest FILE / memdesk import FILE), or try memdesk demo")

    # ---------------------------------------------------------------- data
    @work(thread=True, exclusive=True, group="timeline")
    def load(self, subject: str) -> None:
        try:
            self.post_message(TimelineLoaded(self.service.timeline(subject)))
        except Exception as exc:  # noqa: BLE001 - reported to the user
            self.report(exc)

    @work(thread=True, exclusive=True, group="fact")
    def load_fact(self, fact_id: int) -> None:
        try:
            self.post_message(FactLoaded(self.service.fact_detail(fact_id)))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    def on_timeline_loaded(self, message: TimelineLoaded) -> None:
        if message.superseded:
            return
        self.release_keys("timeline")
        self.data = message.data
        self.query_one("#timeline-subject", Label).update(Text.assemble(
            (shown(message.data.subject), "bold"), f"  {len(message.data.rows)} rows"))
        self.redraw()

    def redraw(self) -> None:
        if self.data is None:
            return
        known = self.known_at if self.known_at is not None else self.data.now
        chart = self.query_one(TimelineChart)
        chart.show(self.data.rows, known, self.data.now)
        if chart.selected_fact is None:
            self.query_one(FactPanel).clear("nothing was known about this subject at that time: "
                                            "] or n steps forward")
        if not self.query_one("#known-at", Input).has_focus:  # a reload keeps what is being typed
            self._show_known_at()

    def _show_known_at(self) -> None:
        """The "known at" input shows the time replayed (empty for now)."""
        self.query_one("#known-at", Input).value = (
            "" if self.known_at is None else when(self.known_at, self._tz(), minutes=True))

    def _tz(self) -> int:
        return self.data.rows[0].tz if self.data and self.data.rows else 0

    @on(TimelineChart.Selected)
    def fact_selected(self, message: TimelineChart.Selected) -> None:
        self.load_fact(message.fact.id)

    def on_fact_loaded(self, message: FactLoaded) -> None:
        if message.superseded:
            return
        panel = self.query_one(FactPanel)
        selected = self.query_one(TimelineChart).selected_fact
        if selected is None or selected.id == message.detail.fact["id"]:  # not a stale answer
            panel.show(message.detail)

    # ------------------------------------------------------------- actions
    def action_known_step(self, direction: int) -> None:
        """Jump "known at" to the previous/next moment belief changed."""
        if self.data is None:
            return
        points = change_points(self.data)
        if not points:
            return
        current = self.known_at if self.known_at is not None else self.data.now
        if direction < 0:
            earlier = [p for p in points if p < current]
            self.known_at = earlier[-1] if earlier else points[0]
        else:
            later = [p for p in points if p > current]
            self.known_at = later[0] if later else None
        self.redraw()

    def action_known_now(self) -> None:
        self.known_at = None
        self.redraw()

    def action_focus_known(self) -> None:
        self.query_one("#known-at", Input).focus()

    @on(Input.Submitted, "#known-at")
    def known_entered(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or text == "now":
            self.known_at = None
        else:
            tz = self._tz()
            zone = timezone(timedelta(minutes=tz))
            if len(text) > 10 and not any(c in text[10:] for c in "+-Z"):
                # a time as this box shows it: in the subject's offset
                text = text.replace(" ", "T") + f"{'+' if tz >= 0 else '-'}" \
                    f"{abs(tz) // 60:02d}:{abs(tz) % 60:02d}"
            try:  # a bare day: what was believed at the end of it, in the subject's offset
                self.known_at, note = read_moment(text, "known at", zone)
            except InvalidInput as exc:
                self.notify(shown(str(exc)), severity="error", markup=False)
                return
            if note:
                self.notify(shown(note), timeout=4, markup=False)
        self.redraw()
        self._show_known_at()
        self.query_one(TimelineChart).focus()

    def action_leave_input(self) -> None:
        self.query_one(TimelineChart).focus()

    def action_audit(self) -> None:
        fact = self.query_one(TimelineChart).selected_fact
        if fact is not None:
            self.memdesk.open_audit(fact.subject, fact.predicate, fact.object)

    def action_reload(self) -> None:
        if self.data is not None:
            self.hold_keys("timeline")
            self.load(self.data.subject)

    def store_changed(self) -> None:
        """Someone wrote: reload the subject's rows (cursor, known-at time and
        whatever is typed in the known-at box stay)."""
        if self.data is not None:
            self.load(self.data.subject)
