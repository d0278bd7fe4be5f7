"""The desk a reviewer lives in, at every size it is used at (80x24, 100x30,
140x42): the header's counts, the help, the review queue (its context panel,
its subject filter, whole columns), the recall debugger's detail pane, the
command palette's order, and live refresh when another process writes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memdesk import Store
from memdesk.app.screenshots import REVIEWER, demo_app, settle
from memdesk.app.ui.app import MemdeskApp
from memdesk.app.ui.commands import MemdeskCommands
from memdesk.app.ui.screens.modals import EditScreen, PromptScreen
from memdesk.app.ui.screens.pickers import HelpScreen
from memdesk.app.ui.screens.recall import RecallScreen
from memdesk.app.ui.screens.review import ReviewScreen
from memdesk.app.ui.service import MemdeskService
from memdesk.app.ui.widgets.desk_header import header_line
from memdesk.recall import Recaller
from rich.cells import cell_len
from textual.widgets import Input, Static

from tests.app_screen import SIZES, plain, screen_lines, screen_text

ROOT = Path(__file__).resolve().parent.parent
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
sizes = pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)


def fits(app, size) -> None:  # noqa: ANN001
    lines = screen_lines(app)
    assert len(lines) == size[1] and all(cell_len(line) <= size[0] for line in lines)


# ------------------------------------------------------------------ header
def test_header_keeps_what_waits_at_any_width():
    from memdesk.app.ui.service import Overview

    screens = MemdeskApp.SCREENS_IN_ORDER
    many = Overview("demo.db", "ana", 14, 3, None)
    one = Overview("demo.db", "ana", 1, 1, None)
    for width in range(30, 200):
        for overview in (many, one):
            line = header_line(screens, "review", overview, width).plain
            assert cell_len(line) <= width, (width, line)
            counts = "14 pending · 3 conflicts" if overview is many else "1 pending · 1 conflict"
            assert counts in line, (width, line)
            if width >= 60:
                assert "3 review" in line, (width, line)
    wide = header_line(screens, "review", many, 160).plain
    assert "1 timeline" in wide and "reviewer ana" in wide and "demo.db" in wide


@sizes
async def test_header_shows_the_counts_and_the_screen_at_every_size(db, size):
    with Store.open(db, create=False) as store:
        counts = f"{store.review.count()} pending · {store.conflicts.count()} conflicts"
    app = demo_app(db, start="review")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        top = screen_lines(app)[0]
        assert counts in top and "3 review" in top, top
        fits(app, size)


# -------------------------------------------------------------------- help
@sizes
async def test_help_shows_keys_as_written_at_every_size(db, size):
    """The help once leaked markup ("[           [/b] Known −"): keys such as
    ``[`` show as themselves, and every line stays inside the screen."""
    app = demo_app(db, subject="user:alice")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        scroller = app.screen.query_one("#help-body").parent
        seen = ""
        for _ in range(60):  # page through the whole help
            text = screen_text(app)
            assert "[/" not in text and "[b" not in text
            seen += text
            fits(app, size)
            if scroller.scroll_y >= scroller.max_scroll_y:
                break
            scroller.scroll_down(animate=False)
            await pilot.pause()
        assert "Known −" in seen and "Subject only/all" in seen


def test_help_body_names_each_key_as_itself():
    from memdesk.app.ui.screens.pickers import help_text

    text = plain(help_text(MemdeskApp.help_sections()))
    row = next(line for line in text.splitlines() if "Known −" in line)
    assert row.split()[0] == "[", row
    assert "[/" not in text


# ------------------------------------------------------------------ review
async def _review(app, pilot) -> ReviewScreen:  # noqa: ANN001
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


@sizes
async def test_review_undo_brings_the_panel_to_the_restored_candidate(db, size):
    """After u the cursor is on the restored candidate and so is the context
    panel; e then edits that very candidate."""
    app = demo_app(db, start="review")
    async with app.run_test(size=size) as pilot:
        screen = await _review(app, pilot)
        await pilot.press("j", "j")
        await settle(pilot)
        approved = screen.current
        assert approved is not None
        await pilot.press("a")
        await settle(pilot)
        assert screen.current is not None and screen.current.id != approved.id
        assert screen.shown == screen.current.id
        await pilot.press("u")
        await settle(pilot)
        assert screen.current is not None and screen.current.id == approved.id
        assert screen.shown == approved.id
        assert f"candidate {approved.id} " in screen_text(app) or size[1] < 30
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, EditScreen)
        assert app.screen.candidate is not None and app.screen.candidate.id == approved.id
        assert f"edit candidate {approved.id}" in screen_text(app)
        await pilot.press("escape")
        fits(app, size)


@sizes
async def test_review_columns_stay_whole_at_every_size(db, size):
    app = demo_app(db, start="review")
    async with app.run_test(size=size) as pilot:
        await _review(app, pilot)
        text = screen_text(app)
        assert "user_explicit" in text and not re.search(r"\b(?:user_expl|agent_inf)\w*…", text)
        fits(app, size)


async def test_review_started_for_a_subject_shows_only_that_subject(db):
    app = demo_app(db, start="review", subject="user:tom")
    async with app.run_test(size=(140, 42)) as pilot:
        screen = await _review(app, pilot)
        assert screen.items and {c.subject for c in screen.items} == {"user:tom"}
        assert "pending for user:tom" in screen_text(app)
        await pilot.press("f")  # everyone's again
        await settle(pilot)
        assert len({c.subject for c in screen.items}) > 1
        await pilot.press("f")  # the current subject's only
        await settle(pilot)
        assert {c.subject for c in screen.items} == {"user:tom"}
    with Store.open(db) as store:
        assert screen.total == store.review.count(subject="user:tom")


# ------------------------------------------------------------------ recall
async def _recall(app, pilot, query: str) -> RecallScreen:  # noqa: ANN001
    await settle(pilot)
    await pilot.press("slash", *query, "enter")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, RecallScreen)
    return screen


@sizes
async def test_recall_columns_fit_and_the_detail_pane_shows_the_whole_hit(db, size):
    app = demo_app(db, start="recall")
    async with app.run_test(size=size) as pilot:
        screen = await _recall(app, pilot, "where does carol live")
        text = screen_text(app)
        assert "found" in text and "index" in text  # the last column, whole
        fits(app, size)
        # the hit whose text is cut in the table is whole in the pane
        long_row = max(range(len(screen.rows)), key=lambda i: cell_len(screen.rows[i][1].text))
        for _ in range(long_row):
            await pilot.press("j")
        await settle(pilot)
        _, hit, _ = screen.rows[long_row]
        pane = plain(screen.query_one("#recall-detail", Static).content, size[0] - 4)
        assert "".join(hit.text.split()) in "".join(pane.split())
        assert "score" in pane and "relevance" in pane and "recency" in pane
        if hit.source is not None:
            assert f"source {hit.source.session}#{hit.source.turn}" in pane
            assert "▶" in pane  # the source turn marked in its conversation


async def test_recall_before_the_first_record_says_why_it_is_empty(db):
    app = demo_app(db, start="recall")
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot)
        await pilot.press("t", *"2025-12-01", "enter")
        await settle(pilot)
        await pilot.press("slash", *"where does alice live", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RecallScreen) and screen.view is not None
        assert not screen.view.hits
        assert "before the first record" in screen.view.message, screen.view.message
        assert "nothing was recorded before 2026-" in screen_text(app), screen.view.message


async def test_recall_for_the_current_subject_only(db):
    app = demo_app(db, start="recall", subject="user:carol")
    async with app.run_test(size=(140, 42)) as pilot:
        screen = await _recall(app, pilot, "where do they live")
        assert len({hit.subject for _, hit, _ in screen.rows}) > 1
        await pilot.press("s")
        await settle(pilot)
        # the user's own memory and what they told of other people (person:carol/…), nobody else's
        subjects = {hit.subject for _, hit, _ in screen.rows}
        assert "user:carol" in subjects
        assert all(s == "user:carol" or s.startswith("person:carol/") for s in subjects), subjects
        assert "for user:carol" in screen_text(app)


# ----------------------------------------------------------------- palette
async def test_palette_lists_memdesk_entries_before_textual_commands(db):
    app = demo_app(db)
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot)
        provider = MemdeskCommands(app.screen)
        await provider.startup()
        found = [hit.text async for hit in provider.discover()]
        subjects = [i for i, t in enumerate(found) if t and t.startswith("subject ")]
        builtin = [i for i, t in enumerate(found) if t in ("Quit", "Keys", "Theme")]
        assert subjects and builtin and max(subjects) < min(builtin)


# ------------------------------------------------------------ live refresh
def _memdesk(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDESK_")}
    return subprocess.run([sys.executable, "-m", "memdesk.app.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def _candidate_file(folder: Path, subject: str, obj: str, confidence: float) -> Path:
    path = folder / f"{obj}.jsonl"
    path.write_text(json.dumps({
        "subject": subject, "predicate": "likes", "object": obj,
        "valid_from": "2026-05-20T10:00:00+08:00", "confidence": confidence,
        "source": {"session": f"live-{obj}", "turn": 1, "speaker": "user",
                   "kind": "user_explicit", "text": f"I like {obj}",
                   "time": "2026-05-20T10:00:00+08:00"},
        "extractor": "other-process@1"}, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


async def _until(pilot, check, seconds: float = 8.0) -> float:  # noqa: ANN001
    """Wait (letting the app run) until ``check()``; returns how long it took."""
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < seconds, "the app did not catch up"
        await pilot.pause(0.1)
    return time.monotonic() - start


async def _live_review(app: MemdeskApp, url: str, folder: Path) -> None:
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _review(app, pilot)
        await pilot.press("j", "j")
        await settle(pilot)
        before = screen.current
        assert before is not None
        pending = app.overview.pending if app.overview else 0
        # a reviewer starts to type a reason...
        await pilot.press("x", *"half typed")
        await settle(pilot)
        assert isinstance(app.screen, PromptScreen)
        # ...while another process adds a candidate that sorts first
        done = _memdesk("--db", url, "import",
                        str(_candidate_file(folder, "user:newcomer", "kites", 0.05)))
        assert done.returncode == 0, done.stderr
        took = await _until(pilot, lambda: any(c.subject == "user:newcomer" for c in screen.items))
        assert took < 5
        assert app.screen.query_one(Input).value == "half typed"  # the reason is still there
        assert screen.current is not None and screen.current.id == before.id  # cursor stayed
        await _until(pilot, lambda: app.overview is not None and app.overview.pending == pending + 1)
        await pilot.press("escape")
        await settle(pilot)
        assert f"{pending + 1} pending" in screen_lines(app)[0]
        # another process resolves nothing here but approves the newcomer: it leaves the queue
        new = next(c for c in screen.items if c.subject == "user:newcomer")
        done = _memdesk("--db", url, "review", "approve", str(new.id), "--by", "other")
        assert done.returncode == 0, done.stderr
        await _until(pilot, lambda: all(c.id != new.id for c in screen.items))
        assert screen.current is not None and screen.current.id == before.id


async def test_live_refresh_shows_another_process_writes_sqlite(db, tmp_path):
    app = demo_app(db, start="review")
    try:
        await _live_review(app, str(db), tmp_path)
    finally:
        app.service.store.close()


@pytest.mark.postgres
async def test_live_refresh_shows_another_process_writes_postgres(pg_server, tmp_path):
    from tests.pgserver import reset_pg

    reset_pg(pg_server.url)
    with Store.open(pg_server.url) as store:
        for i, obj in enumerate(("tea", "chess", "rain", "maps")):
            store.facts.import_file(_candidate_file(tmp_path, f"user:p{i}", obj, 0.3 + i / 10))
    store = Store.open(pg_server.url)
    app = MemdeskApp(MemdeskService(store, REVIEWER, Recaller(store)), start="review")
    try:
        await _live_review(app, pg_server.url, tmp_path)
    finally:
        store.close()


async def test_live_refresh_reaches_a_screen_that_was_hidden(db, tmp_path):
    """A write while another screen is shown is there when the reviewer comes back."""
    app = demo_app(db, start="review")
    async with app.run_test(size=(140, 42)) as pilot:
        screen = await _review(app, pilot)
        await pilot.press("4")
        await settle(pilot)
        seen = app.changes
        done = _memdesk("--db", str(db), "import",
                        str(_candidate_file(tmp_path, "user:late", "bells", 0.05)))
        assert done.returncode == 0, done.stderr
        await _until(pilot, lambda: app.changes > seen)
        assert screen.stale
        await pilot.press("3")
        await settle(pilot)
        assert any(c.subject == "user:late" for c in screen.items)


# ----------------------------------------------------------------- key bar
def test_key_bar_leaves_out_whole_keys_and_points_to_help():
    from memdesk.app.ui.widgets.keybar import key_line

    keys = [(k, d, True) for k, d in (("a", "Approve"), ("x", "Reject"), ("e", "Edit+approve"),
                                      ("s", "Skip"), ("u", "Undo"), ("?", "Help"))]
    full = key_line(keys, 200).plain
    assert "Edit+approve" in full and "more keys" not in full
    for width in range(20, len(full)):
        line = key_line(keys, width).plain
        assert cell_len(line) <= width and line.endswith(" ?  more keys ")
        words = line.split()
        for key, description, _ in keys[:-1]:  # each key shown whole or not at all
            assert (description in words) == (f" {key}  {description} " in line)


@sizes
async def test_key_bar_fits_every_screen(db, size):
    app = demo_app(db, start="conflicts")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for key in ("2", "3", "4", "5", "1"):
            await pilot.press(key)
            await settle(pilot)
            bottom = screen_lines(app)[-1].rstrip()
            assert bottom.endswith("Help") or bottom.endswith("more keys"), bottom


async def test_an_unparsed_note_is_edited_into_the_fact_it_states_at_the_desk(db):
    """The queue's first candidates are the signal layer's unparsed statements (confidence
    0.3); on a note, e opens the form with the predicate to set, and ctrl+s writes that fact."""
    app = demo_app(db, start="review")
    async with app.run_test(size=SIZES[-1]) as pilot:
        screen = await _review(app, pilot)
        for _ in range(len(screen.items)):
            if screen.current is not None and screen.current.predicate == "note":
                break
            await pilot.press("j")
            await settle(pilot)
        note = screen.current
        assert note is not None and note.predicate == "note" and note.value == {"unparsed": note.value["unparsed"]}
        assert "unparsed statement" in screen_text(app)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, EditScreen)
        app.screen.query_one("#edit-predicate", Input).value = "plan"
        app.screen.query_one("#edit-object", Input).value = "edited from a note"
        await pilot.press("ctrl+s")
        await settle(pilot)
    with Store.open(db, create=False) as store:
        facts = [f for f in store.facts.current(note.subject) if f.object == "edited from a note"]
        assert [(f.predicate, f.value) for f in facts] == [("plan", None)]
