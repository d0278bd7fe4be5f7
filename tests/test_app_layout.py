"""What a person reads gets the width, at 80x24, 100x30, 120x40 and 140x42:
the recall text, the review object, the conflicting values and whose they
are; the header keeps every screen's name at 80 columns; an audit line too
long for the tree ends in "…" with the whole line under the tree; the
conflict confirmation shows the new value without scrolling."""

from __future__ import annotations

import re

import pytest
from memdesk import Store
from memdesk.app.screenshots import demo_app, settle
from memdesk.app.ui.screens.conflicts import ConflictsScreen
from memdesk.app.ui.screens.modals import ConfirmScreen
from memdesk.app.ui.screens.recall import RecallScreen
from memdesk.app.ui.screens.review import ReviewScreen
from memdesk.app.ui.widgets.desk_header import header_line
from memdesk.app.ui.widgets.fast_table import FastTable, flex_widths, plan_columns
from rich.cells import cell_len
from textual.widgets import Static, Tree

from tests.app_screen import plain, screen_lines, screen_text

SIZES = ((80, 24), (100, 30), (120, 40), (140, 42))
sizes = pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])


def widths(table: FastTable) -> dict[str, int]:
    """Each shown column's content width."""
    return {str(c.key.value): c.get_render_width(table) - 2 * table.cell_padding
            for c in table.ordered_columns}


# ----------------------------------------------------------- column plans
def test_a_capped_column_keeps_its_cap_and_gets_back_what_is_left():
    natural = {"id": 3, "subject": 22, "text": 80}
    got = flex_widths(60, natural, ("text", "subject"), {}, {"subject": 14})
    assert got == {"subject": 14, "text": 43}
    roomy = flex_widths(60, {"id": 3, "subject": 22, "text": 20}, ("text", "subject"), {},
                        {"subject": 14})
    assert roomy == {}  # everything fits: nothing to share
    back = flex_widths(40, {"id": 3, "subject": 22, "text": 20}, ("text", "subject"), {},
                       {"subject": 14})
    assert back == {"subject": 17, "text": 20}  # the text whole, the rest back to the subject


def test_optional_columns_step_aside_in_order_while_the_read_column_is_short():
    natural = {"#": 2, "score": 5, "relev": 5, "kind": 6, "subject": 12, "text": 90,
               "confl": 5, "index": 6}
    minimum = dict.fromkeys(natural, 6)
    for available, gone in ((66, ("relev", "confl", "index")), (78, ("relev", "confl")),
                            (98, ()), (138, ())):
        hidden, got = plan_columns(available, natural, minimum, ("text", "subject"),
                                   {"subject": 14}, ("relev", "confl", "index"), 30, 2)
        assert hidden == gone, (available, hidden, got)
        assert got["text"] >= 30 and got["subject"] == 12


# ------------------------------------------------------------------ header
def test_the_header_keeps_every_screen_name_at_80_columns():
    from memdesk.app.ui.service import Overview

    screens = ("timeline", "conflicts", "review", "recall", "audit")
    for overview in (Overview("demo.db", "demo-reviewer", 47, 3, None),
                     Overview("demo.db", "ana", 1234, 12, None)):
        for current in screens:
            line = header_line(screens, current, overview, 80).plain
            assert cell_len(line) <= 80
            assert all(f"{i} " in line for i in range(1, 6)), line
            tabs = line.split(f"{overview.pending} pending")[0]
            names = re.findall(r"[1-5] ([a-z]+)", tabs)
            assert len(names) == 5, line  # every tab named (full or short)
            assert f"{overview.pending} pending" in line


# ------------------------------------------------------------------ recall
@sizes
async def test_recall_text_gets_the_width(db, size):
    app = demo_app(db, start="recall")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"where does alice live now", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RecallScreen)
        table = screen.query_one(FastTable)
        got = widths(table)
        assert got["text"] >= 30 and got["text"] == max(got.values()), got
        assert got["subject"] >= cell_len("user:zhoumin"), got  # subjects whole
        text = screen_text(app)
        for rank, hit, _ in screen.rows[:5]:  # a cut text ends in "…"; the pane has it whole
            flat = " ".join(hit.text.split())
            assert flat in text or re.search(re.escape(flat[:8]) + r".*…", text), (rank, flat)
        assert all(cell_len(line) <= size[0] for line in screen_lines(app))
    app.service.store.close()


# ------------------------------------------------------------------ review
@sizes
async def test_review_object_gets_the_width(db, size):
    app = demo_app(db, start="review")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        table = screen.query_one(FastTable)
        got = widths(table)
        assert got["object"] == max(got.values()) and got["object"] >= 30, got
        text = screen_text(app)
        shown_rows = screen.items[:8]
        for c in shown_rows:
            if cell_len(c.object) <= got["object"]:
                assert c.object in text, c.object
            else:
                assert "…" in text
        if size[0] >= 120:  # every object of the first page is whole from 120 columns
            assert all(cell_len(c.object) <= got["object"] for c in shown_rows), got
        assert shown_rows[0].subject in text  # subjects whole
    app.service.store.close()


# --------------------------------------------------------------- conflicts
@sizes
async def test_conflict_values_and_subjects_are_whole(db, size):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ConflictsScreen)
        text = screen_text(app)
        for c in screen.items:
            assert c.subject in text and c.predicate in text, c.subject
            for fact in c.facts:
                assert fact["object"] in text, fact["object"]
        assert "…" not in "\n".join(screen_lines(app)[:6])
    app.service.store.close()


@sizes
@pytest.mark.parametrize("key", ["e", "c", "i", "b", "x"])
async def test_the_confirmation_shows_the_new_timeline_without_scrolling(db, size, key):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        conflict = app.screen.current
        with Store.open(db) as store:
            keep = {"e": "existing", "c": "changed", "i": "incoming", "b": "both",
                    "x": "neither"}[key]
            choice = next(p for p in (choice.to_dict() for choice in store.conflicts.preview(conflict.id)) if p["keep"] == keep)
        await pilot.press(key)
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        text = screen_text(app)
        assert "after" in text
        for row in choice["timeline"]:
            assert row["object"] in text, (row, text)
    app.service.store.close()


# ------------------------------------------------------------------- audit
@sizes
async def test_audit_lines_end_in_an_ellipsis_and_the_detail_has_them_whole(db, size):
    app = demo_app(db, start="audit")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        app.open_audit("user:alice", "lives_in", "张江")
        await settle(pilot)
        tree = app.screen.query_one(Tree)
        lines = screen_lines(app)
        top = tree.region.y + 1
        body = [line for line in lines[top:top + tree.region.height - 2] if line.strip("│ ")]
        cut = [line for line in body if re.search(r"…\s*│$", line)]
        assert all(cell_len(line) <= size[0] for line in lines)
        if size[0] < 140:
            assert cut, body  # the long lines say they are cut
        assert tree.virtual_size.width <= tree.scrollable_content_region.width  # no sideways scroll
        detail = app.screen.query_one("#audit-detail", Static)
        whole = " ".join(plain(detail.content, size[0]).split())
        assert "user:alice lives_in = 张江" in whole and "valid from" in whole
        await pilot.press("down")
        await settle(pilot)
        step = tree.cursor_node
        assert step is not None
        whole = " ".join(plain(detail.content, size[0]).split())
        assert " ".join(step.label.plain.split()) == whole
    app.service.store.close()
