"""The commands that keep a store sound: verify, erase, upgrade, maintain, export, restore."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memdesk import (
    shown,
    shown_all,
)

from ..config import Settings
from ..tables import table
from .common import EXIT_ERROR, _dump, _progress_bar

if TYPE_CHECKING:

    from memdesk import Store


# ------------------------------------------------------------------- trust
def cmd_verify(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    report = store.audit.verify()
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
        found = store.admin.mentions_of(args.subject)
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
    erased = store.admin.erase(args.subject, by=by, redact=args.redact or ())
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

    result = Store.upgrade(settings.db).to_dict()
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
    report = store.admin.maintain(dry_run=args.dry_run, older_than=args.older_than,
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



def cmd_export(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    if args.out is None or args.out == "-":
        store.admin.export(sys.stdout, vectors=not args.no_vectors)
        return 0
    counts = store.admin.export(args.out, vectors=not args.no_vectors).to_dict()
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
    counts = store.admin.restore(args.file).to_dict()
    _row_counts(args, args.file, counts, "restored", f"into {store.safe_url}")
    if not args.json and "recall_vector" not in counts:
        print("the export held no recall vectors: `memdesk reindex` embeds them again")
    return 0


