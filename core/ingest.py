"""Conversation ingest: raw turns in, gated memories out (docs/DESIGN.md §3).

Every turn is stored raw in the resource layer, then handed to an extractor
whose claims go through the same gates as imported facts. One file is one
transaction: a bad line is named and nothing is written; a rerun of a file
(or of a crashed ingest) adds nothing twice, because turns and claims are
both idempotent per (session, turn). The extractor runs before the write
transaction opens (``extract_turns``), so the store's write lock is held
only to write (``ingest_turns``).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from . import parallel_extract
from .checks import check_name, check_storable, check_turn
from .claims import (
    ClaimInput,
    export_hint,
    iter_jsonl,
    source_of,
    to_claims,
)
from .db import Connection
from .db import ingest as sql
from .db.writes import chunks
from .errors import (
    ExtractorUnavailable,
    InputFileError,
    InvalidInput,
    PredicateMismatch,
    TurnMismatch,
)
from .extract.rules import extract
from .failpoints import point
from .lang.amounts import Amount, find_amounts, local_dollars
from .lang.places import currency_at, place_in
from .lang.sensitive import has_sensitive
from .moved import moved
from .new_job import role_of_new_job
from .pipeline import Turn
from .replaced import PREDICATE as DECISION
from .replaced import replaced
from .resources import data_path
from .signals.layer import SignalLayer
from .signals.people import PeopleBook
from .timeutil import from_us, parse_time, to_us
from .writer import WriteBatch

SPEAKERS = ("user", "assistant")
_TURN_FIELDS = {"session", "turn", "speaker", "time", "text", "user", "project"}
_NAME = re.compile(r"^[\w.@-]+$")
CONTEXT_TURNS = 6
PROGRESS_EVERY = 500


class Extractor(Protocol):
    """Turns one conversation turn (with the turns before it in its session)
    into claims. ``name`` (with a version) is recorded on every claim."""

    name: str

    def claims(self, turn: Turn, context: Sequence[Turn]) -> list[ClaimInput]: ...


@dataclass(frozen=True)
class RuleExtractor:
    """The default extractor: offline rules for Chinese and English."""

    name: str = "rules@1"

    def claims(self, turn: Turn, context: Sequence[Turn]) -> list[ClaimInput]:
        return to_claims(turn, extract(turn, context), extractor=self.name)


@dataclass(frozen=True)
class SignalledExtractor:
    """An extractor whose claims pass the signal layer (core.signals) on their
    way to the gates: the same policy for the rules and an LLM. Claims keep
    the inner extractor's name."""

    inner: Extractor
    layer: SignalLayer
    people: PeopleBook | None = None  # the names users gave (one book per ingest: ``known_people``)

    @property
    def name(self) -> str:
        return self.inner.name

    def claims(self, turn: Turn, context: Sequence[Turn]) -> list[ClaimInput]:
        at = to_us(turn.time)
        known = self.people.before(turn.user, at) if self.people is not None else None
        out = self.layer.refine(turn, context, self.inner.claims(turn, context), self.inner.claims, known)
        if turn.speaker == "user" and any(map(_uncounted, out)) and (spoken := _turn_currency(turn.text)) is not None:
            # a bare amount beside money said in a currency ("the clutch went, 900 quid. so dropping the van budget
            # to 9k"): the turn's money (looked for only when a budget has none)
            out = [in_currency(c, spoken) for c in out]
        if self.people is not None and turn.speaker == "user":
            home = self.people.home_before(turn.user, at)
            out = [in_home_currency(c, home, turn.time, turn.text) for c in out] if home is not None else out
            # a bare amount where no home says the money: the money the user's own budgets were in
            counted = self.people.currency_before(turn.user, at)
            out = [in_currency(c, counted) for c in out] if counted is not None else out
        if turn.speaker == "user":
            out = self.layer.judge_claims(turn, out)  # a fragment as a value waits for a reviewer
        if self.people is not None and turn.speaker == "user":
            prefix = f"person:{turn.user}/"
            for c in out:
                if c.subject.startswith(prefix) and c.predicate == "name" and c.confidence > HELD_BACK:
                    self.people.learn(turn.user, at, c.object, c.subject[len(prefix):])
                elif c.subject == f"user:{turn.user}" and c.predicate == "lives_in" and c.polarity == "positive" \
                        and c.confidence > HELD_BACK:
                    self.people.learn_home(turn.user, at, c.object)
                elif c.subject == f"user:{turn.user}" and c.predicate == "budget_limit" and c.confidence > HELD_BACK \
                        and isinstance(c.value, dict) and isinstance(c.value.get("currency"), str):
                    self.people.learn_currency(turn.user, at, c.value["currency"])
        return out


