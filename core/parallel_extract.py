"""Extract a large ingest's turns in two processes.

Extraction (the rules and the signal layer) is most of an ingest's time and is
pure Python: on a two-core laptop a second process does half of it. The turns
are split by user: every turn of a user goes to the same process, in its order,
so what one turn's reading depends on (its stored context, the people its user
named before, which ``PeopleBook`` learns per user) is the same as in one
process, and the claims are the same, turn for turn (``tests/test_parallel_extract.py``).

Only the rule extractor (behind the signal layer or not) is run so, only where
``fork`` exists and nothing else runs in the process (a fork copies one thread:
another thread's lock held at that moment would stay held in the child), and
only for ``PARALLEL_MIN_TURNS`` turns or more: below that, starting a process
does not pay off.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from .claims import ClaimInput
from .lifeline import ORPHANED_EXIT, end_with_parent
from .parallel_parse import available as fork_available
from .pipeline import Turn

PARALLEL_MIN_TURNS = 1_000
_SMALLEST_SHARE = 0.25  # a split whose smaller part holds less of the turns than this is not worth a process

# one turn's result: its claims, or why the extractor failed on it
TurnResult = tuple[tuple[ClaimInput, ...], str | None]


def worth_it(numbered: Sequence[tuple[int, Turn]]) -> bool:
    """Whether these turns are many enough, and this process alone enough, to extract them in two processes."""
    return len(numbered) >= PARALLEL_MIN_TURNS and fork_available() and threading.active_count() == 1


def split_by_user(numbered: Sequence[tuple[int, Turn]]) -> tuple[list[int], list[int]] | None:
    """The positions of ``numbered`` in two parts of about equal size, each holding every turn of its users
    (in their order); None when one user holds so many of the turns that the smaller part would be too small."""
    counts = Counter(turn.user for _, turn in numbered)
    sizes = [0, 0]
    side: dict[str, int] = {}
    for user, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):  # largest first, deterministic
        part = 0 if sizes[0] <= sizes[1] else 1
        side[user] = part
        sizes[part] += n
    if min(sizes) < _SMALLEST_SHARE * len(numbered):
        return None
    first = [i for i, (_, turn) in enumerate(numbered) if side[turn.user] == 0]
    second = [i for i, (_, turn) in enumerate(numbered) if side[turn.user] == 1]
    return first, second


def _worker(run: Callable[[list[int]], tuple[list[TurnResult], Any]], part: list[int], conn: Any,
            parent_end: Any, parent_pid: int) -> None:  # pragma: no cover - child
    """The second process: extracts its part and sends the results back in one message. It ties its life
    to its parent's first (``lifeline``) and closes the reading end it inherited."""
    parent_end.close()
    end_with_parent(parent_pid)
    try:
        conn.send_bytes(pickle.dumps(("done", run(part)), protocol=pickle.HIGHEST_PROTOCOL))
    except (BrokenPipeError, ConnectionResetError):
        os._exit(ORPHANED_EXIT)  # nobody listens any more
    except Exception as exc:  # noqa: BLE001 - sent to the parent, which runs the part itself
        conn.send_bytes(pickle.dumps(("error", repr(exc))))
    finally:
        conn.close()


def run_in_two(run: Callable[[list[int]], tuple[list[TurnResult], Any]], parts: tuple[list[int], list[int]]
               ) -> tuple[list[TurnResult], Any, list[TurnResult], Any]:
    """``run`` on the first part here and on the second in a forked process, at the same time: the results
    of each (and what ``run`` returns beside them: the people the part's users named). A second process
    that fails or ends unexpectedly costs only time: its part is then run here."""
    ctx = multiprocessing.get_context("fork")
    conn, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_worker, args=(run, parts[1], child, conn, os.getpid()), daemon=True)
    proc.start()
    child.close()
    try:
        first, first_extra = run(parts[0])
        try:
            kind, payload = pickle.loads(conn.recv_bytes())
        except EOFError:
            kind, payload = "error", "the second extraction process ended unexpectedly"
    finally:
        conn.close()
        proc.join()
    if kind != "done":
        second, second_extra = run(parts[1])
    else:
        second, second_extra = payload
    return first, first_extra, second, second_extra
