"""The app, driven headless with Pilot on a copy of the demo store; every
action is checked in the store afterwards."""

from __future__ import annotations

import gc
import threading
import time
from functools import partial

import pytest
from memdesk.app.screenshots import DEMO_NOW, REVIEWER, SIZE, demo_app, settle
from memdesk.app.ui.app import FULL_GC_NEVER, MemdeskApp
from memdesk.app.ui.commands import MemdeskCommands
from memdesk.app.ui.screens.audit import AuditScreen
from memdesk.app.ui.screens.base import Fetched
from memdesk.app.ui.screens.conflicts import ConflictsScreen
from memdesk.app.ui.screens.modals import ConfirmScreen
from memdesk.app.ui.screens.pickers import HelpScreen, help_text
from memdesk.app.ui.screens.review import ReviewScreen
from memdesk.app.ui.screens.timeline import FactPanel, TimelineScreen
from memdesk.app.ui.widgets.timeline_chart import TimelineChart, layout
from memdesk.timeutil import to_us
from textual.widgets import DataTable, Input, Tree

from tests.app_screen import plain, reopen, screen_text


async def test_first_screen_is_the_timeline_of_the_first_subject(db):
    app = demo_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        assert app.subject == "project:atlas"
        assert "reviewer demo-reviewer" in app.sub_title and "pending" in app.sub_title
        chart = app.screen.query_one(TimelineChart)
        assert chart.chart is not None and chart.chart.lanes