def _turn_currency(text: str) -> str | None:
    """The one currency the money ``text`` names is in (None: none, or more than one)."""
    said = {a.currency for _, _, a in find_amounts(text) if a.currency}
    return said.pop() if len(said) == 1 else None


def in_home_currency(claim: ClaimInput, home: str, when: datetime, text: str = "") -> ClaimInput:
    """A budget said without a currency ("rent max 1300 a month"), or in bare dollars where the money is another
    dollar ("3000 dollars" in Timaru: ``lang.amounts.local_dollars``), in the currency of where the user lives,
    when the turn (``text``) was typed on that place's clock (``lang.places``); any other claim as it is."""
    value = claim.value
    if claim.predicate != "budget_limit" or not isinstance(value, dict) or value.get("amount") is None:
        return claim
    place = place_in(home)
    currency = currency_at(place, when) if place is not None else None
    if currency is None or value.get("currency") and not local_dollars(value.get("currency"), currency, text):
        return claim
    return _counted_in(claim, value, currency)


def in_currency(claim: ClaimInput, currency: str) -> ClaimInput:
    """A budget said without a currency ("rent max 1300 a month") in ``currency``; any other claim as it is."""
    return _counted_in(claim, claim.value, currency) if _uncounted(claim) else claim


def _uncounted(claim: ClaimInput) -> bool:
    """Whether ``claim`` is a budget whose amount names no currency."""
    value = claim.value
    return claim.predicate == "budget_limit" and isinstance(value, dict) and value.get("amount") is not None \
        and not value.get("currency")


def _counted_in(claim: ClaimInput, value: dict, currency: str) -> ClaimInput:
    """``claim`` with its amount (``value``) in ``currency``."""
    amount = Amount.from_json(value, currency)
    return claim.with_changes(object=str(amount), value=amount.to_json())


HELD_BACK = 0.5  # a name claimed at this confidence or below waits for a reviewer: not yet known


def known_people(conn: Connection, users: Sequence[str]) -> PeopleBook:
    """The names ``users`` gave the people they spoke of (``name`` facts of
    ``person:<user>/<relation>``), where they live (their ``lives_in`` facts) and
    the currencies their own budgets named, as stored with the time the store
    was told each (as an ingest learns them: a rerun reads the same), in a book
    the signal layer reads (``SignalledExtractor.people``). One query of each
    kind per 500 users."""
    said: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    homes: dict[str, list[tuple[int, str]]] = defaultdict(list)
    money: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for part in chunks(sorted(set(users))):
        for subject, name, told in sql.names_given(conn, part, NEVER_TRUE):
            user, key = subject.removeprefix("person:").split("/", 1)
            said[user].append((told, name, key))
        for user, place, told in sql.homes_said(conn, part, NEVER_TRUE):
            homes[user].append((told, place))
        for user, currency, told in sql.currencies_said(conn, part, NEVER_TRUE):
            money[user].append((told, currency))
    return PeopleBook(said, homes, money)


NEVER_TRUE = ("corrected", "retracted")  # a name taken back was never the person's


