"""What the screens, the command palette and the header need of the app:
``Desk``, a protocol ``MemdeskApp`` satisfies. They depend on it, not on the
App class, so no module of the UI imports ``app.py`` back, even for the type
checker (``tests/test_import_graph.py``)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Protocol

from memdesk import Candidate
from textual.screen import Screen

from .screens.modals import Confirmation, ConfirmScreen, EditScreen, PromptScreen
from .service import MemdeskService, Overview


class Desk(Protocol):
    """The memdesk app as its screens use it: the engine's door, where the
    person is (subject, targets of a jump), its dialogs, its key holds."""

    service: MemdeskService
    subject: str | None
    review_subject: str | None
    audit_target: tuple[str, str, str | None] | None
    focus_candidate: int | None
    focus_conflict: int | None
    overview: Overview | None

    @property
    def SCREENS_IN_ORDER(self) -> tuple[str, ...]: ...  # noqa: N802 - the app's class constant
    @property
    def current_mode(self) -> str: ...

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], Any] | None = ...,
                    ) -> Any: ...
    def refresh_overview(self) -> None: ...
    def open_subject(self, subject: str) -> None: ...
    def open_predicate(self, predicate: str) -> None: ...
    def open_audit(self, subject: str, predicate: str, obj: str | None) -> None: ...
    def open_candidate(self, candidate_id: int) -> None: ...
    def open_conflict(self, conflict_id: int) -> None: ...
    def prompt(self, question: str, placeholder: str = "", required: bool = True
               ) -> PromptScreen: ...
    def confirm(self, confirmation: Confirmation) -> ConfirmScreen: ...
    def edit_form(self, candidate: Candidate) -> EditScreen: ...
    def hold_keys(self, holder: Hashable, timeout: float | None = None) -> None: ...
    def release_keys(self, holder: Hashable) -> None: ...
    def release_screen_keys(self, screen: object) -> None: ...
    @property
    def holding_keys(self) -> bool: ...
