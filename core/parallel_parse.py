"""Parse a large import file in a second process while the first one writes.

On a two-core laptop, validating JSONL lines and running the gates each take a
core's worth of Python; doing them in two processes overlaps them. The worker
validates exactly as ``read_claims`` does (same messages, same line numbers)
and sends chunks of compact tuples back; a bad line arrives as an error in
its place in the stream, so the writer can stop and roll back.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from pathlib import Path

from .claims import ClaimInput, SourceRef, iter_claims
from .errors import InputFileError

CHUNK_LINES = 20_000
PARALLEL_MIN_BYTES = 8 * 2**20  # below this, starting a process does not pay off


def available() -> bool:
    """Whether a parsing process can be forked here. Only "fork" is used: it
    needs no importable __main__ (so any script may call import_file), and the
    child touches nothing but the file it reads."""
    return "fork" in multiprocessing.get_all_start_methods()

_FIELDS = ("subject", "predicate", "object", "valid_from", "valid_to", "value", "polarity",
           "scope", "confidence", "change", "extractor", "single_valued", "event_start",
           "event_end", "sensitive", "value_json", "key")
_SOURCE_FIELDS = ("session", "turn", "text", "time", "tz", "speaker", "kind")


def _pack(claim: ClaimInput) -> tuple:
    s = claim.source
    return (*(getattr(claim, f) for f in _FIELDS), *(getattr(s, f) for f in _SOURCE_FIELDS))


def _unpack(packed: tuple) -> ClaimInput:
    """Rebuild a claim the worker already validated, the way pickle would:
    straight into the instance dict, derived fields included, without
    running validation or derivation again."""
    n = len(_FIELDS)
    source = object.__new__(SourceRef)
    source.__dict__.update(zip(_SOURCE_FIELDS, packed[n:], strict=True))
    claim = object.__new__(ClaimInput)
    claim.__dict__.update(zip(_FIELDS, packed[:n], strict=True))
    claim.__dict__["source"] = source
    return claim


def _worker(path: str, conn) -> None:  # pragma: no cover - runs in the child process
    chunk: list[tuple[int, tuple]] = []
    try:
        for number, claim in iter_claims(path):
            chunk.append((number, _pack(claim)))
            if len(chunk) >= CHUNK_LINES:
                conn.send(("chunk", chunk))
                chunk = []
        if chunk:
            conn.send(("chunk", chunk))
        conn.send(("done", None))
    except InputFileError as exc:
        conn.send(("error", (exc.line, exc.detail)))
    except OSError as exc:
        conn.send(("oserror", (exc.errno, exc.strerror, exc.filename)))
    finally:
        conn.close()


def claim_chunks(path: str | Path) -> Iterator[list[tuple[int, ClaimInput]]]:
    """Validated claims of an import file, chunk by chunk, parsed in a worker
    process. Raises InputFileError naming the first bad line (after the chunks
    before it were yielded) and OSError if the file cannot be read."""
    name = str(path)
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_worker, args=(name, child), daemon=True)
    proc.start()
    child.close()
    try:
        while True:
            try:
                kind, payload = parent.recv()
            except EOFError:
                raise InputFileError(0, "the parsing process ended unexpectedly", name) from None
            if kind == "chunk":
                yield [(number, _unpack(packed)) for number, packed in payload]
            elif kind == "error":
                raise InputFileError(payload[0], payload[1], name)
            elif kind == "oserror":
                raise OSError(*payload)
            else:
                return
    finally:
        parent.close()
        proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()
            proc.join()
