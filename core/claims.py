"""Incoming claims: the import line format of docs/DESIGN.md §6, validated.

A claim is one subject–predicate–object statement with its provenance. Claims
come from the rule-based extractor, an LLM extractor or a JSONL import; all go
through the same gates (see core.writer).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .bitemporal import CLAIM_CHANGES, ENDING, canonical_json
from .catalog import is_predicate_id
from .checks import _SUBJECT, MAX_NAME, SCOPE_PATTERN, _clean, _encodable, _short_number, check_turn
from .errors import InputFileError, InvalidInput
from .names import identifier
from .pipeline import ExtractedFact, SourceRef, Turn
from .timeutil import iso, offset_minutes, parse_time, to_us

MAX_EXACT = 2**53 - 1  # whole numbers every JSON reader keeps exact (RFC 7493, RFC 8785's numbers)
VALUE_DEPTH = 2  # a value's levels of lists and objects: {"amount": 5000, "currency": "CNY"} is 1
VALUE_MEMBERS = 64  # the items and keys of a value's lists and objects, at every level together
POLARITIES = ("positive", "negative", "neutral")
SOURCE_KINDS = ("user_explicit", "agent_inferred", "user_confirmed", "imported")

_TOP_FIELDS = {
    "subject", "predicate", "object", "value", "valid_from", "valid_from_latest", "valid_to",
    "polarity", "scope", "confidence", "change", "source", "extractor", "single_valued",
    "event_time", "sensitive",
}
_SOURCE_FIELDS = {"session", "turn", "speaker", "kind", "text", "time"}
EDITABLE = ("predicate", "object", "value", "polarity", "scope", "valid_from", "valid_to", "change")
"""The fields of a candidate a reviewer may change before approving it."""
_CLEARABLE = ("value", "valid_to", "change")  # the editable fields that may be set to null


@dataclass(frozen=True)
class ClaimInput:
    """A validated claim, ready for the gates. Times are microseconds since the epoch."""

    subject: str
    predicate: str
    object: str
    source: SourceRef
    valid_from: int
    valid_to: int | None = None
    value: Any = None
    polarity: str = "positive"
    scope: str = "global"
    confidence: float = 1.0
    change: str | None = None
    extractor: str = "import"
    single_valued: bool | None = None
    event_start: int | None = None
    event_end: int | None = None
    sensitive: bool = False
    # valid_from was stated (an event time in the text, the line's valid_from)
    # rather than only heard (the time it was said): see core.bitemporal
    start_stated: bool = True
    # the latest instant a stated start can be (inclusive): it was said with
    # the precision of a day, a month, a year ("上个月": the whole month);
    # None: exactly valid_from
    start_latest: int | None = None
    value_json: str | None = field(init=False, repr=False, compare=False)
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # derived once: the canonical JSON of the value, and the claim's key
        object.__setattr__(self, "value_json", canonical_json(self.value))
        object.__setattr__(self, "key", self._content_key())

    @classmethod
    def _checked(cls, **fields: Any) -> ClaimInput:
        """Build a claim from fields ``from_dict`` has already validated: the
        same instance ``cls(**fields)`` gives, without the frozen dataclass's
        attribute-by-attribute ``__init__`` (a sixth of an import's parsing)."""
        claim = object.__new__(cls)
        attrs = claim.__dict__
        attrs.update(fields)
        attrs["value_json"] = canonical_json(fields["value"])
        attrs["key"] = claim._content_key()
        return claim

    @property
    def tz(self) -> int:
        return self.source.tz

    def _content_key(self) -> str:
        """Identity of the claim's content within its turn (``key``): re-importing
        the same statement from the same turn is recognised by (turn, key)."""
        body: tuple = (
            self.subject, self.predicate, self.object, self.value_json, self.polarity,
            self.scope, self.valid_from, self.valid_to, self.change, self.confidence,
            self.source.kind, self.extractor, self.event_start, self.event_end,
        )
        latest = self.start_latest
        if latest is not None and not (self.event_end is not None and latest == self.event_end - 1):
            # what the event time does not already say (keys made before start
            # bounds existed stay as they were)
            body += (latest,)
        return hashlib.blake2b(repr(body).encode("utf-8"), digest_size=10).hexdigest()

    def with_changes(self, **changes: Any) -> ClaimInput:
        return replace(self, **changes)

    @classmethod
    def from_dict(cls, data: Any) -> ClaimInput:
        """Validate one import line (already JSON-decoded), or the same fields
        given from code (an extractor's output, an agent's proposal).

        Raises InvalidInput naming the field at fault.
        """
        claim = cls._from_line(data)
        _check_storable(claim)  # lines read by iter_jsonl were screened for these already
        return claim

    @classmethod
    def _from_line(cls, data: Any) -> ClaimInput:
        """``from_dict`` for a line ``iter_jsonl`` decoded (its text screened
        for lone surrogates). Raises InvalidInput naming the field at fault."""
        if not isinstance(data, dict):
            raise InvalidInput("expected a JSON object")
        if not _TOP_FIELDS.issuperset(data):
            unknown = sorted(set(data) - _TOP_FIELDS)
            raise InvalidInput(f"unknown field(s): {', '.join(unknown)}")
        subject = _name(data, "subject", required=True)
        if not _SUBJECT.match(subject):
            raise InvalidInput(f"subject must look like 'user:NAME' or 'project:NAME', got {subject!r}")
        predicate = _text(data, "predicate", required=True, limit=MAX_NAME)
        if not is_predicate_id(predicate):
            raise InvalidInput(f"predicate must be a snake_case id, got {predicate!r}")
        obj = _text(data, "object", required=data.get("change") != ENDING)
        source = _source(data.get("source"))
        valid_from = _time(data, "valid_from")
        valid_to = _time(data, "valid_to")
        start = valid_from if valid_from is not None else source.time
        if valid_to is not None and valid_to <= start:
            raise InvalidInput(_inverted(data, valid_to, start))
        latest = _time(data, "valid_from_latest")
        if latest is not None:
            if valid_from is None:
                raise InvalidInput("valid_from_latest needs valid_from: it bounds a stated start")
            if latest < valid_from:
                raise InvalidInput(f"valid_from_latest ({data['valid_from_latest']}) is before "
                                   f"valid_from ({data['valid_from']})")
            if valid_to is not None and latest >= valid_to:
                raise InvalidInput(f"valid_from_latest ({data['valid_from_latest']}) is not "
                                   f"before valid_to ({data['valid_to']})")
            if latest == valid_from:
                latest = None  # exact
        polarity = _choice(data, "polarity", POLARITIES, "positive")
        default_scope = "project" if subject.startswith("project:") else "global"
        scope = _name(data, "scope") or default_scope
        if not SCOPE_PATTERN.match(scope):
            raise InvalidInput(f"scope must be global, project or session (optionally ':NAME'), got {scope!r}")
        confidence = data.get("confidence", 1.0)
        if confidence is None:
            confidence = 1.0
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            raise InvalidInput(f"confidence must be a number between 0 and 1, got {confidence!r}")
        if not 0.0 <= float(confidence) <= 1.0:
            raise InvalidInput(f"confidence must be between 0 and 1, got {confidence}")
        change = data.get("change")
        if change is not None and change not in CLAIM_CHANGES:
            raise InvalidInput("change must be evolution, correction, retraction, ending or null, "
                               f"got {change!r}")
        extractor = _name(data, "extractor") or "import"
        single = data.get("single_valued")
        if single is not None and not isinstance(single, bool):
            raise InvalidInput("single_valued must be true, false or absent")
        sensitive = data.get("sensitive", False)
        if not isinstance(sensitive, bool):
            raise InvalidInput("sensitive must be true or false")
        value = data.get("value")
        _check_value(value)
        event_start = event_end = None
        event = data.get("event_time")
        if event is not None:
            if not isinstance(event, dict) or set(event) - {"start", "end"}:
                raise InvalidInput("event_time must be null or {\"start\": TIME, \"end\": TIME}")
            event_start = _time(event, "start", "event_time.start")
            event_end = _time(event, "end", "event_time.end")
        return cls._checked(
            subject=subject, predicate=predicate, object=obj, source=source,
            valid_from=start, valid_to=valid_to, value=value, polarity=polarity,
            scope=scope, confidence=float(confidence), change=change, extractor=extractor,
            single_valued=single, event_start=event_start, event_end=event_end,
            sensitive=sensitive, start_stated=valid_from is not None, start_latest=latest,
        )


def _check_storable(claim: ClaimInput) -> None:
    """Refuse a validated claim whose text holds a lone UTF-16 surrogate
    (``_text`` lets them through on its fast path: the lines of a file are
    screened for them as they are decoded). Raises InvalidInput naming the field."""
    source = claim.source
    for label, text in (("subject", claim.subject), ("predicate", claim.predicate),
                        ("object", claim.object), ("scope", claim.scope),
                        ("extractor", claim.extractor), ("source.session", source.session),
                        ("source.text", source.text), ("source.speaker", source.speaker)):
        _encodable(text, label)
    if claim.value_json is not None:
        _encodable(claim.value_json, "value")


def _inverted(data: dict, valid_to: int, start: int) -> str:
    """The message for a valid interval that does not end after it starts,
    naming both ends as they were written."""
    end = data.get("valid_to")
    begin = data.get("valid_from")
    if begin is None:
        told = (data.get("source") or {}).get("time")
        begin_text = f"valid_from (the source time, {told})"
    else:
        begin_text = f"valid_from {begin}"
    how = "is before" if valid_to < start else "is the same instant as"
    return f"valid_to {end} {how} {begin_text}: an interval must end after it starts"


def _text(data: dict, key: str, *, required: bool = False, label: str | None = None,
          limit: int | None = None) -> str:
    value = data.get(key)
    if type(value) is str:  # the common case, checked cheaply first
        text = value.strip()
        if text and "\x00" not in text and (limit is None or len(text) <= limit):
            return text
    label = label or key
    if limit is not None and isinstance(value, str) and len(value.strip()) > limit:
        raise InvalidInput(f"{label} is longer than {limit} characters")
    if value is None:
        if required:
            raise InvalidInput(f"missing required field {label!r}")
        return ""
    if not isinstance(value, str):
        raise InvalidInput(f"{label} must be a string, got {type(value).__name__}")
    if required and not value.strip():
        raise InvalidInput(f"{label} must not be empty")
    return _clean(value.strip(), label)


def _name(data: dict, key: str, *, required: bool = False, label: str | None = None) -> str:
    """An identifier field of a line (``_text`` limited to MAX_NAME, then
    ``names.identifier``: NFKC, no control, format or invisible character);
    "" when absent and not required. Raises InvalidInput naming the field."""
    text = _text(data, key, required=required, label=label, limit=MAX_NAME)
    if not text:
        return text
    name = identifier(text, label or key)
    if len(name) > MAX_NAME:  # NFKC can lengthen a name (U+FDFA is 18 letters)
        raise InvalidInput(f"{label or key} is longer than {MAX_NAME} characters")
    return name


_TIMES: dict[str, tuple[int, int]] = {}
_TIMES_KEPT = 1 << 16


def _parsed_time(value: Any, label: str) -> tuple[int, int]:
    """(microseconds since the epoch, UTC offset in minutes) of an ISO 8601
    time with an offset. Remembered by text (the lines of one turn repeat its
    time, and most valid times equal it); only valid times are remembered.
    Raises InvalidInput."""
    if type(value) is str:
        known = _TIMES.get(value)
        if known is not None:
            return known
    when = parse_time(value, label)
    parsed = (to_us(when), offset_minutes(when))
    if len(_TIMES) >= _TIMES_KEPT:
        _TIMES.clear()
    _TIMES[value] = parsed
    return parsed


def _time(data: dict, key: str, label: str | None = None) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    return _parsed_time(value, label or key)[0]


def _choice(data: dict, key: str, choices: tuple[str, ...], default: str,
            label: str | None = None) -> str:
    """One of ``choices``; ``default`` when the field is absent or null (never for another
    value that reads as false: 0, "", [] or {} are refused). Raises InvalidInput."""
    value = data.get(key)
    if value is None:
        return default
    if type(value) is not str or value not in choices:
        raise InvalidInput(f"{label or key} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _check_value(value: Any) -> None:
    """Accept a value of the documented shape (docs/DESIGN.md §6.5): null, a scalar (text,
    true/false, a finite number, a whole number within ±(2^53 − 1), which every JSON reader and
    the audit chain's RFC 8785 encoding keep exact), or a list or object (text keys) at most
    VALUE_DEPTH levels deep with at most VALUE_MEMBERS items and keys in all; no NUL character.
    Walks without recursion and stops at the first fault. Raises InvalidInput saying what is wrong."""
    members = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, int):
            if not -MAX_EXACT <= item <= MAX_EXACT:
                raise InvalidInput(f"value holds the whole number {_short_number(item)}, beyond "
                                   f"±{MAX_EXACT} (2^53 − 1): JSON readers cannot keep it exact")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise InvalidInput(f"value must be plain JSON: {item} is not a JSON number")
        elif isinstance(item, str):
            _clean(item, "value")
        elif isinstance(item, list | dict):
            if depth >= VALUE_DEPTH:
                raise InvalidInput(f"value is nested too deeply: at most {VALUE_DEPTH} levels of "
                                   "lists and objects ({\"amount\": 5000, \"currency\": \"CNY\"} "
                                   "is one)")
            members += len(item)
            if members > VALUE_MEMBERS:
                raise InvalidInput(f"value holds more than {VALUE_MEMBERS} items and keys")
            if isinstance(item, dict):
                for key, inner in item.items():
                    if not isinstance(key, str):
                        raise InvalidInput(f"value must be plain JSON: object keys are text, got {key!r}")
                    _clean(key, "value")
                    stack.append((inner, depth + 1))
            else:
                stack.extend((inner, depth + 1) for inner in item)
        else:
            raise InvalidInput(f"value must be plain JSON, got {type(item).__name__}")


def _source(data: Any) -> SourceRef:
    if data is None:
        raise InvalidInput("missing required field 'source' (every fact needs its source turn)")
    if not isinstance(data, dict):
        raise InvalidInput("source must be an object")
    if not _SOURCE_FIELDS.issuperset(data):
        unknown = sorted(set(data) - _SOURCE_FIELDS)
        raise InvalidInput(f"unknown field(s) in source: {', '.join(unknown)}")
    session = _name(data, "session", required=True, label="source.session")
    turn = data.get("turn")
    if turn is None:
        raise InvalidInput("missing required field 'source.turn'")
    check_turn(turn, "source.turn")
    text = _text(data, "text", required=True, label="source.text")
    raw_time = data.get("time")
    if raw_time is None:
        raise InvalidInput("missing required field 'source.time'")
    time, tz = _parsed_time(raw_time, "source.time")
    speaker = _name(data, "speaker", label="source.speaker") or "user"
    kind = _choice(data, "kind", SOURCE_KINDS, "imported", "source.kind")  # only absent or null defaults
    source = object.__new__(SourceRef)  # validated above: skip the frozen __init__
    source.__dict__.update(session=session, turn=turn, text=text, time=time, tz=tz,
                           speaker=speaker, kind=kind)
    return source


def decode_json(text: str, label: str) -> Any:
    """A value written as JSON text, held to the rules of an import line's
    ``value`` (no NaN or Infinity, no NUL, the documented shape: ``_check_value``).
    Raises InvalidInput saying what is wrong."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{label} must be JSON ({exc.msg} at column {exc.colno}), "
                           f"got {text[:80]!r}") from None
    except RecursionError:
        raise InvalidInput(f"{label} is nested too deeply (at most {VALUE_DEPTH} levels)") from None
    except ValueError as exc:  # NaN, Infinity, a number too long
        if "integer string conversion" in str(exc):
            raise InvalidInput(f"{label} holds a whole number too long to read "
                               f"(more than {sys.get_int_max_str_digits()} digits)") from None
        raise InvalidInput(f"{label} must be plain JSON: {exc}") from None
    _check_value(value)
    return value


def edited_claim(line: Mapping[str, Any], edits: Any) -> ClaimInput:
    """The claim that import line ``line`` (a stored candidate written as one,
    see ``store.review.approve``) becomes with a reviewer's ``edits`` ({field: value}
    of EDITABLE fields, times as ISO 8601 text with an offset), validated as a
    whole exactly as an import line is: an edit that makes the valid interval
    end before it starts, or any field invalid, is refused.

    Raises InvalidInput saying which edit is wrong and what is allowed."""
    if not isinstance(edits, Mapping) or not edits:
        raise InvalidInput(f"edits must be a non-empty mapping of field to value, got {edits!r}")
    unknown = [k for k in edits if k not in EDITABLE]
    if unknown:
        names = ", ".join(k if isinstance(k, str) and k.isidentifier() else repr(k) for k in unknown)
        raise InvalidInput(f"cannot edit {names}; editable: {', '.join(EDITABLE)}")
    for key, value in edits.items():
        blank = value is None or (isinstance(value, str) and not value.strip())
        if blank and key not in _CLEARABLE:
            raise InvalidInput(f"{key} cannot be empty; only {', '.join(_CLEARABLE)} may be "
                               "cleared (set to null)")
    return ClaimInput.from_dict({**line, **edits})


def claim_line(claim: Mapping[str, Any], turn: Mapping[str, Any]) -> dict[str, Any]:
    """A stored claim row and its turn row written back as an import line
    (times in their own offsets), for ``edited_claim``."""
    tz = int(claim.get("tz") or 0)
    line: dict[str, Any] = {
        "subject": claim["subject"], "predicate": claim["predicate"], "object": claim["object"],
        "value": None if claim["value"] is None else json.loads(claim["value"]),
        "polarity": claim["polarity"], "scope": claim["scope"],
        "valid_from": iso(claim["valid_from"], tz), "valid_to": iso(claim["valid_to"], tz),
        "valid_from_latest": iso(claim.get("start_latest"), tz),
        "confidence": claim["confidence"], "change": claim["change"],
        "extractor": claim["extractor"], "single_valued": bool(claim["single_valued"]),
        "sensitive": bool(claim["sensitive"]),
        "source": {"session": turn["session"], "turn": turn["turn"], "speaker": turn["speaker"],
                   "kind": claim["source_kind"], "text": turn["text"],
                   "time": iso(turn["time"], int(turn.get("time_tz") or 0))},
    }
    if claim.get("event_start") is not None or claim.get("event_end") is not None:
        line["event_time"] = {"start": iso(claim.get("event_start"), tz),
                              "end": iso(claim.get("event_end"), tz)}
    return line


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, decoded JSON) for each non-blank line of a JSONL file.

    Raises InputFileError naming the line for bad JSON or bad UTF-8, and
    FileNotFoundError when the file is missing.
    """
    name = str(path)
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InputFileError(number, "not valid UTF-8", name) from None
            if not line.strip():
                continue
            try:
                data = json.loads(line, parse_constant=_no_constant)
            except json.JSONDecodeError as exc:
                raise InputFileError(number, f"not valid JSON: {exc.msg} (column {exc.colno})", name) from None
            except RecursionError:
                raise InputFileError(number, "not valid JSON: nested too deeply", name) from None
            except ValueError as exc:  # NaN or Infinity
                raise InputFileError(number, f"not valid JSON: {exc}", name) from None
            if "\\u" in line and _SUSPECT_ESCAPE.search(line):  # only escapes make these
                problem = _unstorable_text(data)
                if problem:
                    raise InputFileError(number, problem, name)
            yield number, data


