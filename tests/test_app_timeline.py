"""The timeline screen at the three sizes, on the demo store: the chart as
tall as its bands and the details panel the rest, axis labels that never
collide, the marks a band carries (stated or heard start, due date, retired
versions), the "known at" input, the demo replayed in time order, and reloads
that keep the user's place."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from memdesk import Fact
from memdesk.app.demo import build_demo, stretches
from memdesk.app.screenshots import demo_app, settle
from memdesk.app.ui.screens.timeline import (
    KNOWN_AT_HINTS,
    FactPanel,
    TimelineScreen,
    change_points,
    known_at_fit,
)
from memdesk.app.ui.service import TimelineData
from memdesk.app.ui.widgets.timeline_chart import (
    TimelineChart,
    axis_line,
    label_width,
    lane_spans,
    lane_text,
    layout,
    legend_line,
    start_edge,
    ticks,
)
from memdesk.ingest import demo_files
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widgets import Input

from .app_screen import SIZES, reopen, screen_lines, screen_text

DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
MARKERS = ("▼", "◀", "▶")


def histories(db: Path) -> dict[str, tuple[Fact, ...]]:
    """Every subject of the demo whose history has more than one row (a person a
    user told of once, person:carol/dog, has a single change to step to)."""
    with reopen(db) as store:
        every = {s: tuple(store.facts.history(s)) for s in store.facts.subjects()}
    return {s: rows for s, rows in every.items() if len(rows) > 1}


def chart_of(app) -> TimelineChart:  # noqa: ANN001 - a MemdeskApp
    return app.screen.query_one(TimelineChart)


async def select(pilot: Pilot, fact_id: int) -> None:
    """Move the chart's cursor to ``fact_id`` with the keys a user presses."""
    chart = chart_of(pilot.app)
    assert chart.chart is not None
    where = [(i, j) for i, lane in enumerate(chart.chart.lanes)
             for j, seg in enumerate(lane.segments) if seg.fact.id == fact_id]
    assert where, f"fact {fact_id} is not drawn"
    lane, seg = where[0]
    while chart.cursor[0] != lane:
        await pilot.press("j" if chart.cursor[0] < lane else "k")
    while chart.cursor[1] != seg:
        await pilot.press("l" if chart.cursor[1] < seg else "h")
    await settle(pilot)
    assert chart.selected_fact is not None and chart.selected_fact.id == fact_id


def box_rows(app, widget) -> list[str]:  # noqa: ANN001
    """The rows of ``widget``'s content (less its scrollbar) as drawn on the screen."""
    lines = screen_lines(app)
    region = widget.scrollable_content_region
    return [cut(lines[y], region.x, region.right) for y in range(region.y, region.bottom)]


def cut(line: str, start: int, end: int) -> str:
    """The characters of ``line`` drawn in cells [start, end) (a wide one takes two)."""
    out, col = [], 0
    for ch in line:
        if start <= col and col + cell_len(ch) <= end:
            out.append(ch)
        col += cell_len(ch)
    return "".join(out)


def lane_row(app, lane: int) -> str:  # noqa: ANN001
    """Lane ``lane`` of the chart as drawn (the lane must be scrolled into view)."""
    chart = chart_of(app)
    y = lane - int(chart.scroll_y) + 1
    assert 1 <= y <= chart.scrollable_content_region.height - 2
    return box_rows(app, chart)[y]


