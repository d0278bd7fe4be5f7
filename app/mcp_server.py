"""``memdesk mcp``: the agent's door over the Model Context Protocol.

Built on the official Python SDK (``mcp``, its ``MCPServer``), over stdio (a
desktop client starts it) or streamable HTTP (a team service). One store and
one warm ``Memory`` (its Recaller: models and index loaded once) live as long
as the server. The tools are thin: each checks its arguments, calls
``core.memory.Memory`` and returns plain JSON; a package error comes back as
an MCP tool error with its one-line message, never a crashed server, and
nothing is written.

What an agent may do: remember turns, recall, list memories and facts a
page at a time, read facts (now or as of a time), read a value's provenance,
and propose a fact, a correction or a forgetting for review. What it may
not: approve, reject or resolve anything. Those tools do not exist; people
decide at the desk (``memdesk`` app, ``memdesk review``, ``memdesk
conflicts``), and every tool description says so.

Who may reach what (``core.access.Grant``):

* **stdio**: the local process is trusted. A server started with ``--user
  NAME`` serves that one user; without it, every call names its user.
* **HTTP**: every request carries a bearer token (``Authorization: Bearer
  mdk_…``, the MCP authorization convention; ``memdesk tokens create``). A
  missing, unknown or revoked token is answered 401 before any tool runs. The
  token's users, projects and read-only flag are the grant: a call naming
  anyone else, by argument, subject string or conversation session, is
  refused with a tool error and an ``access.refused`` audit entry, and
  nothing of theirs is read. An MCP session belongs to the token that opened
  it (the SDK answers 404 to any other). ``app.http_guard`` bounds body size
  and request rates around it all, ``app.http_conn`` slow clients and open
  connections below it; a request whose client went away is cancelled
  (``app.cancel``), and SIGTERM stops the server within its stop timeout
  (``app.http_stop``).

Every write names its caller in the audit: the token (id and name, never the
secret) and the client name and version the protocol reported.

Errors are one line (``MemdeskMCP.call_tool``): arguments that do not fit a
tool's schema are named (``recall: missing argument 'query'``), never the
SDK's multi-line validation dump. Tools take ``user_id`` as mem0's name for
``user``. What the server logs to stderr follows ``--log-level`` (default
warning; ``configure_logging``), whatever level a dependency sets on its own
logger.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import sys
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from memdesk import (
    MAX_PAGE,
    AccessRefused,
    Caller,
    Grant,
    MemdeskError,
    Memory,
    RequestCancelled,
    iso,
    one_user,
    parse_time,
)
from memdesk import failpoint as point
from pydantic import ValidationError

from .cancel import check_current, stop_cancelled_work
from .http_guard import (
    MAX_SESSIONS,
    SESSION_IDLE_SECONDS,
    Guard,
    GuardSettings,
    Rates,
    RefusalLog,
    TokenLimits,
)

T = TypeVar("T")

DECIDED_BY_PEOPLE = ("The agent can never approve, reject or resolve: what it writes goes "
                     "through memdesk's gates (provenance, dedup, review, conflict) and a person "
                     "decides at the desk.")
INSTRUCTIONS = (
    "Long-term memory of the people you talk with. Call `remember` with the turns of the "
    "conversation as they happen; call `recall` before answering a question that may depend "
    "on what the person told you earlier, and paste its `prompt` block into your context. "
    "`facts` gives what the store believes now (or at a past time), `audit` why; "
    "`memories` lists what the person said, a page at a time. "
    "Use `propose_fact` for something you inferred yourself, `correct` when the person says "
    "a stored value is wrong, `end_fact` when one has stopped holding (a job quit, a home "
    "moved out of), `forget` when they ask you to drop one; each waits for a "
    "person's review. " + DECIDED_BY_PEOPLE)

LOG_LEVELS = ("debug", "info", "warning", "error")


def configure_logging(level: str = "warning") -> None:
    """Send log records at ``level`` and above to stderr, one line each, and
    drop the rest, whichever level a dependency gives its own logger (bm25s
    sets DEBUG on its logger, so its records would pass a root level alone).
    Raises ValueError for an unknown level."""
    if level not in LOG_LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)}, got {level!r}")
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(level.upper())
    handler.setFormatter(logging.Formatter("memdesk mcp: %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)


def _one_line(tool: str, failed: ValidationError) -> str:
    """The first of a tool's argument errors in one line, naming the argument."""
    errors = failed.errors()
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "arguments"
    if first["type"] == "missing":
        said = f"missing argument {where!r}"
    elif first["type"] == "extra_forbidden":
        said = f"unknown argument {where!r}"
    else:
        said = f"argument {where!r}: {first['msg']}"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return " ".join(f"{tool}: {said}{more}".split())