_SUSPECT_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")  # NUL, UTF-16 surrogate halves


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unstorable_text(data: Any) -> str | None:
    """Why a decoded line holds text no database can store (a NUL character, a
    lone UTF-16 surrogate), or None. Walks without recursion."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            if "\x00" in item:
                return "contains a NUL character (\\u0000), which cannot be stored"
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "contains a lone surrogate (invalid Unicode), which cannot be stored"
    return None


def iter_claims(path: str | Path) -> Iterator[tuple[int, ClaimInput]]:
    """Validated claims of an import file with their line numbers, in order.

    Also checks that lines citing the same (session, turn) agree on its text.
    Raises InputFileError naming the first bad line.
    """
    name = str(path)
    turns: dict[tuple[str, int], tuple[int, SourceRef]] = {}
    for number, data in iter_jsonl(path):
        try:
            claim = ClaimInput._from_line(data)
        except InvalidInput as exc:
            raise InputFileError(number, export_hint(data) or str(exc), name) from None
        turn_conflict(turns, number, claim, name)
        yield number, claim


def export_hint(data: Any) -> str | None:
    """The message for a line that is the header of a ``memdesk export``."""
    if isinstance(data, dict) and data.get("kind") == "memdesk-export":
        return ("this file is a memdesk export: load it into an empty store with "
                "`memdesk restore`")
    return None


def read_claims(path: str | Path) -> list[tuple[int, ClaimInput]]:
    """Parse and validate a whole import file before anything is written.
    Raises InputFileError naming the first bad line."""
    return list(iter_claims(path))


def turn_conflict(turns: dict[tuple[str, int], tuple[int, SourceRef]], number: int,
                  claim: ClaimInput, path: str) -> None:
    """Remember the turn a line cites; raise InputFileError when an earlier line
    cited the same (session, turn) with other text, speaker or time."""
    ref = (claim.source.session, claim.source.turn)
    seen = turns.get(ref)
    if seen is None:
        turns[ref] = (number, claim.source)
    elif not same_turn(seen[1], claim.source):
        raise InputFileError(
            number,
            f"session {ref[0]!r} turn {ref[1]} differs from line {seen[0]} "
            "(same turn, other text, speaker or time)",
            path,
        )


def same_turn(a: SourceRef, b: SourceRef) -> bool:
    """True when two references describe the same raw turn."""
    return a.text == b.text and a.speaker == b.speaker and a.time == b.time


def source_of(turn: Turn) -> SourceRef:
    """The resource-layer reference of a turn (what its claims cite)."""
    return SourceRef(session=turn.session, turn=turn.turn, text=turn.text,
                     time=to_us(turn.time), tz=offset_minutes(turn.time), speaker=turn.speaker,
                     kind="user_explicit" if turn.speaker == "user" else "agent_inferred")


DATED = frozenset({"todo", "plan", "deadline"})
"""The predicates whose event time is when the item is due, not when its value began."""


def to_claims(turn: Turn, facts: Sequence[ExtractedFact], extractor: str = "rules@1") -> list[ClaimInput]:
    """The facts extracted from ``turn`` as claims citing it (the step from
    extraction to the gates). A fact whose value is beyond the documented shape
    (``_check_value``: "My budget is 1111…" read as a number of thousands of
    digits) is no claim: it is left out, as no import line could carry it."""
    source_kind = {"user": "user_explicit"}.get(turn.speaker, "agent_inferred")
    out = []
    for f in facts:
        try:
            _check_value(f.value)
        except InvalidInput:
            continue
        src = SourceRef(session=turn.session, turn=turn.turn, text=turn.text, time=to_us(turn.time),
                        tz=offset_minutes(turn.time), speaker=turn.speaker, kind=f.source_kind or source_kind)
        # a change's event time is when it happened (a stated start), except for a dated item,
        # whose event time is when it is due ("the launch slips to the 29th": changed now)
        change_at = f.event_start if (f.change == "evolution" or f.start_said) and f.predicate not in DATED else None
        if f.change == ENDING:
            change_at = f.ended_at(turn.time)
        valid_from = to_us(change_at if change_at is not None else turn.time)
        event_end = to_us(f.event_end) if f.event_end else None
        # a stated start lies somewhere in the event's span ("上个月": the whole month)
        latest = (event_end - 1 if change_at is not None and event_end is not None
                  and event_end - 1 > valid_from else None)
        # a dated item's due day is its value, as a deadline's is: said for another day, it is another value
        # of the same thing (a change when told as one), not a mention of it
        value = f.value if f.value is not None or f.predicate not in DATED or f.event_start is None \
            else {"due": f.event_start.date().isoformat()}
        out.append(ClaimInput(
            subject=f.subject, predicate=f.predicate, object=f.object, source=src,
            valid_from=valid_from, value=value, polarity=f.polarity, scope=f.scope,
            confidence=f.confidence, change=f.change, extractor=extractor,
            event_start=to_us(f.event_start) if f.event_start else None,
            event_end=event_end, start_stated=change_at is not None, start_latest=latest,
        ))
    return out
