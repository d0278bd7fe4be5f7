"""The Conflicts screen at every tested size: the opened column, the detail
pane (each side in full, its source turn in the conversation, its score and
gates), the empty screen, the confirm dialog of every choice (what it does,
enter takes it, escape writes nothing, an impossible choice cannot be
taken), the dialogs' text on screen, and a reload that keeps the cursor on
its conflict. Each action is checked in the store afterwards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk import ManualClock, Store
from memdesk.app.screenshots import DEMO_NOW, REVIEWER, demo_app, settle
from memdesk.app.ui.app import MemdeskApp
from memdesk.app.ui.screens.base import when
from memdesk.app.ui.screens.conflicts import EMPTY_TEXT, ConflictsScreen
from memdesk.app.ui.screens.modals import ConfirmScreen, EditScreen, PromptScreen
from memdesk.app.ui.screens.review import ReviewScreen
from memdesk.app.ui.service import MemdeskService
from memdesk.app.ui.widgets.keybar import KeyBar
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import DataTable, Input, Static

from .app_screen import SIZES, plain, reopen, screen_lines, screen_text
from .helpers import claim, day

CHOICES = {"e": "existing", "c": "changed", "i": "incoming", "b": "both", "x": "neither"}


def flat(text: str) -> str:
    """Text with every whitespace run (line breaks of wrapped text too) as one space."""
    return " ".join(text.split())


def bare(text: str) -> str:
    """Text without any whitespace: wrapped CJK text has no space to break at."""
    return "".join(text.split())


BORDER = str.maketrans("", "", "│╭╮╰╯─█▀▄▊▎▔▁")
"""The characters borders are drawn with (panels, dialogs, inputs)."""


def shown(app) -> str:  # noqa: ANN001 - a running App
    """The screen's text as drawn, borders left out, whitespace runs as one space."""
    return flat(screen_text(app).translate(BORDER))


def drawn(widget: Widget) -> str:
    """A widget's whole content as drawn at its width (borders left out),
    wrapped lines joined."""
    lines = widget.render_lines(widget.region.reset_offset)
    return flat(" ".join(strip.text.translate(BORDER) for strip in lines))


def on_screen(app, widget: Widget) -> bool:
    """Whether the widget is drawn whole inside the screen."""
    region = widget.region
    width, height = app.size
    return region.x >= 0 and region.y >= 0 and region.right <= width and region.bottom <= height


# ------------------------------------------------------------ 1. opened
@pytest.mark.parametrize("size", SIZES)
async def test_opened_is_when_the_conflict_opened_in_its_source_offset(db, size, tmp_path):
    # a claim about January arrives later (the demo replays its conversations
    # as they happened, so its own conflicts open when their turn is said)
    late = tmp_path / "late.jsonl"
    late.write_text(json.dumps({
        "subject": "user:carol", "predicate": "lives_in", "object": "Bristol",
        "valid_from": "2026-01-10T09:00:00+00:00", "confidence": 0.95,
        "source": {"session": "late-import", "turn": 1, "speaker": "user",
                   "kind": "user_explicit", "text": "I lived in Bristol from 10 January",
                   "time": "2026-01-20T09:00:00+00:00"},
        "extractor": "late@1"}) + "\n", encoding="utf-8")
    with reopen(db) as store:
        assert store.facts.import_file(late).to_dict()["conflicts"] == 1
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ConflictsScreen)
        table = screen.query_one(DataTable)
        with reopen(db) as store:
            expected = {c.id: when(c.opened_at, store.review.get(c.claim_id).source.tz)
                        for c in store.conflicts.list("open")}
            valid = {c.id: when(store.review.get(c.claim_id).valid_from,
                                store.review.get(c.claim_id).source.tz)
                     for c in store.conflicts.list("open")}
        assert expected != valid  # the demo has conflicts opened long after their valid time
        # the opened column steps aside for the values on a narrow screen
        # (tests/test_app_layout.py); the table keeps its cells
        cells = {int(table.get_row_at(i)[0].plain):
                 table.all_cells(table.ordered_rows[i].key)["opened"].plain
                 for i in range(table.row_count)}
        assert cells == expected
        if size[0] >= 100:
            assert [c.plain for c in table.get_row_at(0)][-1] == expected[screen.current.id]
        first = screen.current
        # the detail pane says it too, in full, whatever the width
        assert f"opened {expected[first.id]}" in drawn(screen.query_one("#conflict-head"))
        assert expected[first.id] in shown(app)
    app.service.store.close()