class MemdeskMCP(MCPServer):
    """The SDK's server, its tool errors in one line: arguments that do not
    fit the schema name the argument; a tool's own error keeps its message
    after the tool's name."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(_one_line(name, exc.__cause__)) from exc.__cause__
            said = str(exc).removeprefix(f"Error executing tool {name}: ")
            raise ToolError(" ".join(f"{name}: {said}".split())) from exc.__cause__


def paged(fetch: Callable[[int, int], list[T]], limit: int, offset: int
          ) -> tuple[list[T], int | None]:
    """A page of ``limit`` rows from ``offset`` (``fetch(limit, offset)``,
    which checks both) and the next page's offset, None when no row follows:
    asked for as one more row, so a page of the largest size is asked for as
    it is."""
    rows = fetch(limit, offset)
    more = len(rows) == limit and bool(fetch(1, offset + limit))
    return rows, offset + limit if more else None
_CLIENT_TEXT = re.compile(r"[^\w .:/@+()-]", re.UNICODE)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def client_name(ctx: Any) -> str | None:
    """The client's name and version as its ``clientInfo`` said (capped and
    cleaned: it is the client's own word, written into the audit)."""
    try:
        info = ctx.session.client_params.client_info
    except (AttributeError, ValueError):  # ValueError: no request (a call in process)
        return None
    if info is None:
        return None
    text = f"{info.name} {info.version}".strip()
    return _CLIENT_TEXT.sub("?", text)[:120] or None


