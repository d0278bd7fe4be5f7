"""Keys typed in one burst (a fast typist, a paste of keystrokes, a terminal
delivering a whole chunk at once) do exactly what the same keys typed one by
one do: on every form, picker and dialog that takes text (subject picker,
audit form, recall query and "at", timeline "known at", the reject prompt,
the edit form, the conflict confirmation with and without a typed answer,
the command palette) and across screen switches, loads and decisions.

A burst is every key event posted to the app at once, with no pause between
them (``pilot.press`` waits for the app to go idle after each key, so it
cannot show it as well); the test then waits until the app is quiet and
checks the end state, and the same keys typed one at a time (``slowly``,
settling after each) must end in the same state; so must
``pilot.press(*keys)``.
"""

from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from memdesk.app.screenshots import demo_app, settle
from memdesk.app.ui.app import MemdeskApp
from memdesk.app.ui.screens.audit import AuditScreen
from memdesk.app.ui.screens.recall import RecallScreen
from memdesk.app.ui.screens.review import ReviewScreen
from memdesk.app.ui.screens.timeline import TimelineScreen
from memdesk.app.ui.widgets.timeline_chart import TimelineChart
from textual import events
from textual.keys import KEY_NAME_REPLACEMENTS, key_to_character
from textual.widgets import Input, Tree

from tests.app_screen import reopen

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _patient(monkeypatch):
    """A screen holds the keys until its answer comes, however slow the
    shared test machine is (a hold that lapses would make the test a race)."""
    monkeypatch.setattr("memdesk.app.ui.keys.KEY_HOLD_MAX_S", 120.0)


def key_event(key: str) -> events.Key:
    """The event a terminal sends for ``key``: a character ("a", ":", "张")
    or a key name ("enter", "tab", "ctrl+u")."""
    if len(key) == 1:
        name = key if key.isalnum() else (
            unicodedata.name(key).lower().replace("-", "_").replace(" ", "_"))
        return events.Key(KEY_NAME_REPLACEMENTS.get(name, name), key)
    return events.Key(key, key_to_character(key))


def burst(app: MemdeskApp, *keys: str) -> None:
    """Every key at once, as a terminal delivers a chunk of input."""
    for key in keys:
        app.post_message(key_event(key))


async def quiet(pilot) -> None:  # noqa: ANN001
    """Wait until every key typed was handled and what it set off is done."""
    for _ in range(2000):
        await settle(pilot)
        if not pilot.app.keys_pending:
            return
    raise AssertionError(f"keys still waiting: {pilot.app.keys_pending}")


async def slowly(pilot, *keys: str) -> None:  # noqa: ANN001
    """One key at a time, waiting for the app to settle after each."""
    for key in keys:
        pilot.app.post_message(key_event(key))
        await quiet(pilot)


def inputs(app: MemdeskApp) -> dict[str, str]:
    return {field.id or "": field.value for field in app.screen.query(Input)}


def state(app: MemdeskApp) -> dict[str, Any]:
    """What a person sees and what the keys chose: the screen, the dialog on
    top, the subject, every text field's value, the focused widget, the
    audit target and, per screen, its cursor."""
    screen = app.screen
    out: dict[str, Any] = {
        "mode": app.current_mode, "top": type(screen).__name__, "subject": app.subject,
        "inputs": inputs(app), "focused": getattr(app.focused, "id", None),
        "audit": app.audit_target,
    }
    if isinstance(screen, TimelineScreen):
        fact = screen.query_one(TimelineChart).selected_fact
        out["fact"] = None if fact is None else fact.id
        out["known_at"] = screen.known_at
    if isinstance(screen, ReviewScreen):
        out["candidate"] = None if screen.current is None else screen.current.id
    if isinstance(screen, RecallScreen):
        out["result"] = None if screen.current is None else screen.current[1].key
    if isinstance(screen, AuditScreen):
        out["shown"] = screen.shown
        out["tree_line"] = screen.query_one(Tree).cursor_line
    return out


def decisions(db: Path) -> dict[str, Any]:
    """What the keys wrote: every candidate decided (its object and the
    reason given) and every conflict decided (how, and why)."""
    with reopen(db) as store:
        decided = {state: sorted((c.id, c.object, c.decision_reason)
                                 for c in store.review.list(state))
                   for state in ("approved", "rejected")}
        conflicts = sorted((c.id, c.resolution, c.reason) for c in store.conflicts.list("resolved"))
    return {"decided": decided, "conflicts": conflicts}