def turn_from_dict(data: Any) -> Turn:
    """Validate one conversation line (docs/DESIGN.md §6). Raises InvalidInput naming the field."""
    if not isinstance(data, dict):
        raise InvalidInput("expected a JSON object")
    unknown = sorted(set(data) - _TURN_FIELDS)
    if unknown:
        raise InvalidInput(f"unknown field(s): {', '.join(unknown)}")
    for key in ("session", "turn", "speaker", "time", "text"):
        if data.get(key) is None:
            raise InvalidInput(f"missing required field {key!r}")
    session, text = data["session"], data["text"]
    if not isinstance(session, str) or not session.strip():
        raise InvalidInput("session must be a non-empty string")
    session = check_name(session, "session")
    if not isinstance(text, str) or "\x00" in text:
        raise InvalidInput("text must be a string without NUL characters")
    check_storable(text, "text")  # a lone surrogate (from code: file lines are screened)
    number = check_turn(data["turn"])
    if data["speaker"] not in SPEAKERS:
        raise InvalidInput(f"speaker must be one of {', '.join(SPEAKERS)}, got {data['speaker']!r}")
    user = data.get("user")
    user = "me" if user is None else user
    project = data.get("project")
    names: dict[str, str | None] = {"user": user, "project": project}
    for key, value in names.items():
        if value is None:
            continue
        if isinstance(value, str) and value.strip():
            normal = check_name(value, key)  # NFKC; no control, format or invisible character
            if value == value.strip():  # (surrounding spaces are refused below)
                value = names[key] = normal
        if not isinstance(value, str) or not _NAME.fullmatch(value):
            raise InvalidInput(f"{key} must be a name without spaces, got {value!r}")
    user, project = names["user"], names["project"]
    assert user is not None
    return Turn(session=session, turn=number, speaker=data["speaker"],
                time=parse_time(data["time"], "time"), text=text, user=user, project=project)


def checked_turn(turn: Any) -> Turn:
    """A ``Turn`` given from code, held to the rules of a conversation line
    (``turn_from_dict``); its time object is kept as given. Raises InvalidInput."""
    if not isinstance(turn, Turn):
        raise InvalidInput(f"expected a Turn, got {type(turn).__name__}")
    if not isinstance(turn.time, datetime) or turn.time.utcoffset() is None:
        raise InvalidInput(f"time must be a timezone-aware datetime, got {turn.time!r}")
    line = {"session": turn.session, "turn": turn.turn, "speaker": turn.speaker,
            "time": turn.time.isoformat(), "text": turn.text, "user": turn.user,
            "project": turn.project}
    return replace(turn_from_dict(line), time=turn.time)


def iter_turns(path: str | Path) -> Iterator[tuple[int, Turn]]:
    """Validated turns of a conversation file with their line numbers.
    Raises InputFileError naming the first bad line."""
    name = str(path)
    seen: dict[tuple[str, int], tuple[int, Turn]] = {}
    for number, data in iter_jsonl(path):
        try:
            turn = turn_from_dict(data)
        except InvalidInput as exc:
            raise InputFileError(number, export_hint(data) or str(exc), name) from None
        key = (turn.session, turn.turn)
        earlier = seen.get(key)
        if earlier is not None and earlier[1] != turn:
            raise InputFileError(number, f"session {key[0]!r} turn {key[1]} differs from line "
                                 f"{earlier[0]} (same turn, other content)", name)
        seen.setdefault(key, (number, turn))
        yield number, turn


def stored_context(conn: Connection, turns: Sequence[Turn]) -> dict[tuple[str, int], list[Turn]]:
    """For each (session, turn number) of ``turns``, the context the extractor reads for it: the last
    CONTEXT_TURNS turns of its session before it BY TURN NUMBER, taken from the stored turns merged with
    ``turns`` (a stored turn wins over a line of the same number). It depends only on the session's turns,
    not on which of them this file holds or in what order, so a conversation ingested in several files,
    turn by turn, or again in part and shuffled, is read the same way (a "Yes please" here answers the
    assistant's offer stored by an earlier file) and re-extracts the same claims. One query per 500 sessions;
    of the stored turns only the last CONTEXT_TURNS before each turn here are kept."""
    given: dict[str, dict[int, Turn]] = defaultdict(dict)
    for t in turns:
        given[t.session].setdefault(t.turn, t)
    numbers = {session: sorted(by_number) for session, by_number in given.items()}
    # per session: the stored turns in each gap before a number here (the last CONTEXT_TURNS of each gap)
    gaps: dict[str, list[deque[Turn]]] = {s: [deque(maxlen=CONTEXT_TURNS) for _ in ns] for s, ns in numbers.items()}
    stored_same: dict[str, dict[int, Turn]] = defaultdict(dict)
    sessions = sorted(given)
    for part in chunks(sessions):
        rows = sql.turns_up_to(conn, part, max(numbers[s][-1] for s in part))
        for session, number, speaker, time, tz, text, user, project in rows:
            ns = numbers[session]
            if number > ns[-1]:
                continue
            stored = Turn(session, number, speaker, from_us(time, tz), text, "me" if user is None else user, project)
            at = bisect_left(ns, number)
            if ns[at] == number:
                stored_same[session][number] = stored
            else:
                gaps[session][at].append(stored)
    out: dict[tuple[str, int], list[Turn]] = {}
    for session, ns in numbers.items():
        merged: list[Turn] = []
        for gap, number in zip(gaps[session], ns, strict=True):
            merged.extend(gap)
            out[(session, number)] = merged[-CONTEXT_TURNS:]
            merged.append(stored_same[session].get(number) or given[session][number])
            del merged[:-CONTEXT_TURNS]
    return out


