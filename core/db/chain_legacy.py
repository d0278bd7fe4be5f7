"""FROZEN: the pickle codec of the legacy (schema revision 0002) audit chain.

Migrations 0002 (which first chained stores) and 0003 (which verifies a store
with this encoding before re-chaining it with the canonical JSON encoding of
``core.chain``) depend on it computing exactly what the write path computed
before revision 0003. Only the codec changed at 0003, so only the codec is
kept here (do not change it): the chain's structure (what an entry commits
to, how verify reads the rows) is ``core.chain``'s, run with ``LEGACY``.
``core.chain`` reads a store of any revision as it was then (columns added
later are left out when absent, ``chain.LATE``), and ``tests/test_migrations.py``
verifies stores written by the 0002 code (``tests/fixtures/build_v2_store.py``)
with it, before and after an upgrade and a downgrade.

The names below are the ones the two migrations use, bound to ``LEGACY``.

The 0002 codec: a row was encoded as a tuple of plain Python values (str,
int, float, bool, None) in the schema's column order, pickled with protocol 4
without the memo (``Pickler.fast``: the bytes depend only on the values and
their types, not on object identity), so SQLite and PostgreSQL gave the same
bytes. ``core/chain.py``'s docstring says what each entry commits to.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from functools import partial
from typing import Any

from .. import chain
from ..chain import GENESIS, RANGED, Codec, dumps_rows, link, load_entries, parse_rows
from ..chain import _amendments as _amendments
from .chain import TABLES
from .tables import AUDIT, META


class _Sink:
    __slots__ = ("write",)
    write: Callable[[bytes], Any]


def streamer(write: Callable[[bytes], Any]) -> Callable[[tuple], None]:
    """A function that encodes one tuple of values canonically into ``write``
    (e.g. a hasher's ``update``). Not thread-safe: one per thread or batch."""
    sink = _Sink()
    sink.write = write
    pickler = pickle.Pickler(sink, 4)
    pickler.fast = True  # no memo: equal values give equal bytes, whatever their identity
    return pickler.dump


def encode(values: tuple) -> bytes:
    """Canonical bytes of a tuple of plain values (pickle protocol 4, no memo)."""
    out: list[bytes] = []
    streamer(out.append)(values)
    return b"".join(out)


LEGACY = Codec("pickle (revision 0002)", encode, streamer)

row_hash = partial(chain.row_hash, codec=LEGACY)
entry_hash = partial(chain.entry_hash, codec=LEGACY)
RowsDigest = partial(chain.RowsDigest, LEGACY)
Recomputer = partial(chain.Recomputer, codec=LEGACY)
verify = partial(chain.verify, codec=LEGACY)

__all__ = ["AUDIT", "GENESIS", "LEGACY", "META", "RANGED", "TABLES", "Recomputer", "RowsDigest",
           "dumps_rows", "encode", "entry_hash", "link", "load_entries", "parse_rows", "row_hash",
           "streamer", "verify"]
