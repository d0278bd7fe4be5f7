"""The memdesk app: five keyboard-driven screens over one store."""

from __future__ import annotations

import gc
import time

from memdesk import Candidate
from textual import events, work
from textual.binding import Binding
from textual.command import CommandPalette
from textual.dom import DOMNode
from textual.reactive import var
from textual.screen import Screen
from textual.worker import WorkerState

from .commands import MemdeskCommands, SystemCommandsAfter
from .desk import Desk
from .keys import KeyGate
from .screens.audit import AuditScreen
from .screens.conflicts import ConflictsScreen
from .screens.modals import Confirmation, ConfirmScreen, EditScreen, PromptScreen
from .screens.pickers import HelpScreen, SubjectPicker
from .screens.recall import RecallScreen
from .screens.review import ReviewScreen
from .screens.timeline import TimelineScreen
from .service import MemdeskService, Overview
from .text import plural
from .widgets.timeline_chart import TimelineChart

SCREENS_IN_ORDER = ("timeline", "conflicts", "review", "recall", "audit")
FULL_GC_NEVER = 1_000_000_000  # gc threshold2: no automatic full collections (see _freeze_heap)
IDLE_GC_CHECK_S = 0.5
IDLE_GC_AFTER_S = 1.0
CHANGE_POLL_S = 1.0
"""How often the app reads the store's change stamp (one primary-key read, in
a worker): a write from another process shows within about this long."""