async def test_review_approve_asserts_the_fact_and_keeps_the_cursor_in_place(db):
    app = demo_app(db, start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        table = screen.query_one(DataTable)
        await pilot.press("j")
        await settle(pilot)
        second, third = screen.items[1], screen.items[2]
        rows = table.row_count
        await pilot.press("a")
        await settle(pilot)
        assert table.row_count == rows - 1
        assert table.cursor_row == 1 and screen.current.id == third.id
    with reopen(db) as store:
        decided = store.review.get(second.id)
        assert decided.state in ("approved", "merged") and decided.decided_by == REVIEWER
        if decided.state == "approved":
            assert second.object in [f.object for f in store.facts.history(second.subject, second.predicate)
                                     if f.retired_at is None]


async def test_review_reject_needs_a_reason_and_records_it(db):
    app = demo_app(db, start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = app.screen.items[0]
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("enter")  # empty reason: refused, dialog stays
        await settle(pilot)
        assert app.screen.__class__.__name__ == "PromptScreen"
        await pilot.press(*"only said once")
        await pilot.press("enter")
        await settle(pilot)
    with reopen(db) as store:
        cand = store.review.get(first.id)
        assert (cand.state, cand.decision_reason, cand.decided_by) == (
            "rejected", "only said once", REVIEWER)


async def test_review_edit_then_approve(db):
    app = demo_app(db, start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first, second = app.screen.items[0], app.screen.items[1]
        # the one edit form is reused: cancelled on the second row, then opened
        # on the first, it shows the first candidate's values, not stale ones
        await pilot.press("j", "e")
        await settle(pilot)
        assert app.screen.query_one("#edit-object", Input).value == second.object
        await pilot.press("escape", "k", "e")
        await settle(pilot)
        field = app.screen.query_one("#edit-object", Input)
        assert field.value == first.object
        field.value = "科幻电影"
        await pilot.press("ctrl+s")
        await settle(pilot)
    with reopen(db) as store:
        cand = store.review.get(first.id)
        assert cand.state == "approved" and cand.edits == {"object": "科幻电影"}
        assert store.review.get(second.id).state == "pending"
        assert "科幻电影" in [f.object for f in store.facts.current(first.subject, first.predicate)]


async def test_review_undo_really_undoes(db):
    app = demo_app(db, start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        first = screen.items[0]
        await pilot.press("a")
        await settle(pilot)
        assert first.id not in [c.id for c in screen.items]
        with reopen(db) as store:
            assert store.review.get(first.id).state == "approved"
        await pilot.press("u")
        await settle(pilot)
        assert screen.items[0].id == first.id and screen.current.id == first.id
    with reopen(db) as store:
        assert store.review.get(first.id).state == "pending"
        assert first.object not in [f.object for f in store.facts.history(first.subject, first.predicate)
                                    if f.retired_at is None]


async def test_review_skip_and_vim_keys_move_without_deciding(db):
    app = demo_app(db, start="review")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        await pilot.press("s", "j", "j")
        assert table.cursor_row == 3
        await pilot.press("k")
        assert table.cursor_row == 2
        pending = len(app.screen.items)
    with reopen(db) as store:
        assert store.review.count() == pending


@pytest.mark.parametrize(("key", "answer", "resolution"), [
    ("e", None, "existing"), ("i", None, "incoming"), ("c", None, "changed"),
    ("b", "session", "both"), ("x", "neither is true", "neither"),
])
async def test_conflict_resolution_closes_it_in_the_store(db, key, answer, resolution):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ConflictsScreen)
        conflict = screen.current
        assert len(screen.query(".side")) == len(conflict.facts) >= 2
        await pilot.press(key)  # asks first: what the choice does, enter takes it
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        if answer is not None:
            await pilot.press(*answer)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        assert conflict.id not in [c.id for c in screen.items]
    with reopen(db) as store:
        done = store.conflicts.get(conflict.id)
        assert (done.state, done.resolution, done.resolved_by) == ("resolved", resolution, REVIEWER)
        objects = [f.object for f in store.facts.current(conflict.subject, conflict.predicate)]
        incoming = conflict.facts[-1]["object"]
        existing = conflict.facts[0]["object"]
        if resolution == "existing":
            assert objects == [existing]
        elif resolution == "incoming":
            assert objects == [incoming]
        elif resolution == "changed":  # the existing value until the incoming one began
            rows = sorted(store.facts.current(conflict.subject, conflict.predicate),
                          key=lambda f: f.valid_from)
            assert [f.object for f in rows] == [existing, incoming]
            assert rows[0].valid_to == rows[1].valid_from
        elif resolution == "both":
            assert sorted(objects) == sorted([existing, incoming])
        else:
            assert objects == []


async def test_conflicts_preview_shows_each_choice_before_it_is_taken(db):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        conflict = screen.current
        with reopen(db) as store:
            expected = {p["keep"]: p["text"] for p in (choice.to_dict() for choice in store.conflicts.preview(conflict.id))}
        panel = screen.query_one("#conflict-preview")

        def shown() -> str:  # the panel's text as drawn, wrapped lines joined
            lines = panel.render_lines(panel.region.reset_offset)
            return " ".join(" ".join(strip.text for strip in lines).split())

        plain = shown()
        assert "what each key would make of the timeline" in plain
        for keep, line in expected.items():  # the gates' dry run, one row per key
            assert " ".join(line.split())[:40] in plain, (keep, plain)
        assert "it changed" in plain and "existing was wrong" in plain
        # moving to the next conflict shows its own preview
        await pilot.press("j")
        await settle(pilot)
        second = screen.current
        assert second.id != conflict.id and second.facts[-1]["object"] in shown()
    with reopen(db) as store:  # looking wrote nothing
        assert store.conflicts.get(conflict.id).state == "open"


async def test_conflicts_undo_reopens_the_last_resolution(db):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        conflict = screen.current
        with reopen(db) as store:
            before = [(f.object, f.valid_from, f.valid_to)
                      for f in store.facts.current(conflict.subject, conflict.predicate)]
        await pilot.press("c", "enter")
        await settle(pilot)
        assert conflict.id not in [c.id for c in screen.items]
        with reopen(db) as store:
            assert store.conflicts.get(conflict.id).resolution == "changed"
        await pilot.press("u")
        await settle(pilot)
        assert conflict.id in [c.id for c in screen.items]
        assert screen.current.id == conflict.id
        await pilot.press("u")  # nothing left to undo in this sitting
        await settle(pilot)
    with reopen(db) as store:
        again = store.conflicts.get(conflict.id)
        assert (again.state, again.resolution) == ("open", None)
        assert [(f.object, f.valid_from, f.valid_to)
                for f in store.facts.current(conflict.subject, conflict.predicate)] == before
        assert store.audit.verify().ok


async def test_timeline_known_at_replays_earlier_belief(db):
    app = demo_app(db, subject="user:alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        chart = app.screen.query_one(TimelineChart)
        now_lanes = chart.chart.lanes
        believed_now = {s.fact.object for lane in now_lanes for s in lane.segments
                        if lane.predicate == "lives_in" and not s.retired}
        assert "张江" in believed_now
        for _ in range(30):  # back to the first change
            await pilot.press("left_square_bracket")
        await settle(pilot)
        early = chart.chart
        assert early.known_at < to_us(DEMO_NOW)
        believed_then = {s.fact.object for lane in early.lanes for s in lane.segments
                         if lane.predicate == "lives_in" and not s.retired}
        assert "张江" not in believed_then
        assert app.screen.query_one("#known-at", Input).value.startswith("2026-")
        await pilot.press("n")
        await settle(pilot)
        assert chart.chart.known_at == to_us(DEMO_NOW)


async def test_timeline_interval_details_and_jump_to_audit(db):
    app = demo_app(db, subject="user:alice")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        chart = app.screen.query_one(TimelineChart)
        while chart.selected_fact.predicate != "lives_in":
            await pilot.press("j")
        await pilot.press("l")
        await settle(pilot)
        fact = chart.selected_fact
        detail = str(app.screen.query_one(FactPanel).render())
        assert f"fact {fact.id}" in detail and "provenance" in detail
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, AuditScreen)
        tree = app.screen.query_one(Tree)
        assert f"lives_in = {fact.object}" in str(tree.root.label)
        steps = [str(n.label) for n in tree.root.children]
        assert any("turn" in s for s in steps)


async def test_audit_form_shows_the_chain(db):
    app = demo_app(db, start="audit")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#audit-subject", Input).value = "user:alice"
        screen.query_one("#audit-predicate", Input).value = "lives_in"
        screen.query_one("#audit-object", Input).value = "徐家汇"
        screen.query_one("#audit-object", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        labels = []

        def walk(node):
            for child in node.children:
                labels.append(str(child.label))
                walk(child)

        walk(screen.query_one(Tree).root)
        kinds = {label.split()[0] for label in labels}
        assert {"turn", "extraction", "gates", "assertion", "retirement"} <= kinds
        # an unknown value is an error message, not a crash
        screen.query_one("#audit-object", Input).value = "火星"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, AuditScreen)


async def test_subject_picker_opens_that_timeline(db):
    app = demo_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        await pilot.press(*"user:to", "enter")  # enter before the lookup is back
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen) and app.subject == "user:tom"
        assert app.screen.data.subject == "user:tom"


async def test_command_palette_finds_candidates_and_conflicts(db):
    app = demo_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = MemdeskCommands(app.screen)
        await provider.startup()
        hits = [h async for h in provider.search("conflict #2")]
        assert hits
        best = max(hits, key=lambda h: h.score)
        best.command()
        await settle(pilot)
        assert isinstance(app.screen, ConflictsScreen) and app.screen.current.id == 2
        with reopen(db) as store:
            cand = store.review.list()[3]
        hits = [h async for h in provider.search(f"candidate #{cand.id}")]
        max(hits, key=lambda h: h.score).command()
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.current.id == cand.id
        subjects = [h async for h in provider.search("subject user:carol")]
        max(subjects, key=lambda h: h.score).command()
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen) and app.subject == "user:carol"


async def test_every_screen_reachable_by_number_and_help_lists_keys(db):
    app = demo_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key, name in (("2", "conflicts"), ("3", "review"), ("4", "recall"), ("5", "audit"),
                          ("1", "timeline")):
            await pilot.press(key)
            await settle(pilot)
            assert app.current_mode == name
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = plain(help_text(app.help_sections()))
        for word in ("Approve", "It changed", "Existing was wrong", "Known at", "Exact/index",
                     "Undo", "Subject/everyone", "Subject only/all"):
            assert word in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)



