"""Small dialogs: a one-line prompt (reject reason, scope) and the edit form."""

from __future__ import annotations

import json

from memdesk.core import Candidate
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select

POLARITIES = ("positive", "negative", "neutral")
SCOPES = ("global", "project", "session")


class PromptScreen(ModalScreen[str | None]):
    """Ask for one line of text; enter submits, escape cancels (returns None).

    The app keeps one installed instance and re-asks it (``ask``), so opening
    the prompt does not compose new widgets each time."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    def __init__(self) -> None:
        super().__init__()
        self.question, self.placeholder, self.required = "", "", True

    def ask(self, question: str, placeholder: str = "", required: bool = True) -> PromptScreen:
        """Set the question for the next time the prompt is shown; returns itself."""
        self.question, self.placeholder, self.required = question, placeholder, required
        return self  # the widgets are filled when the prompt is shown (on_screen_resume)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="dialog-title", id="prompt-question")
            yield Input(placeholder=self.placeholder, id="prompt-input")
            yield Label("enter to confirm · escape to cancel", classes="dim")

    def _reset(self) -> None:
        self.query_one("#prompt-question", Label).update(self.question)
        field = self.query_one(Input)
        field.placeholder, field.value = self.placeholder, ""

    def on_screen_resume(self) -> None:
        self._reset()
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if self.required and not text:
            self.notify("this needs an answer (escape cancels)", severity="warning")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class EditScreen(ModalScreen[dict | None]):
    """Edit a candidate before approving it. Returns the changed fields only.

    Like the prompt, the app keeps one installed instance and points it at
    the next candidate (``edit``) instead of composing a new form each time."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="edit.cancel"),
                Binding("ctrl+s", "save", "Approve edited", id="edit.save")]

    def __init__(self, candidate: Candidate | None = None) -> None:
        super().__init__()
        self.candidate = candidate

    def edit(self, candidate: Candidate) -> EditScreen:
        """Set the candidate the form shows the next time; returns itself."""
        self.candidate = candidate
        return self  # the form is filled when it is shown (on_screen_resume)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("", classes="dialog-title", id="edit-title")
            yield Label("object")
            yield Input(id="edit-object")
            yield Label("value (JSON, e.g. {\"amount\": 5000, \"currency\": \"CNY\"}, or empty)")
            yield Input(id="edit-value")
            yield Label("polarity")
            yield Select([(p, p) for p in POLARITIES], value=POLARITIES[0], allow_blank=False,
                         id="edit-polarity")
            yield Label("scope")
            yield Select([(s, s) for s in SCOPES], value=SCOPES[0], allow_blank=False,
                         id="edit-scope")
            yield Label("ctrl+s (or enter in a text field) approves the edited fact · escape cancels",
                        classes="dim")

    def _reset(self) -> None:
        """Fill the form from the candidate."""
        c = self.candidate
        if c is None:
            return
        self.query_one("#edit-title", Label).update(
            f"edit candidate {c.id}: {c.subject} {c.predicate}")
        self.query_one("#edit-object", Input).value = c.object
        self.query_one("#edit-value", Input).value = (
            "" if c.value is None else json.dumps(c.value, ensure_ascii=False))
        self.query_one("#edit-polarity", Select).value = c.polarity
        self.query_one("#edit-scope", Select).value = c.scope if c.scope in SCOPES else "global"

    def on_screen_resume(self) -> None:
        self._reset()
        self.query_one("#edit-object", Input).focus()

    @on(Input.Submitted)
    def submitted(self) -> None:
        self.action_save()

    def action_save(self) -> None:
        c = self.candidate
        if c is None:
            return
        edits: dict = {}
        obj = self.query_one("#edit-object", Input).value.strip()
        if not obj:
            self.notify("object cannot be empty", severity="error")
            return
        if obj != c.object:
            edits["object"] = obj
        raw = self.query_one("#edit-value", Input).value.strip()
        try:
            value = json.loads(raw) if raw else None
        except json.JSONDecodeError as exc:
            self.notify(f"value is not JSON: {exc.msg}", severity="error")
            return
        if value != c.value:
            edits["value"] = value
        for field, widget_id in (("polarity", "#edit-polarity"), ("scope", "#edit-scope")):
            chosen = self.query_one(widget_id, Select).value
            if chosen != getattr(c, field):
                edits[field] = chosen
        self.dismiss(edits)

    def action_cancel(self) -> None:
        self.dismiss(None)
