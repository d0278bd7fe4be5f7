"""The ``memdesk`` command line. Every command speaks JSON with ``--json``
(DESIGN.md section 6) and prints tables otherwise. User mistakes end with a
message on stderr and exit code 1 (2 for bad usage), never a traceback.

The arguments are parsed before the engine loads: this module imports only the
light part of ``memdesk`` (errors, time helpers) at the top, and the store
(SQLAlchemy, SQLModel, Alembic), recall (numpy, Annoy) and the app (Textual)
inside the commands, so ``memdesk --help`` and ``--version`` start at once."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict, astuple, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memdesk import (
    InputFileError,
    InvalidInput,
    MemdeskError,
    iso,
    missing_extra,
    parse_time_us,
    shown,
    shown_all,
)

from .config import Settings, load_settings
from .tables import minute_text, start_cell, start_phrase, table

if TYPE_CHECKING:
    from collections.abc import Callable

    from memdesk import Store

EXIT_ERROR = 1
RESOLUTIONS = ("existing", "incoming", "changed", "both", "neither")
"""``--keep`` choices of ``conflicts resolve``: memdesk.store.RESOLUTIONS,
spelled out so the parser does not load the store (a test keeps them equal)."""
RESOLVE_HELP = """\
what each --keep choice does to the timeline of the conflict's slot:

  existing  the existing value stays as it is; the incoming claim is rejected.
  changed   the value changed (an evolution): the existing row is closed at the
            incoming value's valid start (retired as superseded; its earlier
            part is kept as history) and the incoming value holds from then on.
            An incoming value that starts before the existing one's stated
            start is inserted closed where that one starts (a backfill); one
            that starts before a start only heard replaces it from then on.
  incoming  the existing value was wrong (a correction): it is retired as
            corrected, as if it had never been true, and the incoming value
            takes its whole valid interval, back to the existing row's start
            (from the incoming value's own start, when that start was stated).
  both      both hold: the existing one stays, the incoming one holds over its
            own valid time in --scope (required, another scope).
  neither   the existing facts are retracted (no value remains) and the incoming
            claim is rejected.

`memdesk conflicts show ID` shows what each choice would make of this conflict's
timeline before you take it; `memdesk conflicts undo ID` undoes a resolution."""


class _Version(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("memdesk")
        except PackageNotFoundError:  # run from a checkout that was never installed
            text = "unknown"
        sys.stdout.write(f"memdesk {text}\n")
        parser.exit()


class UserError(Exception):
    """A mistake on the command line, reported without a traceback."""


def _time_arg(text: str | None, flag: str) -> int | None:
    """A time flag's value in µs. A bare day (2026-06-14) is read as the end of
    that day in this machine's timezone, and the reading is said on stderr; a
    time without an offset stays an error (DESIGN §6: never a guess)."""
    if text is None or text == "now":
        return None
    from memdesk import read_moment

    try:
        us, note = read_moment(text, flag)
    except InvalidInput as exc:
        raise UserError(str(exc)) from None
    if note:
        print(f"memdesk: {note}", file=sys.stderr)
    return us


def _dump(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")


def _interval(d: dict) -> str:
    start = minute_text(d["valid_from"] or "")
    end = minute_text(d["valid_to"]) if d["valid_to"] else "…"
    return f"{start} → {end}"


def _due(d: dict) -> str:
    """When a dated item (a reminder, a plan) falls due: its event time's day,
    or its span when that is longer than a day; empty without an event time."""
    event = d.get("event_time") or {}
    start, end = (event.get("start") or ""), (event.get("end") or "")
    if start and d["due"] is None:
        return ""  # the event is the change itself (a move), not something due (Fact.due)
    if not start:
        return end[:10]
    if not end or end[:10] <= start[:10] or _one_day(start, end):
        return start[:10] if start[11:16] in ("", "00:00") else start[:16].replace("T", " ")
    return f"{start[:10]}..{end[:10]}"


def _one_day(start: str, end: str) -> bool:
    from datetime import datetime, timedelta

    return datetime.fromisoformat(end) - datetime.fromisoformat(start) <= timedelta(days=1)


def _source(d: dict | None) -> str:
    return f"{d['session']}#{d['turn']}" if d else ""


# ------------------------------------------------------------------ commands
_INGEST_LABELS = {"lines": "claims extracted", "dropped": "turns without a fact",
                  "turns": "turns read"}
"""What an ingest's summary keys count, said in its table (the JSON keeps the
contract's keys: ``lines`` counts the claims that went to the gates, not the
file's lines; ``dropped`` the turns that stated no fact, kept as turns)."""


def _print_summary(summary: dict[str, Any], as_json: bool,
                   labels: dict[str, str] | None = None) -> int:
    if as_json:
        _dump(summary)
    else:
        named = labels or {}
        print(table(["outcome", "count"],
                    [(named.get(k, k), v if not isinstance(v, list) else ", ".join(v) or "-")
                     for k, v in summary.items()]))
    return 0


def cmd_import(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    return _print_summary(store.import_file(args.file).to_dict(), args.json)


def _progress_bar(label: str) -> Callable[[int, int], None] | None:
    """A one-line progress display on stderr, shown only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def cmd_ingest(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    extractor = None
    if args.extractor == "llm":
        from memdesk import LLMExtractor

        extractor = LLMExtractor.from_env()
    summary = store.ingest_file(args.file, extractor=extractor, progress=_progress_bar("ingest"),
                                signals=not args.no_signals)
    if summary["extraction_failed"]:
        print(f"memdesk: warning: extraction failed for {summary['extraction_failed']} turn(s); "
              "they are stored raw and logged; rerun the same file to retry them", file=sys.stderr)
    return _print_summary(summary, args.json, _INGEST_LABELS)


def cmd_demo(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    from .demo import build_demo

    parts = build_demo(store)
    _embed_for_recall(store, args, settings)
    if args.json:
        _dump([asdict(p) for p in parts])
        return 0
    print(table(["file", "turns", "facts", "merged", "queued", "conflicts", "memories"],
                [astuple(p) for p in parts]))
    db = f"memdesk --db {settings.db}" if settings.db_configured else "memdesk"
    print(f"\ndemo store ready: {store.safe_url} (rerunning adds nothing). Try:\n"
          f"  {db} facts --subject user:alice --valid-at 2026-03-10T12:00:00+08:00\n"
          f"  {db} audit --subject user:alice --predicate lives_in --object 张江\n"
          f"  {db} review list\n  {db} conflicts")
    return 0


def _facts_query(store: Store, subject: str, predicate: str | None, valid_at: int | None,
                 known_at: int | None, all_rows: bool, recorded_at: int | None = None
                 ) -> list[dict]:
    now = store.now()
    if all_rows:
        facts = store.history(subject, predicate)
    else:
        facts = store.as_of(subject, predicate, valid_at=valid_at if valid_at is not None else now,
                            known_at=known_at if known_at is not None else now,
                            include_expired=False, recorded_at=recorded_at)
    return store.fact_dicts(facts, at=valid_at if valid_at is not None else now,
                            known_at=None if all_rows else known_at)


def _facts_table(rows: list[dict]) -> str:
    """One row per fact; a rejected option or an abstention reads "not X" (polarity negative)."""
    return table(
        ["id", "subject", "predicate", "object", "valid", "start", "due", "told", "recorded",
         "retired", "status", "conf", "source"],
        [(d["id"], d["subject"], d["predicate"], _signed_object(d), _interval(d),
          start_cell(d["start"]), _due(d), _told(d),
          (d["recorded_at"] or "")[:16].replace("T", " "),
          _retired(d), d["status"], f"{d['confidence']:.2f}", _source(d["source"]))
         for d in rows],
    )


def _retired(d: dict) -> str:
    """When the row was retired, for a row the view shows retired. A row an
    as-of view (``--known-at``) shows active was not retired as the store
    knew things then: its later retirement is no part of that view (``told``
    says when what retired it was told)."""
    if d["status"] == "active" or not d["retired_at"]:
        return ""
    return str(d["retired_at"])[:16].replace("T", " ")


def _told(d: dict) -> str:
    """The told axis of a fact: when the store was told what wrote it (→ and what retired it)."""
    start = (d["known_from"] or "")[:16].replace("T", " ")
    until = (d["known_until"] or "")[:16].replace("T", " ")
    return f"{start} → {until}" if until else start


def _signed_object(d: dict) -> str:
    signed = {"negative": f"not {d['object']}", "neutral": f"~ {d['object']}"}
    return signed.get(d.get("polarity") or "", d["object"])


_BATCH_FACT_FIELDS = {"id", "subject", "predicate", "valid_at", "known_at", "recorded_at", "all"}


def cmd_facts(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    if args.batch:
        from memdesk import check_predicate, check_subject, iter_jsonl

        queries = []
        for line, q in iter_jsonl(args.batch):
            if not isinstance(q, dict):
                raise InputFileError(line, "expected a JSON object", args.batch)
            unknown = sorted(set(q) - _BATCH_FACT_FIELDS)
            if unknown:
                raise InputFileError(line, f"unknown field(s): {', '.join(unknown)}", args.batch)
            if q.get("subject") is None:
                raise InputFileError(line, "missing required field 'subject'", args.batch)
            if not isinstance(q.get("all", False), bool):
                raise InputFileError(line, "all must be true or false", args.batch)
            try:
                subject = check_subject(q["subject"])
                predicate = check_predicate(q["predicate"]) if q.get("predicate") is not None else None
                va = parse_time_us(q["valid_at"], "valid_at") if q.get("valid_at") else None
                ka = parse_time_us(q["known_at"], "known_at") if q.get("known_at") else None
                ra = (parse_time_us(q["recorded_at"], "recorded_at") if q.get("recorded_at")
                      else None)
            except InvalidInput as exc:
                raise InputFileError(line, str(exc), args.batch) from None
            queries.append((q.get("id", line), subject, predicate, va, ka, q.get("all", False),
                            ra))
        for qid, subject, predicate, va, ka, all_rows, ra in queries:
            results = _facts_query(store, subject, predicate, va, ka, all_rows, ra)
            if args.json:
                _dump({"id": qid, "results": results})
            else:
                print(f"# {shown(str(qid))}: {subject} {predicate or ''}\n{_facts_table(results)}\n")
        return 0
    if not args.subject:
        raise UserError("facts needs --subject (or --batch FILE)")
    if args.all and args.recorded_at:
        raise UserError("--all lists every row ever written; it takes no --recorded-at")
    rows = _facts_query(store, args.subject, args.predicate, _time_arg(args.valid_at, "--valid-at"),
                        _time_arg(args.known_at, "--known-at"), args.all,
                        _time_arg(args.recorded_at, "--recorded-at"))
    if args.json:
        _dump(rows)
    elif rows:
        print(_facts_table(rows))
    else:
        print(f"no facts for {args.subject}" + (f" {args.predicate}" if args.predicate else ""))
    return 0


def cmd_audit(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    report = store.audit(args.subject, args.predicate, args.object).to_dict()
    if args.json:
        _dump(report)
        return 0
    report = shown_all(report)  # stored text, one line each
    f = report["fact"]
    print(f"{report['subject']} {report['predicate']} = {report['object']}")
    print(f"decided at {report['decided_at']} as told (recorded by this store at "
          f"{report['recorded_at']}; fact {f['id']}, {f['status']}, "
          f"valid {_interval(f)}, {start_phrase(f['start'])})\n")
    print(table(["step", "told", "recorded", "actor", "what"],
                [(s["step"], (s["at"] or "")[:19].replace("T", " "),
                  (s["recorded_at"] or "")[:19].replace("T", " "), s["actor"], s["summary"])
                 for s in report["chain"]], max_col=60))
    return 0


def _candidates_table(rows: list[dict]) -> str:
    return table(
        ["id", "conf", "subject", "predicate", "object", "state", "source", "reasons"],
        [(d["id"], f"{d['confidence']:.2f}", d["subject"], d["predicate"],
          ("retract: " if d.get("change") == "retraction" else "") + d["object"],
          d["state"], _source(d["source"]), "; ".join(d["reasons"])) for d in rows],
    )


def _candidate_detail(d: dict) -> str:
    """One candidate, field by field, nothing cut (``review show``): the table
    of ``review list`` clips long values and reasons."""
    def when(t: str | None) -> str:
        return minute_text(t) if t else "…"

    rows = [("candidate", f"{d['id']} ({d['state']}, confidence {d['confidence']:.2f}, "
                          f"read: {d.get('reading', 'extracted')})"),
            ("subject", d["subject"]), ("predicate", d["predicate"]),
            ("object", d["object"] + ("" if d["polarity"] == "positive" else f" ({d['polarity']})")),
            ("scope", d["scope"]), ("valid", f"{when(d['valid_from'])} → {when(d['valid_to'])}")]
    if d.get("change"):
        rows.append(("change", d["change"]))
    rows.append(("source", f"{_source(d['source'])} ({d['source']['kind']}, "
                           f"{when(d['source']['time'])})"))
    reasons = [f"- {reason}" for reason in d["reasons"]] or ["-"]
    rows += [("reasons" if n == 0 else "", reason) for n, reason in enumerate(reasons)]
    if d.get("decided_by"):
        rows.append(("decided", f"by {d['decided_by']} at {when(d['decided_at'])}"
                                + (f": {d['decision_reason']}" if d.get("decision_reason") else "")))
    return "\n".join(f"{k + ':' if k else '':<11}{v}" for k, v in rows)


def _edits(pairs: Sequence[str]) -> dict[str, Any]:
    """The ``--edit FIELD=VALUE`` pairs as the edits ``Store.approve`` takes
    (which checks the edited candidate as a whole). ``value`` is JSON; an empty
    or ``null`` valid_to or change clears it. Raises UserError for a pair
    without ``=`` or a field given twice, InvalidInput for bad JSON."""
    from memdesk import decode_json

    edits: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise UserError(f"--edit takes FIELD=VALUE, got {pair!r}")
        key, raw = pair.split("=", 1)
        key = key.strip()
        if key in edits:
            raise UserError(f"--edit {key}= is given twice; give each field once")
        if key == "value":
            edits[key] = decode_json(raw, "--edit value=")
        else:
            edits[key] = None if raw in ("", "null") and key in ("valid_to", "change") else raw
    return edits


def cmd_review(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    action = args.review_action or "list"
    if action == "list":
        rows = [c.to_dict() for c in store.review_list(args.state, limit=args.limit, offset=args.offset)]
        if args.json:
            _dump(rows)
        elif rows:
            print(_candidates_table(rows))
        else:
            print(f"no {args.state} candidates")
        return 0
    if action == "show":
        data = store.candidate(args.id).to_dict()
        if args.json:
            _dump(data)
        else:
            data = shown_all(data)  # stored text, one line each
            print(_candidate_detail(data))
            value = data.get("value")
            if isinstance(value, dict) and "unparsed" in value:
                print(f"\nunparsed statement: the signal layer read a {value['unparsed']} fact here that no rule "
                      "could parse; approve it to keep it as a note, approve it with --edit predicate=… "
                      "object=… to make it the fact it states, or reject it")
            elif data.get("change") == "retraction":
                print(f"\nretraction asked for by an agent: approve it to retire {data['predicate']} "
                      f"{data['object']} of {data['subject']} (kept as history, status retracted), "
                      "or reject it to keep the value")
            elif data.get("change") == "correction" and data["source"]["kind"] == "agent_inferred":
                print("\ncorrection asked for by an agent: approve it to replace the current value "
                      f"with {data['object']} over the old value's time (the old one kept as "
                      "history, status corrected), or reject it")
            elif data.get("reading") == "tagged":
                print("\nread by the signal layer's value tagger, not by a rule: approve it to write this fact, "
                      "approve it with --edit object=… (or predicate=…) to correct it first, or reject it")
            print(f"\nturn: {data['source']['text']}")
        return 0
    by = args.by or settings.reviewer
    if action == "approve":
        result = store.approve(args.id, by=by, edits=_edits(args.edit) or None, note=args.note)
        result["candidate"] = store.candidate(args.id).to_dict()
        if args.json:
            _dump(result)
        else:
            print(f"candidate {args.id} approved by {by}: {result['outcome']}"
                  + (f", fact {result['fact_id']}" if result["fact_id"] else "")
                  + (f", conflict {result['conflict_id']} opened" if result["conflict_id"] else ""))
        return 0
    if action == "reject":
        data = store.reject(args.id, by=by, reason=args.reason).to_dict()
        if args.json:
            _dump(data)
        else:
            print(f"candidate {args.id} rejected by {by}: {shown(data['decision_reason'] or '')}")
        return 0
    raise UserError(f"unknown review action {action!r}")


def _conflicts_text(items: list[dict]) -> str:
    blocks = []
    for c in shown_all(items):
        head = f"conflict {c['id']} [{c['state']}] {c['kind']}: {c['subject']} {c['predicate']} ({c['scope']})"
        if c["resolution"]:
            head += f" -> kept {c['resolution']} by {c['resolved_by']}"
        # each side names its own predicate: "likes sushi" against "dislikes sushi" are two
        # predicates of one slot, both of them positive
        rows = [("incoming" if f["id"] is None else f"fact {f['id']}",
                 f.get("predicate") or c["predicate"], f["object"], f["polarity"],
                 _interval(f), f"{f['confidence']:.2f}", f["status"], _source(f["source"]))
                for f in c["facts"]]
        blocks.append(head + "\n" + table(["side", "predicate", "object", "polarity", "valid", "conf",
                                           "status", "source"], rows))
    return "\n\n".join(blocks)


def _choices_text(choices: list[dict]) -> str:
    width = max(len(c["keep"]) for c in choices)
    return "what each choice would make of the timeline:\n" + "\n".join(
        f"  {c['keep']:<{width}}  {c['text']}" for c in shown_all(choices))


def cmd_conflicts(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    action = args.conflict_action
    if action == "resolve":
        by = args.by or settings.reviewer
        data = store.resolve_conflict(args.id, args.keep, by=by, reason=args.reason,
                                      scope=args.scope).to_dict()
        if args.json:
            _dump(data)
        else:
            print(f"conflict {args.id} resolved by {by}: kept {args.keep}"
                  f" (undo: memdesk conflicts undo {args.id})")
        return 0
    if action == "show":
        conflict = store.conflict(args.id)
        data = conflict.to_dict()
        data["choices"] = store.resolution_preview(args.id) if conflict.state == "open" else []
        if args.json:
            _dump(data)
        else:
            print(_conflicts_text([data]))
            if data["choices"]:
                print("\n" + _choices_text(data["choices"]))
        return 0
    if action == "undo":
        by = args.by or settings.reviewer
        result = store.undo_resolution(args.id, by=by, reason=args.reason)
        result["conflict"] = store.conflict(args.id).to_dict()
        if args.json:
            _dump(result)
        else:
            print(f"conflict {args.id} is open again: the resolution {shown(result['undone'])!r} was "
                  f"undone by {by}; retired facts {_ids(result['retired'])}, "
                  f"brought back as facts {_ids(result['restored'])}")
        return 0
    items = [c.to_dict() for c in store.conflicts(args.state)]
    if args.json:
        _dump(items)
    else:
        print(_conflicts_text(items) if items else f"no {args.state} conflicts")
        if items and args.state == "open":
            print("\nmemdesk conflicts show ID: what each choice would do to the timeline")
    return 0


def _ids(ids: list[int]) -> str:
    return ", ".join(map(str, ids)) or "none"


def cmd_predicates(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    items = [p.to_dict() for p in store.predicates()]
    if args.json:
        _dump(items)
    else:
        print(table(["id", "zh", "en", "single", "ttl", "routing", "catalogued"],
                    [(p["id"], p["zh"] or "", p["en"] or "", "yes" if p["single_valued"] else "no",
                      p["ttl"] or "", p["routing"] or "",
                      "yes" if p["catalogued"] else f"no (first seen {p['first_seen_at'][:10]})")
                     for p in items]))
    return 0


def cmd_retract(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    by = args.by or settings.reviewer
    fact = store.retract(args.id, by=by, reason=args.reason)
    data = store.fact_dicts([fact])[0]
    if args.json:
        _dump(data)
    else:
        print(f"fact {args.id} retracted by {by} at {iso(fact.retired_at, fact.tz)}")
    return 0


# ------------------------------------------------------------------- trust
def cmd_verify(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    report = store.verify()
    if args.json:
        _dump(report.to_dict())
    elif report.ok:
        erased = f"; {report.erasures} erasure(s) re-committed {report.amended} entries" \
            if report.erasures else ""
        print(f"ok: {report.entries} audit entries, chain head {report.head}{erased}")
    else:
        print(table(["entry", "problem"], [(p.entry if p.entry is not None else "-", p.message)
                                           for p in report.problems], max_col=100))
    if not report.ok:
        where = (f"first broken audit entry: {report.first_broken}"
                 if report.first_broken is not None else report.problems[0].message)
        print(f"memdesk: error: the store fails verification ({where})", file=sys.stderr)
        return EXIT_ERROR
    return 0


def _mention_rows(mentions: Sequence[Any]) -> list[tuple[object, ...]]:
    return [(m.ref, m.owner, m.name, m.where, m.snippet) for m in mentions]


def cmd_erase(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    heads = ["row", "whose", "name found", "where", "text"]
    if args.mentions:  # read only: what an erasure would leave naming them
        found = store.subject_mentions(args.subject)
        if args.json:
            _dump([m.to_dict() for m in found])
        elif not found:
            print(f"no row of anyone else names {args.subject}")
        else:
            print(table(heads, _mention_rows(found), max_col=60))
            print(f"{len(found)} row(s) of other people name {args.subject}; an erasure leaves "
                  "them unless named with --redact KIND:ID (in the same command: after it the "
                  "store no longer knows their names)")
        return 0
    by = args.by or settings.reviewer
    erased = store.erase_subject(args.subject, by=by, redact=args.redact or ())
    # the index files of this store's default (or configured) folder go now; any
    # other folder's index discards itself when a Recaller next opens it
    from memdesk import index_folder, remove_index_files

    remove_index_files(index_folder(store.url, settings.index_dir))
    report = erased.to_dict()
    if args.json:
        _dump(report)
        return 0
    counts = ("turns", "claims", "facts", "conflicts", "memories", "vectors", "tokens",
              "entries_scrubbed", "entries_amended")
    print(f"erased {shown(args.subject)}: " + ", ".join(f"{report[k]} {k}" for k in counts)
          + f" (tombstone: audit entry {report['audit_entry']})")
    if erased.redacted:
        print("redacted (other people's rows): " + ", ".join(erased.redacted))
    if erased.wal_cleared is False:
        print("memdesk: warning: a reader held the SQLite WAL, which may still hold erased "
              "pages until the next checkpoint", file=sys.stderr)
    if erased.mentions:
        print(f"left as they are: {len(erased.mentions)} row(s) of other people still name "
              f"{shown(args.subject)}:")
        print(table(heads, _mention_rows(erased.mentions), max_col=60))
    return 0


def cmd_upgrade(args: argparse.Namespace, settings: Settings) -> int:
    from memdesk import Store

    result = Store.upgrade(settings.db)
    if args.json:
        _dump(result)
    elif result["from"] == result["to"]:
        print(f"the store is already at schema revision {result['to']}")
    else:
        print(f"upgraded the store from schema revision {result['from']} to {result['to']}")
    return 0


# --------------------------------------------------------------- maintenance
def _maintenance_lines(report: dict[str, Any]) -> list[str]:
    """One line per action of a maintenance report (stored text shown on it)."""
    report = shown_all(report)
    lines = []
    for m in report["merged"]:
        folded = ", ".join(map(str, m["folded"]))
        lines.append(f"merge    {m['subject']}: memor{'y' if len(m['folded']) == 1 else 'ies'} "
                     f"{folded} into {m['into']} (mentions {m['mentions'][0]} → {m['mentions'][1]})"
                     f"  “{m['text']}”")
    for a in report["archived"]:
        lines.append(f"archive  {a['subject']}: memory {a['memory']}, {a['reason']}  “{a['text']}”")
    for r in report["restored"]:
        lines.append(f"restore  {r['subject']}: memory {r['memory']}, {r['why']} (was {r['was']})")
    for e in report["expired"]:
        closed = f", closed there as fact {e['copy']}" if e.get("copy") else ""
        lines.append(f"expire   {e['subject']}: fact {e['fact']} {e['predicate']} {e['object']}, "
                     f"TTL ran out {(e['expires_at'] or '')[:16].replace('T', ' ')}{closed}")
    for h in report["held"]:
        lines.append(f"hold     {h['subject']}: fact {h['fact']} {h['predicate']} {h['object']}, "
                     f"TTL ran out but open conflict {h['conflict']} holds it")
    return lines


def cmd_maintain(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    report = store.maintain(dry_run=args.dry_run, older_than=args.older_than,
                            subject=args.subject, by=args.by or "maintain",
                            progress=_progress_bar("maintain")).to_dict()
    if args.json:
        _dump(report)
        return 0
    for line in _maintenance_lines(report):
        print(line)
    c = report["counts"]
    done = (f"{c['merged']} memories merged into {c['merge_groups']}, {c['archived']} archived, "
            f"{c['restored']} restored, {c['expired']} facts expired"
            + (f", {c['held']} held by open conflicts" if c["held"] else ""))
    if report["dry_run"]:
        print(f"dry run (nothing written), judged at {report['judged_at'][:19]}: would do: {done}")
    elif report["changed"]:
        print(f"maintenance done: {done} (audit entry {report['audit_entry']}, "
              f"{report['seconds']:.2f} s)")
    else:
        print("nothing to do" + (f" ({c['held']} expired facts held by open conflicts)"
                                 if c["held"] else "") + "; no audit entry written")
    return 0


# -------------------------------------------------------------------- recall
_BATCH_RECALL_FIELDS = {"id", "query", "k", "at", "over", "subject", "scope", "status", "exact",
                        "include_archived", "project", "session"}


def _stage_progress() -> Callable[[str, int, int], None] | None:
    """A progress display per stage of long recall work (embedding, indexing),
    shown only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None
    bars: dict[str, Any] = {}

    def show(stage: str, done: int, total: int) -> None:
        if stage not in bars:
            bars[stage] = _progress_bar(stage)
        if bars[stage] is not None:
            bars[stage](done, total)

    return show


def _embed_for_recall(store: Store, args: argparse.Namespace, settings: Settings) -> None:
    """Embed what recall needs now (the turns' e5 vectors take the longest), so
    that the first recall does not wait for them, and build the index."""
    recaller = _recaller(store, args, settings)
    try:
        recaller.reindex(progress=_stage_progress())
    finally:
        recaller.close()


def _recaller(store: Store, args: argparse.Namespace, settings: Settings):
    from memdesk import Recaller, RecallWeights

    chosen = getattr(args, "embedder", None)  # --embedder: both kinds
    return Recaller(store, embedder=chosen or settings.embedder,
                    turn_embedder=chosen or settings.turn_embedder,
                    weights=RecallWeights(**dict(settings.recall_weights)),
                    index_dir=settings.index_dir,
                    on_message=lambda m: print(f"memdesk: {m}", file=sys.stderr),
                    progress=_stage_progress())


def _recall_table(hits: list) -> str:
    rows = []
    for i, h in enumerate(hits, 1):
        src = h.source
        status = h.status + (" (archived)" if getattr(h, "archived", None) else "")
        rows.append((i, h.kind, status, f"{h.score:.3f}", f"{h.relevance:.2f}",
                     f"{h.recency:.2f}", f"{h.importance:.2f}", h.subject or "",
                     (iso(h.time, h.tz) or "")[:10], h.text,
                     f"{src.session}#{src.turn}" if src else "",
                     ",".join(str(c) for c in h.conflict)))
    # every row names whose it is (an unscoped recall mixes people) and when it was said
    return table(["#", "kind", "status", "score", "rel", "rec", "imp", "subject", "date", "text",
                  "source", "conflict"], rows, max_col=60)


def _batch_recall_queries(path: str) -> list[tuple[Any, dict[str, Any]]]:
    """Validate every line first, so a bad line is named before anything runs."""
    from memdesk import iter_jsonl

    out = []
    for line, q in iter_jsonl(path):
        if not isinstance(q, dict):
            raise InputFileError(line, "expected a JSON object", path)
        unknown = sorted(set(q) - _BATCH_RECALL_FIELDS)
        if unknown:
            raise InputFileError(line, f"unknown field(s): {', '.join(unknown)}", path)
        if not isinstance(q.get("query"), str) or not q["query"].strip():
            raise InputFileError(line, "missing required field 'query'", path)
        k = q.get("k", 10)
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InputFileError(line, f"k must be a whole number >= 1, got {k!r}", path)
        if q.get("over", "memories") not in ("memories", "turns"):
            raise InputFileError(line, "over must be memories or turns", path)
        for key in ("subject", "scope", "status"):
            value = q.get(key)
            if value is not None and not isinstance(value, (str, list)):
                raise InputFileError(line, f"{key} must be a string", path)
        for key in ("project", "session"):
            value = q.get(key)
            if value is not None and not isinstance(value, str):
                raise InputFileError(line, f"{key} must be a string", path)
        if not isinstance(q.get("exact", False), bool):
            raise InputFileError(line, "exact must be true or false", path)
        if not isinstance(q.get("include_archived", False), bool):
            raise InputFileError(line, "include_archived must be true or false", path)
        try:
            at = parse_time_us(q["at"], "at") if q.get("at") not in (None, "now") else None
        except InvalidInput as exc:
            raise InputFileError(line, str(exc), path) from None
        out.append((line, {"id": q.get("id", line), "query": q["query"], "k": k, "at": at,
                           "over": q.get("over", "memories"), "subject": q.get("subject"),
                           "scope": q.get("scope"), "status": q.get("status"),
                           "exact": q.get("exact", False),
                           "include_archived": q.get("include_archived", False),
                           "project": q.get("project"), "session": q.get("session")}))
    return out


def cmd_recall(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    fmt = "json" if args.json else args.format
    if args.batch:
        if args.query:
            raise UserError("give either a QUERY or --batch FILE, not both")
        queries = _batch_recall_queries(args.batch)
        recaller = _recaller(store, args, settings)
        for line, q in queries:
            qid = q.pop("id")
            try:
                hits = recaller.search(q.pop("query"), **q)
            except InvalidInput as exc:
                raise InputFileError(line, str(exc), args.batch) from None
            if fmt == "json":
                _dump({"id": qid, "results": [h.to_json() for h in hits]})
            elif fmt == "prompt":
                print(f"# {shown(str(qid))}\n{recaller.render_prompt(hits, q['at'] or store.now())}\n")
            else:
                print(f"# {shown(str(qid))}\n{_recall_table(hits)}\n")
        return 0
    if not args.query:
        raise UserError("recall needs a QUERY (or --batch FILE)")
    at = _time_arg(args.at, "--at")
    recaller = _recaller(store, args, settings)
    hits = recaller.search(args.query, k=args.k, at=at, exact=args.exact, over=args.over,
                           subject=args.subject, scope=args.scope, status=args.status,
                           include_archived=args.include_archived, project=args.project,
                           session=args.session)
    if fmt == "json":
        _dump([h.to_json() for h in hits])
    elif fmt == "prompt":
        print(recaller.render_prompt(hits, at if at is not None else store.now()))
    elif hits:
        print(_recall_table(hits))
    else:
        print("nothing recalled")
    return 0


def cmd_mcp(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    from memdesk import Memory

    from .http_conn import parse_trusted
    from .http_guard import GuardSettings, check_rate
    from .mcp_server import configure_logging, is_loopback, serve

    configure_logging(args.log_level)  # before the models load: their loggers follow it
    http = args.transport == "http"
    guard = GuardSettings()
    tls = None
    if http:
        if (args.tls_cert is None) != (args.tls_key is None):
            raise UserError("give both --tls-cert and --tls-key, or neither")
        tls = (args.tls_cert, args.tls_key) if args.tls_cert else None
        try:
            guard = GuardSettings(max_body=args.max_body,
                                  token_rate=check_rate(args.rate, "--rate"),
                                  address_rate=check_rate(args.address_rate, "--address-rate"),
                                  session_rate=check_rate(args.session_rate, "--session-rate"),
                                  header_timeout=args.header_timeout,
                                  body_timeout=args.body_timeout,
                                  max_connections=args.max_connections,
                                  address_connections=args.address_connections,
                                  forwarded_allow_ips=parse_trusted(args.forwarded_allow_ips),
                                  stop_timeout=args.stop_timeout)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        if args.max_body < 1024:
            raise UserError("--max-body must be at least 1024 bytes")
        for flag, value, least in (("--header-timeout", args.header_timeout, 0.1),
                                   ("--body-timeout", args.body_timeout, 0.1),
                                   ("--stop-timeout", args.stop_timeout, 1),
                                   ("--max-connections", args.max_connections, 1),
                                   ("--address-connections", args.address_connections, 1)):
            if not value >= least:  # (not >=: NaN too)
                raise UserError(f"{flag} must be at least {least:g}, got {value:g}")
        active = store.tokens(include_revoked=False)
        if not is_loopback(args.host) and not active:
            raise UserError(f"refusing to listen on {args.host} without authentication: no "
                            "active token in the store. Create one with `memdesk tokens create "
                            "--name NAME --user USER`, or listen on 127.0.0.1")
        if not active:
            print("memdesk: no active token in the store: every request will be refused "
                  "(create one with `memdesk tokens create --name NAME --user USER`)",
                  file=sys.stderr)
        if not is_loopback(args.host) and tls is None:
            print("memdesk: warning: tokens travel in clear over plain HTTP; use --tls-cert "
                  "and --tls-key, or put the server behind a TLS proxy", file=sys.stderr)
    memory = Memory(store, _recaller(store, args, settings), warm=True)  # embeds after remember
    where = ("stdio" if not http
             else f"{'https' if tls else 'http'}://{args.host}:{args.port}/mcp, bearer tokens "
                  "required")
    print(f"memdesk: MCP server on {where} for {store.safe_url}"
          + (f", user {args.user} only" if args.user else ""), file=sys.stderr)
    serve(memory, transport="http" if http else "stdio", host=args.host, port=args.port,
          user=args.user, guard=guard, tls=tls, log_level=args.log_level)
    return 0


def cmd_tokens(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    by = getattr(args, "by", None) or settings.reviewer
    if args.action == "create":
        token, secret = store.create_token(args.name, users=args.user, projects=args.project or (),
                                           read_only=args.read_only, by=by)
        if args.json:
            _dump({**token.to_dict(), "secret": secret})
        else:
            print(f"token {token.id} ({token.name}) for "
                  + ", ".join([f"user:{u}" for u in token.users]
                              + [f"project:{p}" for p in token.projects])
                  + (", read-only" if token.read_only else ""))
            print(f"secret (shown once, the store keeps only its hash):\n{secret}")
            print("agents send it as `Authorization: Bearer <secret>` to memdesk mcp "
                  "--transport http")
        return 0
    if args.action == "revoke":
        token = store.revoke_token(args.id, by=by, reason=args.reason)
        if args.json:
            _dump(token.to_dict())
        else:
            print(f"{token.label} revoked by {token.revoked_by} at {iso(token.revoked_at)}: "
                  "refused from the next request on")
        return 0
    found = store.tokens(include_revoked=args.all)
    if args.json:
        _dump([t.to_dict() for t in found])
        return 0
    if not found:
        print("no active tokens" + ("" if args.all else " (--all shows revoked ones)"))
        return 0
    print(table(["id", "name", "users", "projects", "access", "created", "revoked"],
                [[t.id, t.name, ", ".join(t.users), ", ".join(t.projects) or "-",
                  "read" if t.read_only else "read+write",
                  f"{iso(t.created_at)} by {t.created_by}",
                  f"{iso(t.revoked_at)} by {t.revoked_by}" if t.revoked_at else "-"]
                 for t in found]))
    return 0


def cmd_reindex(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    recaller = _recaller(store, args, settings)
    reports = [r.to_dict() for r in recaller.reindex(over=None if args.over == "all" else args.over,
                                                     progress=_stage_progress())]
    if args.json:
        _dump(reports)
        return 0
    print(table(["collection", "embedder", "items", "newly embedded", "search", "build s", "index file"],
                [(r["kind"], r["embedder"], r["items"], r["embedded"], r["mode"],
                  "" if r["build_seconds"] is None else f"{r['build_seconds']:.1f}",
                  r["path"] or r["reason"] or "") for r in reports], max_col=70))
    return 0


def cmd_export(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    if args.out is None or args.out == "-":
        store.export(sys.stdout, vectors=not args.no_vectors)
        return 0
    counts = store.export(args.out, vectors=not args.no_vectors)
    _row_counts(args, args.out, counts, "exported", f"to {args.out}")
    return 0


def _row_counts(args: argparse.Namespace, file: str, counts: dict[str, int], verb: str,
                where: str) -> None:
    """Print the rows per table of an export or a restore (JSON with --json)."""
    rows = sum(counts.values())
    if args.json:
        _dump({"file": file, "rows": rows, "tables": counts})
    else:
        print(table(["table", "rows"], sorted(counts.items())))
        print(f"{verb} {rows:,} rows {where}")


def cmd_restore(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    counts = store.restore(args.file)
    _row_counts(args, args.file, counts, "restored", f"into {store.safe_url}")
    if not args.json and "recall_vector" not in counts:
        print("the export held no recall vectors: `memdesk reindex` embeds them again")
    return 0


# -------------------------------------------------------------------- parser
# the bounds on one request's work (core/bounds.py; its defaults, not imported: --help stays light)
_BOUND_FLAGS = (
    ("turn_chars", 4_000, "characters of one turn (ingest, remember)"),
    ("turns_per_call", 64, "messages of one remember call"),
    ("call_chars", 16_000, "characters of all the messages of one remember call"),
    ("query_chars", 400, "characters of a recall query"),
    ("query_asks", 8, "questions one recall query asks"),
)


def _bounds(args: argparse.Namespace, settings: Settings) -> Any:
    """The bounds in force: flags over settings (environment, config file) over defaults.
    Raises InvalidInput for a bound that is not a whole number of at least 1."""
    from memdesk import Bounds

    given = dict(settings.bounds)
    for name, _, _ in _BOUND_FLAGS:
        flag = getattr(args, f"max_{name}", None)
        if flag is not None:
            given[name] = flag
    return Bounds(**given)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memdesk",
        description="Long-term memory for AI agents: bitemporal facts, review queue, conflicts, audit. "
                    "Without a command, opens the app (on the demo store when no store is configured).",
        epilog="The store is a SQLite file path or a postgresql:// URL (--db, $MEMDESK_DB, "
               "config file db=, default ./memdesk.db).",
    )
    parser.add_argument("--version", action=_Version, help="print memdesk's version and exit")
    parser.add_argument("--db", metavar="URL_OR_PATH", help="the store (SQLite path or postgresql:// URL)")
    parser.add_argument("--review-threshold", type=float, metavar="X",
                        help="confidence below which imported facts wait for review (default 0.75)")
    for name, default, what in _BOUND_FLAGS:
        parser.add_argument(f"--max-{name.replace('_', '-')}", type=int, metavar="N", dest=f"max_{name}",
                            help=f"{what} (default {default:,}; past it a request is refused)")
    # --db after the command too ("memdesk facts --db demo.db …"): it overrides one before it
    store_at = argparse.ArgumentParser(add_help=False)
    store_at.add_argument("--db", metavar="URL_OR_PATH", default=argparse.SUPPRESS,
                          help="the store (SQLite path or postgresql:// URL)")
    common = argparse.ArgumentParser(add_help=False, parents=[store_at])
    common.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("ingest", parents=[common],
                       help="ingest a conversation (JSONL, one turn per line) through the extractor and gates")
    p.add_argument("file", help="JSONL file, one turn per line")
    p.add_argument("--extractor", choices=["rules", "llm"], default="rules",
                   help="rules: offline zh/en rules (default); llm: any OpenAI-compatible endpoint "
                        "from MEMDESK_LLM_BASE_URL, MEMDESK_LLM_MODEL, MEMDESK_LLM_API_KEY")
    p.add_argument("--no-signals", action="store_true",
                   help="the extractor's claims straight to the gates, without the signal layer "
                        "(who a clause is about, hedges, corrections, unparsed statements)")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("demo", parents=[common],
                       help="build the demo store from the bundled conversations in data/conversations")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("import", parents=[common], help="import facts extracted elsewhere (JSONL)")
    p.add_argument("file", help="JSONL file, one fact per line")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("export", parents=[common],
                       help="write the whole store (turns, claims, facts, audit log, ...) as JSONL")
    p.add_argument("--out", metavar="FILE", help="the file to write (default: standard output)")
    p.add_argument("--no-vectors", action="store_true",
                   help="leave the recall vectors out (a restored store embeds them again)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("restore", parents=[common],
                       help="load a `memdesk export` file into an empty store (ids and times kept)")
    p.add_argument("file", help="the export (JSONL)")
    p.set_defaults(func=cmd_restore)

    p = sub.add_parser("facts", parents=[common], help="what the store believes (as of a time)")
    p.add_argument("--subject", help="e.g. user:alice or project:launch")
    p.add_argument("--predicate", help="e.g. lives_in")
    p.add_argument("--valid-at", metavar="T", help="valid time, ISO 8601 with offset (default now)")
    p.add_argument("--known-at", metavar="T",
                   help="told time: what the store had been told by then (the times the "
                        "source turns were said; default now)")
    p.add_argument("--recorded-at", metavar="T",
                   help="recorded time: only what this store had written by then (what it "
                        "would have answered at that moment)")
    p.add_argument("--all", action="store_true", help="every row ever recorded, retired ones too")
    p.add_argument("--batch", metavar="QUERIES.jsonl", help="many lookups, one JSON line each")
    p.set_defaults(func=cmd_facts)

    p = sub.add_parser("audit", parents=[common], help="since when, and why, the store believes a value")
    p.add_argument("--subject", required=True)
    p.add_argument("--predicate", required=True)
    p.add_argument("--object", help="the value to explain (default: the current one)")
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("review", parents=[common], help="the review queue: list, show, approve, reject")
    p.set_defaults(func=cmd_review, review_action=None, state="pending", limit=None, offset=0)
    rsub = p.add_subparsers(dest="review_action", metavar="ACTION")
    r = rsub.add_parser("list", parents=[common], help="candidates, lowest confidence first")
    r.add_argument("--state", default="pending",
                   choices=["pending", "approved", "rejected", "conflict", "asserted", "merged", "all"])
    r.add_argument("--limit", type=int)
    r.add_argument("--offset", type=int, default=0)
    r = rsub.add_parser("show", parents=[common], help="one candidate with its source turn")
    r.add_argument("id", type=int)
    r = rsub.add_parser("approve", parents=[common], help="approve (optionally edited) so it takes effect")
    r.add_argument("id", type=int)
    r.add_argument("--by", metavar="NAME", help="reviewer (default $MEMDESK_REVIEWER or $USER)")
    r.add_argument("--edit", action="append", default=[], metavar="FIELD=VALUE",
                   help="change object, value (JSON), polarity, scope, valid_from, valid_to or change first")
    r.add_argument("--note", help="why")
    r = rsub.add_parser("reject", parents=[common], help="reject, keeping the candidate and the reason")
    r.add_argument("id", type=int)
    r.add_argument("--by", metavar="NAME")
    r.add_argument("--reason", required=True)

    p = sub.add_parser("conflicts", parents=[common],
                       help="contradictions waiting for a decision: list, show, resolve, undo")
    p.add_argument("--state", default="open", choices=["open", "resolved", "all"])
    p.set_defaults(func=cmd_conflicts, conflict_action=None)
    csub = p.add_subparsers(dest="conflict_action", metavar="ACTION")
    r = csub.add_parser("show", parents=[common],
                        help="one conflict, and what each resolution would make of its timeline")
    r.add_argument("id", type=int)
    r = csub.add_parser("resolve", parents=[common],
                        help="keep existing, changed, incoming, both or neither",
                        description="Resolve an open conflict. Every resolution can be undone "
                                    "with `memdesk conflicts undo ID`.",
                        epilog=RESOLVE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("id", type=int)
    r.add_argument("--keep", required=True, choices=RESOLUTIONS,
                   help="existing: the incoming claim is rejected; changed: the incoming value "
                        "holds from its own valid time, the existing one until then; incoming: "
                        "the existing value was wrong and is corrected; both: the incoming one "
                        "holds in --scope; neither: both are dropped (details below)")
    r.add_argument("--by", metavar="NAME", help="reviewer (default $MEMDESK_REVIEWER or $USER)")
    r.add_argument("--reason")
    r.add_argument("--scope", help="with --keep both: the scope the incoming value holds in")
    r = csub.add_parser("undo", parents=[common],
                        help="undo a resolution: the conflict is open again, the timeline as before",
                        description="Undo the resolution of a conflict: the facts it asserted are "
                                    "retracted (noted as the undo), the facts it retired come back "
                                    "as fresh copies over their old valid time, the claim is in "
                                    "conflict again and the conflict open. Nothing is deleted. "
                                    "Refused when later writes changed those facts.")
    r.add_argument("id", type=int)
    r.add_argument("--by", metavar="NAME", help="reviewer (default $MEMDESK_REVIEWER or $USER)")
    r.add_argument("--reason", help="why (default: a note naming the undo)")

    p = sub.add_parser("predicates", parents=[common], help="the catalog and uncatalogued predicates in use")
    p.set_defaults(func=cmd_predicates)

    p = sub.add_parser("retract", parents=[common], help="withdraw a fact that was never true")
    p.add_argument("id", type=int)
    p.add_argument("--by", metavar="NAME")
    p.add_argument("--reason", required=True)
    p.set_defaults(func=cmd_retract)

    p = sub.add_parser("recall", parents=[common],
                       help="recall memories (or raw turns) for a query: hybrid, with score breakdown")
    p.add_argument("query", nargs="?", help="what to recall, in Chinese or English")
    p.add_argument("-k", type=int, default=10, help="how many results (default 10)")
    p.add_argument("--at", metavar="T", help="recall as of a past time: only what was known then")
    p.add_argument("--exact", action="store_true", help="exact search, skipping the index")
    p.add_argument("--over", choices=["memories", "turns"], default="memories",
                   help="memories (default) or the raw conversation turns")
    p.add_argument("--subject", metavar="S",
                   help="on behalf of a user (user:alice: her facts, memories and turns and those "
                        "of the projects her conversations belong to, nobody else's), or exactly "
                        "one other subject (project:atlas); without it recall is unscoped and "
                        "every result names its subject")
    p.add_argument("--project", metavar="P",
                   help="with --subject user:NAME: only this one of the user's projects")
    p.add_argument("--session", metavar="S",
                   help="with --subject user:NAME: only this session's turns and temporary states")
    p.add_argument("--scope", action="append",
                   help="only claims of these scopes: global, project, session (repeatable)")
    p.add_argument("--status", action="append",
                   choices=["active", "superseded", "corrected", "retracted", "expired"],
                   help="only these statuses (repeatable; default all but expired)")
    p.add_argument("--include-archived", action="store_true",
                   help="also memories `memdesk maintain` archived (stale, or folded into a near "
                        "duplicate); their status column says archived")
    p.add_argument("--format", choices=["table", "json", "prompt"], default="table",
                   help="table (default), json, or the prompt block an agent would get")
    p.add_argument("--batch", metavar="QUERIES.jsonl", help="many recalls, one JSON line each")
    p.add_argument("--embedder", choices=["use", "e5", "use+e5"],
                   help="embedder of memories and turns alike (default: $MEMDESK_EMBEDDER or "
                        "config embedder= for memories, use; $MEMDESK_TURN_EMBEDDER or config "
                        "turn_embedder= for turns, e5)")
    p.set_defaults(func=cmd_recall)

    p = sub.add_parser("mcp", parents=[common],
                       help="serve the store to agents over the Model Context Protocol "
                            "(stdio or streamable HTTP); agents can never approve, reject "
                            "or resolve")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                   help="stdio (default: a desktop client starts the server) or http "
                        "(streamable HTTP; every request needs a bearer token, see "
                        "`memdesk tokens`)")
    p.add_argument("--host", default="127.0.0.1",
                   help="HTTP address (default 127.0.0.1; another address needs an active token)")
    p.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    p.add_argument("--tls-cert", metavar="FILE", help="serve HTTPS with this certificate (PEM)")
    p.add_argument("--tls-key", metavar="FILE", help="the certificate's private key (PEM)")
    p.add_argument("--rate", default="30/second", metavar="N/PERIOD",
                   help="requests per token (default 30/second); past it: 429")
    p.add_argument("--address-rate", default="120/second", metavar="N/PERIOD",
                   help="requests per client address (default 120/second)")
    p.add_argument("--session-rate", default="10/minute", metavar="N/PERIOD",
                   help="new MCP sessions per token (default 10/minute)")
    p.add_argument("--max-body", type=int, default=1 << 20, metavar="BYTES",
                   help="largest request body (default 1048576); larger: 413")
    p.add_argument("--header-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="time a client has for a request's line and headers (default 10); "
                        "past it: 408 and the connection closed")
    p.add_argument("--body-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="time a client has for a request's whole body once its headers are "
                        "in (default 30); past it: 408 and the connection closed")
    p.add_argument("--max-connections", type=int, default=512, metavar="N",
                   help="connections open at once, in all (default 512); past it: 503")
    p.add_argument("--address-connections", type=int, default=64, metavar="N",
                   help="connections open at once from one client address (default 64; "
                        "not applied to --forwarded-allow-ips proxies); past it: 503")
    p.add_argument("--forwarded-allow-ips", metavar="ADDRESSES",
                   help="proxies (addresses, networks like 10.0.0.0/8, or *; comma-separated) "
                        "whose X-Forwarded-For names the client for the per-address limits "
                        "(default: none, the header is ignored)")
    p.add_argument("--stop-timeout", type=float, default=4.0, metavar="SECONDS",
                   help="on SIGTERM or SIGINT: requests in flight are cancelled and the "
                        "process is gone within this many seconds (default 4)")
    p.add_argument("--user", metavar="NAME",
                   help="serve this one user only (otherwise every call names its user)")
    p.add_argument("--embedder", choices=["use", "e5", "use+e5"],
                   help="embedder of memories and turns alike (default: settings)")
    p.add_argument("--log-level", choices=["debug", "info", "warning", "error"],
                   default="warning",
                   help="what the server logs to stderr (default warning; every library's "
                        "logger follows it)")
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("tokens", parents=[common],
                       help="bearer tokens of the HTTP door (memdesk mcp --transport http): "
                            "create, list, revoke")
    tsub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    r = tsub.add_parser("create", parents=[common],
                        help="issue a token bound to users (and projects); prints its secret once")
    r.add_argument("--name", required=True, help="what the token is for (alice-laptop)")
    r.add_argument("--user", action="append", required=True, metavar="NAME",
                   help="a user the token may read and write (repeat for several)")
    r.add_argument("--project", action="append", metavar="NAME",
                   help="a project the token may read and write (repeat; default none)")
    r.add_argument("--read-only", action="store_true", help="the token may only read")
    r.add_argument("--by", help="who issues it, for the audit (default: the reviewer name)")
    r = tsub.add_parser("list", parents=[common], help="the tokens (never their secrets)")
    r.add_argument("--all", action="store_true", help="revoked ones too")
    r = tsub.add_parser("revoke", parents=[common], help="refuse a token from the next request on")
    r.add_argument("id", type=int, help="the token's id (memdesk tokens list)")
    r.add_argument("--reason", required=True, help="why (kept in the audit)")
    r.add_argument("--by", help="who revokes it, for the audit (default: the reviewer name)")
    p.set_defaults(func=cmd_tokens)

    p = sub.add_parser("reindex", parents=[common],
                       help="embed what lacks a vector and rebuild the recall index")
    p.add_argument("--over", choices=["memories", "turns", "all"], default="all")
    p.add_argument("--embedder", choices=["use", "e5", "use+e5"])
    p.set_defaults(func=cmd_reindex)

    p = sub.add_parser(
        "maintain", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter,
        help="scheduled upkeep: merge near-duplicate memories, archive stale ones, expire facts",
        description="Scheduled upkeep of the store, in one transaction under the write lock "
                    "(safe while other processes write). Each action is listed; --json gives "
                    "the report. One audit entry (store.maintained) per run that changed "
                    "something; a run with nothing to do writes nothing, so running it twice "
                    "in a row is harmless.",
        epilog="""actions:
  merge    memories of one subject that stand for the same facts and say nearly the
           same thing (equal ignoring case, spaces and punctuation, or >= 80% shared
           character n-grams) become one: the most mentioned keeps the summed
           mentions; the others stay, archived as "merged into N", so every source
           turn stays reachable
  archive  memories whose facts were all superseded, corrected, retracted, expired
           or ended in valid time more than --older-than ago are kept and marked,
           and recall leaves them out (memdesk recall --include-archived shows them)
  restore  an archived memory whose facts hold again (an undone decision) comes back
  expire   facts whose TTL ran out are retired as "expired" and copied closed at
           their expiry: what held before stays answerable, current belief and
           conflicts stop seeing them; a fact an open conflict holds is left alone

schedule it, e.g. nightly at 03:15 from cron:
  15 3 * * * memdesk --db /srv/memdesk.db maintain --older-than 90d >> /var/log/memdesk-maintain.log 2>&1""")
    p.add_argument("--dry-run", action="store_true", help="only show what it would do; write nothing")
    p.add_argument("--older-than", metavar="AGE", default="90d",
                   help="archive memories whose facts stopped holding longer ago than this "
                        "(90d default; also 12h, 30m, 2w, 0)")
    p.add_argument("--subject", help="only this subject, e.g. user:alice")
    p.add_argument("--by", metavar="NAME", help="the actor in the audit entry (default maintain)")
    p.set_defaults(func=cmd_maintain)

    p = sub.add_parser("verify", parents=[common],
                       help="recompute the audit log's hash chain; name the first broken entry")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("upgrade", parents=[common],
                       help="upgrade a store made by an earlier memdesk to this schema")
    p.set_defaults(func=None)

    p = sub.add_parser("erase", parents=[common],
                       help="erase a person's turns, facts, memories and vectors (right to be forgotten)")
    p.add_argument("--subject", required=True, metavar="user:NAME")
    p.add_argument("--by", metavar="NAME", help="who performs the erasure (default $MEMDESK_REVIEWER or $USER)")
    erase_mode = p.add_mutually_exclusive_group()
    erase_mode.add_argument("--mentions", action="store_true",
                      help="erase nothing: list other people's turns, memories, facts and audit "
                           "entries that name the person (by user id and known names)")
    erase_mode.add_argument("--redact", action="append", metavar="KIND:ID",
                      help="with the erasure, redact this listed row of someone else's "
                           "(turn:ID, memory:ID, fact:ID, claim:ID, audit:ID; repeatable)")
    p.set_defaults(func=cmd_erase)

    p = sub.add_parser("app", parents=[store_at],
                       help="open the terminal app (the default when no command is given)")
    p.add_argument("--screen", default="timeline",
                   choices=["timeline", "conflicts", "review", "recall", "audit"])
    p.add_argument("--subject", help="the subject the timeline opens on")
    p.set_defaults(func=cmd_app)
    return parser


def cmd_app(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    from .ui.launch import run_app

    return run_app(store, settings, screen=args.screen, subject=args.subject)


def _default_store(settings: Settings) -> str | None:
    """The store a command without a configured one (no --db, $MEMDESK_DB or
    config ``db=``) reads, the same for the app and every command that needs
    a store: ``./memdesk.db`` when it exists, else the demo store when it has
    been built (said on stderr, with how to pick another). None: neither."""
    from .demo import default_demo_path

    if settings.db_configured or _new_sqlite_file(settings.db) is None:
        return settings.db
    demo = default_demo_path()
    if demo.exists():
        print(f"memdesk: no store configured and no {settings.db} here: using the demo store "
              f"at {demo} (--db PATH or MEMDESK_DB=PATH picks another)", file=sys.stderr)
        return str(demo)
    return None


def _app_store(settings: Settings) -> str:
    """The store the app opens: the default store (``_default_store``), or the
    demo store, built on first use, when there is none."""
    found = _default_store(settings)
    if found is not None:
        return found
    from .demo import build_demo, default_demo_path

    path = default_demo_path()
    if not path.exists():
        from memdesk import Store

        path.parent.mkdir(parents=True, exist_ok=True)
        print(f"memdesk: no store configured; building the demo store at {path} …", file=sys.stderr)
        partial = path.with_name(path.name + ".building")
        for leftover in path.parent.glob(partial.name + "*"):
            leftover.unlink()
        with Store.open(partial, catalog=settings.catalog,
                        review_threshold=settings.review_threshold) as store:
            build_demo(store, progress=lambda text: print(f"  {text}", file=sys.stderr))
            # embedded as `memdesk demo` does, so recall over turns works at once; the
            # index goes where the finished store's is looked for
            from memdesk import index_folder

            print("  embedding memories and turns for recall", file=sys.stderr)
            final = str(index_folder(f"sqlite:///{path}", settings.index_dir))
            _embed_for_recall(store, argparse.Namespace(), replace(settings, index_dir=final))
        partial.rename(path)
    return str(path)


CREATING = {"ingest", "import", "demo", "restore", "mcp", "app"}
"""Commands that may create the store they are pointed at; the others need
one (a mistyped --db must not answer "no facts" from a new empty store)."""


def _new_sqlite_file(db: str) -> Path | None:
    """The SQLite file ``db`` names when it does not exist yet (None for a
    server URL or an existing file)."""
    if "://" in db and not db.startswith("sqlite:///"):
        return None
    path = Path(db.removeprefix("sqlite:///")).expanduser()
    if path.exists() or str(path) == ":memory:" or not path.parent.is_dir():
        return None  # (a missing folder: Store.open names it)
    return path


def _remove_empty_store(path: Path) -> None:
    """Delete a store file this command created when the command failed and
    left it without a single turn or claim (nothing is lost: it holds only
    the schema)."""
    import sqlite3

    try:
        with sqlite3.connect(path) as conn:
            used = sum(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                       for t in ("turn", "claim"))
    except sqlite3.Error:
        return
    if used == 0:
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
            leftover.unlink(missing_ok=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args.command, args.func, args.screen, args.subject = "app", cmd_app, "timeline", None
    try:
        settings = load_settings(getattr(args, "db", None))
        if args.command == "app":
            settings = replace(settings, db=_app_store(settings))
        elif args.command not in CREATING:  # a command that reads: the app's default store too
            settings = replace(settings, db=_default_store(settings) or settings.db)
        if args.command == "upgrade":
            return cmd_upgrade(args, settings)
        threshold = args.review_threshold if args.review_threshold is not None else settings.review_threshold
        from memdesk import Store

        new_file = _new_sqlite_file(settings.db)
        creates = args.command in CREATING or (args.command, getattr(args, "action", None)) \
            == ("tokens", "create")  # the first token of a team's new store
        if new_file is not None and not creates:
            raise UserError(f"no memdesk store at {new_file}: name one with --db PATH (before or "
                            "after the command) or MEMDESK_DB=PATH, make one with `memdesk --db "
                            "PATH ingest FILE`, `import FILE` or `demo`, or run `memdesk` to "
                            "build and open the demo store")
        done = False
        try:
            with Store.open(settings.db, catalog=settings.catalog,
                            review_threshold=threshold, bounds=_bounds(args, settings)) as store:
                code = args.func(store, args, settings)
                done = code == 0
                return code
        finally:
            if new_file is not None and not done:
                _remove_empty_store(new_file)
    except IsADirectoryError as exc:
        return _fail(f"{exc.filename} is a folder, not a file")
    except (UserError, MemdeskError) as exc:
        return _fail(str(exc))
    except FileNotFoundError as exc:
        return _fail(f"no such file: {exc.filename}")
    except BrokenPipeError:
        return 0
    except OSError as exc:  # permission denied, a full disk, …
        where = f": {exc.filename}" if exc.filename else ""
        return _fail(f"{exc.strerror or exc}{where}")
    except KeyboardInterrupt:
        print("memdesk: interrupted; nothing was written by the unfinished command", file=sys.stderr)
        return 130
    except ImportError as exc:  # an optional package (mcp, textual, …) this command needs
        extra = missing_extra(exc, f"memdesk {args.command}")
        return _fail(str(extra) if extra is not None else
                     f"this command needs the Python package {exc.name or exc}, which is not installed here")
    except Exception as exc:  # noqa: BLE001 - the last guard: a user never sees a traceback
        if os.environ.get("MEMDESK_DEBUG"):
            raise
        return _fail(_unexpected(exc))


def _fail(message: str) -> int:
    """Say ``message`` on stderr as one ``memdesk: error:`` line; the exit code."""
    line = " / ".join(part.strip() for part in str(message).splitlines() if part.strip())
    print(f"memdesk: error: {shown(line)}", file=sys.stderr)
    return EXIT_ERROR


def _unexpected(exc: Exception) -> str:
    """The message for an exception no command maps: the database driver's
    failure said as such, anything else named as the bug it is."""
    if type(exc).__module__.partition(".")[0] == "sqlalchemy":
        return f"the store failed: {getattr(exc, 'orig', None) or exc}"
    return (f"unexpected {type(exc).__name__}: {exc} (a bug in memdesk: please report it; "
            "MEMDESK_DEBUG=1 shows the traceback)")


if __name__ == "__main__":
    raise SystemExit(main())
