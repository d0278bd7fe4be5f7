"""The agent's door: ``Memory``, a small in-process API over ``Store`` and
``Recaller`` (docs/DESIGN.md §6.1), shaped like the memory APIs agent
developers know (mem0's ``Memory.add(messages, user_id=…)`` / ``search``):

    from memdesk.core import Memory
    with Memory.open("memdesk.db") as memory:
        memory.remember([{"role": "user", "content": "我上周末搬到张江了"}], user="alice")
        hits = memory.recall("where does she live now?", user="alice")
        print(memory.prompt("where does she live now?", user="alice"))

What an agent writes goes through the same extraction and gates as
``memdesk ingest``: facts take effect, wait in the review queue or open a
conflict, and a person decides at the desk. The API has no approve, reject or
resolve. Times go in and come out as timezone-aware ``datetime`` values; the
store's integers stay inside. Errors are the package's exception classes
(``InvalidInput`` for a bad message or argument: nothing is written).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from .access import Caller, check_session_owner
from .claims import MAX_TURN, ClaimInput, check_name, check_subject
from .clock import Clock
from .errors import InvalidInput
from .ingest import turn_from_dict
from .pipeline import Turn
from .recall import Recaller, RecallHit
from .recall.embedders import DEFAULT_EMBEDDER, Embedder
from .records import AuditReport, Candidate, Fact
from .schema import ClaimRow, TurnRow
from .store import Store
from .timeutil import from_us, iso, offset_minutes, parse_time, to_us

ROLES = {"user": "user", "assistant": "assistant"}
_TURN = TurnRow.__table__
_CLAIM = ClaimRow.__table__
_STEP = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class Remembered:
    """What ``remember`` stored: the session, the turn numbers it wrote, how
    many messages were already there, and what the gates made of the claims."""

    session: str
    turns: tuple[int, ...]
    already_stored: int
    asserted: int
    merged: int
    queued: int
    conflicts: int
    memories: int

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["turns"] = list(self.turns)
        return out


class Memory:
    """Long-term memory for one agent process: remember turns, recall, read
    facts and their provenance. Thread-safe as ``Store`` and ``Recaller`` are;
    keep one per process (the models and the index load once)."""

    def __init__(self, store: Store, recaller: Recaller | None = None) -> None:
        self.store = store
        self.recaller = recaller or Recaller(store)

    @classmethod
    def open(cls, url: str | Path = "memdesk.db", *, clock: Clock | None = None,
             embedder: Embedder | str = DEFAULT_EMBEDDER,
             turn_embedder: Embedder | str | None = None,
             index_dir: str | Path | None = None) -> Memory:
        """Open (or create) the store at ``url`` (a SQLite path or a database
        URL). Raises StoreError when it cannot be opened."""
        store = Store.open(url, clock=clock)
        return cls(store, Recaller(store, embedder=embedder, turn_embedder=turn_embedder,
                                   index_dir=index_dir))

    def close(self) -> None:
        self.recaller.close()
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------- writing
    def remember(self, messages: Sequence[Mapping[str, Any]], *, user: str,
                 project: str | None = None, session: str | None = None,
                 caller: Caller | None = None) -> Remembered:
        """Store chat messages as turns of ``session`` (default ``<user>-chat``)
        and put what they say through extraction and the gates.

        Each message is ``{"role": "user" | "assistant", "content": str}``,
        optionally with ``"time"`` (an aware ``datetime`` or ISO 8601 text with
        an offset; default: the store's clock, never before the session's last
        turn) and ``"turn"`` (its number; default: after the session's last).
        Sending a conversation again is safe: messages the session already
        ends with (same role and text, in order), and numbered turns already
        stored with the same text, are not stored twice. A session is one
        person's conversation: it takes turns only for the user whose turns
        it holds. ``caller`` (who sent them through the agent's door) goes
        into the audit entry, its actor too.

        Raises InvalidInput for a malformed message (its position named), a
        numbered turn that contradicts a stored one, or a bad name;
        AccessRefused for a session that holds another user's turns: nothing
        is written.
        """
        if user is None:
            raise InvalidInput("remember needs the user the conversation is with")
        user = check_name(user, "user")
        if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
            raise InvalidInput("messages must be a list of {role, content} objects")
        session = check_name(session, "session") if session is not None else f"{user}-chat"
        self.check_session(session, user)
        last_turn, last_time, tail = self._session_tail(session, len(messages))
        drafts = [self._draft(i, m) for i, m in enumerate(messages, 1)]
        skip = _already_ended_with(tail, drafts) if all(d["turn"] is None for d in drafts) else 0
        turns: list[Turn] = []
        now = from_us(self.store.now())
        for i, d in enumerate(drafts[skip:], skip + 1):
            number = d["turn"]
            if number is None:
                last_turn += 1
                number = last_turn
            when = d["time"] or max(now, (last_time + _STEP) if last_time else now)
            last_time = max(last_time, when) if last_time else when
            line = {"session": session, "turn": number, "speaker": d["role"], "time": iso_of(when),
                    "text": d["content"], "user": user}
            if project is not None:
                line["project"] = project
            try:
                turns.append(turn_from_dict(line))
            except InvalidInput as exc:
                raise InvalidInput(f"message {i}: {exc}") from None
        if not turns:
            return Remembered(session, (), skip, 0, 0, 0, 0, 0)
        summary = self.store.ingest_turns(
            turns, origin=f"Memory.remember ({session})", caller=caller,
            actor=caller.actor if caller is not None else "ingest")
        return Remembered(session, tuple(t.turn for t in turns), skip,
                          int(summary.get("asserted", 0)) + int(summary.get("evolutions", 0))
                          + int(summary.get("corrections", 0)) + int(summary.get("backfills", 0)),
                          int(summary.get("merged", 0)), int(summary.get("queued", 0)),
                          int(summary.get("conflicts", 0)), int(summary.get("memories", 0)))

    @staticmethod
    def _draft(position: int, message: Any) -> dict[str, Any]:
        """A message checked and normalised. Raises InvalidInput naming it."""
        if not isinstance(message, Mapping):
            raise InvalidInput(f"message {position}: expected an object with role and content")
        unknown = sorted(set(message) - {"role", "content", "time", "turn"})
        if unknown:
            raise InvalidInput(f"message {position}: unknown field(s) {', '.join(unknown)}")
        role = message.get("role")
        if role not in ROLES:
            raise InvalidInput(f"message {position}: role must be user or assistant, got {role!r}")
        content = message.get("content")
        if not isinstance(content, str) or not content.strip():
            raise InvalidInput(f"message {position}: content must be non-empty text")
        when = message.get("time")
        if when is not None:
            if isinstance(when, str):
                try:
                    when = parse_time(when, "time")
                except InvalidInput as exc:
                    raise InvalidInput(f"message {position}: {exc}") from None
            elif not isinstance(when, datetime) or when.utcoffset() is None:
                raise InvalidInput(f"message {position}: time must be a timezone-aware datetime "
                                   "or ISO 8601 text with an offset")
        number = message.get("turn")
        if number is not None and (isinstance(number, bool) or not isinstance(number, int)
                                   or number < 1):
            raise InvalidInput(f"message {position}: turn must be a whole number >= 1")
        return {"role": ROLES[role], "content": content, "time": when, "turn": number}

    def check_session(self, session: str, user: str) -> None:
        """Refuse ``session`` for ``user`` when it holds another user's turns
        (``core.access.check_session_owner``). Raises AccessRefused,
        InvalidInput for a malformed name."""
        session, user = check_name(session, "session"), check_name(user, "user")
        with self.store.engine.connect() as conn:
            owners = [u for (u,) in conn.execute(select(_TURN.c.user).distinct()
                                                 .where(_TURN.c.session == session))]
        check_session_owner(session, owners, user)

    def _session_tail(self, session: str, n: int) -> tuple[int, datetime | None,
                                                           list[tuple[str, str]]]:
        """The session's last turn number and time, and its last ``n`` turns
        as (speaker, text), oldest first."""
        with self.store.engine.connect() as conn:
            last = conn.execute(select(func.max(_TURN.c.turn), func.max(_TURN.c.time))
                                .where(_TURN.c.session == session)).first()
            rows = conn.execute(select(_TURN.c.speaker, _TURN.c.text, _TURN.c.time_tz)
                                .where(_TURN.c.session == session)
                                .order_by(_TURN.c.turn.desc()).limit(max(n, 1))).all()
            tz = int(rows[0][2]) if rows else 0
        number = int(last[0]) if last and last[0] is not None else 0
        when = from_us(int(last[1]), tz) if last and last[1] is not None else None
        return number, when, [(str(s), str(t)) for s, t, _ in reversed(rows)][-n:] if n else []

    def propose(self, predicate: str, object: str, *, session: str, turn: int,
                user: str | None = None, subject: str | None = None,
                polarity: str = "positive", scope: str = "global",
                confidence: float = 0.5, valid_from: datetime | None = None,
                caller: Caller | None = None) -> Candidate:
        """Propose a fact the agent inferred from a stored turn (``session``,
        ``turn``: its provenance). It always waits in the review queue for a
        person (the review gate holds every agent inference); the agent can
        neither approve nor reject it. ``valid_from`` defaults to the turn's
        time. Returns the candidate (``state`` "pending", or "merged" when the
        store already believes it).

        A proposal about a user comes from that user's own conversation;
        ``caller`` (who sent it through the agent's door) goes into the audit.

        Raises InvalidInput for a bad field or a turn that is not stored,
        AccessRefused for a turn of another user's conversation (nothing is
        written).
        """
        if (user is None) == (subject is None):
            raise InvalidInput("propose needs either a user or a subject")
        subject = check_subject(subject if subject is not None else f"user:{check_name(user, 'user')}")
        session = check_name(session, "session")
        if isinstance(turn, bool) or not isinstance(turn, int) or not 0 <= turn <= MAX_TURN:
            raise InvalidInput(f"turn must be a whole number from 0 to {MAX_TURN}, got {turn!r}")
        if valid_from is not None and (not isinstance(valid_from, datetime)
                                       or valid_from.utcoffset() is None):
            raise InvalidInput("valid_from must be a timezone-aware datetime")
        with self.store.engine.connect() as conn:
            row = conn.execute(select(_TURN.c.speaker, _TURN.c.text, _TURN.c.time,
                                      _TURN.c.time_tz, _TURN.c.user)
                               .where(_TURN.c.session == session, _TURN.c.turn == turn)).first()
        if row is None:
            raise InvalidInput(f"no stored turn {turn} in session {session!r}: remember the "
                               "conversation first, then propose from its turn")
        speaker, text, time, tz, owner = row
        if subject.startswith("user:"):
            check_session_owner(session, [owner], subject[len("user:"):])
        line = {"subject": subject, "predicate": predicate, "object": object,
                "polarity": polarity, "scope": scope, "confidence": confidence,
                "valid_from": iso_of(valid_from) if valid_from is not None
                else iso(int(time), int(tz or 0)),
                "source": {"session": session, "turn": int(turn), "text": str(text),
                           "time": iso(int(time), int(tz or 0)), "speaker": str(speaker),
                           "kind": "agent_inferred"}}
        claim = ClaimInput.from_dict(line)
        self.store.import_claims([claim], actor=caller.actor if caller is not None else "agent",
                                 origin=f"Memory.propose ({session})", caller=caller)
        with self.store.engine.connect() as conn:  # its row: one per (turn, claim key)
            claim_id = conn.execute(
                select(_CLAIM.c.id).join(_TURN, _TURN.c.id == _CLAIM.c.turn_id)
                .where(_TURN.c.session == session, _TURN.c.turn == turn,
                       _CLAIM.c.claim_key == claim.key)).scalar()
        if claim_id is None:
            raise InvalidInput("the proposal was not recorded (a duplicate of a decided one?)")
        return self.store.candidate(int(claim_id))

    # ------------------------------------------------------------- reading
    def recall(self, query: str, *, user: str | None = None, project: str | None = None,
               session: str | None = None, k: int = 10, at: datetime | None = None,
               over: str = "memories", within: Sequence[str] | None = None) -> list[RecallHit]:
        """The best ``k`` memories (or raw turns, ``over="turns"``) for
        ``query``, asked on behalf of ``user``: theirs and their projects'
        (``within``: only these of them), never anyone else's (without a
        user: everyone's, each hit naming its subject). ``at``: as the store
        knew it then. Raises InvalidInput."""
        return self.recaller.search(query, k=k, at=_us(at, "at"), over=over,
                                    user=user, project=project, session=session, within=within)

    def prompt(self, query: str, *, user: str | None = None, project: str | None = None,
               session: str | None = None, k: int = 10, at: datetime | None = None) -> str:
        """The block an agent pastes into its prompt for ``query``: one line
        per memory with its date, confidence and subject; outdated or
        conflicting ones say so. Raises InvalidInput."""
        hits = self.recall(query, user=user, project=project, session=session, k=k, at=at)
        return Recaller.render_prompt(hits, _us(at, "at") if at is not None else self.store.now())

    def facts(self, *, user: str | None = None, subject: str | None = None,
              predicate: str | None = None, valid_at: datetime | None = None,
              known_at: datetime | None = None) -> list[Fact]:
        """What the store believes of a subject (``user="alice"`` is
        ``user:alice``): the rows holding at ``valid_at`` as believed at
        ``known_at`` (both default to now), expired ones left out.
        Raises InvalidInput without a subject, or for a malformed one."""
        if (user is None) == (subject is None):
            raise InvalidInput("facts needs either a user or a subject")
        about = subject if subject is not None else f"user:{check_name(user, 'user')}"
        return self.store.as_of(about, predicate,
                                valid_at=_us(valid_at, "valid_at"),
                                known_at=_us(known_at, "known_at"), include_expired=False)

    def audit(self, subject: str, predicate: str, object: str | None = None) -> AuditReport:
        """Since when, and why, the store believes a value: the provenance chain
        from the turn to the fact. Raises FactNotFound, InvalidInput for a
        malformed subject, predicate or object."""
        return self.store.audit(subject, predicate, object)


def iso_of(when: datetime) -> str:
    """An aware datetime as ISO 8601 with its offset (microseconds kept)."""
    return iso(to_us(when), offset_minutes(when)) or ""


def _us(value: datetime | None, what: str) -> int | None:
    if value is None:
        return None
    if not isinstance(value, datetime) or value.utcoffset() is None:
        raise InvalidInput(f"{what} must be a timezone-aware datetime, got {value!r}")
    return to_us(value)


def _already_ended_with(tail: list[tuple[str, str]], drafts: list[dict[str, Any]]) -> int:
    """How many of the messages the session already ends with: the longest
    prefix of ``drafts`` equal (role and text) to the end of ``tail``."""
    wanted = [(d["role"], d["content"]) for d in drafts]
    for n in range(min(len(tail), len(wanted)), 0, -1):
        if tail[-n:] == wanted[:n]:
            return n
    return 0


__all__ = ["Memory", "Remembered"]