class MemdeskApp(KeyGate):
    """Timeline, conflicts, review queue, recall debugger and audit over one store.

    Typed keys are queued and handled one at a time (``KeyGate``, ``keys.py``):
    a key goes on only when the one before has settled and no screen holds
    the keys while it loads what they act on."""

    CSS_PATH = "memdesk.tcss"
    TITLE = "memdesk"
    MODES = {
        "timeline": TimelineScreen,
        "conflicts": ConflictsScreen,
        "review": ReviewScreen,
        "recall": RecallScreen,
        "audit": AuditScreen,
    }
    COMMANDS = {MemdeskCommands, SystemCommandsAfter}
    SCREENS_IN_ORDER = SCREENS_IN_ORDER
    BINDINGS = [
        Binding("1", "switch_mode('timeline')", "Timeline", show=False, id="app.timeline"),
        Binding("2", "switch_mode('conflicts')", "Conflicts", show=False, id="app.conflicts"),
        Binding("3", "switch_mode('review')", "Review", show=False, id="app.review"),
        Binding("4", "switch_mode('recall')", "Recall", show=False, id="app.recall"),
        Binding("5", "switch_mode('audit')", "Audit", show=False, id="app.audit"),
        Binding("g", "pick_subject", "Subject", show=False, id="app.subject"),
        Binding("question_mark,f1", "help", "Help", id="app.help"),
        Binding("q", "quit", "Quit", show=False, id="app.quit"),
    ]
    overview: var[Overview | None] = var(None)
    """The header's counts; the header redraws whenever they change."""
    changes: var[int] = var(0)
    """How many times the store was seen to change since the app started;
    screens watch it and bring themselves up to date (``store_changed``)."""

    def __init__(self, service: MemdeskService, *, start: str = "timeline",
                 subject: str | None = None) -> None:
        super().__init__()
        if start not in SCREENS_IN_ORDER:
            raise ValueError(f"no screen {start!r}; screens: {', '.join(SCREENS_IN_ORDER)}")
        self.service = service
        self.start = start
        self.subject: str | None = subject
        self.review_subject = subject  # a subject asked for on start also narrows the review queue
        self.audit_target: tuple[str, str, str | None] | None = None
        self.focus_candidate: int | None = None  # set by the command palette
        self.focus_conflict: int | None = None
        self.theme = "textual-dark"
        self._gc_thresholds: tuple[int, int, int] | None = None  # set while full collections wait for idle
        self._last_input = time.monotonic()
        self._stamp: tuple | None = None  # the store's change stamp as last read
        self._prompt_dialog = PromptScreen()
        self._edit_dialog = EditScreen()
        self._confirm_dialog = ConfirmScreen()
        self._subject_picker = SubjectPicker()
        self._help_dialog = HelpScreen(self.help_sections())

    def on_mount(self) -> None:
        # installed dialogs stay alive between uses instead of being rebuilt each time
        self.install_screen(self._prompt_dialog, "memdesk-prompt")
        self.install_screen(self._edit_dialog, "memdesk-edit")
        self.install_screen(self._confirm_dialog, "memdesk-confirm")
        self.install_screen(self._subject_picker, "memdesk-subject-picker")
        self.install_screen(self._help_dialog, "memdesk-help")
        self.title = "memdesk"
        self.sub_title = f"reviewer {self.service.reviewer}"
        self.hold_keys("startup")  # keys typed at once are for the first screen, not this blank one
        self.load_overview()
        self.check_changes()  # the first read sets the baseline
        self.set_interval(CHANGE_POLL_S, self._poll_changes)

    @work(thread=True, exclusive=True, group="overview")
    def load_overview(self) -> None:
        overview = self.service.overview()
        self.call_from_thread(self._overview_loaded, overview)

    # ------------------------------------------------------ live refresh
    def _poll_changes(self) -> None:
        if not any(w.group == "stamp" and not w.is_finished for w in self.workers):
            self.check_changes()

    @work(thread=True, exclusive=True, group="stamp")
    def check_changes(self) -> None:
        """Read the store's change stamp; a new one means someone wrote."""
        stamp = self.service.change_stamp()
        self.call_from_thread(self._stamp_read, stamp)

    def _stamp_read(self, stamp: tuple) -> None:
        if stamp == self._stamp:
            return
        first, self._stamp = self._stamp is None, stamp
        if not first:
            self.load_overview()
            self.changes += 1

    def _overview_loaded(self, overview: Overview) -> None:
        first_time = self.overview is None
        self.overview = overview
        self.sub_title = (f"reviewer {overview.reviewer} · {overview.pending} pending · "
                          f"{plural(overview.open_conflicts, 'conflict')} · {overview.store}")
        if first_time:
            if self.subject is None:
                self.subject = overview.first_subject
            self.switch_mode(self.start)  # it lets the keys typed so far go (MemdeskScreen)
            self.set_timer(0.2, self._first_screen_settled)
        elif self.subject is None and overview.first_subject:
            # the store was empty and someone wrote: there is a subject to show now
            self.subject = overview.first_subject
            if self.current_mode == "timeline":
                self.screen.on_screen_resume()  # type: ignore[attr-defined]

    def prompt(self, question: str, placeholder: str = "", required: bool = True) -> PromptScreen:
        """The app's one prompt dialog, set to ``question`` (push it with a callback)."""
        return self._prompt_dialog.ask(question, placeholder, required)

    def confirm(self, confirmation: Confirmation) -> ConfirmScreen:
        """The app's one confirm dialog, set to ``confirmation`` (push it with a callback)."""
        return self._confirm_dialog.ask(confirmation)

    def edit_form(self, candidate: Candidate) -> EditScreen:
        """The app's one edit form, set to ``candidate`` (push it with a callback)."""
        return self._edit_dialog.edit(candidate)

    def _first_screen_settled(self) -> None:
        """Once the first screen is up: freeze the heap (``_freeze_heap``). The
        other screens are built when first shown (Textual composes a mode's
        screen then; the app does not reach into Textual's private screen
        stacks to build them earlier)."""
        if self.is_running:
            self._freeze_heap()

    def _freeze_heap(self) -> None:
        """Move everything alive now (modules, classes, the screens and their
        widgets, the stylesheet: well over 100,000 objects) out of the cyclic
        garbage collector's reach. A full collection walks every tracked
        object; with all of these it held the UI for 150–700 ms at a time on
        the 2-core test machine, at whatever key happened to trigger it. After
        this, full collections walk only what was allocated since, and they
        still took 50–110 ms on the big store, so from here on they run only
        while the user pauses (``_collect_when_idle``); the young generations
        are collected as usual (a few ms each)."""
        gc.collect(1)
        gc.freeze()
        if self._gc_thresholds is None:
            self._gc_thresholds = gc.get_threshold()
            young, middle, _ = self._gc_thresholds
            gc.set_threshold(young, middle, FULL_GC_NEVER)
            self.set_interval(IDLE_GC_CHECK_S, self._collect_when_idle)

    def _collect_when_idle(self) -> None:
        """A full collection, when anything reached the old generation since the
        last one and no key or mouse event came in for ``IDLE_GC_AFTER_S``."""
        if gc.get_count()[2] and time.monotonic() - self._last_input >= IDLE_GC_AFTER_S:
            gc.collect()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):
            self._last_input = time.monotonic()
        await super().on_event(event)

    def on_unmount(self) -> None:
        if self._gc_thresholds is not None:  # the process may go on (tests, embedding)
            gc.set_threshold(*self._gc_thresholds)
            self._gc_thresholds = None

    def screen_busy(self, screen: DOMNode) -> bool:
        """The command palette (Textual's) while it searches: enter typed
        right after the text picks from the list for that text."""
        return isinstance(screen, CommandPalette) and any(
            w.node is screen and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for w in self.workers)

    def refresh_overview(self) -> None:
        if self.overview is not None:
            self.load_overview()

    # -------------------------------------------------------------- jumps
    def _goto(self, mode: str) -> None:
        """Show a screen; it picks up the new target (subject, audit target,
        candidate, conflict) when it resumes, or now if it is already showing."""
        if self.current_mode == mode:
            self.screen.on_screen_resume()  # type: ignore[attr-defined]
        else:
            self.switch_mode(mode)

    def open_subject(self, subject: str) -> None:
        self.subject = subject
        self._goto("timeline")

    def open_predicate(self, predicate: str) -> None:
        if self.subject:
            self.open_audit(self.subject, predicate, None)

    def open_audit(self, subject: str, predicate: str, obj: str | None) -> None:
        self.audit_target = (subject, predicate, obj)
        self._goto("audit")

    def open_candidate(self, candidate_id: int) -> None:
        self.focus_candidate = candidate_id
        self._goto("review")

    def open_conflict(self, conflict_id: int) -> None:
        self.focus_conflict = conflict_id
        self._goto("conflicts")

    # ------------------------------------------------------------ actions
    def action_pick_subject(self) -> None:
        def chosen(subject: str | None) -> None:
            if subject:
                self.open_subject(subject)

        self.push_screen(self._subject_picker, chosen)

    def action_help(self) -> None:
        self.push_screen(self._help_dialog)

    @classmethod
    def help_sections(cls) -> list[tuple[str, list[tuple[str, str]]]]:
        """The keys of the app and of every screen, for the help screen."""
        def keys(bindings) -> list[tuple[str, str]]:  # noqa: ANN001
            return [(b.key.replace("question_mark", "?").replace("left_square_bracket", "[")
                     .replace("right_square_bracket", "]").replace("slash", "/"), b.description)
                    for b in bindings if b.description]

        sections = [("everywhere", keys(cls.BINDINGS) + [
            ("ctrl+p", "command palette: jump to a subject, predicate, candidate or conflict")])]
        for name in SCREENS_IN_ORDER:
            screen = cls.MODES[name]
            assert isinstance(screen, type) and issubclass(screen, Screen)
            sections.append((name, keys(screen.BINDINGS)))
            if name == "timeline":
                sections.append(("timeline chart", keys(TimelineChart.BINDINGS)))
        return sections


def as_desk(app: MemdeskApp) -> Desk:
    """The app as its screens see it. Its use is static: the type checker
    proves here that ``MemdeskApp`` is the ``Desk`` its screens, the command
    palette and the header rely on (a missing or changed member fails mypy)."""
    return app
