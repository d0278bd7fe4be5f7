"""The commands that fill and curate a store: import, ingest, demo, facts, audit,
review, conflicts, predicates, retract."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import asdict, astuple
from typing import TYPE_CHECKING, Any

from memdesk import (
    InputFileError,
    InvalidInput,
    claimed_object,
    iso,
    parse_time_us,
    shown,
    shown_all,
)

from ..config import Settings
from ..tables import minute_text, start_cell, start_phrase, table
from .common import UserError, _due, _dump, _interval, _progress_bar, _source, _time_arg
from .serve import _embed_for_recall

if TYPE_CHECKING:

    from memdesk import Store


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
    with store.bulk():  # a large file: a parser and a writer process, the collector paused
        summary = store.facts.import_file(args.file)
    return _print_summary(summary.to_dict(), args.json)


def cmd_ingest(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    extractor = None
    if args.extractor == "llm":
        from memdesk import LLMExtractor

        extractor = LLMExtractor.from_env()
    with store.bulk():
        summary = store.facts.ingest_file(args.file, extractor=extractor,
                                          progress=_progress_bar("ingest"), signals=not args.no_signals)
    if summary.extraction_failed:
        print(f"memdesk: warning: extraction failed for {summary.extraction_failed} turn(s); "
              "they are stored raw and logged; rerun the same file to retry them", file=sys.stderr)
    return _print_summary(summary.to_dict(), args.json, _INGEST_LABELS)


def cmd_demo(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    from ..demo import build_demo, demo_vectors

    parts = build_demo(store)
    _embed_for_recall(store, args, settings, known=demo_vectors())
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
        facts = store.facts.history(subject, predicate)
    else:
        facts = store.facts.as_of(subject, predicate, valid_at=valid_at if valid_at is not None else now,
                            known_at=known_at if known_at is not None else now,
                            include_expired=False, recorded_at=recorded_at)
    return store.facts.as_json(facts, at=valid_at if valid_at is not None else now,
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
    report = store.audit.of(args.subject, args.predicate, args.object).to_dict()
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
          claimed_object(d.get("change"), d["object"]),
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
    """The ``--edit FIELD=VALUE`` pairs as the edits ``store.review.approve`` takes
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
        rows = [c.to_dict() for c in store.review.list(args.state, limit=args.limit, offset=args.offset)]
        if args.json:
            _dump(rows)
        elif rows:
            print(_candidates_table(rows))
        else:
            print(f"no {args.state} candidates")
        return 0
    if action == "show":
        data = store.review.get(args.id).to_dict()
        if args.json:
            _dump(data)
        else:
            data = shown_all(data)  # stored text, one line each
            print(_candidate_detail(data))
            value = data.get("value")
            if isinstance(value, dict) and "unparsed" in value and data.get("predicate") != "note":
                print(f"\nunparsed statement: the signal layer read a {value['unparsed']} here that no rule could "
                      f"parse, queued as that {data.get('predicate')} in its own words: approve it to write it as "
                      "it stands, approve it with --edit object=… to reword it first, or reject it")
            elif isinstance(value, dict) and "unparsed" in value:
                print(f"\nunparsed statement: the signal layer read a {value['unparsed']} fact here that no rule "
                      "could parse; approve it to keep it as a note, approve it with --edit predicate=… "
                      "object=… to make it the fact it states, or reject it")
            elif data.get("change") == "retraction":
                print(f"\nretraction asked for by an agent: approve it to retire {data['predicate']} "
                      f"{data['object']} of {data['subject']} (kept as history, status retracted), "
                      "or reject it to keep the value")
            elif data.get("change") == "ending":
                print(f"\nan ending: approve it to close {data['predicate']} "
                      f"{data['object'] or '(whatever holds then)'} of {data['subject']} where it "
                      "stopped holding (kept as history up to then), or reject it to keep it current")
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
        approval = store.review.approve(args.id, by=by, edits=_edits(args.edit) or None, note=args.note)
        result = {**approval.to_dict(), "candidate": store.review.get(args.id).to_dict()}
        if args.json:
            _dump(result)
        else:
            print(f"candidate {args.id} approved by {by}: {result['outcome']}"
                  + (f", fact {result['fact_id']}" if result["fact_id"] else "")
                  + (f", conflict {result['conflict_id']} opened" if result["conflict_id"] else ""))
        return 0
    if action == "reject":
        data = store.review.reject(args.id, by=by, reason=args.reason).to_dict()
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
        data = store.conflicts.resolve(args.id, args.keep, by=by, reason=args.reason,
                                      scope=args.scope).to_dict()
        if args.json:
            _dump(data)
        else:
            print(f"conflict {args.id} resolved by {by}: kept {args.keep}"
                  f" (undo: memdesk conflicts undo {args.id})")
        return 0
    if action == "show":
        conflict = store.conflicts.get(args.id)
        data = conflict.to_dict()
        data["choices"] = ([c.to_dict() for c in store.conflicts.preview(args.id)]
                           if conflict.state == "open" else [])
        if args.json:
            _dump(data)
        else:
            print(_conflicts_text([data]))
            if data["choices"]:
                print("\n" + _choices_text(data["choices"]))
        return 0
    if action == "undo":
        by = args.by or settings.reviewer
        undone = store.conflicts.undo(args.id, by=by, reason=args.reason)
        result = {**undone.to_dict(), "conflict": store.conflicts.get(args.id).to_dict()}
        if args.json:
            _dump(result)
        else:
            print(f"conflict {args.id} is open again: the resolution {shown(result['undone'])!r} was "
                  f"undone by {by}; retired facts {_ids(result['retired'])}, "
                  f"brought back as facts {_ids(result['restored'])}")
        return 0
    items = [c.to_dict() for c in store.conflicts.list(args.state)]
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
    items = [p.to_dict() for p in store.facts.predicates()]
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
    fact = store.facts.retract(args.id, by=by, reason=args.reason)
    data = store.facts.as_json([fact])[0]
    if args.json:
        _dump(data)
    else:
        print(f"fact {args.id} retracted by {by} at {iso(fact.retired_at, fact.tz)}")
    return 0


