"""Timeline: one subject's facts per predicate on a valid-time axis, with a
"known at" control that replays what the system believed on a chosen day."""

from __future__ import annotations

from memdesk.core import InvalidInput, parse_time_us
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Header, Input, Label, Static

from ..service import FactDetail, TimelineData
from ..widgets.keybar import KeyBar
from ..widgets.timeline_chart import TimelineChart
from .base import MemdeskScreen, when


class TimelineLoaded(Message):
    def __init__(self, data: TimelineData) -> None:
        self.data = data
        super().__init__()


class FactLoaded(Message):
    def __init__(self, detail: FactDetail) -> None:
        self.detail = detail
        super().__init__()


def change_points(data: TimelineData) -> list[int]:
    """Every transaction time at which belief about the subject changed."""
    points = {r.recorded_at for r in data.rows} | {r.retired_at for r in data.rows if r.retired_at}
    return sorted(points)


def fact_text(detail: FactDetail) -> Text:
    """The details panel: the row's fields, its source turn and its provenance chain."""
    f = detail.fact
    out = Text()
    out.append(f"fact {f['id']}  ", style="bold")
    out.append(f"{f['subject']}  {f['predicate']} = {f['object']}", style="bold")
    out.append(f"   [{f['status']}]\n", style="yellow" if f["status"] != "active" else "green")
    start = {"stated": "stated", "heard": "only heard (held since some time before then)"}.get(
        f.get("start") or "", "not recorded")
    out.append(f"valid    {(f['valid_from'] or '')[:16]} → {(f['valid_to'] or '…')[:16]}"
               f"   start {start}\n")
    event = f.get("event_time")
    if event or f.get("expires_at"):
        span = (f"{(event['start'] or '')[:16]} → {(event['end'] or '')[:16]}" if event else "—")
        out.append(f"due      {span}   expires {(f.get('expires_at') or 'never')[:16]}\n")
    out.append(f"recorded {(f['recorded_at'] or '')[:16]}   retired {(f['retired_at'] or '—')[:16]}"
               f"{'  (' + f['retire_reason'] + ')' if f.get('retire_reason') else ''}\n")
    out.append(f"polarity {f['polarity']}   scope {f['scope']}   confidence "
               f"{f['confidence']:.2f}   extractor {f['extractor']}   mentions {f.get('mentions', 1)}\n")
    src = f.get("source")
    if src:
        out.append(f"source   {src['session']}#{src['turn']} {src['kind']} "
                   f"{(src['time'] or '')[:16]}: ", style="")
        out.append(f"“{src['text']}”\n", style="italic")
    if detail.audit is not None:
        out.append("\nprovenance\n", style="bold underline")
        for step in detail.audit.chain:
            out.append(f"  {when(step.at, step.tz)}  {step.step:<10} ", style="cyan")
            out.append(f"{step.actor}: {step.summary}\n")
    return out


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
        yield Header()
        with Horizontal(id="timeline-bar", classes="bar"):
            yield Label("", id="timeline-subject")
            yield Input(placeholder="known at (YYYY-MM-DD, or empty for now)", id="known-at")
        with VerticalScroll(id="timeline-scroll"):
            yield TimelineChart(id="chart")
        yield Static("select an interval (arrows or h/j/k/l) to see its details and provenance",
                     id="fact-detail", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        for widget in self.query(TimelineChart):  # none if the app closes while this screen is built
            widget.focus()

    def on_screen_resume(self) -> None:
        subject = self.memdesk.subject
        if subject and (self.data is None or self.data.subject != subject):
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
        self.data = message.data
        self.query_one("#timeline-subject", Label).update(
            f"[b]{message.data.subject}[/b]  {len(message.data.rows)} rows")
        self.redraw()

    def redraw(self) -> None:
        if self.data is None:
            return
        known = self.known_at if self.known_at is not None else self.data.now
        self.query_one(TimelineChart).show(self.data.rows, known, self.data.now)
        self.query_one("#known-at", Input).value = (
            "" if self.known_at is None else when(self.known_at, self._tz(), minutes=True))

    def _tz(self) -> int:
        return self.data.rows[0].tz if self.data and self.data.rows else 0

    @on(TimelineChart.Selected)
    def fact_selected(self, message: TimelineChart.Selected) -> None:
        self.load_fact(message.fact.id)

    def on_fact_loaded(self, message: FactLoaded) -> None:
        self.query_one("#fact-detail", Static).update(fact_text(message.detail))

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
            if len(text) == 10:  # a day: what was believed at the end of it
                text += "T23:59:59"
            if "+" not in text[10:] and not text.endswith("Z"):
                tz = self._tz()
                text += f"{'+' if tz >= 0 else '-'}{abs(tz) // 60:02d}:{abs(tz) % 60:02d}"
            try:
                self.known_at = parse_time_us(text, "known at")
            except InvalidInput as exc:
                self.notify(str(exc), severity="error")
                return
        self.redraw()
        self.query_one(TimelineChart).focus()

    def action_leave_input(self) -> None:
        self.query_one(TimelineChart).focus()

    def action_audit(self) -> None:
        fact = self.query_one(TimelineChart).selected_fact
        if fact is not None:
            self.memdesk.open_audit(fact.subject, fact.predicate, fact.object)

    def action_reload(self) -> None:
        if self.data is not None:
            self.load(self.data.subject)