# ------------------------------------------------------------------ 1 layout
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_chart_takes_its_bands_height_and_the_details_the_rest(db, size):
    for subject in ("user:alice", "user:liwei"):  # fewer bands than fit, and more
        app = demo_app(db, subject=subject)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            chart, panel = chart_of(app), app.screen.query_one(FactPanel)
            lanes = len(chart.chart.lanes)
            shown = chart.scrollable_content_region.height
            assert chart.virtual_size.height == lanes + 2  # the axis, the lanes, the legend
            assert shown == lanes + 2 or chart.max_scroll_y == lanes + 2 - shown
            assert all(row.strip() for row in box_rows(app, chart)), "an empty line in the chart"
            # the details panel reaches down to the key bar: it has the rest
            keybar_y = app.screen.size.height - 1
            assert panel.parent.region.bottom == keybar_y
            assert shown - 2 >= min(lanes, 6), "several bands visible"
            assert panel.parent.content_region.height >= 5, "a useful part of the details visible"
            if lanes + 2 > shown:  # more bands than fit: the lanes scroll to the cursor
                assert chart.max_scroll_y > 0
                for _ in range(lanes):
                    await pilot.press("down")
                await settle(pilot)
                assert chart.cursor[0] == lanes - 1 and chart.scroll_y == chart.max_scroll_y
                last = chart.chart.lanes[-1]
                assert last.segments[chart.cursor[1]].fact.id == chart.selected_fact.id
                rows = box_rows(app, chart)
                assert DATE.search(rows[0]), "the axis stays on top while the lanes scroll"
                assert "known at" in rows[-1] or DATE.search(rows[-1]), "the legend stays below"
        app.service.store.close()


async def test_every_interval_details_fit_the_panel_at_140x42(db):
    rows = histories(db)
    app = demo_app(db, subject=next(iter(rows)))
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot)
        for subject in rows:
            app.subject = subject
            app.screen.load(subject)
            await settle(pilot)
            chart, panel = chart_of(app), app.screen.query_one(FactPanel)
            assert app.screen.data.subject == subject
            for i, lane in enumerate(chart.chart.lanes):
                for j, seg in enumerate(lane.segments):
                    chart.cursor = (i, j)
                    await settle(pilot)
                    assert panel.detail is not None and panel.detail.fact["id"] == seg.fact.id
                    box = panel.parent
                    assert panel.size.height <= box.scrollable_content_region.height, (
                        subject, seg.fact.id, panel.size, box.scrollable_content_region)
                    assert box.max_scroll_y == 0
                    text = "\n".join(box_rows(app, box))
                    assert f"fact {seg.fact.id}" in text and "provenance" in text
                    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
                    assert len(lines) == panel.size.height  # every line of the text is on screen
                    assert panel.detail.audit.chain[-1].step in lines[-1]
    app.service.store.close()


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_details_are_compact_and_cut_long_texts(db, size):
    app = demo_app(db, subject="user:alice")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for _ in range(4):
            await pilot.press("j")
        await settle(pilot)
        panel = app.screen.query_one(FactPanel)
        fact = chart_of(app).selected_fact
        rows = box_rows(app, panel.parent)
        text = "\n".join(rows)
        assert f"fact {fact.id}" in rows[0]
        fields = text.split("provenance")[0]
        assert re.search(r"valid \d{4}-\d{2}-\d{2} \d{2}:\d{2} → ", fields), "times via short_time"
        assert not re.search(r"\d{4}-\d{2}-\d{2}T", fields)
        assert len(fields.strip().splitlines()) <= (4 if size[0] >= 100 else 5)
        source = panel.detail.fact["source"]["text"]
        assert text.count(source[:6]) <= 1, "the source text is shown once"
        width = panel.parent.scrollable_content_region.width
        assert all(cell_len(r.rstrip()) <= width for r in rows)
        assert "start only heard" in text or "start stated" in text
    app.service.store.close()


# -------------------------------------------------------------------- 2 axis
def _check_axis(line: str, width: int, chart, tz: int) -> None:  # noqa: ANN001
    """Whole labels, apart, each at its own tick, and the known-at marker."""
    assert cell_len(line) == width
    tokens = line.split()
    assert sum(t in MARKERS for t in tokens) == 1, line
    dates = [t for t in tokens if t not in MARKERS]
    assert all(DATE.fullmatch(t) for t in dates), f"cut or overlapping label in {line!r}"
    assert dates == sorted(dates) and len(set(dates)) == len(dates)
    zone = timezone(timedelta(minutes=tz))
    for match in DATE.finditer(line):  # each label starts at its day's midnight (one cell a character)
        midnight = datetime.fromisoformat(match.group()).replace(tzinfo=zone).timestamp() * 1e6
        assert int((midnight - chart.start) * width / (chart.end - chart.start)) == match.start()
    if width >= 24:
        assert dates, f"no label at width {width}: {line!r}"


