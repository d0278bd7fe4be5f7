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

Original description (of the 0002 chain):

Every audit entry stores ``hash = H(previous entry's hash, H(entry), H(rows))``
(BLAKE2b). ``H(entry)`` covers the entry's own columns, including ``rows``: a
JSON record of the rows the operation touched. ``H(rows)`` is a digest of
those rows as the database holds them:

- rows it created, named by inclusive id ranges per table (``turn``,
  ``claim``, ``fact``, ``conflict``, ``memory``) and the names of
  ``predicate_use`` rows;
- ``stamped``: the fact rows whose retirement stamp it set, with the stamp;
- ``updated``: claims and conflicts it changed (review decisions,
  resolutions, undo), each with the hash of the row before and after.

A fact row is hashed without its retirement stamp (the only permitted update,
committed by the entry that set it). Claims and conflicts change state over
time, so each is hashed as a whole row on its own (``row_hash``); the entry
that created one commits to its state at creation, which ``verify`` takes
from the ``before`` hash of the first later entry that changed it (or from
the row itself when none did); the last entry that changed it commits to the
row as it is. Memory rows are hashed without ``mentions`` (a counter that
merges bump); recall vectors are derived data and not covered.

A row is encoded as a tuple of plain Python values (str, int, float, bool,
None) in the schema's column order, pickled with protocol 4 without the memo
(``Pickler.fast``: the bytes depend only on the values and their types, not
on object identity), so SQLite and PostgreSQL give the same bytes; this is
about three times cheaper than ``repr`` on the import path. The head (hash and id of the last entry) is kept in
``store_meta`` so that deleting the newest entries is noticed too.

An erasure (``core.erase``) deletes rows and scrubs entries; its tombstone
entry names each entry whose digests changed with the new ones
(``detail.amended``). ``verify`` accepts such an entry only with exactly the
digests of the latest tombstone naming it, and still checks the chain links.
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