@dataclass(frozen=True)
class Extracted:
    """What extraction made of some turns, before anything is written: per turn its input line, the turn,
    its claims (sensitive ones marked) and the context it was read with; and the turns whose extraction
    failed (stored raw, logged, retried by a rerun) with the reason."""

    turns: tuple[tuple[int, Turn, tuple[ClaimInput, ...]], ...]
    context: dict[tuple[str, int], list[Turn]]
    failed: tuple[tuple[Turn, str], ...]


def _claims_of(extractor: Extractor, turn: Turn, context: Sequence[Turn]
               ) -> tuple[tuple[ClaimInput, ...], str | None]:
    """The turn's claims (sensitive ones marked), or none and why the extractor failed."""
    try:
        claims = extractor.claims(turn, context)
    except ExtractorUnavailable as exc:
        # the raw turn is still stored; the failure is logged so a rerun retries it
        return (), str(exc)
    return tuple(c.with_changes(sensitive=True) if not c.sensitive and has_sensitive(c.object) else c
                 for c in claims), None


def extract_turns(numbered: Sequence[tuple[int, Turn]], extractor: Extractor,
                  context: dict[tuple[str, int], list[Turn]], *, parallel: bool | None = None) -> Extracted:
    """Run the extractor on every turn, with the context ``stored_context`` read for it. This is the
    slow part of an ingest (the rules, the signal layer, an LLM's round trips); it runs with no
    transaction open, before the write transaction, so the store's write lock is held only to write.
    Many turns for the rule extractor are read in two processes, split by user (``parallel_extract``;
    ``parallel``: None decides by their number, False never): the claims are the same as in one.
    Raises nothing of its own (an ExtractorUnavailable is kept in ``failed``)."""
    parts = None
    if _runs_anywhere(extractor) and (parallel or parallel is None and parallel_extract.worth_it(numbered)):
        parts = parallel_extract.split_by_user(numbered)
    if parts is None:
        results = _extract_part(numbered, extractor, context, range(len(numbered)))
    else:
        people = extractor.people if isinstance(extractor, SignalledExtractor) else None

        def run(part: list[int]) -> tuple[list[parallel_extract.TurnResult], Any]:
            """The part's claims, and the names its users gave on the way."""
            users = {numbered[i][1].user for i in part}
            results = _extract_part(numbered, extractor, context, part)
            return results, (people.of_users(users) if people is not None else {})

        first, _, second, learned = parallel_extract.run_in_two(run, parts)
        if people is not None:
            people.take(learned)  # what the second part's users named, as if read here
        by_position = dict(zip(parts[0], first, strict=True)) | dict(zip(parts[1], second, strict=True))
        results = [by_position[i] for i in range(len(numbered))]
    out = []
    failed = []
    for (line, turn), (claims, reason) in zip(numbered, results, strict=True):
        if reason is not None:
            failed.append((turn, reason))
        out.append((line, turn, claims))
    return Extracted(tuple(out), context, tuple(failed))


