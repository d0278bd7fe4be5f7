"""Named moments in memdesk's own progress where a test may kill it.

The crash harness (``tests/test_crash_harness.py``) needs to SIGKILL a
command at moments chosen from what the command is doing (a transaction
taken, about to commit, committed; a chunk of an import; a batch of
vectors; an index file renamed), not only at wall-clock guesses. Each such
moment calls ``point(name)``. Unless one of two environment variables is
set, that is all it does (one dictionary lookup):

* ``MEMDESK_TRACE_POINTS=FILE``: append ``name#n`` (the n-th time this
  process reached ``name``) to FILE, so a harness can list the points a
  command passes;
* ``MEMDESK_KILL_AT=name#n``: at the n-th arrival at ``name``, the process
  sends itself SIGKILL (no cleanup, no finally blocks: as a crash);
* ``MEMDESK_TRACE_TIMES=FILE``: append ``name#n ns`` (``time.monotonic_ns()``
  on arrival), so a benchmark can time what lies between two points (how
  long a write transaction is held: ``tx.begin`` to ``tx.committed``).

The count per name lives in the process (``_arrivals``): the points are an
instrument of the process as a whole, like its pid.
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter

TRACE_ENV = "MEMDESK_TRACE_POINTS"
KILL_ENV = "MEMDESK_KILL_AT"
TIMES_ENV = "MEMDESK_TRACE_TIMES"

_arrivals: Counter[str] = Counter()


def point(name: str) -> None:
    """This process reached the moment ``name`` (see the module docstring)."""
    environ = os.environ
    if KILL_ENV not in environ and TRACE_ENV not in environ and TIMES_ENV not in environ:
        return
    _arrivals[name] += 1
    here = f"{name}#{_arrivals[name]}"
    trace = environ.get(TRACE_ENV)
    if trace:
        with open(trace, "a", encoding="utf-8") as fh:
            fh.write(here + "\n")
    times = environ.get(TIMES_ENV)
    if times:
        with open(times, "a", encoding="utf-8") as fh:
            fh.write(f"{here} {time.monotonic_ns()}\n")
    if environ.get(KILL_ENV) == here:
        os.kill(os.getpid(), signal.SIGKILL)
