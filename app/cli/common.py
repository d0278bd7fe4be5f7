"""What every command shares: the exit code, user errors, time arguments, JSON and
table output, the ``--keep`` choices (spelled out so the parser does not load the store)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memdesk import (
    InvalidInput,
)

from ..tables import minute_text

if TYPE_CHECKING:
    from collections.abc import Callable


EXIT_ERROR = 1
RESOLUTIONS = ("existing", "incoming", "changed", "both", "neither")
"""``--keep`` choices of ``conflicts resolve``: memdesk.store.RESOLUTIONS,
spelled out so the parser does not load the store (a test keeps them equal)."""
RESOLVE_HELP = """\
what each --keep choice does to the timeline of the conflict's slot:

  existing  the existing value stays as it is; the incoming claim is rejected.
  changed   the value changed (an evolution): the existing row is closed at the
            incoming value's valid start (retired as superseded; its earlier
            part is kept as history) and the incoming value holds from then on.
            An incoming value that starts before the existing one's stated
            start is inserted closed where that one starts (a backfill); one
            that starts before a start only heard replaces it from then on.
  incoming  the existing value was wrong (a correction): it is retired as
            corrected, as if it had never been true, and the incoming value
            takes its whole valid interval, back to the existing row's start
            (from the incoming value's own start, when that start was stated).
  both      both hold: the existing one stays, the incoming one holds over its
            own valid time in --scope (required, another scope).
  neither   the existing facts are retracted (no value remains) and the incoming
            claim is rejected.

`memdesk conflicts show ID` shows what each choice would make of this conflict's
timeline before you take it; `memdesk conflicts undo ID` undoes a resolution."""


class _Version(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("memdesk")
        except PackageNotFoundError:  # run from a checkout that was never installed
            text = "unknown"
        sys.stdout.write(f"memdesk {text}\n")
        parser.exit()


class UserError(Exception):
    """A mistake on the command line, reported without a traceback."""


def _time_arg(text: str | None, flag: str) -> int | None:
    """A time flag's value in µs. A bare day (2026-06-14) is read as the end of
    that day in this machine's timezone, and the reading is said on stderr; a
    time without an offset stays an error (DESIGN §6: never a guess)."""
    if text is None or text == "now":
        return None
    from memdesk import read_moment

    try:
        us, note = read_moment(text, flag)
    except InvalidInput as exc:
        raise UserError(str(exc)) from None
    if note:
        print(f"memdesk: {note}", file=sys.stderr)
    return us


def _dump(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")


def _interval(d: dict) -> str:
    start = minute_text(d["valid_from"] or "")
    end = minute_text(d["valid_to"]) if d["valid_to"] else "…"
    return f"{start} → {end}"


def _due(d: dict) -> str:
    """When a dated item (a reminder, a plan) falls due: its event time's day,
    or its span when that is longer than a day; empty without an event time."""
    event = d.get("event_time") or {}
    start, end = (event.get("start") or ""), (event.get("end") or "")
    if start and d["due"] is None:
        return ""  # the event is the change itself (a move), not something due (Fact.due)
    if not start:
        return end[:10]
    if not end or end[:10] <= start[:10] or _one_day(start, end):
        return start[:10] if start[11:16] in ("", "00:00") else start[:16].replace("T", " ")
    return f"{start[:10]}..{end[:10]}"


def _one_day(start: str, end: str) -> bool:
    from datetime import datetime, timedelta

    return datetime.fromisoformat(end) - datetime.fromisoformat(start) <= timedelta(days=1)


def _source(d: dict | None) -> str:
    return f"{d['session']}#{d['turn']}" if d else ""


def _progress_bar(label: str) -> Callable[[int, int], None] | None:
    """A one-line progress display on stderr, shown only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show