async def run_keys(db: Path, keys: tuple[str, ...], how: str, **kwargs: Any) -> dict[str, Any]:
    """Type ``keys`` ``how``: "burst" (all at once, from the first moment,
    before the first screen is up), "press" (``pilot.press(*keys)``, no pause
    between keys but Pilot's own wait for the app to go idle) or "slowly"."""
    app = demo_app(db, **kwargs)
    try:
        async with app.run_test(size=SIZE) as pilot:
            if how == "burst":
                burst(app, *keys)
            elif how == "press":
                await pilot.press(*keys)
            else:
                await quiet(pilot)
                await slowly(pilot, *keys)
            await quiet(pilot)
            seen = state(app)
            assert app.lapsed_holds == 0 and app.lapsed_rounds == 0
    finally:
        app.service.store.close()
    return seen | decisions(db)


async def same_as_slowly(demo_db: Path, tmp_path: Path, keys: tuple[str, ...],
                         **kwargs: Any) -> dict[str, Any]:
    """Run ``keys`` as one burst, with ``pilot.press`` and one at a time,
    each on a copy of the demo store; all end in the same state, which is
    returned (the burst's; its store is ``fast.db``)."""
    ends = {}
    for how, name in (("burst", "fast"), ("press", "press"), ("slowly", "slow")):
        db = tmp_path / f"{name}.db"
        shutil.copy(demo_db, db)
        ends[how] = await run_keys(db, keys, how, **kwargs)
    assert ends["burst"] == ends["slowly"]
    assert ends["press"] == ends["slowly"]
    return ends["burst"]


def typed(text: str) -> tuple[str, ...]:
    return tuple(text)


# ------------------------------------------------------------ the picker
async def test_subject_picked_then_keys_go_to_its_timeline(demo_db, tmp_path):
    """The issue's burst: g, a subject, enter, three moves down, p."""
    keys = ("g", *typed("user:alice"), "enter", "j", "j", "j", "p")
    end = await same_as_slowly(demo_db, tmp_path, keys)
    assert end["subject"] == "user:alice" and end["mode"] == "audit"
    assert end["audit"] is not None and end["audit"][0] == "user:alice"
    assert end["top"] == "AuditScreen"


async def test_subject_picked_from_the_list_twice(demo_db, tmp_path):
    """The picker opened a second time (already built) and its list: down
    moves into the list, enter picks the highlighted subject."""
    keys = ("g", *typed("user:"), "enter", "g", *typed("project:"), "down", "down", "enter",
            "down")
    end = await same_as_slowly(demo_db, tmp_path, keys)
    assert end["subject"] == "project:renovation" and end["mode"] == "timeline"
    assert end["top"] == "TimelineScreen" and end["fact"] is not None


async def test_picker_escape_leaves_the_subject(demo_db, tmp_path):
    keys = ("g", *typed("user:tom"), "escape", "3", "j")
    end = await same_as_slowly(demo_db, tmp_path, keys)
    assert end["subject"] == "project:atlas" and end["mode"] == "review"


# ------------------------------------------------------------- the audit form
async def test_audit_form_fields_in_order_with_tab(demo_db, tmp_path):
    keys = ("5", "slash", *typed("user:alice"), "tab", *typed("lives_in"), "tab",
            *typed("张江"), "enter", "down")
    end = await same_as_slowly(demo_db, tmp_path, keys)
    assert end["inputs"] == {"audit-subject": "user:alice", "audit-predicate": "lives_in",
                             "audit-object": "张江"}
    assert end["shown"] == ("user:alice", "lives_in", "张江")
    assert end["focused"] == "audit-tree" and end["tree_line"] == 1


# ------------------------------------------------------------------ recall
async def test_recall_query_then_moves_among_its_results(embedded_demo_db, tmp_path):
    keys = ("4", "slash", *typed("where does alice live"), "enter", "j", "j", "t",
            *typed("2026-03-01"), "enter", "j")
    end = await same_as_slowly(embedded_demo_db, tmp_path, keys)
    assert end["inputs"] == {"recall-query": "where does alice live", "recall-at": "2026-03-01"}
    assert end["focused"] == "recall-table" and end["result"] is not None


