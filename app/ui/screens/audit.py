"""Audit: the provenance chain of one value as a tree: turn → extraction →
gates → conflict/review → assertion → later retirements, and what maintenance
did to its memories (merged into another, archived, restored) and facts (expired)."""

from __future__ import annotations

from memdesk import AuditReport
from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Label, Static, Tree
from textual.widgets.tree import TreeNode

from ...tables import start_phrase
from ..text import shown
from ..widgets.desk_header import DeskHeader
from ..widgets.keybar import KeyBar
from .base import Fetched, MemdeskScreen, when


class AuditLoaded(Fetched):
    def __init__(self, report: AuditReport, quiet: bool = False) -> None:
        self.report = report
        self.quiet = quiet  # a reload after the store changed: focus stays where it is
        super().__init__()


def fill_tree(tree: Tree, report: AuditReport) -> None:
    """One branch per source turn (the claim and everything that happened to
    it), then the later retirements and maintenance actions; every node shows
    its time and actor."""
    tree.clear()
    tree.root.set_label(Text.assemble(
        (shown(f"{report.subject} {report.predicate} = {report.object}"), "bold"),
        f"   believed since {when(report.decided_at, report.tz)} as told",
        ("" if report.recorded_at is None
         else f" (recorded {when(report.recorded_at, report.tz)})"),
        f"   valid from {(report.fact.get('valid_from') or '')[:16]}"
        f" ({start_phrase(report.fact['start'])})"))
    branch = tree.root
    recorded_shown: int | None = None
    for step in report.chain:
        # when this store wrote it, where that differs from when it was told
        # and from the step before (one import writes a whole conversation)
        recorded = ""
        if step.recorded is not None and step.recorded not in (step.at, recorded_shown):
            recorded, recorded_shown = (f" (recorded {when(step.recorded, step.tz)})",
                                        step.recorded)
        label = Text.assemble((f"{step.step:<10}", "cyan bold"), f" {when(step.at, step.tz)}",
                              (recorded, "dim"), "  ",
                              (shown(step.actor), "magenta"), f": {shown(step.summary)}")
        if step.step in ("turn", "mention"):
            branch = tree.root.add(label, expand=True)
        elif step.step == "retirement":
            tree.root.add_leaf(label)
        elif step.step == "maintenance":  # what a `memdesk maintain` run did to a memory
            tree.root.add_leaf(Text.assemble((f"{step.step:<10}", "green bold"),
                                             f" {when(step.at, step.tz)}  ",
                                             (shown(step.actor), "magenta"),
                                             f": {shown(step.summary)}"))
        elif step.step == "gates":
            node = branch.add(label, expand=True)
            for gate in step.detail.get("gates", []):
                node.add_leaf(Text.assemble((shown(f"{gate['gate']}"), "yellow"), shown(
                    f": {gate['result']}" + (f" — {gate['note']}" if gate.get("note") else ""))))
        else:
            branch.add_leaf(label)
    tree.root.expand()


class ChainTree(Tree):
    """The chain's tree, each line cut to the width with "…" (no sideways
    scrolling); the screen shows the whole of the line under the cursor below."""

    def render_label(self, node: TreeNode, base_style: Style, style: Style) -> Text:
        label = super().render_label(node, base_style, style)
        depth, parent = 0, node.parent
        while parent is not None:
            depth, parent = depth + 1, parent.parent
        room = self.scrollable_content_region.width - depth * self.guide_depth
        if room > 0 and label.cell_len > room:
            label = label.copy()
            label.truncate(room, overflow="ellipsis")
        return label


def step_text(node: TreeNode | None) -> Text:
    """The detail line: the whole text of the chain step under the cursor."""
    if node is None:
        return Text("")
    return Text.assemble(node.label, style="")


class AuditScreen(MemdeskScreen):
    """Pick subject, predicate and object; see why the store believes it."""

    BINDINGS = [
        Binding("slash", "focus_form", "Edit query", id="audit.form"),
        Binding("escape", "leave_form", "Tree", show=False, id="audit.tree"),
        Binding("r", "reload", "Reload", id="audit.reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.shown: tuple[str, str, str | None] | None = None

    def compose(self) -> ComposeResult:
        yield DeskHeader()
        with Horizontal(classes="bar", id="audit-form"):
            yield Input(placeholder="subject (user:alice)", id="audit-subject")
            yield Input(placeholder="predicate (lives_in)", id="audit-predicate")
            yield Input(placeholder="object (empty = current value)", id="audit-object")
        yield Label("/ edits the query · enter shows the chain · escape leaves the form", id="audit-status")
        yield ChainTree("no value chosen yet", id="audit-tree")
        yield Static("", id="audit-detail")
        yield KeyBar()

    def on_screen_resume(self) -> None:
        if not self.built:
            return
        target = self.memdesk.audit_target
        if target is not None and target != self.shown:
            subject, predicate, obj = target
            self.query_one("#audit-subject", Input).value = subject
            self.query_one("#audit-predicate", Input).value = predicate
            self.query_one("#audit-object", Input).value = shown(obj or "")
            self.show(subject, predicate, obj)
        else:
            self.query_one(Tree).focus()

    def show(self, subject: str, predicate: str, obj: str | None) -> None:
        self.shown = (subject, predicate, obj)
        self.query_one("#audit-status", Label).update(Text(shown(f"loading {subject} {predicate} …")))
        self.hold_keys("chain")  # keys typed next move in this chain's tree
        self.fetch(subject, predicate, obj)

    def store_changed(self) -> None:
        """Load the chain shown again (it may have grown), without moving focus."""
        if self.shown:
            self.fetch(*self.shown, quiet=True)

    @work(thread=True, exclusive=True, group="audit")
    def fetch(self, subject: str, predicate: str, obj: str | None, quiet: bool = False) -> None:
        try:
            self.post_message(AuditLoaded(self.service.audit(subject, predicate, obj), quiet))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    def on_audit_loaded(self, message: AuditLoaded) -> None:
        if message.superseded:
            return
        self.release_keys("chain")  # (a quiet reload may have replaced the one asked for)
        r = message.report
        self.query_one("#audit-status", Label).update(
            f"{len(r.chain)} steps · fact {r.fact['id']} · status {r.fact['status']}")
        tree = self.query_one(Tree)
        line = tree.cursor_line
        fill_tree(tree, r)
        if message.quiet:
            tree.cursor_line = line
        else:
            tree.focus()
            self.query_one("#audit-detail", Static).update(step_text(tree.root))

    @on(Tree.NodeHighlighted)
    def step_highlighted(self, event: Tree.NodeHighlighted) -> None:
        self.query_one("#audit-detail", Static).update(step_text(event.node))

    @on(Input.Submitted)
    def submitted(self) -> None:
        subject = self.query_one("#audit-subject", Input).value.strip()
        predicate = self.query_one("#audit-predicate", Input).value.strip()
        obj = self.query_one("#audit-object", Input).value.strip() or None
        if self.shown is not None and obj is not None and obj == shown(self.shown[2] or ""):
            obj = self.shown[2]  # the object shown escaped: look up the stored one
        if not subject or not predicate:
            self.notify("name a subject and a predicate", severity="warning")
            return
        self.show(subject, predicate, obj)

    def action_focus_form(self) -> None:
        self.query_one("#audit-subject", Input).focus()

    def action_leave_form(self) -> None:
        self.query_one(Tree).focus()

    def action_reload(self) -> None:
        if self.shown:
            self.show(*self.shown)
