"""Review queue: pending candidates, lowest confidence first, each with its
source turn inside the surrounding conversation. Approve, reject with a
reason, edit then approve, skip, undo the last decision; show one subject's
candidates only (``f``, or ``memdesk app --subject``).

The context panel always shows the candidate under the cursor: every change
to the table (a decision, an undo, a reload) ends in ``_sync``, because a
cursor that stays on the same row index posts no highlight event although
the row under it changed."""

from __future__ import annotations

from dataclasses import dataclass

from memdesk import Candidate, claimed_object
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Label, Static

from ..service import REVIEW_PAGE, CandidateContext, ReviewPage
from ..text import shown
from ..widgets.desk_header import DeskHeader
from ..widgets.fast_table import FastTable
from ..widgets.keybar import KeyBar
from .base import Fetched, MemdeskScreen, cells, conversation_text, when

PREFETCH_MARGIN = 20
SIDE_BY_SIDE = 140
"""From this many columns the context panel stands beside the queue; below
it (120x40 too) it goes under the queue, so the object column has the
screen's width."""


class PageLoaded(Fetched):
    def __init__(self, page: ReviewPage, append: bool) -> None:
        self.page = page
        self.append = append  # a next page; else the queue from its start
        super().__init__()


class ContextLoaded(Fetched):
    def __init__(self, context: CandidateContext) -> None:
        self.context = context
        super().__init__()


class Decided(Message):
    """A decision reached the store (or failed: then ``error`` is set)."""

    def __init__(self, candidate: Candidate, verdict: str, detail: str,
                 error: str | None = None) -> None:
        self.candidate = candidate
        self.verdict = verdict
        self.detail = detail
        self.error = error
        super().__init__()


class Reopened(Message):
    def __init__(self, candidate: Candidate) -> None:
        self.candidate = candidate
        super().__init__()


@dataclass(frozen=True)
class Decision:
    """One decision taken in this sitting, kept for undo."""

    candidate: Candidate
    verdict: str


def unparsed_family(c: Candidate) -> str | None:
    """The fact family of an unparsed statement the signal layer queued (None: another candidate)."""
    value = c.value
    return str(value["unparsed"]) if isinstance(value, dict) and "unparsed" in value else None


def context_text(ctx: CandidateContext) -> Text:
    """The context panel: the candidate, why it waits, the turn it came from
    (first, so it is in view on a small screen), then the conversation around it."""
    c, src = ctx.candidate, ctx.candidate.source
    out = Text()
    out.append(f"candidate {c.id}  ", style="bold")
    out.append(shown(f"{c.subject}  {c.predicate} = {claimed_object(c.change, c.object)}"),
               style="bold")
    out.append(shown(f"   {c.polarity} · {c.scope} · confidence {c.confidence:.2f} · "
                     f"{src.kind} · {src.extractor}") + "\n")
    out.append("why it waits: " + shown("; ".join(c.reasons)) + "\n", style="yellow")
    family = unparsed_family(c)
    if family is not None and c.predicate != "note":
        out.append(f"unparsed statement: the signal layer read a {family} in this clause that no rule "
                   f"could parse, queued as that {c.predicate} in its own words; approve (a) writes it as "
                   "it stands, edit (e) it first, or reject it (x)\n", style="yellow")
    elif family is not None:
        out.append(f"unparsed statement: the signal layer read a {family} fact in this clause that no "
                   "rule could parse; keep it as a note (a), edit it into the fact it states (e), "
                   "or reject it (x)\n", style="yellow")
    elif c.change == "retraction":
        out.append("a retraction an agent asked for: approve (a) retires this value (kept as history, "
                   "status retracted), or reject it (x) to keep the value\n", style="yellow")
    elif c.change == "ending":
        out.append("an ending: approve (a) closes this value where it stopped holding (kept as "
                   "history up to then), or reject it (x) to keep it current\n", style="yellow")
    elif c.change == "correction" and src.kind == "agent_inferred":
        out.append("a correction an agent asked for: approve (a) replaces the current value with this "
                   "one over the old value's time (the old one kept as history), or reject it (x)\n",
                   style="yellow")
    elif c.reading == "tagged":
        out.append("read by the signal layer's value tagger, not by a rule: approve (a) writes this fact, "
                   "edit (e) its value or predicate first, or reject it (x)\n", style="yellow")
    out.append(f"valid from {when(c.valid_from, c.source.tz)}\n")
    out.append(f"said in #{src.turn} ({shown(src.speaker)}, "
               f"{when(src.time, src.tz)}): ", style="cyan")
    out.append(shown(src.text) + "\n\n", style="bold")
    out.append(f"conversation {shown(src.session)}\n", style="bold underline")
    out.append_text(conversation_text(ctx.turns, c.source.turn))
    return out