def test_layout_packs_without_overlap_and_dims_retired_rows(db):
    with reopen(db) as store:
        rows = tuple(store.facts.history("user:alice"))
        now = store.now()
    chart = layout(rows, now, now, width=100)
    for lane in chart.lanes:
        ends = [(s.start, s.end) for s in lane.segments]
        assert all(a[1] <= b[0] for a, b in zip(ends, ends[1:], strict=False))
    retired = [s for lane in chart.lanes for s in lane.segments if s.retired]
    assert retired and all(s.fact.retired_at is not None for s in retired)
    before_any = layout(rows, min(r.told_from for r in rows) - 1, now)
    assert before_any.lanes == ()


async def test_recall_debugger_toggles_exact_turns_at_and_prompt(embedded_db):
    app = demo_app(embedded_db, start="recall")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press("slash")
        await pilot.press(*"where does alice live now")
        await pilot.press("enter")
        await settle(pilot)
        view = screen.view
        assert view is not None and not view.exact and view.over == "memories" and view.hits
        table = screen.query_one(DataTable)
        assert table.row_count == len(view.hits) + len(view.missed)
        top = view.hits[0]
        assert (top.kind, top.object, top.status) == ("fact", "张江", "active")
        assert "score" in [str(c.label) for c in table.columns.values()]
        await pilot.press("x")  # exact search
        await settle(pilot)
        assert screen.view.exact and screen.view.missed == ()
        await pilot.press("o")  # raw turns
        await settle(pilot)
        assert screen.view.over == "turns"
        assert all(h.kind in ("turn", "fact") for h in screen.view.hits)
        await pilot.press("o")
        await pilot.press("v")  # the prompt block
        await settle(pilot)
        panel = screen.query_one("#recall-prompt")
        assert panel.display and "Relevant memory" in str(panel.render())
        await pilot.press("t")  # as of a day before the move was known
        await pilot.press(*"2026-03-12")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.at is not None
        assert "张江" not in [h.object for h in screen.view.hits if h.kind == "fact"]
        await pilot.press("escape", "p")  # audit of the selected result
        await settle(pilot)
        assert isinstance(app.screen, (AuditScreen, type(screen)))


