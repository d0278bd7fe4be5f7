"""The command line's parser: every command, its flags and its help."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..config import Settings
from .common import RESOLUTIONS, RESOLVE_HELP, _Version
from .curate import (
    cmd_audit,
    cmd_conflicts,
    cmd_demo,
    cmd_facts,
    cmd_import,
    cmd_ingest,
    cmd_predicates,
    cmd_retract,
    cmd_review,
)
from .serve import cmd_app, cmd_mcp, cmd_recall, cmd_reindex, cmd_tokens
from .upkeep import cmd_erase, cmd_export, cmd_maintain, cmd_restore, cmd_verify

if TYPE_CHECKING:

    pass


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


