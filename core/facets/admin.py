"""``store.admin``: keeping a store: the door's tokens, erasure of a
person, export and restore, scheduled maintenance."""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Iterable
from datetime import timedelta
from pathlib import Path
from types import MethodType
from typing import TYPE_CHECKING, TextIO

from .. import tokens as access_tokens
from ..checks import (
    check_name,
    check_stored_name,
    check_subject,
)
from ..db import clear_wal
from ..db import meta as sql
from ..erase import ErasureReport, erase_subject, subject_mentions
from ..errors import (
    InvalidInput,
)
from ..mentions import Mention
from ..records import TableCounts
from .base import StoreCore

if TYPE_CHECKING:
    from ..maintain import MaintenanceReport


class Admin:
    """Tokens, erasure, export and restore, maintenance (``store.admin``)."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def create_token(self, name: str, *, users: Iterable[str], projects: Iterable[str] = (),
                     read_only: bool = False, by: str) -> tuple[access_tokens.Token, str]:
        """Issue a bearer token for the HTTP door (core.tokens), bound to
        ``users`` and ``projects``: returns it and its secret, which the store
        does not keep (only its hash). Audited. Raises InvalidInput."""
        with self._core.write() as batch:
            return access_tokens.create(batch, name=name, users=users, projects=projects,
                                 read_only=read_only, by=by)

    def revoke_token(self, token_id: int, *, by: str, reason: str) -> access_tokens.Token:
        """Revoke a token: the door refuses it from the next request on.
        Audited. Raises TokenNotFound, InvalidInput."""
        with self._core.write() as batch:
            return access_tokens.revoke(batch, token_id, by=by, reason=reason)

    def tokens(self, *, include_revoked: bool = True) -> list[access_tokens.Token]:
        """Every token, oldest first (never their secrets)."""
        with self._core.engine.connect() as conn:
            return access_tokens.listing(conn, include_revoked=include_revoked)

    def token(self, token_id: int) -> access_tokens.Token:
        """One token. Raises TokenNotFound, InvalidInput."""
        with self._core.engine.connect() as conn:
            return access_tokens.get(conn, token_id)

    def token_for_secret(self, secret: str) -> access_tokens.Token | None:
        """The token (active or revoked) whose secret this is, or None."""
        if not isinstance(secret, str) or not access_tokens.well_formed(secret):
            return None  # garbage costs no connection
        with self._core.engine.connect() as conn:
            return access_tokens.find(conn, secret)

    def erase(self, subject: str, *, by: str, redact: Iterable[str] = ()) -> ErasureReport:
        """Erase a person (``user:NAME``): their turns, facts, claims, conflicts,
        memories and recall vectors, in one transaction, leaving a tombstone
        audit entry with counts only (see core.erase), take them out of every
        token, and count the erasure in the store. Other people's rows that
        name them are left as they are and listed in the report (``mentions``),
        except those named in ``redact`` (``turn:12``, …: see core.erase).
        After the commit the SQLite WAL is emptied (``db.clear_wal``) and every
        ``on_erasure`` listener is called (the Recallers of this process
        discard their index files at once); indexes elsewhere discard
        themselves when they next open or refresh.

        Raises InvalidInput for a subject that is not ``user:NAME``, without
        ``by`` or with a row ``redact`` cannot take, SubjectNotFound when
        nothing is stored about it, StoreError when the store fails
        verification beforehand.
        """
        # the subject verbatim: erasure reaches exactly the name stored, one
        # written before names were normalised too (never its look-alike)
        subject = check_stored_name(subject, "subject")
        by = check_name(by, "by (who performs the erasure)")
        with self._core.write() as batch:
            report = erase_subject(batch, subject, by=by, redact=redact)
        report = dataclasses.replace(report, wal_cleared=clear_wal(self._core.engine))
        for ref in list(self._core.erasure_listeners):
            listener = ref()
            if listener is not None:  # None: its object is gone
                listener()
        return report

    def mentions_of(self, subject: str) -> tuple[Mention, ...]:
        """Other people's rows that name a person (``user:NAME``) and that an
        erasure would leave as they are (core.mentions): read only. Raises
        InvalidInput for another kind of subject."""
        subject = check_name(subject, "subject")
        with self._core.engine.connect() as conn:
            return subject_mentions(conn, subject)

    def on_erasure(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` after every erasure this Store commits (derived
        data such as recall indexes must then drop what it built). A bound
        method is held weakly, so registering does not keep its object alive."""
        self._core.erasure_listeners[:] = [r for r in self._core.erasure_listeners if r() is not None]
        if isinstance(listener, MethodType):
            self._core.erasure_listeners.append(weakref.WeakMethod(listener))
        else:
            self._core.erasure_listeners.append(lambda: listener)

    def erasures(self) -> int:
        """How many erasures this store has committed (``store_meta.erasures``)."""
        return sql.erasures(self._core.engine)

    def export(self, out: TextIO | str | Path, *, vectors: bool = True) -> TableCounts:
        """Write the whole store as JSONL (``core.export``) to a text stream or
        a file path (written under a temporary name, then renamed into place).
        Returns the row count per table. Raises StoreError, OSError."""
        from ..export import export_store

        if not isinstance(out, str | Path):
            return TableCounts(tuple(export_store(self._core.engine, out, vectors=vectors).items()))
        target = Path(out)
        partial = target.with_name(target.name + ".partial")
        try:
            with open(partial, "w", encoding="utf-8", newline="\n") as fh:
                counts = export_store(self._core.engine, fh, vectors=vectors)
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
        return TableCounts(tuple(counts.items()))

    def restore(self, path: str | Path) -> TableCounts:
        """Load an export made by ``export`` into this store, which must be empty,
        in one transaction, keeping every id and time. Returns the row count per
        table. Raises InputFileError naming the first bad line (nothing is
        written), StoreError when the store is not empty, FileNotFoundError."""
        from ..export import restore_store

        return TableCounts(tuple(restore_store(self._core.engine, path).items()))

    def maintain(self, *, dry_run: bool = False, older_than: str | int | timedelta = "90d",
                 subject: str | None = None, by: str = "maintain", similarity: float = 0.8,
                 progress: Callable[[int, int], None] | None = None) -> MaintenanceReport:
        """Scheduled maintenance (``core.maintain``): fold near-duplicate
        memories of one subject into one (mentions summed, the others kept,
        archived, ``merged_into`` the survivor), archive memories whose facts
        stopped holding more than ``older_than`` ago (``90d``, ``12h``, ``2w``,
        a timedelta, or µs), and expire facts whose TTL ran out (retired as
        ``expired``, copied closed at their expiry). Judged at ``now()``, in
        one transaction under the write lock; one ``store.maintained`` audit
        entry when something changed, none otherwise (a second run right
        after changes nothing). ``dry_run`` only reports, and takes no lock.
        ``subject`` limits it to one subject. ``progress(done, total)`` per stage.

        Raises InvalidInput for a bad age, similarity, subject or actor.
        """
        from ..maintain import parse_age
        from ..maintain_store import maintain

        age = parse_age(older_than)
        by = check_name(by, "by (the actor in the audit entry)")
        if subject is not None:
            subject = check_subject(subject)
        if (isinstance(similarity, bool) or not isinstance(similarity, int | float)
                or not 0.0 < similarity <= 1.0):
            raise InvalidInput(f"similarity must be a number above 0 and at most 1, got {similarity!r}")
        routed = [p.id for p in self._core.catalog if p.routing in ("vector", "both")]
        if dry_run:
            with self._core.engine.connect() as conn:
                return maintain(conn, now=self._core.now(), older_than=age, routed=routed,
                                similarity=similarity, subject=subject, dry_run=True, by=by,
                                progress=progress)
        with self._core.write() as batch:
            return maintain(batch, now=self._core.now(), older_than=age, routed=routed,
                            similarity=similarity, subject=subject, by=by, progress=progress)