async def test_fast_table_draws_what_datatable_draws():
    """FastTable (the review, conflicts and recall tables) draws its own cells
    and caches its rows; every line must match DataTable's, through cursor
    moves, removed, added, changed and sorted rows, styled cells and wide
    characters. (Cells wider than their column differ on purpose: FastTable
    ends them in "…", see the next test.)"""
    from memdesk.app.ui.widgets.fast_table import FastTable
    from rich.text import Text
    from textual.app import App

    values = ["12", "猫（12号）abc", "", "x", "a b  ", "ünïcode", "猫猫猫", "[b]not markup[/b]"]

    class Tables(App):
        def compose(self):
            for cls in (DataTable, FastTable):
                table = cls(cursor_type="row", zebra_stripes=True)
                table.add_column("id", key="id")
                table.add_column("object", key="obj", width=20)
                table.add_column("styled", key="styled")
                for i, v in enumerate(values):
                    table.add_row(Text(str(i)), Text(v), Text(v, style="bold") if i % 3 else Text(v),
                                  key=str(i))
                yield table

    app = Tables()
    async with app.run_test(size=(60, 30)) as pilot:
        slow, fast = app.query(DataTable)
        assert type(fast) is FastTable
        app.set_focus(None)  # same focus state for both

        async def same() -> None:
            await pilot.pause()
            for y in range(12):
                assert list(fast.render_line(y)) == list(slow.render_line(y)), y

        await same()
        steps = [
            lambda t: t.move_cursor(row=3),
            lambda t: t.remove_row("2"),
            lambda t: t.add_row(Text("99"), Text("new"), Text("n"), key="99"),
            lambda t: t.update_cell("4", "obj", Text("changed")),
            lambda t: t.sort("obj", key=lambda v: v.plain),
            lambda t: t.move_cursor(row=0),
            lambda t: t.remove_row("0"),
            lambda t: t.add_row(Text("0"), Text("other"), Text("cells"), key="0"),
            lambda t: t.sort("id", key=lambda v: int(v.plain)),
            lambda t: t.add_row(Text("100"), Text("a much longer value"), Text("a much longer value"),
                                key="100"),
        ]
        for step in steps:
            for table in (slow, fast):
                step(table)
            await same()
        lines = {}
        for table in (slow, fast):  # each drawn with focus (other styles)
            app.set_focus(table)
            await pilot.pause()
            lines[table] = [list(table.render_line(y)) for y in range(12)]
        assert lines[fast] == lines[slow]
        app.set_focus(None)
        await same()