# ---------------------------------------------------------------- timeline
async def test_timeline_known_at_typed_then_chart_keys(demo_db, tmp_path):
    keys = ("t", *typed("2026-03-01"), "enter", "down", "down", "right")
    end = await same_as_slowly(demo_db, tmp_path, keys, subject="user:alice")
    assert end["inputs"] == {"known-at": "2026-03-01 23:59"}
    assert end["known_at"] is not None and end["focused"] == "timeline-chart"
    assert end["fact"] is not None


# ------------------------------------------------------------------ review
async def test_review_reject_reason_then_approve_next(demo_db, tmp_path):
    """x opens the reason prompt; the reason, enter, then j and a act on the queue."""
    keys = ("3", "j", "x", *typed("never said"), "enter", "j", "a")
    end = await same_as_slowly(demo_db, tmp_path, keys)
    assert end["top"] == "ReviewScreen"
    assert len(end["decided"]["approved"]) == 1
    assert [reason for _, _, reason in end["decided"]["rejected"]] == ["never said"]


async def test_review_edit_form_fields_then_approve(demo_db, tmp_path):
    keys = ("3", "e", "ctrl+u", *typed("浦东"), "tab", "ctrl+u", "tab", "ctrl+u",
            *typed("lives_in"), "enter", "j")
    end = await same_as_slowly(demo_db, tmp_path, keys)
    assert end["top"] == "ReviewScreen"
    [(candidate, _, _)] = end["decided"]["approved"]
    with reopen(tmp_path / "fast.db") as store:
        subject = store.review.get(candidate).subject
        [fact] = [f for f in store.facts.history(subject) if f.claim_id == candidate]
        assert (fact.predicate, fact.object) == ("lives_in", "浦东")


async def test_review_edit_form_dropdowns_opened_and_chosen_at_once(demo_db, tmp_path):
    """Tab to the polarity dropdown, open it, move down and choose; the same
    for the scope; ctrl+s: all in one burst, as typed one by one."""
    keys = ("3", "e", "tab", "tab", "tab", "enter", "down", "enter",
            "tab", "enter", "down", "down", "enter", "ctrl+s", "j")
    end = await same_as_slowly(demo_db, tmp_path, keys)
    assert end["top"] == "ReviewScreen"
    [(candidate, _, _)] = end["decided"]["approved"]
    with reopen(tmp_path / "fast.db") as store:
        c = store.review.get(candidate)
        [fact] = [f for f in store.facts.history(c.subject) if f.claim_id == candidate]
        assert (fact.polarity, fact.scope) == ("negative", "session")


# --------------------------------------------------------------- conflicts
async def test_conflict_keep_both_with_a_scope_typed_at_once(demo_db, tmp_path):
    """b asks for the scope in the confirmation; typed straight after b
    (before the conflict's choices have even loaded) it still lands there."""
    keys = ("2", "b", *typed("session"), "enter", "j")
    end = await same_as_slowly(demo_db, tmp_path, keys)
    assert [how for _, how, _ in end["conflicts"]] == ["both"]
    assert end["top"] == "ConflictsScreen"


async def test_conflict_keep_existing_confirmed_at_once(demo_db, tmp_path):
    keys = ("2", "j", "e", "enter", "x", *typed("both wrong"), "enter")
    end = await same_as_slowly(demo_db, tmp_path, keys)
    assert sorted((how, why) for _, how, why in end["conflicts"]) == [
        ("existing", None), ("neither", "both wrong")]


# ----------------------------------------------------------------- startup
@pytest.mark.parametrize("start", ["review", "timeline"])
async def test_keys_typed_before_the_first_screen_is_up(demo_db, tmp_path, start):
    keys = ("j", "j", "p")
    end = await same_as_slowly(demo_db, tmp_path, keys, start=start)
    assert end["mode"] == "audit" and end["audit"] is not None


async def test_review_undo_then_keys_act_on_the_candidate_brought_back(demo_db, tmp_path):
    keys = ("3", "j", "a", "u", "x", *typed("not so"), "enter")
    end = await same_as_slowly(demo_db, tmp_path, keys)
    assert end["decided"]["approved"] == []  # undone
    assert [reason for _, _, reason in end["decided"]["rejected"]] == ["not so"]


# ------------------------------------------------------------ the palette
async def test_command_palette_jump_typed_at_once(demo_db, tmp_path):
    """ctrl+p, a subject, enter and a move in its timeline, in one burst."""
    keys = ("ctrl+p", *typed("user:tom"), "enter", "j")
    end = await same_as_slowly(demo_db, tmp_path, keys)
    assert end["subject"] == "user:tom" and end["top"] == "TimelineScreen"