class ReviewScreen(MemdeskScreen):
    """The review queue."""

    BINDINGS = [
        Binding("a", "approve", "Approve", id="review.approve"),
        Binding("x", "reject", "Reject", id="review.reject"),
        Binding("e", "edit", "Edit+approve", id="review.edit"),
        Binding("s", "skip", "Skip", id="review.skip"),
        Binding("u", "undo", "Undo", id="review.undo"),
        Binding("f", "filter", "Subject only/all", id="review.filter"),
        Binding("p", "audit", "Audit", id="review.audit"),
        Binding("r", "reload", "Reload", id="review.reload"),
        Binding("j", "cursor(1)", "Down", show=False, id="review.down"),
        Binding("k", "cursor(-1)", "Up", show=False, id="review.up"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.items: list[Candidate] = []
        self.total = 0
        self.more = False
        self.loading = False
        self.undo_stack: list[Decision] = []
        self.last = ""  # what the last decision did, shown in the count line
        self.subject_filter: str | None = None  # show this subject's candidates only
        self.shown: int | None = None  # the candidate the context panel shows
        self.deciding: set[int] = set()  # decisions sent, not yet confirmed by the store
        self.undo_waiting = False  # u pressed while a decision was on its way: undo it when it lands

    def compose(self) -> ComposeResult:
        yield DeskHeader()
        yield Label("", id="review-count", classes="bar")
        with Horizontal(id="review-body"):
            # the object is what a person reads: the source kind steps aside for
            # it (the context panel says it)
            table = FastTable(id="review-table", cursor_type="row", zebra_stripes=True,
                              flex=("object", "subject"), caps={"subject": 18},
                              optional=("kind",), want=40)
            table.add_column("id", key="id")
            table.add_column("conf", key="conf")
            table.add_column("subject", key="subject")
            table.add_column("predicate", key="predicate")
            table.add_column("object", key="object")
            table.add_column("kind", key="kind")
            yield table
            yield Static("", id="review-context", classes="panel")
        yield KeyBar()

    def on_resize(self, event: events.Resize) -> None:
        # (Textual also calls MemdeskScreen.on_resize, which sets ``narrow``)
        self.set_class(event.size.width < SIDE_BY_SIDE, "-stacked")

    def on_mount(self) -> None:
        if not self.built:
            return
        self.query_one(DataTable).focus()
        self.subject_filter = self.memdesk.review_subject
        self.hold_keys("page")  # keys typed next act on the queue's first page
        self.fetch(None, append=False)

    def on_screen_resume(self) -> None:
        if not self.built:
            return
        if self.memdesk.focus_candidate is not None:
            self._jump(self.memdesk.focus_candidate)

    # ---------------------------------------------------------------- data
    @work(thread=True, exclusive=True, group="review-page")
    def fetch(self, after: tuple[float, int] | None, append: bool,
              limit: int = REVIEW_PAGE) -> None:
        try:
            self.post_message(PageLoaded(
                self.service.review_page(after, limit, subject=self.subject_filter), append))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    @work(thread=True, exclusive=True, group="review-context")
    def fetch_context(self, candidate_id: int) -> None:
        try:
            self.post_message(ContextLoaded(self.service.candidate_context(candidate_id)))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    def on_page_loaded(self, message: PageLoaded) -> None:
        if message.superseded:
            return
        self.release_keys("page")
        self.loading = False
        page = message.page
        known = {c.id for c in self.items} if message.append else set()
        new = [c for c in page.items if c.id not in known and c.id not in self.deciding]
        if message.append:
            self.items.extend(new)
            self._add_rows(new)
        elif [(c.id, c.confidence) for c in new] != [(c.id, c.confidence) for c in self.items]:
            self._replace(new)
        # a candidate whose decision is in flight is still counted by the store
        self.total = max(page.total - sum(c.id in self.deciding for c in page.items), 0)
        self.more = page.more
        self._count()
        if self.memdesk.focus_candidate is not None:
            self._jump(self.memdesk.focus_candidate)
        self._sync()

    def _add_rows(self, items: list[Candidate]) -> None:
        table = self.query_one(DataTable)
        for c in items:
            shown_object = claimed_object(c.change, c.object)
            table.add_row(*cells(c.id, f"{c.confidence:.2f}", c.subject, c.predicate, shown_object,
                                 c.source.kind), key=str(c.id))

    def _replace(self, items: list[Candidate]) -> None:
        """Show ``items`` instead; the cursor stays on the candidate it was
        on, or at its place when that one is gone."""
        table = self.query_one(DataTable)
        current, row = self.current, table.cursor_row
        self.items = items
        table.clear()
        self._add_rows(items)
        if items:
            ids = [c.id for c in items]
            target = ids.index(current.id) if current is not None and current.id in ids else row
            table.move_cursor(row=max(0, min(target, len(items) - 1)))

    def _count(self) -> None:
        whose = (f" for {self.subject_filter} (f shows all)" if self.subject_filter
                 else "")
        line = Text.assemble((str(self.total), "bold"),
                             shown(f" pending{whose}, lowest confidence first · "
                                   f"{len(self.items)} loaded · decided this sitting: "
                                   f"{len(self.undo_stack)}"
                                   + (f" · {self.last}" if self.last else "")))
        self.query_one("#review-count", Label).update(line)

    def _jump(self, candidate_id: int) -> None:
        for i, c in enumerate(self.items):
            if c.id == candidate_id:
                self.query_one(DataTable).move_cursor(row=i)
                self.memdesk.focus_candidate = None
                return

    @property
    def current(self) -> Candidate | None:
        row = self.query_one(DataTable).cursor_row
        return self.items[row] if 0 <= row < len(self.items) else None

    def _sync(self) -> None:
        """Bring the context panel to the candidate under the cursor (fetched
        only when that is another candidate than the one shown)."""
        cand = self.current
        panel = self.query_one("#review-context", Static)
        if cand is None:
            self.shown = None
            if self.more:
                panel.update("")
            elif self.subject_filter:
                panel.update(Text(f"nothing of {shown(self.subject_filter)} waits for review · "
                                  "f shows every subject's candidates"))
            else:
                panel.update("the review queue is empty: candidates come from ingest and "
                             "import when a gate holds a claim for a person to decide")
            return
        if cand.id != self.shown:
            self.fetch_context(cand.id)

    @on(DataTable.RowHighlighted)
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._sync()
        if (self.more and not self.loading and self.items
                and event.cursor_row >= len(self.items) - PREFETCH_MARGIN):
            self.loading = True
            last = self.items[-1]
            self.fetch((last.confidence, last.id), append=True)

    def on_context_loaded(self, message: ContextLoaded) -> None:
        if message.superseded:
            return
        cand = self.current
        if cand is not None and cand.id == message.context.candidate.id:
            self.shown = cand.id
            self.query_one("#review-context", Static).update(context_text(message.context))

    # ------------------------------------------------------------ decisions
    def _take_current(self) -> tuple[Candidate, int] | None:
        """Remove the current row optimistically; the cursor stays at its index."""
        cand = self.current
        if cand is None:
            return None
        table = self.query_one(DataTable)
        row = table.cursor_row
        self.items.pop(row)
        self.deciding.add(cand.id)
        table.remove_row(str(cand.id))
        if self.items:
            table.move_cursor(row=min(row, len(self.items) - 1))
        self.total = max(self.total - 1, 0)
        self._sync()
        return cand, row

    @work(thread=True, group="decide")
    def decide(self, cand: Candidate, verdict: str, reason: str | None = None,
               edits: dict | None = None) -> None:
        """Send a decision (the row already left the table; ``deciding``
        keeps a reload from bringing it back before the store confirms)."""
        try:
            if verdict == "rejected":
                self.service.reject(cand.id, reason or "")
                detail = f"rejected #{cand.id}: {reason}"
            else:
                out = self.service.approve(cand.id, edits)
                detail = f"approved #{cand.id} ({out['outcome']})"
                if out.get("conflict_id"):
                    detail += f": opened conflict {out['conflict_id']}"
            self.post_message(Decided(cand, verdict, detail))
        except Exception as exc:  # noqa: BLE001
            self.post_message(Decided(cand, verdict, "", error=str(exc)))

    def on_decided(self, message: Decided) -> None:
        self.deciding.discard(message.candidate.id)
        if message.error:
            self.notify(shown(f"#{message.candidate.id}: {message.error}"), severity="error",
                        timeout=8, markup=False)
            self.fetch(None, append=False)
            if self.undo_waiting and not self.deciding:  # nothing was written: nothing to undo
                self.undo_waiting = False
                self.release_keys("undo")
            return
        self.undo_stack.append(Decision(message.candidate, message.verdict))
        self.last = message.detail
        self._count()
        self.memdesk.refresh_overview()
        if self.undo_waiting and not self.deciding:
            self.undo_waiting = False
            self.action_undo()

    def action_approve(self) -> None:
        taken = self._take_current()
        if taken:
            self.decide(taken[0], "approved")

    def action_reject(self) -> None:
        cand = self.current
        if cand is None:
            return

        def done(reason: str | None) -> None:
            if reason and self.current is not None and self.current.id == cand.id:
                taken = self._take_current()
                if taken:
                    self.decide(taken[0], "rejected", reason=reason)

        self.memdesk.push_screen(self.memdesk.prompt(
            f"reject #{cand.id} {cand.predicate} = {cand.object}: why?", "reason (required)"), done)

    def action_edit(self) -> None:
        cand = self.current
        if cand is None:
            return

        def done(edits: dict | None) -> None:
            if edits is not None and self.current is not None and self.current.id == cand.id:
                taken = self._take_current()
                if taken:
                    self.decide(taken[0], "approved", edits=edits or None)

        self.memdesk.push_screen(self.memdesk.edit_form(cand), done)

    def action_skip(self) -> None:
        self.action_cursor(1)

    def action_cursor(self, step: int) -> None:
        table = self.query_one(DataTable)
        if self.items:
            table.move_cursor(row=max(0, min(len(self.items) - 1, table.cursor_row + step)))

    @work(thread=True, group="decide")
    def reopen(self, decision: Decision) -> None:
        try:
            self.post_message(Reopened(self.service.undo(decision.candidate.id)))
        except Exception as exc:  # noqa: BLE001
            self.undo_stack.append(decision)
            self.report(exc)

    def action_undo(self) -> None:
        if self.deciding:  # the decision to undo has not reached the store yet
            self.undo_waiting = True
            self.hold_keys("undo")
            return
        if not self.undo_stack:
            self.release_keys("undo")
            self.notify("nothing to undo in this sitting", severity="warning")
            return
        self.hold_keys("undo")  # keys typed next act on the candidate brought back
        self.reopen(self.undo_stack.pop())

    def on_reopened(self, message: Reopened) -> None:
        self.release_keys("undo")
        cand = message.candidate
        table = self.query_one(DataTable)
        if any(c.id == cand.id for c in self.items):
            # a reload after the store changed brought it back first (and counted it)
            self.items = [cand if c.id == cand.id else c for c in self.items]
        else:
            self.items.append(cand)
            self.items.sort(key=lambda c: (c.confidence, c.id))
            self.total += 1
            # add the row and sort, rather than rebuilding a table of hundreds of rows
            self._add_rows([cand])
        table.sort("conf", "id", key=lambda row: (float(row[0].plain), int(row[1].plain)))
        table.move_cursor(row=self.items.index(cand))
        self.last = f"undone: #{cand.id} is pending again"
        self._count()
        self._sync()
        self.memdesk.refresh_overview()
        # a reload started before the undo was written (the store changed: our
        # own decision) would take the candidate away again; this one replaces it
        self.store_changed()

    def action_audit(self) -> None:
        cand = self.current
        if cand is not None:
            self.memdesk.open_audit(cand.subject, cand.predicate, None)

    def action_reload(self) -> None:
        self.hold_keys("page")
        self.store_changed()

    def store_changed(self) -> None:
        """Reload as many candidates as are loaded, from the queue's start;
        the table is rebuilt only if they differ, and the cursor stays on its
        candidate (a dialog open over the screen is not touched)."""
        self.fetch(None, append=False, limit=max(REVIEW_PAGE, len(self.items)))

    def action_filter(self) -> None:
        """Show only the current subject's candidates, or everyone's again."""
        subject = self.memdesk.subject
        self.subject_filter = None if self.subject_filter or not subject else subject
        self.hold_keys("page")  # keys typed next act on the filtered queue
        self.fetch(None, append=False)