def build_server(memory: Memory, *, user: str | None = None, transport: str = "stdio",
                 token_verifier: StoreTokenVerifier | None = None,
                 server_url: str = "http://127.0.0.1") -> MCPServer:
    """The MCP server over ``memory``; bound to ``user`` when given. With a
    ``token_verifier`` (HTTP), every request must carry a bearer token it
    accepts, and the token's grant decides each call."""
    auth = (AuthSettings(issuer_url=server_url, resource_server_url=None)  # type: ignore[arg-type]
            if token_verifier is not None else None)
    server = MemdeskMCP("memdesk", instructions=INSTRUCTIONS, log_level="WARNING",
                        token_verifier=token_verifier, auth=auth)
    local = Grant.of([user] if user is not None else None,
                     label=f"this server (user {user} only)" if user else "this server")

    def door(ctx: Any) -> tuple[Grant, Caller]:
        """The grant and the caller of this request."""
        token = get_access_token()
        client = client_name(ctx)
        if token is None:
            if token_verifier is not None:  # the SDK answers 401 first; never reached
                raise ToolError("refused: no bearer token")
            return local, Caller(transport, client=client)
        claims = token.claims or {}
        users = frozenset(claims["users"])
        if user is not None:
            users &= {user}
        grant = Grant(users, frozenset(claims["projects"]), bool(claims["read_only"]),
                      str(claims["label"]))
        return grant, Caller(transport, int(claims["token"]), str(claims["name"]), client)

    def call(tool: str, grant: Grant, caller: Caller, fn: Callable[[], T]) -> T:
        """Run a tool's body: a refusal is audited and said (naming the grant),
        a package error said. Over HTTP, a request cancelled (its client gone,
        the server stopping) does not start, and stops at its next statement."""
        try:
            check_current()
            return fn()
        except RequestCancelled as exc:
            point("http.cancelled")
            raise ToolError(str(exc)) from None
        except AccessRefused as exc:
            said = str(exc) if str(exc).startswith(grant.label) else f"{grant.label}: {exc}"
            try:
                memory.store.audit.record_refusal(caller, tool=tool, reason=said, subject=exc.subject)
            except RequestCancelled:
                pass  # its client is gone: nothing of the request is written, the audit neither
            except MemdeskError as failed:  # still refused; the log says why it is not audited
                print(f"memdesk mcp: could not audit a refusal: {failed}", file=sys.stderr)
            raise ToolError(f"refused: {said}") from None
        except MemdeskError as exc:
            raise ToolError(str(exc)) from None

    def when(text: str | None, what: str) -> datetime | None:
        if text is None or text == "now":
            return None
        try:
            return parse_time(text, what)
        except MemdeskError as exc:
            raise ToolError(str(exc)) from None

    def proposed(c: Any) -> dict[str, Any]:
        return {"id": c.id, "state": c.state, "subject": c.subject, "predicate": c.predicate,
                "object": c.object, "change": c.change, "reasons": list(c.reasons),
                "valid_from": c.valid_from.isoformat()}

    def member(name: str, project: str) -> bool:
        return memory.recaller.resolve_scope(user=name).covers_subject(f"project:{project}")

    @server.tool(description=(
        "Store conversation turns in long-term memory. `messages`: the turns in order, each "
        "{role: 'user'|'assistant', content: text, time?: ISO 8601 with offset}. Sending any "
        "part of the conversation again is safe (messages already stored are skipped); give "
        "each message its time, or send a short reply together with what it answers, so it "
        "is not taken for a resend. Returns the turn "
        "numbers stored and what the gates made of them (facts asserted, queued for review, "
        "conflicts opened). " + DECIDED_BY_PEOPLE))
    def remember(messages: list[dict[str, Any]], ctx: Context, user: str | None = None,
                 project: str | None = None, session: str | None = None,
                 user_id: str | None = None) -> dict[str, Any]:
        grant, caller = door(ctx)

        def run() -> dict[str, Any]:
            name = grant.user(one_user(user, user_id))
            grant.check_write(name, project)
            return memory.remember(messages, user=name, project=project, session=session,
                                   caller=caller).to_dict()
        return call("remember", grant, caller, run)

    @server.tool(description=(
        "Recall what the person told you that bears on `query` (Chinese or English): their "
        "memories, their current facts and those of their projects, best first, never another "
        "person's. Returns `prompt` (a block to paste into your context: date, confidence, "
        "subject and text per line, outdated or conflicting values marked) and `results` with "
        "scores. `over: 'turns'` searches the raw conversation instead. `at`: recall as the "
        "store knew it at that time (ISO 8601 with offset)."))
    def recall(query: str, ctx: Context, user: str | None = None, k: int = 10,
               over: str = "memories", at: str | None = None, project: str | None = None,
               session: str | None = None, user_id: str | None = None) -> dict[str, Any]:
        grant, caller = door(ctx)
        moment = when(at, "at")

        def run() -> dict[str, Any]:
            name = grant.user(one_user(user, user_id))
            within = grant.recall_projects(project)
            if session is not None:
                memory.check_session(session, name)
            block, hits = memory.recall_with_prompt(
                query, user=name, project=project, session=session, k=k, at=moment, over=over,
                within=None if within is None else sorted(within))
            return {"prompt": block, "results": [h.to_json() for h in hits]}
        return call("recall", grant, caller, run)

    @server.tool(description=(
        "What memdesk believes about the person (or one of their projects, `subject` e.g. "
        "'project:atlas'): the facts holding at `valid_at` as believed at `known_at` (ISO 8601 "
        "with offset; both default to now), each with its id, value, valid interval and "
        f"confidence. A page of `limit` (1 to {MAX_PAGE}, default 100) from `offset`; "
        "`next_offset` is the next page's (null: no more)."))
    def facts(ctx: Context, user: str | None = None, subject: str | None = None,
              predicate: str | None = None, valid_at: str | None = None,
              known_at: str | None = None, limit: int = 100, offset: int = 0,
              user_id: str | None = None) -> dict[str, Any]:
        grant, caller = door(ctx)
        valid, known = when(valid_at, "valid_at"), when(known_at, "known_at")

        def run() -> dict[str, Any]:
            about = grant.subject(subject, one_user(user, user_id), member)
            rows, after = paged(lambda n, at: memory.facts(
                subject=about, predicate=predicate, valid_at=valid, known_at=known, limit=n,
                offset=at), limit, offset)
            return {"subject": about, "facts": [f.to_dict() for f in rows],
                    "next_offset": after}
        return call("facts", grant, caller, run)

    @server.tool(description=(
        "What the person said that memdesk keeps as memories (sensitive data masked), newest "
        "first: theirs and the people they told about (each naming its subject), or one of "
        "their projects' (`subject` e.g. 'project:atlas'), with the turn each came from. "
        f"A page of `limit` (1 to {MAX_PAGE}, default 100) from `offset`; `next_offset` is "
        "the next page's (null: no more)."))
    def memories(ctx: Context, user: str | None = None, subject: str | None = None,
                 limit: int = 100, offset: int = 0,
                 user_id: str | None = None) -> dict[str, Any]:
        grant, caller = door(ctx)

        def run() -> dict[str, Any]:
            about = grant.subject(subject, one_user(user, user_id), member)
            # a user's: theirs and their people's; a project's: its own
            name = about[len("user:"):] if about.startswith("user:") else None
            rows, after = paged(lambda n, at: memory.memories(
                user=name, subject=None if name else about, limit=n, offset=at), limit, offset)
            return {"subject": about, "memories": [m.to_dict() for m in rows],
                    "next_offset": after}
        return call("memories", grant, caller, run)

    @server.tool(description=(
        "Since when, and why, memdesk believes a value of the person (or of one of their "
        "projects): the provenance chain from the turn that said it through extraction, the "
        "gates and any review or resolution to the fact."))
    def audit(subject: str, predicate: str, ctx: Context, object: str | None = None,
              user: str | None = None, user_id: str | None = None) -> dict[str, Any]:
        grant, caller = door(ctx)

        def run() -> dict[str, Any]:
            about = grant.subject(subject, one_user(user, user_id), member)
            return memory.audit(about, predicate, object).to_dict()
        return call("audit", grant, caller, run)

    @server.tool(description=(
        "Propose a fact you inferred from a stored turn (`session`, `turn`: where you inferred "
        "it). It always waits in the review queue for a person; you cannot approve it. "
        "Returns the candidate with its id and why it waits. " + DECIDED_BY_PEOPLE))
    def propose_fact(predicate: str, object: str, session: str, turn: int, ctx: Context,
                     user: str | None = None, polarity: str = "positive",
                     confidence: float = 0.5, user_id: str | None = None) -> dict[str, Any]:
        grant, caller = door(ctx)

        def run() -> dict[str, Any]:
            name = grant.user(one_user(user, user_id))
            grant.check_write(name, None)
            return proposed(memory.propose(predicate, object, user=name, session=session,
                                           turn=turn, polarity=polarity, confidence=confidence,
                                           caller=caller))
        return call("propose_fact", grant, caller, run)

    def fact_writer(fact_id: int, user: str | None, user_id: str | None,
                    grant: Grant) -> str:
        """The user a correction or forgetting of ``fact_id`` is for, once the
        grant may write where the fact lives."""
        name = grant.user(one_user(user, user_id))
        subject = memory.store.facts.get(fact_id).subject
        grant.check_write(name, subject[len("project:"):] if subject.startswith("project:")
                          else None)
        return name

    @server.tool(description=(
        "Ask a person to correct a stored fact (`fact_id`, from `facts`) to `object`, when the "
        "person says the value is wrong; cite the turn where they said so (`session`, `turn`). "
        "It waits in the review queue; an approval replaces the value over the old one's time "
        "and keeps the old one as history. " + DECIDED_BY_PEOPLE))
    def correct(fact_id: int, object: str, session: str, turn: int, ctx: Context,
                user: str | None = None, user_id: str | None = None) -> dict[str, Any]:
        grant, caller = door(ctx)

        def run() -> dict[str, Any]:
            name = fact_writer(fact_id, user, user_id, grant)
            return proposed(memory.correct(fact_id, object, user=name, session=session,
                                           turn=turn, caller=caller))
        return call("correct", grant, caller, run)

    @server.tool(description=(
        "Ask a person to take a stored fact back (`fact_id`, from `facts`), when the person "
        "asks you to forget it; cite the turn where they asked (`session`, `turn`). It waits "
        "in the review queue; an approval retires the value as retracted (kept as history). "
        + DECIDED_BY_PEOPLE))
    def forget(fact_id: int, session: str, turn: int, ctx: Context, user: str | None = None,
               user_id: str | None = None) -> dict[str, Any]:
        grant, caller = door(ctx)

        def run() -> dict[str, Any]:
            name = fact_writer(fact_id, user, user_id, grant)
            return proposed(memory.forget(fact_id, user=name, session=session, turn=turn,
                                          caller=caller))
        return call("forget", grant, caller, run)

    @server.tool(description=(
        "Ask a person to end a stored fact (`fact_id`, from `facts`) that was true and has "
        "stopped holding, when the person says so (they quit that job, moved out, gave that "
        "up); cite the turn where they said it (`session`, `turn`), and give `at` (ISO 8601 "
        "with its offset) when they said when it ended. It waits in the review queue; an "
        "approval closes the value there and keeps it as history (unlike `forget`, which takes "
        "a value back as never true). " + DECIDED_BY_PEOPLE))
    def end_fact(fact_id: int, session: str, turn: int, ctx: Context, at: str | None = None,
                 user: str | None = None, user_id: str | None = None) -> dict[str, Any]:
        grant, caller = door(ctx)

        def run() -> dict[str, Any]:
            name = fact_writer(fact_id, user, user_id, grant)
            return proposed(memory.end(fact_id, user=name, session=session, turn=turn,
                                       at=when(at, "at"), caller=caller))
        return call("end_fact", grant, caller, run)

    return server