def test_axis_labels_never_overlap_or_get_cut_at_any_width(db):
    for subject, rows in histories(db).items():
        now = max(r.recorded_at for r in rows)
        points = change_points(TimelineData(subject, rows, now))
        for known in (points[0], points[len(points) // 2], now, now + 400 * 86_400_000_000):
            for total in range(40, 201):
                inner = total - 5  # border, padding and the scrollbar's column
                area = inner - label_width(inner) - 1
                chart = layout(rows, known, now, area)
                _check_axis(axis_line(chart, area, rows[0].tz), area, chart, rows[0].tz)
                legend = legend_line(chart, inner, rows[0].tz)
                assert cell_len(legend) <= inner and legend.split()[0] in MARKERS
                for lane in chart.lanes:
                    assert lane_text(chart, lane, area, rows[0].tz, now).cell_len == area


def test_axis_ticks_over_long_and_short_spans(db):
    rows = next(iter(histories(db).values()))
    day = 86_400_000_000
    for stretch in (0, 3 * day, 200 * day, 5 * 365 * day, 40 * 365 * day):
        wide = tuple(r._replace(valid_from=r.valid_from - stretch * (i % 2)) for i, r in
                     enumerate(rows))
        for area in range(12, 190, 7):
            chart = layout(wide, max(r.recorded_at for r in wide), max(r.recorded_at for r in wide),
                           area)
            _check_axis(axis_line(chart, area, 0), area, chart, 0)


def test_known_at_marker_is_kept_where_a_label_would_be(db):
    rows = histories(db)["user:alice"]
    now = max(r.recorded_at for r in rows)
    for area in range(30, 150):
        probe = layout(rows, now, now, area)
        for t in ticks(probe.start, probe.end, area, rows[0].tz):  # known at a label's own day
            chart = layout(rows, t, now, area)
            line = axis_line(chart, area, rows[0].tz)
            if chart.start <= t < chart.end:
                assert "▼" in line
            _check_axis(line, area, chart, rows[0].tz)


# ------------------------------------------------------------------- 3 marks
def _demo_examples(rows: dict[str, tuple[Fact, ...]]) -> dict[str, tuple[str, Fact]]:
    """A fact of the demo for each mark: stated start, heard start, due, retired."""
    wanted = {
        "stated": lambda f: f.start == "stated" and f.latest_start == f.valid_from
        and f.retired_at is None,
        "window": lambda f: f.start_stated is True and f.latest_start > f.valid_from
        and f.retired_at is None,
        "heard": lambda f: f.start_stated is False and f.retired_at is None,
        "due": lambda f: f.event_start not in (None, f.valid_from) and f.retired_at is None,
        "retired": lambda f: f.retired_at is not None,
    }
    out = {}
    for name, test in wanted.items():
        found = [(s, f) for s, facts in rows.items() for f in facts if test(f)]
        if name == "stated" and not found:
            continue  # the demo's conversations state their starts with a precision only
        assert found, f"the demo has no {name} fact"
        out[name] = found[0]
    return out


def test_an_interval_starts_with_the_mark_of_how_its_start_is_known():
    base = Fact(1, "user:a", "lives_in", "X", None, "positive", "global", 100, None, 1, None,
                None, None, None, 1, None, 1.0, "imported", "t", None, None, None, 0, True, False)
    assert start_edge(base._replace(start_stated=True)) == "▏"  # exact, or from before 0007
    assert start_edge(base._replace(start_stated=False, start_kind="heard")) == "┊"
    for kind in ("stated", "bounded", "clamped"):
        assert start_edge(base._replace(start_stated=True, start_kind=kind,
                                        start_latest=200)) == "╎"


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_band_marks_are_visible_and_explained_at_every_size(db, size):
    rows = histories(db)
    reasons = {f.retire_reason for facts in rows.values() for f in facts if f.retired_at}
    examples = _demo_examples(rows)
    # one retired version of each reason the demo has
    for reason in sorted(reasons):
        examples[f"retired:{reason}"] = next((s, f) for s, facts in rows.items() for f in facts
                                             if f.retire_reason == reason)
    for name, (subject, fact) in examples.items():
        app = demo_app(db, subject=subject)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await select(pilot, fact.id)
            chart = chart_of(app)
            row = lane_row(app, chart.cursor[0])
            panel = "\n".join(box_rows(app, app.screen.query_one("#fact-detail")))
            legend = box_rows(app, chart)[-1]
            assert cell_len(legend.rstrip()) <= chart.scrollable_content_region.width
            if name == "stated":
                assert "▏" in row and "start stated" in panel
            elif name == "window":
                assert "╎" in row and "╎" in legend and f"start {fact.start}, by" in panel
            elif name == "heard":
                assert "┊" in row and "start only heard" in panel and "┊" in legend
            elif name == "due":
                due = datetime.fromtimestamp(fact.event_start / 1e6).strftime("%m-%d")
                assert "@" in row and "@" in legend and f"due {fact_due(fact)}" in panel, row
                assert due in row or "@" in row
            else:
                assert "×" in row and "×" in legend
                assert f"({fact.retire_reason})" in panel and "retired" in panel
        app.service.store.close()


def fact_due(fact: Fact) -> str:
    zone = timezone(timedelta(minutes=fact.tz))
    return datetime.fromtimestamp(fact.event_start / 1e6, zone).strftime("%Y-%m-%d %H:%M")


async def test_retired_versions_stay_marked_at_every_known_at(db):
    rows = histories(db)
    app = demo_app(db, subject="user:alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for subject, facts in rows.items():
            app.screen.load(subject)
            await settle(pilot)
            screen = app.screen
            for point in change_points(screen.data):
                screen.known_at = point
                screen.redraw()
                await settle(pilot)
                chart = chart_of(app).chart
                retired = {f.id for f in facts
                           if f.told_until is not None and f.told_until <= point}
                drawn = {s.fact.id for lane in chart.lanes for s in lane.segments if s.retired}
                assert drawn == retired, (subject, point)
                for lane in chart.lanes:  # × right after the start edge of each retired one
                    text = lane_text(chart, lane, 60, 0, screen.data.now).plain
                    for seg, (x0, x1) in zip(lane.segments, lane_spans(chart, lane, 60), strict=True):
                        if seg.retired and x1 - x0 >= 2:
                            assert cells(text, x0 + 1) == "×", (subject, text)
                        elif x1 - x0 >= 2:
                            assert cells(text, x0 + 1) != "×"
    app.service.store.close()


def cells(text: str, col: int) -> str:
    """The character drawn at cell ``col`` of ``text``."""
    width = 0
    for ch in text:
        if width == col:
            return ch
        width += cell_len(ch)
    return ""


async def test_clicking_an_interval_selects_it(db):
    app = demo_app(db, subject="user:alice")
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot)
        chart = chart_of(app)
        lane = chart.chart.lanes[3]
        assert chart.selected_fact.id != lane.segments[-1].fact.id
        inner = chart.scrollable_content_region.width
        area = inner - label_width(inner) - 1
        x0, _ = lane_spans(chart.chart, lane, area)[-1]
        target = lane.segments[-1]
        await pilot.click(TimelineChart, offset=(chart.styles.gutter.left + label_width(inner) + 1 + x0,
                                                 chart.styles.gutter.top + 1 + 3))
        await settle(pilot)
        assert chart.selected_fact.id == target.fact.id
        assert app.screen.query_one(FactPanel).detail.fact["id"] == target.fact.id
    app.service.store.close()


# ---------------------------------------------------------------- 4 known at
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_known_at_input_and_its_placeholder_fit(db, size):
    app = demo_app(db, subject="user:alice")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        field = app.screen.query_one("#known-at", Input)
        assert field.placeholder in KNOWN_AT_HINTS
        assert cell_len(field.placeholder) + 1 <= field.scrollable_content_region.width
        assert field.placeholder in screen_text(app)
        label = app.screen.query_one("#timeline-subject")
        assert "user:alice" in screen_text(app) and label.region.width >= 20
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert field.value and field.value in screen_text(app)
        await pilot.press("t", *"2026-03-10", "enter")
        await settle(pilot)
        assert field.value == "2026-03-10 23:59" and field.value in screen_text(app)
    app.service.store.close()


def test_known_at_fit_at_every_width():
    for width in range(20, 240):
        hint, size = known_at_fit(width, 6)
        assert cell_len(hint) + 1 + 6 <= size and cell_len("2026-03-10 23:59") + 7 <= size
        fitting = [h for h in KNOWN_AT_HINTS if cell_len(h) + 7 <= width // 2]
        assert hint == (fitting[0] if fitting else KNOWN_AT_HINTS[-1])


# -------------------------------------------------------------- 5 demo order
def test_demo_replays_conversations_in_time_order():
    parts = stretches(demo_files())
    times = [t.time for part in parts for t in part.turns]
    assert times == sorted(times)
    for path in demo_files():  # every session's turns in its own order
        mine = [t.turn for part in parts if part.path == path for t in part.turns]
        assert mine == sorted(mine)


def test_every_subject_has_a_history_to_step_through(db):
    for subject, rows in histories(db).items():
        now = max(r.recorded_at for r in rows)
        points = change_points(TimelineData(subject, rows, now))
        assert len(points) > 1, subject
        beliefs = [{(s.fact.id, s.retired) for lane in layout(rows, p, now).lanes
                    for s in lane.segments} for p in points]
        assert all(a != b for a, b in zip(beliefs, beliefs[1:], strict=False)), subject


# stepping does not depend on the size (the layout at each size is tested above):
# every subject at 80x24 only, where the chart has the least room
@pytest.mark.parametrize("size", SIZES[:1], ids=[f"{w}x{h}" for w, h in SIZES[:1]])
async def test_known_at_steps_through_each_subjects_history(db, size):
    subjects = list(histories(db))
    app = demo_app(db, subject=subjects[0])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for subject in subjects:
            app.screen.load(subject)
            await pilot.press("n")  # from now back to the first change
            await settle(pilot)
            points = change_points(app.screen.data)
            seen = []
            for _ in range(2):  # the last two changes are drawn differently
                await pilot.press("left_square_bracket")
                await settle(pilot)
                seen.append(screen_text(app))
            assert seen[0] != seen[1] and app.screen.known_at == points[-2], subject
            for _ in range(len(points)):  # and "[" reaches back to the first one
                await pilot.press("left_square_bracket")
            await settle(pilot)
            assert app.screen.known_at == points[0]
            assert app.screen.query_one("#known-at", Input).value in screen_text(app)
    app.service.store.close()


def test_rerunning_the_demo_adds_nothing(db):
    with reopen(db) as store:
        before = (store.now(), store.audit.verify().ok, {s: len(store.facts.history(s)) for s in store.facts.subjects()},
                  store.review.count(), store.conflicts.count())
        parts = build_demo(store)
        after = (store.now(), store.audit.verify().ok, {s: len(store.facts.history(s)) for s in store.facts.subjects()},
                 store.review.count(), store.conflicts.count())
    assert before == after
    assert all(p.facts == p.merged == p.queued == p.conflicts == p.memories == 0 for p in parts)


# ------------------------------------------------------------------- reload
async def test_reload_keeps_the_cursor_the_known_at_time_and_what_is_typed(db):
    app = demo_app(db, subject="user:alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        chart, panel = chart_of(app), screen.query_one(FactPanel)
        await pilot.press("left_square_bracket", "j", "j", "l")
        await settle(pilot)
        fact, known = chart.selected_fact, screen.known_at
        shown = panel.detail.fact["id"]
        assert known is not None and shown == fact.id
        screen.action_reload()
        await settle(pilot)
        assert chart.selected_fact.id == fact.id and screen.known_at == known
        assert panel.detail.fact["id"] == fact.id and chart.has_focus
        await pilot.press("t", *"2026-03")
        field = screen.query_one("#known-at", Input)
        screen.action_reload()  # live refresh while the user types
        await settle(pilot)
        assert field.has_focus and field.value == "2026-03"
        assert panel.detail is not None and panel.detail.fact["id"] == fact.id
        assert chart.selected_fact.id == fact.id
    app.service.store.close()
