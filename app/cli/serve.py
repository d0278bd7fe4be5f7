"""The commands that serve a store: recall, the MCP door and its tokens, reindex."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memdesk import (
    InputFileError,
    InvalidInput,
    iso,
    parse_time_us,
    shown,
)

from ..config import Settings
from ..tables import table
from .common import UserError, _dump, _progress_bar, _time_arg

if TYPE_CHECKING:
    from collections.abc import Callable

    from memdesk import Store


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


def _embed_for_recall(store: Store, args: argparse.Namespace, settings: Settings,
                      known: Path | None = None) -> None:
    """Embed what recall needs now (the turns' e5 vectors take the longest), so
    that the first recall does not wait for them, and build the index. ``known``:
    a table of vectors worked out before (``memdesk.KnownVectors``: the demo's)."""
    recaller = _recaller(store, args, settings, known)
    try:
        recaller.reindex(progress=_stage_progress())
    finally:
        recaller.close()


def _recaller(store: Store, args: argparse.Namespace, settings: Settings, known: Path | None = None):
    from memdesk import Recaller, RecallWeights

    chosen = getattr(args, "embedder", None)  # --embedder: both kinds
    memory, turn = chosen or settings.embedder, chosen or settings.turn_embedder
    if known is not None:  # one embedder for both kinds when they are the same (as the Recaller shares one)
        wrapped = {spec: _with_known(spec, known) for spec in dict.fromkeys((memory, turn))}
        memory, turn = wrapped[memory], wrapped[turn]
    return Recaller(store, embedder=memory, turn_embedder=turn,
                    weights=RecallWeights(**dict(settings.recall_weights)),
                    index_dir=settings.index_dir,
                    on_message=lambda m: print(f"memdesk: {m}", file=sys.stderr),
                    progress=_stage_progress())


def _with_known(spec: str, known: Path):
    """The embedder ``spec`` names, answering from the table at ``known`` what it holds; ``spec`` itself when
    the embedder cannot load (the Recaller then says why, on first use)."""
    from memdesk import EmbedderUnavailable, KnownVectors, load_known, make_embedder

    try:
        inner = make_embedder(spec)
    except EmbedderUnavailable:
        return spec
    return KnownVectors(inner, load_known(known, inner))


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

    from ..http_conn import parse_trusted
    from ..http_guard import GuardSettings, check_rate
    from ..mcp_server import configure_logging, is_loopback, serve

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
        active = store.admin.tokens(include_revoked=False)
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
        token, secret = store.admin.create_token(args.name, users=args.user, projects=args.project or (),
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
        token = store.admin.revoke_token(args.id, by=by, reason=args.reason)
        if args.json:
            _dump(token.to_dict())
        else:
            print(f"{token.label} revoked by {token.revoked_by} at {iso(token.revoked_at)}: "
                  "refused from the next request on")
        return 0
    found = store.admin.tokens(include_revoked=args.all)
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


def cmd_app(store: Store, args: argparse.Namespace, settings: Settings) -> int:
    from ..ui.launch import run_app

    return run_app(store, settings, screen=args.screen, subject=args.subject)