async def test_full_garbage_collections_wait_for_the_user_to_pause(db):
    """Once the first screen is up the app freezes its startup heap and leaves full
    collections to idle moments; the interpreter's thresholds come back when
    the app exits."""
    before = gc.get_threshold()
    app = demo_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(100):  # the heap is frozen a moment after the first screen is up
            if app._gc_thresholds is not None:
                break
            await pilot.pause(0.05)
        assert gc.get_threshold()[2] == FULL_GC_NEVER and gc.get_freeze_count() > 0
        gc.collect(1)  # something reached the old generation
        app._last_input = time.monotonic()  # the user is typing: no full collection
        app._collect_when_idle()
        assert gc.get_count()[2] >= 1
        await pilot.press("j")
        assert time.monotonic() - app._last_input < 1.0  # keys count as input
        app._last_input = time.monotonic() - 5  # a pause: collected
        app._collect_when_idle()
        assert gc.get_count()[2] == 0
    assert gc.get_threshold() == before


async def test_fast_table_fits_its_width_and_ends_cut_cells_in_an_ellipsis():
    """The flexible column gives way so that every column stays on screen, a
    cut cell ends in "…" by display width (CJK counts double), and the
    column widens again when the table does."""
    from memdesk.app.ui.widgets.fast_table import FastTable
    from rich.cells import cell_len
    from rich.text import Text
    from textual.app import App

    from tests.app_screen import screen_lines

    long_en = "she moved from Xujiahui to Zhangjiang in the spring, the renovation is done"
    long_zh = "我上个月已经从徐家汇搬到张江了，厨房翻新也结束了，预算上限改成八千元"

    class One(App):
        def compose(self):
            table = FastTable(cursor_type="row", flex=("text",))
            for name in ("id", "text", "kind", "index"):
                table.add_column(name, key=name)
            table.add_row(*map(Text, ("1", long_en, "user_explicit", "found")), key="1")
            table.add_row(Text("2"), Text(long_zh, style="dim"), Text("agent_inferred"),
                          Text("missed", style="red"), key="2")
            yield table

    for width in (60, 80):
        app = One()
        async with app.run_test(size=(width, 8)) as pilot:
            await pilot.pause()
            lines = screen_lines(app)
            body = lines[1:3]
            assert all(cell_len(line) <= width for line in lines)
            assert "found" in body[0] and "user_explicit" in body[0], body
            assert "missed" in body[1] and "agent_inferred" in body[1], body
            assert "…" in body[0] and "…" in body[1]
        wide = One()
        async with wide.run_test(size=(200, 8)) as pilot:
            await pilot.pause()
            body = screen_lines(wide)[1:3]
            assert long_en in body[0] and long_zh in body[1] and "…" not in "".join(body)


