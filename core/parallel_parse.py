"""Parse a large import file in a second process while the first one runs the gates.

On a two-core laptop, validating JSONL lines and running the gates each take a
core's worth of Python; doing them in two processes overlaps them. The worker
validates exactly as ``read_claims`` does (same messages, same line numbers)
and sends chunks of compact tuples back, which arrive as ParsedClaim named
tuples; a bad line arrives as an error in its place in the stream, so the
writer can stop and roll back.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import pickle
from collections.abc import Iterator
from operator import attrgetter
from pathlib import Path
from typing import Any, NamedTuple

from .claims import ClaimInput, iter_claims
from .errors import InputFileError
from .lifeline import ORPHANED_EXIT, end_with_parent

CHUNK_LINES = 20_000
PARALLEL_MIN_BYTES = 8 * 2**20  # below this, starting a process does not pay off


def available() -> bool:
    """Whether a parsing process can be forked here. Only "fork" is used: it
    needs no importable __main__ (so any script may call import_file), and the
    child touches nothing but the file it reads."""
    return "fork" in multiprocessing.get_all_start_methods()

class ParsedSource(NamedTuple):
    """A SourceRef the worker validated, as it arrives here: the same
    attributes in a named tuple, which is several times cheaper to rebuild
    than the frozen dataclass. The gates only read it."""

    session: str
    turn: int
    text: str
    time: int
    tz: int
    speaker: str
    kind: str


class ParsedClaim(NamedTuple):
    """A ClaimInput the worker validated, as it arrives here: its attributes,
    derived ones (``value_json``, ``key``) included, in a named tuple (see
    ParsedSource). The gates take it wherever they take a ClaimInput."""

    subject: str
    predicate: str
    object: str
    valid_from: int
    valid_to: int | None
    value: Any
    polarity: str
    scope: str
    confidence: float
    change: str | None
    extractor: str
    single_valued: bool | None
    event_start: int | None
    event_end: int | None
    sensitive: bool
    start_stated: bool
    start_latest: int | None
    value_json: str | None
    key: str
    source: ParsedSource

    @property
    def tz(self) -> int:
        return self.source.tz


_claim_values = attrgetter(*ParsedClaim._fields[:-1])
_source_values = attrgetter(*ParsedSource._fields)


def _pack(claim: ClaimInput) -> tuple:
    """A validated claim as plain values, for the way back (see _unpack)."""
    return (*_claim_values(claim), _source_values(claim.source))


def _unpack(packed: tuple) -> ParsedClaim:
    """The claim ``_pack`` sent, without validating or deriving anything again."""
    return ParsedClaim._make((*packed[:-1], ParsedSource._make(packed[-1])))


def pickle_flat(message: Any) -> memoryview:
    """Pickle a message of plain values without a memo (``fast``): half the
    cost of ordinary pickling for chunks of thousands of flat tuples, at the
    price of repeating shared values. Never for recursive structures."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump(message)
    return buffer.getbuffer()


def _worker(path: str, conn, parent_end, parent_pid: int) -> None:  # pragma: no cover - child
    """The parsing process. It first closes the reading end of the pipe it
    inherited from the fork (else, with its parent dead, a full pipe would
    block it forever: it would hold the reading end itself) and ties its life
    to its parent's (``lifeline``); a parent gone mid-send ends it too."""
    parent_end.close()
    end_with_parent(parent_pid)
    chunk: list[tuple[int, tuple]] = []
    try:
        for number, claim in iter_claims(path):
            chunk.append((number, _pack(claim)))
            if len(chunk) >= CHUNK_LINES:
                conn.send_bytes(pickle_flat(("chunk", chunk)))
                chunk = []
        if chunk:
            conn.send_bytes(pickle_flat(("chunk", chunk)))
        conn.send(("done", None))
    except InputFileError as exc:
        conn.send(("error", (exc.line, exc.detail)))
    except (BrokenPipeError, ConnectionResetError):
        os._exit(ORPHANED_EXIT)  # nobody listens any more
    except OSError as exc:
        conn.send(("oserror", (exc.errno, exc.strerror, exc.filename)))
    finally:
        conn.close()


class ClaimChunks:
    """Validated claims of an import file, chunk by chunk, parsed in a worker
    process that starts at once (before the caller opens anything else the
    fork would copy). Iterate once; iterating to the end, or ``close``, ends
    the worker.

    Iteration raises InputFileError naming the first bad line (after the
    chunks before it were yielded) and OSError if the file cannot be read.
    """

    def __init__(self, path: str | Path) -> None:
        self.name = str(path)
        ctx = multiprocessing.get_context("fork")
        self._conn, child = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_worker, args=(self.name, child, self._conn, os.getpid()),
                                 daemon=True)
        self._proc.start()
        child.close()
        self._done = False  # the worker sent everything and is ending by itself

    def __iter__(self) -> Iterator[list[tuple[int, ParsedClaim]]]:
        try:
            while True:
                try:
                    kind, payload = pickle.loads(self._conn.recv_bytes())
                except EOFError:
                    raise InputFileError(0, "the parsing process ended unexpectedly", self.name) from None
                if kind == "chunk":
                    yield [(number, _unpack(packed)) for number, packed in payload]
                elif kind == "error":
                    raise InputFileError(payload[0], payload[1], self.name)
                elif kind == "oserror":
                    raise OSError(*payload)
                else:
                    self._done = True
                    return
        finally:
            self.close()

    def close(self) -> None:
        """Stop listening and end the worker (at once unless it has finished)."""
        self._conn.close()
        if not self._done:
            self._proc.kill()
        self._proc.join()


def claim_chunks(path: str | Path) -> ClaimChunks:
    """Validated claims of an import file, chunk by chunk, parsed in a worker
    process (see ClaimChunks)."""
    return ClaimChunks(path)
