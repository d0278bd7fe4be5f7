"""Stopping the HTTP door: SIGTERM (or SIGINT) ends the process within the
stop timeout, and the store stays consistent.

uvicorn on its own waits, after the signal, for every connection to close
and every task to end, with no limit: an open event stream (every MCP
client holds one) or a tool call still running kept a stopped server alive
for as long as they lasted. ``DoorServer`` adds, at the first signal:

* every request in flight is cancelled (``Guard.stop``): a tool call stops at
  its next statement and writes nothing (``app.cancel``), later requests get
  503;
* uvicorn's graceful shutdown gets half the stop timeout
  (``server_config``), after which it cancels what is left;
* a watchdog ends the process at the stop timeout whatever still runs (a
  worker thread waiting on the database, or busy in C code holding the GIL,
  cannot be interrupted from Python). It is the kernel's: a real-time timer
  whose SIGALRM keeps its default action, so it fires even while no Python
  code can run (a thread timer where the platform has no ``setitimer``).
  That is as safe as a crash: every write is one transaction, which the
  database rolls back when the process dies before its commit.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType
from typing import Any

import uvicorn

from .http_guard import Guard


def _say(text: str) -> None:
    """One line on stderr, written at once (safe inside a signal handler)."""
    try:
        os.write(2, f"memdesk mcp: {text}\n".encode())
    except OSError:
        pass


class DoorServer(uvicorn.Server):
    """uvicorn's server for the door's app: on the first SIGTERM or SIGINT it
    cancels the requests in flight and guarantees the exit within the stop
    timeout (see the module docstring)."""

    def __init__(self, config: Any, app: Guard) -> None:
        super().__init__(config)
        self.door = app
        self.watchdog: threading.Timer | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        first = not self.should_exit
        super().handle_exit(sig, frame)
        if not first:
            return
        timeout = self.door.settings.stop_timeout
        cancelled = self.door.stop()
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        _say(f"stopping ({name}): {cancelled} request(s) in flight cancelled; "
             f"exiting within {timeout:g} s")
        if hasattr(signal, "setitimer"):  # the kernel ends the process: SIGALRM's default
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.setitimer(signal.ITIMER_REAL, timeout)
            return
        self.watchdog = threading.Timer(timeout, self._exit_now, args=(sig,))
        self.watchdog.daemon = True
        self.watchdog.start()

    def _exit_now(self, sig: int) -> None:
        _say(f"still busy {self.door.settings.stop_timeout:g} s after the signal: exiting now "
             "(a write in progress rolls back)")
        os._exit(128 + sig)


__all__ = ["DoorServer"]