def _runs_anywhere(extractor: Extractor) -> bool:
    """Whether ``extractor`` reads a turn from the turn and its context alone, with nothing outside the
    process (the rules, behind the signal layer or not): only such a one is run in a second process."""
    inner = extractor.inner if isinstance(extractor, SignalledExtractor) else extractor
    return isinstance(inner, RuleExtractor)


def _extract_part(numbered: Sequence[tuple[int, Turn]], extractor: Extractor,
                  context: dict[tuple[str, int], list[Turn]], part: Sequence[int]) -> list[parallel_extract.TurnResult]:
    """The claims of the turns at ``part`` (in order)."""
    return [_claims_of(extractor, numbered[i][1], context[(numbered[i][1].session, numbered[i][1].turn)])
            for i in part]


def ingest_turns(batch: WriteBatch, extracted: Extracted, extractor: Extractor,
                 path: str, progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
    """Write what ``extract_turns`` made of the turns, under the write lock ``batch`` holds: each turn stored
    raw and its claims run through the gates, calling ``progress(done, total)`` every PROGRESS_EVERY turns
    and at the end. A turn whose context changed since it was read (another writer stored turns of its
    session in between) is read again here, under the lock, so that what is written is what the turn says
    in the store's context. Returns per-turn counts (turns, turns_with_facts, dropped, extraction_failed,
    reread). Raises InputFileError naming the line of a turn that contradicts a stored one."""
    numbered = extracted.turns
    now = stored_context(batch.conn, [turn for _, turn, _ in numbered])
    failed = dict(((t.session, t.turn), reason) for t, reason in extracted.failed)
    turns: list[tuple[int, Turn, tuple[ClaimInput, ...]]] = []
    reread = 0
    for line, turn, claims in numbered:
        key = (turn.session, turn.turn)
        if now[key] != extracted.context[key]:  # a race with another writer: read it again
            reread += 1
            claims, reason = _claims_of(extractor, turn, now[key])
            failed.pop(key, None)
            if reason is not None:
                failed[key] = reason
        turns.append((line, turn, claims))
    counts = {"turns": 0, "turns_with_facts": 0, "dropped": 0, "extraction_failed": 0}
    batch.prefetch([c for _, _, cs in turns for c in cs])
    for line, turn, claims in turns:
        try:
            batch.register_turn(source_of(turn), user=turn.user, project=turn.project)
            # the decisions the turn's own replace (what the store holds, as written so far)
            claims = tuple(replaced(turn.text, claims, lambda subject: batch.current_rows(subject, DECISION)))
            context = now[(turn.session, turn.turn)]
            asked = context[-1].text if context and context[-1].speaker != "user" else ""
            claims = tuple(moved(turn.text, claims, batch.current_rows, asked))  # the held items its moves move
            claims = tuple(role_of_new_job(claims, batch.current_rows))  # a role told after the employer changed
            for claim in claims:
                batch.submit(claim)
        except (TurnMismatch, PredicateMismatch) as exc:
            raise InputFileError(line, str(exc), path) from None
        counts["turns"] += 1
        if claims:
            counts["turns_with_facts"] += 1
        else:
            counts["dropped"] += 1
        point("ingest.turn")
        if progress is not None and counts["turns"] % PROGRESS_EVERY == 0:
            progress(counts["turns"], len(turns))
    if progress is not None:
        progress(counts["turns"], len(turns))
    by_key = {(t.session, t.turn): t for _, t, _ in turns}
    for key, reason in failed.items():
        turn = by_key[key]
        batch.audit(extractor.name, "extract.failed", subject=f"user:{turn.user}", reason=reason,
                    detail={"session": turn.session, "turn": turn.turn, "retry": True})
    counts["extraction_failed"] = len(failed)
    counts["dropped"] -= len(failed)
    if reread:
        counts["reread"] = reread
    return counts


DEMO_CONVERSATIONS = data_path("conversations")


def demo_files(folder: Path = DEMO_CONVERSATIONS) -> list[Path]:
    """The bundled demo conversations, in a fixed order. Raises FileNotFoundError
    when the folder is missing (an install without the data folder)."""
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(folder)
    return files