class StoreTokenVerifier:
    """The SDK's ``TokenVerifier`` over the store's tokens (core.tokens): one
    indexed read per request, in a worker thread, so a revocation holds from
    the next request on. A revoked token's use is audited, one entry per use
    within ``audit_within`` (the per-token rate: ``Rates.token``, called with
    the token's principal), so a flood with it cannot grow the audit log
    faster than that."""

    def __init__(self, memory: Memory,
                 audit_within: Callable[[str], bool] | None = None) -> None:
        self.memory = memory
        self.audit_within = audit_within

    def lookup(self, secret: str) -> AccessToken | None:
        token = self.memory.store.admin.token_for_secret(secret)
        if token is None:
            return None
        principal = f"token:{token.id}"
        if not token.active:
            if self.audit_within is not None and not self.audit_within(principal):
                return None  # refused all the same; counted in the log, not audited
            try:
                self.memory.store.audit.record_refusal(
                    Caller("http", token.id, token.name), tool="(any)",
                    reason=f"{token.label} was revoked at {iso(token.revoked_at)}")
            except RequestCancelled:
                pass  # its client is gone: nothing of the request is written, the audit neither
            except MemdeskError as failed:
                print(f"memdesk mcp: could not audit a refusal: {failed}", file=sys.stderr)
            return None
        return AccessToken(token=principal, client_id=principal, subject=principal, scopes=[],
                           claims={"token": token.id, "name": token.name, "label": token.label,
                                   "users": list(token.users), "projects": list(token.projects),
                                   "read_only": token.read_only})

    async def verify_token(self, token: str) -> AccessToken | None:
        import anyio

        try:
            return await anyio.to_thread.run_sync(self.lookup, token)
        except RequestCancelled:  # the client left during the check: nobody to answer
            return None
        except MemdeskError as exc:  # the store is unreachable: refuse, say why
            print(f"memdesk mcp: could not check a token: {exc}", file=sys.stderr)
            return None