async def test_fast_table_header_drawn_before_new_rows_are_measured_widens_with_them():
    """DataTable measures new rows when idle; a header drawn in between (the
    table's height fixed, so no resize follows) is drawn again at the widths
    the rows are drawn at, so every label stays above its column."""
    from memdesk.app.ui.widgets.fast_table import FastTable
    from rich.text import Text
    from textual.app import App

    class One(App):
        def compose(self):
            table = FastTable(cursor_type="row", flex=("text",))
            for name in ("id", "text", "kind"):
                table.add_column(name, key=name)
            table.styles.height = 6
            yield table

    app = One()
    async with app.run_test(size=(100, 8)) as pilot:
        await pilot.pause()
        table = app.query_one(FastTable)
        table.add_row(Text("12345"), Text("a long enough text"), Text("user_explicit"), key="1")
        early = table.render_line(0).text  # before DataTable has measured the row
        assert early.index("kind") < early.index("text") + len("a long enough text")
        await pilot.pause()
        header, row = table.render_line(0).text, table.render_line(1).text
        assert header.index("text") == row.index("a long")
        assert header.index("kind") == row.index("user_explicit")


# ------------------------------------------- screens built while the app closes
@pytest.mark.parametrize("screen_class", list(MemdeskApp.MODES.values()))
async def test_a_screen_left_without_widgets_ignores_its_mount_and_resume(db, screen_class):
    """A screen built while the app closes gets no widgets, and Textual still
    mounts and resumes it."""
    app = demo_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = screen_class()  # never composed: no widgets
        assert not screen.built
        screen.on_mount()
        screen.on_screen_resume()
        assert not any(w.node is screen for w in app.workers)  # it fetched nothing either
    app.service.store.close()


async def test_a_result_fetched_by_a_worker_that_was_replaced_is_superseded(db):
    app = demo_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        started, release = threading.Event(), threading.Event()
        made: dict[str, Fetched] = {}

        def fetch(name: str) -> None:
            started.set()
            release.wait(10)
            made[name] = Fetched()  # as a worker builds the message it posts

        first = screen.run_worker(partial(fetch, "first"), thread=True, group="g", exclusive=True)
        for _ in range(500):
            if started.is_set():
                break
            await pilot.pause(0.01)
        second = screen.run_worker(partial(fetch, "second"), thread=True, group="g",
                                   exclusive=True)
        assert first.is_cancelled  # Textual cancels it, but the thread runs on
        release.set()
        for _ in range(500):
            if len(made) == 2:
                break
            await pilot.pause(0.01)
        assert set(made) == {"first", "second"}, made
        assert made["first"].superseded and not made["second"].superseded
        await app.workers.wait_for_complete([second])
        assert not Fetched().superseded  # made outside a worker
    app.service.store.close()


async def test_an_agents_retraction_reads_as_one_at_the_desk(db):
    """A forgetting an agent asked for is a candidate whose approval retires
    the value: the queue says "retract", the context pane says what approving
    does, and approving it at the desk retires the fact as retracted."""
    from memdesk import Memory
    from memdesk.recall import Recaller

    from tests.recall_fixtures import HashEmbedder

    with reopen(db) as store:
        memory = Memory(store, Recaller(store, embedder=HashEmbedder(), index_dir=db.parent / "i"))
        fact = store.facts.current("user:alice", "allergy")[0]
        session = store.facts.sources([fact.claim_id])[fact.claim_id].session
        asked = memory.forget(fact.id, user="alice", session=session, turn=1)
        memory.recaller.close()
    app = demo_app(db, start="review")
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot)
        app.open_candidate(asked.id)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.current.id == asked.id
        shown = screen_text(app)
        assert f"retract: {fact.object}" in shown and "retires this value" in shown
        await pilot.press("a")
        await settle(pilot)
    with reopen(db) as store:
        assert store.facts.get(fact.id).retire_reason == "retracted"
        assert store.review.get(asked.id).decided_by == REVIEWER
