"""Helper processes end with the process they serve.

memdesk starts helper processes for bulk imports (a forked parser, a writer
interpreter). A helper must never outlive its parent, however the parent
dies (SIGKILL included): a helper left behind keeps the store file (and
its write-ahead log) open, and a writer left behind could hold the write
lock. Two mechanisms, so that one missing does not leave a helper behind:

* Linux's ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the helper
  the moment its parent goes. (It fires when the *thread* that started the
  helper ends; memdesk's helpers live only while the call that started them
  runs in that thread.)
* everywhere: a daemon thread that checks every ``WATCH_EVERY_S`` whether the
  helper was re-parented (its parent process id changed) and then ends it.

A killed writer needs no cleanup: the database rolls back a transaction
whose connection is gone (SQLite's journal on the next open, PostgreSQL when
the socket closes).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>
WATCH_EVERY_S = 0.2
ORPHANED_EXIT = 70  # the exit code of a helper that found its parent gone


def end_with_parent(parent_pid: int) -> None:
    """Make this process end as soon as ``parent_pid`` (the process it
    serves) is gone. Call it first thing in the helper. Never raises: where
    ``prctl`` is missing, the watching thread alone does it."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no libc symbol: the thread below still watches
            pass
    if os.getppid() != parent_pid:  # the parent died before the line above took effect
        os._exit(ORPHANED_EXIT)
    watcher = threading.Thread(target=_watch, args=(parent_pid,), daemon=True,
                               name="memdesk-lifeline")
    watcher.start()


def _watch(parent_pid: int) -> None:
    while True:
        time.sleep(WATCH_EVERY_S)
        if os.getppid() != parent_pid:
            os._exit(ORPHANED_EXIT)
