"""The writer process of a bulk import into a SQLite file (``WriteProcess``):
it owns the transaction and inserts one chunk of rows while the importing
process gates the next; ``serve_writes`` is its main loop. Messages cross a
pipe as length-prefixed pickles of flat tuples.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import subprocess
import sys
from typing import Any, BinaryIO, cast

from .db import make_engine
from .db.writes import dbapi_cursor, lock_store, run_compiled
from .errors import StoreError
from .lifeline import end_with_parent
from .parallel_parse import pickle_flat


class WriterUnavailable(StoreError):
    """No writer process could be started here (the caller writes in-process)."""


class WriteProcess:
    """A Python process of its own that owns one SQLite write transaction.

    A bulk import runs its gates in this process and hands the rows they
    produce to the writer process in large chunks, so that binding
    and inserting them (about half of an import's work) runs on another core.
    The writer is a fresh interpreter, not a fork: SQLite connections, locks
    and threads must not be inherited. It opens the store, takes the write
    lock, reports the transaction time and next ids, executes the chunks in
    order and commits only when told to. When this process fails, stops or
    dies first, the writer rolls back: nothing is written.
    """

    def __init__(self, url: str) -> None:
        """Start the writer for the store at ``url`` and wait until it holds the
        write lock. Raises WriterUnavailable when no writer process could be
        started, StoreError when it could not take the lock."""
        env = dict(os.environ)  # the child imports this package from where this process did
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-c",
                 f"from {__name__} import serve_writes; serve_writes({os.getpid()})"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        except OSError as exc:
            raise WriterUnavailable(f"cannot start a writer process: {exc}") from None
        assert self._proc.stdin is not None and self._proc.stdout is not None  # both piped
        self._requests: BinaryIO = cast(BinaryIO, self._proc.stdin)
        self._replies: BinaryIO = cast(BinaryIO, self._proc.stdout)
        self._jobs: list[tuple[str, list, bool]] = []
        try:
            self._send(("open", url), started=False)
            self.tx, self.next_ids, self.head = self._reply("locked", started=False)
        except BaseException:
            self.close()
            raise

    def add(self, sql: str, params: list, every_row: bool) -> None:
        """Queue one executemany for the next ``send``. ``params`` are tuples
        of plain values (named tuples are copied as plain ones)."""
        if params and type(params[0]) is not tuple:
            params = list(map(tuple, params))
        self._jobs.append((sql, params, every_row))

    def send(self) -> None:
        """Hand the queued statements over (they run while this process goes on)."""
        if self._jobs:
            jobs, self._jobs = self._jobs, []
            self._send(("rows", jobs))

    def commit(self) -> None:
        """Send what is queued, commit, and wait for the commit. Raises StoreError."""
        self.send()
        self._send(("commit", None))
        self._reply("committed")

    def close(self) -> None:
        """End the writer process (rolling back unless committed) and wait for it."""
        try:
            self._requests.close()
        except OSError:
            pass
        self._proc.wait()
        self._replies.close()

    def _send(self, message: tuple, started: bool = True) -> None:
        try:
            put_message(self._requests, message)
        except (BrokenPipeError, ConnectionResetError):
            self._reply("error", started)  # the writer stopped: raise its reason

    def _reply(self, expected: str, started: bool = True) -> Any:
        try:
            kind, payload = get_message(self._replies)
        except (EOFError, ValueError, OSError):
            if not started:
                raise WriterUnavailable("the writer process did not start") from None
            raise StoreError("the writer process ended unexpectedly; nothing was saved") from None
        if kind == "error":
            raise StoreError(payload)
        if kind != expected:
            raise StoreError(f"the writer process answered {kind!r}, expected {expected!r}")
        return payload


def put_message(stream: BinaryIO, message: Any) -> None:
    """Write one message: lists and tuples of plain values (see ``pickle_flat``)."""
    data = pickle_flat(message)
    stream.write(len(data).to_bytes(8, "little"))
    stream.write(data)
    stream.flush()


def get_message(stream: BinaryIO) -> Any:
    """Read one message written by ``put_message``. Raises EOFError at the end."""
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    size = int.from_bytes(head, "little")
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def serve_writes(parent_pid: int | None = None) -> None:
    """The writer process's main loop (see WriteProcess): requests arrive
    on stdin, replies leave on stdout (see ``put_message``). It ends with
    ``parent_pid``, the importing process (``lifeline``): a transaction
    abandoned that way is rolled back by the database."""
    if parent_pid is not None:
        end_with_parent(parent_pid)
    gc.disable()  # the rows received are acyclic and short-lived
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the importer, which closes stdin
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the reply stream

    def reply(kind: str, payload: Any) -> None:
        try:
            put_message(replies, (kind, payload))
        except OSError:
            pass  # the importing process is gone; the transaction rolls back

    try:
        _, url = get_message(requests)
    except EOFError:
        return
    engine = None
    try:
        engine = make_engine(url)
        with engine.begin() as conn:
            reply("locked", lock_store(conn))
            cursor = dbapi_cursor(conn)
            while True:
                kind, jobs = get_message(requests)  # EOFError: abandoned, roll back
                if kind == "commit":
                    break
                run_compiled(cursor, jobs)  # StoreError: a retirement found its row changed
        reply("committed", None)
    except EOFError:
        pass
    except StoreError as exc:
        reply("error", str(exc))
    except Exception as exc:  # noqa: BLE001 - reported to the importing process
        reply("error", f"the store could not complete the write: {getattr(exc, 'orig', exc)}")
    finally:
        if engine is not None:
            engine.dispose()