# ----------------------------------------------------------- 2. detail
@pytest.mark.parametrize("size", SIZES)
async def test_detail_pane_shows_each_side_in_full_with_its_turn_and_score(db, size):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        with reopen(db) as store:
            conversations = {}
            for c in store.conflicts.list("open"):
                cand = store.review.get(c.claim_id)
                conversations[c.id] = cand
        for _ in range(len(screen.items)):
            c = screen.current
            sides = list(screen.query(".side").results(Static))
            assert len(sides) == len(c.facts)
            for panel, fact in zip(sides, c.facts, strict=True):
                text = drawn(panel)
                assert bare(fact["object"]) in bare(text)  # whole, never cut
                if fact["value"] is not None:
                    for part in fact["value"].values():
                        assert str(part) in text
                source = fact["source"]
                assert bare(source["text"]) in bare(text)  # the source turn, marked
                assert f"▶ #{source['turn']}" in text
                assert f"conversation {source['session']}" in text
                for part in (f"{fact['confidence']:.2f}", source["kind"], fact["scope"],
                              f"polarity {fact['polarity']}", "mention"):
                    assert part in text, (part, text)
                if fact["id"] is not None:
                    assert f"fact {fact['id']}" in text and "provenance ok" in text
                    assert "recorded" in text
                else:
                    assert f"claim {conversations[c.id].id}" in text
                    assert f"conflict opened (conflict {c.id}, {c.kind})" in text
            head = drawn(screen.query_one("#conflict-head"))
            assert f"conflict {c.id}" in head and f"{c.kind} conflict" in head and "why:" in head
            # the turns before and after the source turn are there too
            incoming = c.facts[-1]["source"]
            with reopen(db) as store:
                around = store.facts.conversation(incoming["session"], incoming["turn"], 1)
            assert all(bare(t.text) in bare(drawn(sides[-1])) for t in around)
            await pilot.press("j")
            await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