def http_app(memory: Memory, *, host: str = "127.0.0.1", port: int = 8765,
             user: str | None = None, guard: GuardSettings | None = None,
             log: RefusalLog | None = None) -> Guard:
    """The ASGI app of the HTTP door: the guard, the bearer-token check, the
    per-token limits and the MCP endpoint at ``/mcp``. The store refuses the
    statements of a cancelled request from then on (``app.cancel``)."""
    from starlette.middleware import Middleware

    guard = guard or GuardSettings()
    rates = Rates(guard)
    server = build_server(memory, user=user, transport="http",
                          token_verifier=StoreTokenVerifier(memory, audit_within=rates.token),
                          server_url=f"http://{host}:{port}")
    inner = server.streamable_http_app(host=host, max_request_body_size=guard.max_body,
                                       max_sessions=MAX_SESSIONS,
                                       session_idle_timeout=SESSION_IDLE_SECONDS)
    # after the SDK's bearer check (its middlewares come first in the list)
    inner.user_middleware.append(Middleware(TokenLimits, rates=rates))
    outer = Guard(inner, guard, log, rates)
    stop_cancelled_work(memory.store.engine)
    return outer


def server_config(app: Guard, *, host: str, port: int,
                  tls: tuple[str, str] | None = None, log: RefusalLog | None = None,
                  log_level: str = "warning") -> Any:
    """The uvicorn configuration of the HTTP door: the guarded h11 protocol
    (``app.http_conn``: header and body timeouts, connection caps),
    forwarded headers believed only from ``forwarded_allow_ips`` (none by
    default), and a graceful shutdown of half the stop timeout."""
    import uvicorn

    from .http_conn import ConnectionBook, protocol_class

    settings = app.settings
    trusted = list(settings.forwarded_allow_ips)
    book = ConnectionBook(settings, log if log is not None else app.log)
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False,
                          http=protocol_class(book),
                          proxy_headers=bool(trusted),
                          forwarded_allow_ips=trusted or None,
                          timeout_graceful_shutdown=max(1, int(settings.stop_timeout / 2)),
                          ssl_certfile=tls[0] if tls else None,
                          ssl_keyfile=tls[1] if tls else None)


def serve(memory: Memory, *, transport: str = "stdio", host: str = "127.0.0.1",
          port: int = 8765, user: str | None = None, guard: GuardSettings | None = None,
          tls: tuple[str, str] | None = None, log_level: str = "warning") -> None:
    """Run the server until it is stopped (stdio: until the client closes it;
    HTTP: until SIGTERM or SIGINT, see ``DoorServer``). ``tls``:
    (certificate file, key file); ``log_level``: the HTTP server's too."""
    if transport == "stdio":
        build_server(memory, user=user).run("stdio")
        return
    from .http_stop import DoorServer

    app = http_app(memory, host=host, port=port, user=user, guard=guard)
    DoorServer(server_config(app, host=host, port=port, tls=tls, log_level=log_level),
               app).run()


__all__ = ["DECIDED_BY_PEOPLE", "INSTRUCTIONS", "LOG_LEVELS", "MemdeskMCP", "StoreTokenVerifier",
           "build_server", "client_name", "configure_logging", "http_app", "is_loopback", "serve",
           "server_config"]
