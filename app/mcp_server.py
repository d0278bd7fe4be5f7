"""``memdesk mcp``: the agent's door over the Model Context Protocol.

Built on the official Python SDK (``mcp``, its ``MCPServer``), over stdio (a
desktop client starts it) or streamable HTTP (a team service). One store and
one warm ``Memory`` (its Recaller: models and index loaded once) live as long
as the server. The tools are thin: each checks its arguments, calls
``core.memory.Memory`` and returns plain JSON; a package error comes back as
an MCP tool error with its one-line message, never a crashed server, and
nothing is written.

What an agent may do: remember turns, recall, read facts (now or as of a
time), read a value's provenance, and propose a fact for review. What it may
not: approve, reject or resolve anything. Those tools do not exist; people
decide at the desk (``memdesk`` app, ``memdesk review``, ``memdesk
conflicts``), and every tool description says so.

A server started with ``--user NAME`` serves that one user: a call for anyone
else is refused. Without it, every call names its user.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from memdesk.core import MemdeskError, Memory
from memdesk.core.timeutil import iso, parse_time, to_us

T = TypeVar("T")

DECIDED_BY_PEOPLE = ("The agent can never approve, reject or resolve: what it writes goes "
                     "through memdesk's gates (provenance, dedup, review, conflict) and a person "
                     "decides at the desk.")
INSTRUCTIONS = (
    "Long-term memory of the people you talk with. Call `remember` with the turns of the "
    "conversation as they happen; call `recall` before answering a question that may depend "
    "on what the person told you earlier, and paste its `prompt` block into your context. "
    "`facts` gives what the store believes now (or at a past time), `audit` why. "
    "Use `propose_fact` for something you inferred yourself; it waits for a person's review. "
    + DECIDED_BY_PEOPLE)


def build_server(memory: Memory, *, user: str | None = None) -> Any:
    """The MCP server over ``memory``; bound to ``user`` when given.
    Raises ImportError when the ``mcp`` package is missing."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("memdesk", instructions=INSTRUCTIONS, log_level="WARNING")

    def call(fn: Callable[[], T]) -> T:
        try:
            return fn()
        except MemdeskError as exc:
            raise ToolError(str(exc)) from None

    def who(asked: str | None) -> str:
        if user is not None:
            if asked not in (None, user, f"user:{user}"):
                raise ToolError(f"this server serves user {user!r} only, not {asked!r}")
            return user
        if not asked or not asked.strip():
            raise ToolError("name the user this call is for (user: NAME)")
        return asked.removeprefix("user:")

    def when(text: str | None, what: str) -> datetime | None:
        if text is None or text == "now":
            return None
        return call(lambda: parse_time(text, what))

    @server.tool(description=(
        "Store conversation turns in long-term memory. `messages`: the turns in order, each "
        "{role: 'user'|'assistant', content: text, time?: ISO 8601 with offset}. Sending the "
        "whole conversation again is safe (turns already stored are skipped). Returns the turn "
        "numbers stored and what the gates made of them (facts asserted, queued for review, "
        "conflicts opened). " + DECIDED_BY_PEOPLE))
    def remember(messages: list[dict[str, Any]], user: str | None = None,
                 project: str | None = None, session: str | None = None) -> dict[str, Any]:
        name = who(user)
        return call(lambda: memory.remember(messages, user=name, project=project,
                                            session=session).to_dict())

    @server.tool(description=(
        "Recall what the person told you that bears on `query` (Chinese or English): their "
        "memories, their current facts and those of their projects, best first, never another "
        "person's. Returns `prompt` (a block to paste into your context: date, confidence, "
        "subject and text per line, outdated or conflicting values marked) and `results` with "
        "scores. `over: 'turns'` searches the raw conversation instead. `at`: recall as the "
        "store knew it at that time (ISO 8601 with offset)."))
    def recall(query: str, user: str | None = None, k: int = 10, over: str = "memories",
               at: str | None = None, project: str | None = None,
               session: str | None = None) -> dict[str, Any]:
        name = who(user)
        moment = when(at, "at")

        def run() -> dict[str, Any]:
            hits = memory.recall(query, user=name, project=project, session=session, k=k,
                                 at=moment, over=over)
            asof = memory.store.now() if moment is None else to_us(moment)
            return {"prompt": memory.recaller.render_prompt(hits, asof),
                    "results": [h.to_json() for h in hits]}
        return call(run)

    def subject_for(subject: str | None, asked: str | None) -> str:
        """The subject a read is about: the user's own, or one in their scope
        (their projects); anything else is refused."""
        name = who(asked if subject is None or not subject.startswith("user:") else subject)
        if subject is None or subject == f"user:{name}":
            return f"user:{name}"
        if not call(lambda: memory.recaller.resolve_scope(user=name)).covers_subject(subject):
            raise ToolError(f"{subject} is not in the scope of user {name!r}")
        return subject

    @server.tool(description=(
        "What memdesk believes about the person (or one of their projects, `subject` e.g. "
        "'project:atlas'): the facts holding at `valid_at` as believed at `known_at` (ISO 8601 "
        "with offset; both default to now), each with its value, valid interval and confidence."))
    def facts(user: str | None = None, subject: str | None = None, predicate: str | None = None,
              valid_at: str | None = None, known_at: str | None = None) -> dict[str, Any]:
        about = subject_for(subject, user)
        valid, known = when(valid_at, "valid_at"), when(known_at, "known_at")

        def run() -> dict[str, Any]:
            rows = memory.facts(subject=about, predicate=predicate, valid_at=valid,
                                known_at=known)
            return {"subject": about, "facts": memory.store.fact_dicts(rows)}
        return call(run)

    @server.tool(description=(
        "Since when, and why, memdesk believes a value of the person (or of one of their "
        "projects): the provenance chain from the turn that said it through extraction, the "
        "gates and any review or resolution to the fact."))
    def audit(subject: str, predicate: str, object: str | None = None,
              user: str | None = None) -> dict[str, Any]:
        about = subject_for(subject, user)
        return call(lambda: memory.audit(about, predicate, object).to_dict())

    @server.tool(description=(
        "Propose a fact you inferred from a stored turn (`session`, `turn`: where you inferred "
        "it). It always waits in the review queue for a person; you cannot approve it. "
        "Returns the candidate with its id and why it waits. " + DECIDED_BY_PEOPLE))
    def propose_fact(predicate: str, object: str, session: str, turn: int,
                     user: str | None = None, polarity: str = "positive",
                     confidence: float = 0.5) -> dict[str, Any]:
        name = who(user)

        def run() -> dict[str, Any]:
            c = memory.propose(predicate, object, user=name, session=session, turn=turn,
                               polarity=polarity, confidence=confidence)
            return {"id": c.id, "state": c.state, "subject": c.subject, "predicate": c.predicate,
                    "object": c.object, "reasons": list(c.reasons),
                    "valid_from": iso(c.valid_from)}
        return call(run)

    return server


def serve(memory: Memory, *, transport: str = "stdio", host: str = "127.0.0.1",
          port: int = 8765, user: str | None = None) -> None:
    """Run the server until it is stopped (stdio: until the client closes it)."""
    server = build_server(memory, user=user)
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)


__all__ = ["DECIDED_BY_PEOPLE", "INSTRUCTIONS", "build_server", "serve"]