async def test_table_takes_its_rows_and_the_pane_the_rest_all_of_it_reachable(db, size):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        table = screen.query_one(DataTable)
        pane = screen.query_one("#conflict-detail", VerticalScroll)
        keybar = screen.query_one(KeyBar)
        rows = table.row_count + 1  # and the header
        assert rows <= table.region.height <= rows + 1  # (+ a horizontal scrollbar)
        assert pane.region.y == table.region.bottom
        assert pane.region.bottom == keybar.region.y  # no empty space below
        lower = screen_lines(app)[size[1] // 2:-1]
        assert sum(1 for line in lower if line.strip()) >= len(lower) - 1
        # everything in the pane can be scrolled to from the table (J / K)
        preview = screen.query_one("#conflict-preview")
        for _ in range(40):
            if pane.scroll_y >= pane.max_scroll_y:
                break
            await pilot.press("J")
            await pilot.pause()
        assert pane.scroll_y == pane.max_scroll_y
        assert preview.region.bottom <= pane.region.bottom
        assert "what each key would make of the timeline" in shown(app)
        await pilot.press("K")
        await pilot.pause()
        assert pane.scroll_y < pane.max_scroll_y or pane.max_scroll_y == 0
        assert isinstance(app.focused, DataTable)  # j/k and the choice keys still work
    app.service.store.close()


# ------------------------------------------------------------ 3. empty
def resolve_all(db: Path) -> None:
    with reopen(db) as store:
        for c in store.conflicts.list("open"):
            store.conflicts.resolve(c.id, "existing", by="another-reviewer")


@pytest.mark.parametrize("size", SIZES)
async def test_no_open_conflicts_says_so_and_where_they_come_from(db, size):
    resolve_all(db)
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        text = shown(app)
        assert flat(EMPTY_TEXT) in text
        assert "0 open conflicts · nothing to decide" in text
        assert not app.screen.query_one(DataTable).display
        await pilot.press("e")  # nothing to resolve: said, nothing opened
        await settle(pilot)
        assert isinstance(app.screen, ConflictsScreen)
    app.service.store.close()


@pytest.mark.parametrize("size", SIZES)
async def test_a_fresh_store_shows_the_empty_message(tmp_path, size):
    store = Store.open(tmp_path / "fresh.db", clock=ManualClock(DEMO_NOW))
    app = MemdeskApp(MemdeskService(store, REVIEWER), start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert flat(EMPTY_TEXT) in shown(app)
    store.close()


async def test_resolving_the_last_conflict_shows_the_empty_message_and_u_brings_it_back(db):
    with reopen(db) as store:
        for c in store.conflicts.list("open")[1:]:
            store.conflicts.resolve(c.id, "existing", by="another-reviewer")
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(pilot)
        screen = app.screen
        last = screen.current
        await pilot.press("e", "enter")
        await settle(pilot)
        assert flat(EMPTY_TEXT) in shown(app)
        await pilot.press("u")
        await settle(pilot)
        assert screen.current.id == last.id
        assert "Nothing to decide" not in screen_text(app)
    app.service.store.close()


# ---------------------------------------------------------- 4. plurals
@pytest.mark.parametrize("size", SIZES)
async def test_one_open_conflict_is_counted_in_the_singular(db, size):
    with reopen(db) as store:
        for c in store.conflicts.list("open")[1:]:
            store.conflicts.resolve(c.id, "existing", by="another-reviewer")
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        text = shown(app)
        assert "1 open conflict shown" in text and "1 open conflicts" not in text
    app.service.store.close()


# ---------------------------------------------------- 5. confirmation
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("key", "answer"), [("e", None), ("c", None), ("i", None),
                                             ("b", "session"), ("x", "neither is true")])
async def test_each_choice_shows_its_timeline_and_waits_for_enter(db, size, key, answer):
    keep = CHOICES[key]
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        conflict = screen.current
        with reopen(db) as store:
            choice = next(p for p in (choice.to_dict() for choice in store.conflicts.preview(conflict.id)) if p["keep"] == keep)
        await pilot.press(key)
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        text = shown(app)
        assert flat(choice["text"]) in text  # the preview's text for this choice
        assert "after" in text  # what the choice makes comes first: in view at any size
        for row in choice["timeline"]:  # each row of the timeline afterwards
            assert row["object"] in text
        for row in choice["retired"]:
            assert f"fact {row['fact_id']} {row['object']}" in text
        whole = drawn(dialog.query_one("#confirm-effect"))
        assert whole.index("after") < whole.index("before")  # before: below, scrolled to
        assert "enter confirms" in text and "escape cancels, nothing is written" in text
        assert on_screen(app, dialog.query_one("#confirm-dialog"))
        if answer is not None:  # asked in the same dialog, the timeline in view
            assert dialog.query_one(Input).display and app.focused is dialog.query_one(Input)
            await pilot.press(*answer)
            await settle(pilot)
            if keep == "both":
                assert f"{answer} · incoming" in shown(app)
        await pilot.press("escape")  # cancelled: nothing written
        await settle(pilot)
        assert app.screen is screen
        with reopen(db) as store:
            assert store.conflicts.get(conflict.id).state == "open"
        await pilot.press(key)
        await settle(pilot)
        if answer is not None:
            assert app.screen.query_one(Input).value == ""  # a fresh dialog
            await pilot.press(*answer)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen and conflict.id not in [c.id for c in screen.items]
    with reopen(db) as store:
        done = store.conflicts.get(conflict.id)
        assert (done.state, done.resolution, done.resolved_by) == ("resolved", keep, REVIEWER)
        if keep == "both":
            scopes = {f.scope for f in store.facts.current(conflict.subject, conflict.predicate)}
            assert scopes == {conflict.scope, answer}
        if keep == "neither":
            assert done.reason == answer
    app.service.store.close()


async def test_keep_both_refuses_no_scope_and_the_existing_scope(db):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(pilot)
        conflict = app.screen.current
        await pilot.press("b", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press(*conflict.scope, "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)  # the same scope: refused, still asking
        assert app.screen.query_one(Input).value == conflict.scope
    with reopen(db) as store:
        assert store.conflicts.get(conflict.id).state == "open"
    app.service.store.close()


@pytest.mark.parametrize("size", SIZES)
async def test_an_impossible_choice_says_why_and_cannot_be_taken(tmp_path, size):
    clock = ManualClock(DEMO_NOW)
    store = Store.open(tmp_path / "same-start.db", clock=clock)
    # two values stated to start at the same instant, told before it: "it changed" makes no sense
    store.facts.add(claim("user:omar", "works_at", "Acme Robotics", at=day(2), turn=1, valid_from=day(9)))
    store.facts.add(claim("user:omar", "works_at", "Globex", at=day(3), turn=2, valid_from=day(9)))
    (conflict,) = store.conflicts.list()
    (changed,) = [p for p in (choice.to_dict() for choice in store.conflicts.preview(conflict.id)) if p["keep"] == "changed"]
    assert changed["error"]
    app = MemdeskApp(MemdeskService(store, REVIEWER), start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        text = shown(app)
        assert flat(f"this cannot be done now: {changed['error']}") in text
        assert "escape closes" in text and "enter confirms" not in text
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is dialog  # not taken
        assert store.conflicts.get(conflict.id).state == "open"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ConflictsScreen)
    assert store.conflicts.get(conflict.id).state == "open"
    store.close()


@pytest.mark.parametrize("size", SIZES)
async def test_undo_reopens_a_confirmed_resolution(db, size):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        conflict = screen.current
        await pilot.press("i", "enter")
        await settle(pilot)
        with reopen(db) as store:
            assert store.conflicts.get(conflict.id).resolution == "incoming"
        await pilot.press("u")
        await settle(pilot)
        assert screen.current.id == conflict.id
        assert f"conflict {conflict.id}" in drawn(screen.query_one("#conflict-head"))
    with reopen(db) as store:
        assert store.conflicts.get(conflict.id).state == "open"
    app.service.store.close()


async def test_key_bar_and_help_say_what_each_key_does(db):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=SIZES[-1]) as pilot:
        await settle(pilot)
        bar = str(app.screen.query_one(KeyBar).render())
        for words in ("Keep existing", "It changed", "Existing was wrong", "Keep both",
                      "Retract both", "Undo"):
            assert words in bar
        await pilot.press("question_mark")
        await settle(pilot)
        help_text = plain(app.screen.query_one("#help-body", Static).content, 120)
        for key, words in (("e", "Keep existing"), ("c", "It changed"), ("i", "Existing was wrong"),
                           ("b", "Keep both"), ("x", "Retract both"), ("u", "Undo"),
                           ("J", "Scroll detail down")):
            assert any(line.split()[:1] == [key] and words in line
                       for line in help_text.splitlines()), key
    app.service.store.close()


# ---------------------------------------------------------- 6. dialogs
LONG_QUESTION = ("keep both: in which scope does the incoming value hold? (the existing one "
                 "stays in 'global', and the two must not overlap in time or scope)")


@pytest.mark.parametrize("size", SIZES)
async def test_every_dialog_fits_and_shows_its_whole_text(db, size):
    app = demo_app(db, start="review")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        cand = app.screen.current
        await pilot.press("x")  # the reject prompt
        await settle(pilot)
        assert isinstance(app.screen, PromptScreen)
        text = shown(app)
        assert flat(f"reject #{cand.id} {cand.predicate} = {cand.object}: why?") in text
        assert "enter to confirm · escape to cancel" in text
        assert on_screen(app, app.screen.query_one(".dialog"))
        await pilot.press("escape")
        app.push_screen(app.prompt(LONG_QUESTION, "a scope"))  # a long question wraps
        await settle(pilot)
        assert flat(LONG_QUESTION) in shown(app)
        await pilot.press("escape")
        await pilot.press("e")  # the edit form
        await settle(pilot)
        assert isinstance(app.screen, EditScreen)
        text = shown(app)
        for words in (f"edit candidate {cand.id}: {cand.subject} {cand.predicate}", "object",
                      "value (JSON", "polarity", "scope",
                      "ctrl+s (or enter in a text field) approves the edited fact · escape cancels"):
            assert words in text, words
        form = app.screen.query_one(".dialog")
        assert on_screen(app, form)
        for widget in app.screen.query("Input, Select"):
            assert form.region.contains_region(widget.region)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("2")  # the confirm dialog, asking a scope
        await settle(pilot)
        conflict = app.screen.current
        await pilot.press("b")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        text = shown(app)
        incoming = conflict.facts[-1]["object"]
        assert flat(f"in which scope does {incoming} hold? (the existing value stays in "
                    f"{conflict.scope!r})") in text
        assert flat(f"b · keep both: conflict {conflict.id}, {conflict.subject} "
                    f"{conflict.predicate}") in text
        assert "type the answer, enter confirms · escape cancels, nothing is written" in text
        assert on_screen(app, dialog.query_one("#confirm-dialog"))
        assert dialog.query_one("#confirm-dialog").region.width <= size[0] - 2  # a margin
        await pilot.press("escape")
    app.service.store.close()


# ------------------------------------------------------------ 7. reload
@pytest.mark.parametrize("size", SIZES)
async def test_reload_keeps_the_cursor_on_its_conflict_without_flicker(db, size):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        first, second, third = (c.id for c in screen.items[:3])
        await pilot.press("j")
        await settle(pilot)
        assert screen.current.id == second
        showed: list[int] = []
        original = screen._show

        def show(loaded):  # noqa: ANN001, ANN202 - records what the pane is filled with
            showed.append(loaded.detail.conflict.id)
            original(loaded)

        screen._show = show  # type: ignore[method-assign]
        with reopen(db) as other:  # another reviewer resolves the first one
            other.conflicts.resolve(first, "existing", by="another-reviewer")
        screen.fetch()
        await settle(pilot)
        assert [c.id for c in screen.items] == [second, third]
        assert screen.current.id == second and screen.query_one(DataTable).cursor_row == 0
        assert set(showed) == {second}  # the pane never showed another conflict
        assert f"conflict {second}" in drawn(screen.query_one("#conflict-head"))
        # the selected one is resolved elsewhere: the cursor goes to the next one
        with reopen(db) as other:
            other.conflicts.resolve(second, "existing", by="another-reviewer")
        screen.fetch()
        await settle(pilot)
        assert screen.current.id == third
        assert f"conflict {third}" in drawn(screen.query_one("#conflict-head"))
    app.service.store.close()


@pytest.mark.parametrize("size", SIZES)
async def test_reload_leaves_an_open_dialog_and_its_typed_text_alone(db, size):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        first, second, third = (c.id for c in screen.items[:3])
        await pilot.press("j", "x")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        await pilot.press(*"half a reas")
        with reopen(db) as other:
            other.conflicts.resolve(third, "existing", by="another-reviewer")
        screen.fetch()
        await settle(pilot)
        assert app.screen is dialog and dialog.query_one(Input).value == "half a reas"
        assert app.focused is dialog.query_one(Input)
        assert screen.current.id == second
        # the dialog's own conflict is decided elsewhere: it says so and refuses enter
        with reopen(db) as other:
            other.conflicts.resolve(second, "existing", by="another-reviewer")
        screen.fetch()
        await settle(pilot)
        assert app.screen is dialog and dialog.query_one(Input).value == "half a reas"
        assert f"conflict {second} was closed meanwhile" in shown(app)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is dialog
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and [c.id for c in screen.items] == [first]
    with reopen(db) as store:
        done = store.conflicts.get(second)
        assert (done.resolution, done.resolved_by) == ("existing", "another-reviewer")
    app.service.store.close()


def test_row_for_keeps_the_id_or_takes_the_next():
    screen = ConflictsScreen()

    class Row:
        def __init__(self, id: int) -> None:
            self.id = id

    screen.items = [Row(2), Row(5), Row(9)]  # type: ignore[list-item]
    assert [screen.row_for(i) for i in (None, 2, 5, 9)] == [0, 0, 1, 2]
    assert [screen.row_for(i) for i in (1, 3, 6, 10)] == [0, 1, 2, 2]


def test_conflict_detail_is_plain_frozen_data_with_each_sides_gates(db):
    import dataclasses

    from memdesk import AuditStep
    from memdesk.app.ui.service import ConflictDetail, gates_by_claim

    with reopen(db) as store:
        service = MemdeskService(store, REVIEWER)
        conflict = store.conflicts.list("open")[0]
        detail = service.conflict_detail(conflict.id)
        assert isinstance(detail, ConflictDetail) and detail.conflict.id == conflict.id
        with pytest.raises(dataclasses.FrozenInstanceError):
            detail.sides[0].status = "changed"  # type: ignore[misc]
        *existing, incoming = detail.sides
        assert [s.fact_id for s in existing] == list(conflict.fact_ids)
        assert incoming.incoming and incoming.claim_id == conflict.claim_id
        assert detail.tz == store.review.get(conflict.claim_id).source.tz
        for side in detail.sides:
            assert side.source is not None
            assert side.source.turn in [t.turn for t in side.turns]
        assert [g.gate for g in existing[0].gates][:1] == ["provenance"]
    # two claims extracted at one instant each get their own gates
    steps = (AuditStep("extraction", 5, "x", "", {"claim_id": 1}),
             AuditStep("extraction", 5, "x", "", {"claim_id": 2}),
             AuditStep("gates", 5, "m", "", {"gates": [{"gate": "dedup", "result": "new"}]}),
             AuditStep("gates", 5, "m", "", {"gates": [{"gate": "dedup", "result": "merged"}]}),
             AuditStep("extraction", 9, "x", "", {"claim_id": 3}))
    found = gates_by_claim(steps)
    assert {k: [g.result for g in v] for k, v in found.items()} == {1: ["new"], 2: ["merged"]}
