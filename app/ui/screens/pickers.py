"""The subject picker and the help screen."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from ..text import shown
from .base import Fetched


class SubjectsLoaded(Fetched):
    def __init__(self, prefix: str, subjects: list[str]) -> None:
        self.prefix = prefix
        self.subjects = subjects
        super().__init__()


class SubjectPicker(ModalScreen[str | None]):
    """Type a prefix (user:, project:, a name) and pick a subject. Subjects are
    looked up in the store as you type, a page at a time. Enter pressed before
    the list caught up with the text picks from the list for that text when it
    comes; the keys typed after it wait for that (they are for the screen the
    picked subject opens, not for this box)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="picker.cancel"),
                Binding("down", "list_focus", "List", show=False, id="picker.list")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("go to subject", classes="dialog-title")
            yield Input(placeholder="prefix, e.g. user:a or project:", id="picker-input")
            yield OptionList(id="picker-list")
            yield Label("enter picks · escape cancels", classes="dim")

    def on_screen_resume(self) -> None:
        """Shown (again): start from an empty filter."""
        field = self.query_one(Input)
        field.value = ""
        field.focus()
        self.submit_pending = False
        self.listed = None
        self.lookup("")

    @work(thread=True, exclusive=True)
    def lookup(self, prefix: str) -> None:
        service = self.app.service  # type: ignore[attr-defined]
        subjects = service.subjects(prefix, limit=60)
        if not subjects and prefix and ":" not in prefix:
            subjects = (service.subjects(f"user:{prefix}", limit=30)
                        + service.subjects(f"project:{prefix}", limit=30))
        self.post_message(SubjectsLoaded(prefix, subjects))

    def on_subjects_loaded(self, message: SubjectsLoaded) -> None:
        if message.superseded:
            return
        if message.prefix != self.query_one(Input).value.strip():
            return  # an answer for text the user has typed past
        self.app.release_keys((self, "list"))  # type: ignore[attr-defined]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(Text(shown(s)), id=s) for s in message.subjects])
        if message.subjects:
            options.highlighted = 0
        self.listed = message.prefix
        if self.submit_pending:
            self.submit_pending = False
            self.pick()
            self.app.release_keys((self, "submit"))  # type: ignore[attr-defined]

    @on(Input.Changed)
    def changed(self, event: Input.Changed) -> None:
        # keys typed next (down into the list, enter) act on the list for this text
        self.app.hold_keys((self, "list"))  # type: ignore[attr-defined]
        self.lookup(event.value.strip())

    submit_pending = False  # enter was pressed before the list caught up with the text
    listed: str | None = None  # the text the list shows subjects for

    @on(Input.Submitted)
    def submitted(self) -> None:
        if self.listed != self.query_one(Input).value.strip():  # its list is on its way
            self.submit_pending = True
            self.app.hold_keys((self, "submit"))  # type: ignore[attr-defined]
            return
        self.pick()

    def pick(self) -> None:
        """Take the subject highlighted in the list (none: nothing matched, stay)."""
        options = self.query_one(OptionList)
        if options.highlighted is not None and options.option_count:
            self.dismiss(options.get_option_at_index(options.highlighted).id)

    @on(OptionList.OptionSelected)
    def selected(self, event: OptionList.OptionSelected) -> None:
        self.app.release_keys((self, "list"))  # type: ignore[attr-defined]
        self.dismiss(event.option.id)

    def action_list_focus(self) -> None:
        self.query_one(OptionList).focus()

    def action_cancel(self) -> None:
        self.submit_pending = False
        self.app.release_keys((self, "submit"))  # type: ignore[attr-defined]
        self.app.release_keys((self, "list"))  # type: ignore[attr-defined]
        self.dismiss(None)


def help_text(sections: list[tuple[str, list[tuple[str, str]]]]) -> Group:
    """The help screen's body: a titled block of keys per section, each
    description wrapping beside its key. Built from Text, not markup, so keys
    such as ``[`` show as themselves."""
    parts: list[Table | Text] = []
    for title, keys in sections:
        parts.append(Text(title, style="bold underline"))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True, style="bold")
        grid.add_column()
        for key, description in keys:
            grid.add_row(Text("  " + key), Text(description))
        parts.extend((grid, Text("")))
    return Group(*parts[:-1])


class HelpScreen(ModalScreen[None]):
    """Every key binding of the app and of the screen it was opened from."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help.close")]

    def __init__(self, sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self.sections = sections

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Label("memdesk keys", classes="dialog-title")
            with VerticalScroll():
                yield Static(help_text(self.sections), id="help-body")
            yield Label("escape closes", classes="dim")

    def action_close(self) -> None:
        self.dismiss(None)
