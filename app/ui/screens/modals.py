"""Small dialogs: a one-line prompt (reject reason), the confirm dialog (a
choice's effect shown before it is taken, with an optional line of text such
as a scope or a reason) and the edit form. Titles and hints wrap to the
dialog's width, and every dialog fits an 80x24 terminal."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from memdesk import Candidate
from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select, Static

from ..text import shown

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
        self.query_one("#prompt-question", Label).update(Text(shown(self.question)))
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


@dataclass(frozen=True)
class Confirmation:
    """What the confirm dialog asks. ``effect(answer)`` draws what confirming
    does (drawn again as the answer is typed). With ``question`` set, a line
    of text is asked too: ``required`` refuses an empty one, ``check(answer)``
    says why an answer is refused (or None). ``error``: why this cannot be
    confirmed at all (shown; enter then does nothing)."""

    title: str
    effect: Callable[[str], RenderableType]
    question: str | None = None
    placeholder: str = ""
    required: bool = False
    check: Callable[[str], str | None] | None = None
    error: str | None = None


class ConfirmScreen(ModalScreen[str | None]):
    """Show what a choice would do and take it only on enter: returns the
    typed answer ("" when nothing is asked), or None when escape cancels.

    The app keeps one installed instance and re-asks it (``ask``)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="confirm.cancel"),
                Binding("enter", "confirm", "Confirm", id="confirm.confirm")]

    def __init__(self) -> None:
        super().__init__()
        self.asked = Confirmation("", lambda _answer: "")
        self.error: str | None = None

    def ask(self, confirmation: Confirmation) -> ConfirmScreen:
        """Set what the dialog asks the next time it is shown; returns itself."""
        self.asked = confirmation
        self.error = confirmation.error
        return self  # the widgets are filled when the dialog is shown (on_screen_resume)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm-dialog"):
            yield Label("", classes="dialog-title", id="confirm-title")
            with VerticalScroll(id="confirm-body"):
                yield Static("", id="confirm-effect")
            yield Label("", id="confirm-error")
            yield Label("", id="confirm-question")
            yield Input(id="confirm-input")
            yield Label("", classes="dim", id="confirm-hint")

    @property
    def answer(self) -> str:
        """The text typed so far ("" when nothing is asked)."""
        return self.query_one(Input).value.strip() if self.asked.question else ""

    def _reset(self) -> None:
        asked = self.asked
        self.query_one("#confirm-title", Label).update(Text(shown(asked.title)))
        field = self.query_one(Input)
        field.placeholder, field.value = asked.placeholder, ""
        for widget in (field, self.query_one("#confirm-question", Label)):
            widget.display = asked.question is not None
        self.query_one("#confirm-question", Label).update(Text(shown(asked.question or "")))
        self._show()

    def _show(self) -> None:
        """Draw the effect for the answer typed so far, the error and the hint."""
        self.query_one("#confirm-effect", Static).update(self.asked.effect(self.answer))
        error = self.query_one("#confirm-error", Label)
        error.display = self.error is not None
        error.update(Text(shown(f"this cannot be done now: {self.error}") if self.error else ""))
        if self.error is not None:
            hint = "escape closes · nothing is written"
        elif self.asked.question is not None:
            hint = "type the answer, enter confirms · escape cancels, nothing is written"
        else:
            hint = "enter confirms · escape cancels, nothing is written"
        self.query_one("#confirm-hint", Label).update(hint)

    def withdraw(self, reason: str) -> None:
        """The choice cannot be taken any more (``reason`` says why): say so and
        refuse enter, keeping whatever was typed."""
        self.error = reason
        if self.is_mounted:
            self._show()

    def on_screen_resume(self) -> None:
        self._reset()
        if self.asked.question is not None and self.error is None:
            self.query_one(Input).focus()
        else:
            self.query_one("#confirm-body", VerticalScroll).focus()

    @on(Input.Changed)
    def changed(self) -> None:
        self.query_one("#confirm-effect", Static).update(self.asked.effect(self.answer))

    @on(Input.Submitted)
    def submitted(self) -> None:
        self.action_confirm()

    def action_confirm(self) -> None:
        if self.error is not None:
            self.notify(shown(f"this cannot be done now: {self.error} (escape closes)"),
                        severity="warning", markup=False)
            return
        answer = self.answer
        if self.asked.required and not answer:
            self.notify("this needs an answer (escape cancels)", severity="warning")
            return
        refused = self.asked.check(answer) if self.asked.check else None
        if refused:
            self.notify(shown(refused), severity="warning", markup=False)
            return
        self.dismiss(answer)

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
            with Horizontal(id="edit-choices"):  # side by side: the form fits 24 rows
                with Vertical():
                    yield Label("predicate")
                    yield Input(id="edit-predicate")
                with Vertical():
                    yield Label("polarity")
                    yield Select([(p, p) for p in POLARITIES], value=POLARITIES[0],
                                 allow_blank=False, id="edit-polarity")
                with Vertical():
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
            Text(shown(f"edit candidate {c.id}: {c.subject} {c.predicate}")))
        # shown: one line, control and format characters as escapes (the value
        # stays JSON of the same value); unchanged fields are not edits
        self.query_one("#edit-object", Input).value = shown(c.object)
        self.query_one("#edit-predicate", Input).value = c.predicate
        self.query_one("#edit-value", Input).value = (
            "" if c.value is None else shown(json.dumps(c.value, ensure_ascii=False)))
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
        if obj != shown(c.object).strip():
            edits["object"] = obj
        predicate = self.query_one("#edit-predicate", Input).value.strip()
        if predicate and predicate != c.predicate:  # an unparsed note made the fact it states
            edits["predicate"] = predicate
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
