"""The agent's door: ``Memory``, a small in-process API over ``Store`` and
``Recaller`` (docs/DESIGN.md §6.1), shaped like the memory APIs agent
developers know (mem0's ``Memory.add(messages, user_id=…)`` / ``search``):

    from memdesk import Memory
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

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .access import Caller, check_session_owner, session_for
from .bitemporal import ENDING, RETRACTION
from .bounds import Bounds
from .checks import check_id, check_name, check_storable, check_subject, check_turn
from .claims import ClaimInput
from .clock import Clock
from .db import memory as sql
from .errors import AccessRefused, InvalidInput
from .ingest import turn_from_dict
from .pipeline import Turn
from .recall import Recaller, RecallHit
from .recall.embedders import DEFAULT_EMBEDDER, Embedder
from .recall.scope import people_of
from .records import Fact
from .store import Store
from .timeutil import from_us, iso, offset_minutes, parse_time, to_us
from .views import MemoryAudit, MemoryCandidate, MemoryFact, MemoryHit, MemoryItem

ROLES = {"user": "user", "assistant": "assistant"}
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

    def __init__(self, store: Store, recaller: Recaller | None = None, *,
                 warm: bool = False) -> None:
        """``warm``: after a remember stores turns, embed them in a thread of
        its own (``Recaller.warm_in_background``), so the next recall, which
        does not wait for it, stays within its bound (the MCP server's
        choice; a one-shot caller embeds on its first recall instead)."""
        self.store = store
        self.recaller = recaller or Recaller(store)
        self.warm = warm

    @classmethod
    def open(cls, url: str | Path = "memdesk.db", *, clock: Clock | None = None,
             embedder: Embedder | str = DEFAULT_EMBEDDER,
             turn_embedder: Embedder | str | None = None,
             index_dir: str | Path | None = None, bounds: Bounds | None = None) -> Memory:
        """Open (or create) the store at ``url`` (a SQLite path or a database
        URL). ``bounds``: the work one call may ask for (default ``Bounds()``).
        Raises StoreError when it cannot be opened."""
        store = Store.open(url, clock=clock, bounds=bounds)
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
    def remember(self, messages: Sequence[Mapping[str, Any]], *, user: str | None = None,
                 project: str | None = None, session: str | None = None,
                 caller: Caller | None = None, user_id: str | None = None) -> Remembered:
        """Store chat messages as turns of the user's session ``session``
        (default ``<user>-chat``) and put what they say through extraction
        and the gates. Session names are the user's own: a new session is
        stored as ``<user>/<session>`` (``Remembered.session`` says which;
        either name reaches it again), so no other user's session of the
        same name, made first or not, stands in the way (``session_for``).

        Each message is ``{"role": "user" | "assistant", "content": str}``,
        optionally with ``"time"`` (an aware ``datetime`` or ISO 8601 text with
        an offset) and ``"turn"`` (its number). A new message without a number
        is numbered after the session's last turn (skipping numbers that other
        messages of this call give).

        Sending messages again is safe: any subset of the messages already
        stored for the session, in any order, stores nothing. A message is
        already stored (skipped, counted in ``already_stored``) when:

        1. a message with a time and no turn number: the session holds a turn
           with the same role, the same text and the same instant (to the
           microsecond; the offset may differ). The same words at another
           time are said again: stored;
        2. a message without a time or turn number: the session holds a turn
           with the same role and text, and no message before it in this call
           was new. Once a new message appears, later messages without a time
           or number are new even when their text repeats (a short "ok" after
           a new question is a new turn). Resending the conversation, its
           tail, its first messages or any of them in any order thus stores
           nothing;
        3. a message with a turn number N (with or without a time): turn N of
           the session (or an earlier message of this call) has the same role
           and text, and the same time when the message gives one; a turn N
           with another role, text or time is a contradiction (InvalidInput).

        A new message without a time gets the time of its neighbours or the
        clock, from this call and this session only (never from another
        session or user): when no message of the call has a time, the store's
        clock (each next message 1 µs after the one before); when some have, the time of the nearest timed message before it
        in the call plus 1 µs per position after it, or (none before it) the
        session's latest turn time plus 1 µs per position from the start of
        the call, or (a new session) the next timed message's time minus 1 µs
        per position before it. Either way never at or before the session's
        latest stored turn: such a time becomes 1 µs after the later of that
        turn and the times already given to this call's untimed messages.
        Timed messages keep their time.

        A session is one person's conversation: it takes turns only for the
        user whose turns it holds. ``caller`` (who sent them through the
        agent's door) goes into the audit entry, its actor too. ``user_id``
        is ``user`` (mem0's name for it; give one of them).

        One call is bounded (``store.bounds``, core/bounds.py): at most
        ``turns_per_call`` messages, ``turn_chars`` characters in one message and
        ``call_chars`` in all; past a bound it raises BoundExceeded naming it.

        Raises InvalidInput for a malformed message (its position named), a
        numbered turn that contradicts a stored one, or a bad name (control,
        format or invisible characters: ``core.names``); BoundExceeded (an
        InvalidInput) past a bound; AccessRefused only for a
        ``<user>/<session>`` that an ingested file filled with another user's
        turns: nothing is written.
        """
        user = one_user(user, user_id)
        if user is None:
            raise InvalidInput("remember needs the user the conversation is with")
        user = check_name(user, "user")
        if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
            raise InvalidInput("messages must be a list of {role, content} objects")
        session = self.session_for(user, f"{user}-chat" if session is None else session)
        bounds = self.store.bounds  # the work one call may ask for, checked before it is done
        bounds.check_count(len(messages))
        drafts = [self._draft(i, m) for i, m in enumerate(messages, 1)]
        bounds.check_call([d["content"] for d in drafts])
        last_turn, last_time, held = self._session_holds(session, drafts)
        new = _new_messages(session, drafts, held)
        skipped = len(drafts) - len(new)
        if not new:
            return Remembered(session, (), skipped, 0, 0, 0, 0, 0)
        times = _times_of(drafts, new, last_time, from_us(self.store.now()))
        taken = {drafts[i]["turn"] for i in new if drafts[i]["turn"] is not None}
        turns: list[Turn] = []
        for i in new:
            d = drafts[i]
            number = d["turn"]
            if number is None:
                last_turn += 1
                while last_turn in taken:
                    last_turn += 1
                number = last_turn
            line = {"session": session, "turn": number, "speaker": d["role"],
                    "time": iso_of(d["time"] or times[i]), "text": d["content"], "user": user}
            if project is not None:
                line["project"] = project
            try:
                turns.append(turn_from_dict(line))
            except InvalidInput as exc:
                raise InvalidInput(f"message {i + 1}: {exc}") from None
        summary = self.store.facts.ingest_turns(
            turns, origin=f"Memory.remember ({session})", caller=caller,
            actor=caller.actor if caller is not None else "ingest")
        if self.warm:
            self.recaller.warm_in_background()
        return Remembered(session, tuple(t.turn for t in turns), skipped,
                          summary.asserted + summary.evolutions + summary.corrections
                          + summary.backfills + summary.refinements,
                          summary.merged, summary.queued, summary.conflicts, summary.memories)

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
        try:  # before it is looked up: a database cannot take a NUL or a lone surrogate
            check_storable(content, "text")
        except InvalidInput as exc:
            raise InvalidInput(f"message {position}: {exc}") from None
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
        if number is not None:
            try:
                check_turn(number)
            except InvalidInput as exc:
                raise InvalidInput(f"message {position}: {exc}") from None
        return {"role": ROLES[role], "content": content, "time": when, "turn": number}

    def session_for(self, user: str, session: str) -> str:
        """The stored session that is ``user``'s session ``session``, for
        writing (``core.access.session_for``): their own ``<user>/<name>``,
        or ``name`` itself when it is a conversation of theirs alone (ingested,
        or written before sessions were scoped by their user). Another user's
        session of the same name never stands in the way, and is never
        written to. Raises AccessRefused only for a ``<user>/<name>`` that
        holds someone else's turns (a file ingested so), InvalidInput for a
        malformed name."""
        session, user = check_name(session, "session"), check_name(user, "user")
        stored = session_for(user, session, self._owners)
        check_session_owner(stored, self._owners(stored), user)
        return stored

    def check_session(self, session: str, user: str) -> str:
        """``user``'s stored session ``session`` for reading (``session_for``).
        Raises AccessRefused when the user has no such session and the name
        is another user's conversation (the refusal names only ``user``),
        InvalidInput for a malformed name."""
        session, user = check_name(session, "session"), check_name(user, "user")
        stored = session_for(user, session, self._owners)
        owners = self._owners(stored)
        if not owners and stored != session:
            check_session_owner(session, self._owners(session), user)
        check_session_owner(stored, owners, user)
        return stored

    def _owners(self, session: str) -> list[str | None]:
        """The users whose turns ``session`` holds (None: a turn without one)."""
        with self.store.engine.connect() as conn:
            return sql.session_users(conn, session)

    def _session_holds(self, session: str, drafts: list[dict[str, Any]]
                       ) -> tuple[int, datetime | None, list[tuple[int, str, str, int]]]:
        """The session's last turn number, the time of its latest turn (in that
        turn's offset), and the stored turns ``drafts`` may repeat (the same
        text, or a number one of them gives) as (turn, speaker, text, time µs)."""
        texts = sorted({d["content"] for d in drafts})
        numbers = sorted({d["turn"] for d in drafts if d["turn"] is not None})
        with self.store.engine.connect() as conn:
            last = sql.last_turn(conn, session)
            latest = sql.latest_time(conn, session)
            rows = sql.turns_like_these(conn, session, texts, numbers)
        when = from_us(int(latest[0]), int(latest[1] or 0)) if latest is not None else None
        return (int(last) if last is not None else 0, when,
                [(int(n), str(s), str(t), int(us)) for n, s, t, us in rows])

    def propose(self, predicate: str, object: str, *, session: str, turn: int,
                user: str | None = None, subject: str | None = None,
                polarity: str = "positive", scope: str = "global",
                confidence: float = 0.5, valid_from: datetime | None = None,
                caller: Caller | None = None, user_id: str | None = None) -> MemoryCandidate:
        """Propose a fact the agent inferred from a stored turn (``session``,
        ``turn``: its provenance). It always waits in the review queue for a
        person (the review gate holds every agent inference); the agent can
        neither approve nor reject it. ``valid_from`` defaults to the turn's
        time. Returns the candidate (``state`` "pending", or "merged" when the
        store already believes it). ``user_id`` is ``user`` (mem0's name).

        A proposal about a user comes from that user's own conversation;
        ``caller`` (who sent it through the agent's door) goes into the audit.

        Raises InvalidInput for a bad field or a turn that is not stored,
        AccessRefused for a turn of another user's conversation (nothing is
        written).
        """
        user = one_user(user, user_id)
        if (user is None) == (subject is None):
            raise InvalidInput("propose needs either a user or a subject")
        subject = check_subject(subject if subject is not None else f"user:{check_name(user, 'user')}")
        if valid_from is not None and (not isinstance(valid_from, datetime)
                                       or valid_from.utcoffset() is None):
            raise InvalidInput("valid_from must be a timezone-aware datetime")
        return self._queue({"subject": subject, "predicate": predicate, "object": object,
                            "polarity": polarity, "scope": scope, "confidence": confidence,
                            "valid_from": None if valid_from is None else iso_of(valid_from)},
                           session=session, turn=turn,
                           owner=subject[len("user:"):] if subject.startswith("user:") else None,
                           caller=caller, origin="Memory.propose")

    def correct(self, fact_id: int, object: str, *, session: str, turn: int,
                user: str | None = None, user_id: str | None = None,
                confidence: float = 0.5, caller: Caller | None = None) -> MemoryCandidate:
        """Ask a person to correct fact ``fact_id`` (one of ``facts``'s ids) to
        ``object``: the stored value was wrong. Proposed, never done: an edit
        claim (change ``correction``, over the fact's valid time) waits in the
        review queue, cited to the turn ``session``/``turn`` of the user's own
        conversation where it was asked for; a reviewer's approval replaces
        the value (the old one marked corrected, kept as history).

        Raises InvalidInput for a bad field, a fact that is not current or a
        turn that is not stored; FactNotFound; AccessRefused when the fact or
        the turn is not the user's (nothing is written).
        """
        name, fact = self._own_fact(fact_id, one_user(user, user_id), "correct")
        object = check_storable(object, "object")
        if object == fact.object:
            raise InvalidInput(f"fact {fact.id} already holds {object!r}: nothing to correct")
        return self._queue(self._line_of(fact, object=object, change="correction",
                                         confidence=confidence),
                           session=session, turn=turn, owner=name, caller=caller,
                           origin="Memory.correct")

    def forget(self, fact_id: int, *, session: str, turn: int, user: str | None = None,
               user_id: str | None = None, caller: Caller | None = None) -> MemoryCandidate:
        """Ask a person to take fact ``fact_id`` back: a retraction claim
        (change ``retraction``) waits in the review queue, cited to the turn
        ``session``/``turn`` of the user's own conversation where it was asked
        for. A reviewer's approval retires the value as retracted (kept as
        history, out of current belief); erasing a person's data altogether
        is an operator's ``memdesk erase``, not an agent's call.

        Raises InvalidInput for a fact that is not current or a turn that is
        not stored; FactNotFound; AccessRefused when the fact or the turn is
        not the user's (nothing is written).
        """
        name, fact = self._own_fact(fact_id, one_user(user, user_id), "forget")
        return self._queue(self._line_of(fact, object=fact.object, change=RETRACTION,
                                         confidence=0.5),
                           session=session, turn=turn, owner=name, caller=caller,
                           origin="Memory.forget")

    def end(self, fact_id: int, *, session: str, turn: int, at: datetime | None = None,
            user: str | None = None, user_id: str | None = None,
            caller: Caller | None = None) -> MemoryCandidate:
        """Ask a person to end fact ``fact_id``: it was true and has stopped
        holding (the user quit that job, moved out, gave up that diet), as the
        turn ``session``/``turn`` of the user's own conversation said, at ``at``
        (an aware time; default: when that turn was said). Proposed, never done:
        an ending claim (change ``ending``) waits in the review queue; a
        reviewer's approval closes the value there, kept as history, where
        ``forget`` would take it back as never true.

        Raises InvalidInput for a fact that is not current, a time without its
        offset or not after the fact's start, or a turn that is not stored;
        FactNotFound; AccessRefused when the fact or the turn is not the user's
        (nothing is written).
        """
        name, fact = self._own_fact(fact_id, one_user(user, user_id), "end")
        line = self._line_of(fact, object=fact.object, change=ENDING, confidence=0.5)
        line["valid_to"] = None
        line["valid_from"] = None
        if at is not None:
            if at.tzinfo is None or at.utcoffset() is None:
                raise InvalidInput("at needs its UTC offset (an aware time)")
            if to_us(at) <= fact.valid_from:
                raise InvalidInput(f"fact {fact.id} began at {iso(fact.valid_from, fact.tz)}: "
                                   "it cannot end then or before")
            line["valid_from"] = at.isoformat()
        return self._queue(line, session=session, turn=turn, owner=name, caller=caller,
                           origin="Memory.end")

    def _own_fact(self, fact_id: int, user: str | None, verb: str) -> tuple[str, Fact]:
        """The user's name and their current fact ``fact_id`` (theirs, their
        people's or their projects'). Raises InvalidInput, FactNotFound,
        AccessRefused."""
        if user is None:
            raise InvalidInput(f"{verb} needs the user whose fact it is (user=...)")
        name = check_name(user, "user")
        fact = self.store.facts.get(check_id(fact_id, "fact id"))
        if not self.recaller.resolve_scope(user=name).covers_subject(fact.subject):
            raise AccessRefused(f"fact {fact.id} is not a fact of user:{name}",
                                subject=fact.subject)
        if fact.retired_at is not None:
            raise InvalidInput(f"fact {fact.id} is no longer current ({fact.retire_reason}): "
                               f"{verb} a current fact (facts(user=...) lists them)")
        return name, fact

    @staticmethod
    def _line_of(fact: Fact, *, object: str, change: str, confidence: float) -> dict[str, Any]:
        """The claim fields of a proposal about ``fact``: its slot, over its valid time."""
        line = {"subject": fact.subject, "predicate": fact.predicate, "object": object,
                "polarity": fact.polarity, "scope": fact.scope, "confidence": confidence,
                "change": change, "valid_from": iso(fact.valid_from, fact.tz),
                "valid_to": iso(fact.valid_to, fact.tz) if fact.valid_to is not None else None}
        if object == fact.object and fact.value_json is not None:
            line["value"] = json.loads(fact.value_json)
        return line

    def _queue(self, line: dict[str, Any], *, session: str, turn: int, owner: str | None,
               caller: Caller | None, origin: str) -> MemoryCandidate:
        """Queue the agent's claim ``line`` for review, cited to stored turn
        ``turn`` of ``session`` (``owner``'s own, when given; its time is the
        default ``valid_from``). Raises InvalidInput, AccessRefused."""
        session = check_name(session, "session")
        check_turn(turn)  # the shape first, then whose session it is
        if owner is not None:  # the user's own session of that name
            session = self.check_session(session, owner)
        with self.store.engine.connect() as conn:
            row = sql.stored_turn(conn, session, turn)
        if row is None:
            raise InvalidInput(f"no stored turn {turn} in session {session!r}: remember the "
                               "conversation first, then cite its turn")
        speaker, text, time, tz, turn_owner = row
        if owner is not None:
            check_session_owner(session, [turn_owner], owner)
        said = iso(int(time), int(tz or 0))
        line = {**line, "valid_from": line.get("valid_from") or said,
                "source": {"session": session, "turn": int(turn), "text": str(text),
                           "time": said, "speaker": str(speaker), "kind": "agent_inferred"}}
        claim = ClaimInput.from_dict(line)
        self.store.facts.import_claims([claim], actor=caller.actor if caller is not None else "agent",
                                 origin=f"{origin} ({session})", caller=caller)
        with self.store.engine.connect() as conn:  # its row: one per (turn, claim key)
            claim_id = sql.claim_on_turn(conn, session, turn, claim.key)
        if claim_id is None:
            raise InvalidInput("the proposal was not recorded (a duplicate of a decided one?)")
        return MemoryCandidate.of(self.store.review.get(int(claim_id)).to_dict())

    # ------------------------------------------------------------- reading
    def recall(self, query: str, *, user: str | None = None, project: str | None = None,
               session: str | None = None, k: int = 10, at: datetime | None = None,
               over: str = "memories", within: Sequence[str] | None = None,
               user_id: str | None = None) -> list[MemoryHit]:
        """The best ``k`` memories (or raw turns, ``over="turns"``) for
        ``query``, asked on behalf of ``user`` (or ``user_id``): theirs and
        their projects' (``within``: only these of them), never anyone else's
        (without a user: everyone's, each hit naming its subject). ``at``: as
        the store had been told by then. Raises InvalidInput."""
        return [MemoryHit.of(h.to_json()) for h in self._search(
            query, user=one_user(user, user_id), project=project, session=session, k=k, at=at,
            over=over, within=within)]

    def recall_with_prompt(self, query: str, *, user: str | None = None,
                           project: str | None = None, session: str | None = None, k: int = 10,
                           at: datetime | None = None, over: str = "memories",
                           within: Sequence[str] | None = None, user_id: str | None = None
                           ) -> tuple[str, list[MemoryHit]]:
        """``prompt`` and ``recall`` from one search. Raises InvalidInput."""
        hits = self._search(query, user=one_user(user, user_id), project=project, session=session,
                            k=k, at=at, over=over, within=within)
        block = Recaller.render_prompt(hits, _us(at, "at") if at is not None else self.store.now())
        return block, [MemoryHit.of(h.to_json()) for h in hits]

    def _search(self, query: str, *, user: str | None, project: str | None,
                session: str | None, k: int, at: datetime | None, over: str = "memories",
                within: Sequence[str] | None = None) -> list[RecallHit]:
        if session is not None and user is not None:  # the user's own session of that name
            session = self.check_session(session, user)
        return self.recaller.search(query, k=k, at=_us(at, "at"), over=over,
                                    user=user, project=project, session=session, within=within)

    def prompt(self, query: str, *, user: str | None = None, project: str | None = None,
               session: str | None = None, k: int = 10, at: datetime | None = None,
               user_id: str | None = None) -> str:
        """The block an agent pastes into its prompt for ``query``: one line
        per memory with its date, confidence and subject; outdated or
        conflicting ones say so. Raises InvalidInput."""
        hits = self._search(query, user=one_user(user, user_id), project=project, session=session,
                            k=k, at=at)
        return Recaller.render_prompt(hits, _us(at, "at") if at is not None else self.store.now())

    def facts(self, *, user: str | None = None, subject: str | None = None,
              predicate: str | None = None, valid_at: datetime | None = None,
              known_at: datetime | None = None, limit: int | None = None, offset: int = 0,
              user_id: str | None = None) -> list[MemoryFact]:
        """What the store believes of a subject (``user="alice"`` or
        ``user_id="alice"`` is ``user:alice``): the rows holding at
        ``valid_at`` as the store had been told by ``known_at`` (both default
        to now), expired ones left out; every time an aware datetime. A page:
        ``limit`` rows (None: all) from ``offset`` on, in the store's order
        (predicate, then valid time). Raises InvalidInput without a subject,
        or for a malformed one or a bad page."""
        user = one_user(user, user_id)
        limit, offset = _page(limit, offset)
        if (user is None) == (subject is None):
            raise InvalidInput("facts needs either a user or a subject")
        about = subject if subject is not None else f"user:{check_name(user, 'user')}"
        valid, known = _us(valid_at, "valid_at"), _us(known_at, "known_at")
        rows = self.store.facts.as_of(about, predicate, valid_at=valid, known_at=known,
                                include_expired=False)
        rows = rows[offset:] if limit is None else rows[offset:offset + limit]
        return [MemoryFact.of(d) for d in self.store.facts.as_json(rows, at=valid, known_at=known)]

    def memories(self, *, user: str | None = None, subject: str | None = None,
                 limit: int = 100, offset: int = 0, include_archived: bool = False,
                 user_id: str | None = None) -> list[MemoryItem]:
        """The memories of the vector path (what was said, sensitive data
        masked), newest first: a user's (``user`` or ``user_id``: theirs and
        the people they told about, each naming its subject) or one
        subject's (``subject``, e.g. ``project:atlas``). A page of ``limit``
        (1 to ``MAX_PAGE``) from ``offset`` on; archived ones only when asked
        for. Raises InvalidInput without a subject, for a malformed one or a
        bad page."""
        user = one_user(user, user_id)
        page, offset = _page(limit, offset)
        if (user is None) == (subject is None):
            raise InvalidInput("memories needs either a user or a subject")
        if user is not None:
            name = check_name(user, "user")
            about, under = f"user:{name}", people_of(name)
        else:
            about, under = check_subject(subject), None
        rows = self.store.facts.memories(about, page or MAX_PAGE, offset=offset, under=under,
                                   include_archived=include_archived)
        return [MemoryItem.of(r) for r in rows]

    def audit(self, subject: str, predicate: str, object: str | None = None) -> MemoryAudit:
        """Since when, and why, the store believes a value: the provenance chain
        from the turn to the fact, every time an aware datetime. Raises
        FactNotFound, InvalidInput for a malformed subject, predicate or object."""
        return MemoryAudit.of(self.store.audit.of(subject, predicate, object).to_dict())


MAX_PAGE = 1000
"""The most rows one page of ``facts`` or ``memories`` holds."""


def one_user(user: str | None, user_id: str | None) -> str | None:
    """The user named by ``user`` or by its alias ``user_id`` (mem0's name;
    the MCP tools take both too). Raises InvalidInput when both are given and
    differ."""
    if user_id is None:
        return user
    if user is not None and user != user_id:
        raise InvalidInput(f"user {user!r} and user_id {user_id!r} differ: give one of them")
    return user_id


def _page(limit: int | None, offset: int) -> tuple[int | None, int]:
    """A checked page: ``limit`` rows (None: no limit) from ``offset``.
    Raises InvalidInput."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or not 1 <= limit <= MAX_PAGE):
        raise InvalidInput(f"limit must be a whole number from 1 to {MAX_PAGE}, got {limit!r}")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidInput(f"offset must be a whole number from 0, got {offset!r}")
    return limit, offset


def iso_of(when: datetime) -> str:
    """An aware datetime as ISO 8601 with its offset (microseconds kept)."""
    return iso(to_us(when), offset_minutes(when)) or ""


def _us(value: datetime | None, what: str) -> int | None:
    if value is None:
        return None
    if not isinstance(value, datetime) or value.utcoffset() is None:
        raise InvalidInput(f"{what} must be a timezone-aware datetime, got {value!r}")
    return to_us(value)


def _new_messages(session: str, drafts: list[dict[str, Any]],
                  held: list[tuple[int, str, str, int]]) -> list[int]:
    """The positions (from 0) of the messages the session does not hold yet
    (the rules of ``Memory.remember``). Raises InvalidInput for a numbered
    message that contradicts a stored turn (or an earlier message)."""
    numbered: dict[int, tuple[str, str, int | None]] = {n: (s, t, us) for n, s, t, us in held}
    timed = {(s, t, us) for _, s, t, us in held}
    said = {(s, t) for _, s, t, _ in held}
    new: list[int] = []
    for i, d in enumerate(drafts):
        role, text, when, number = d["role"], d["content"], d["time"], d["turn"]
        us = to_us(when) if when is not None else None
        if number is not None:
            known = numbered.get(number)
            if known is None:
                numbered[number] = (role, text, us)
            elif known[:2] != (role, text) or (us is not None and known[2] is not None
                                               and known[2] != us):
                raise InvalidInput(f"message {i + 1}: turn {number} of session {session!r} is "
                                   f"already stored with other content ({known[1][:60]!r})")
            else:
                continue
        elif us is not None:
            if (role, text, us) in timed:
                continue
        elif not new and (role, text) in said:
            continue
        new.append(i)
        if us is not None:
            timed.add((role, text, us))
    return new


def _times_of(drafts: list[dict[str, Any]], new: list[int], last: datetime | None,
              now: datetime) -> dict[int, datetime]:
    """The times of the new messages without one (positions from 0), by the
    rules of ``Memory.remember``: from this call's timed messages, the
    session's latest turn ``last`` and the clock ``now``, never at or before
    ``last``."""
    untimed = [i for i in new if drafts[i]["time"] is None]
    out: dict[int, datetime] = {}
    if not untimed:
        return out
    stamps = [d["time"] for d in drafts]
    if all(t is None for t in stamps):
        previous = last
        for i in untimed:
            previous = out[i] = max(now, previous + _STEP) if previous is not None else now
        return out
    before: list[int | None] = []  # the nearest timed message before each position
    for i in range(len(stamps)):
        before.append(i - 1 if i and stamps[i - 1] is not None else (before[-1] if i else None))
    after: list[int | None] = [None] * len(stamps)  # and the nearest after it
    for i in range(len(stamps) - 2, -1, -1):
        after[i] = i + 1 if stamps[i + 1] is not None else after[i + 1]
    latest = last  # the latest time given so far (the session's latest turn, then these)
    for i in untimed:
        j, k = before[i], after[i]
        if j is not None:
            when = stamps[j] + (i - j) * _STEP
        elif last is not None:
            when = last + (i + 1) * _STEP
        else:
            assert k is not None  # some message of the call has a time
            when = stamps[k] - (k - i) * _STEP
        if latest is not None:  # (it starts at ``last``)
            if when <= last:  # moved after the session's turns and this call's untimed ones
                when = latest + _STEP
            latest = max(latest, when)
        out[i] = when
    return out


__all__ = ["Memory", "Remembered"]
