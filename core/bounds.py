"""Bounds on the work one request may ask for (issue 29), not only on its bytes.

Extraction takes time in proportion to the text it reads, recall in proportion
to the query and to the asks it embeds. A request past a bound is refused
before any work is done, with one line naming the bound and the value:
``BoundExceeded`` (an ``InvalidInput``), nothing written. The defaults are
chosen so that a request at every bound at once finishes in about a second on
a 2-core machine (``python -m tests.benchmarks.bench_bounds`` prints the
figures); each is configurable (``Bounds(...)``, the command line's flags, the
environment's ``MEMDESK_MAX_*``, the config file's ``[bounds]`` table).

Raises BoundExceeded (checks; InputFileError for a line of a file), InvalidInput (a bound that is not a positive
whole number).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from .errors import BoundExceeded, InputFileError, InvalidInput
from .pipeline import Turn

# a turn of 4,000 characters is some 8 screens of chat; the rules read it in about 0.1 s
TURN_CHARS = 4_000
# messages one ``remember`` call may carry (a conversation's recent turns, not its archive)
TURNS_PER_CALL = 64
# all the text of one ``remember`` call together: about one second of extraction at the bound
CALL_CHARS = 16_000
# a recall query: a question, not a document; the embedders take time growing faster than its length
QUERY_CHARS = 400
# the asks of one recall query ("哪天考试？跑鞋多大码？": each is embedded on its own)
QUERY_ASKS = 8


@dataclass(frozen=True)
class Bounds:
    """The bounds in force (characters are Unicode code points, as ``len`` counts them)."""

    turn_chars: int = TURN_CHARS
    turns_per_call: int = TURNS_PER_CALL
    call_chars: int = CALL_CHARS
    query_chars: int = QUERY_CHARS
    query_asks: int = QUERY_ASKS

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(f"bound {f.name} must be a whole number of at least 1, got {value!r}")

    def check_turns(self, turns: Sequence[Turn], *, lines: Sequence[int] | None = None,
                    path: str | None = None) -> None:
        """Refuse a turn longer than ``turn_chars``: named by its line of ``path``
        (InputFileError), else by its position (BoundExceeded)."""
        for i, turn in enumerate(turns):
            self.check_text(turn.text, lines[i] if lines is not None else i + 1, path=path)

    def check_count(self, count: int) -> None:
        """Refuse one call of more than ``turns_per_call`` messages, before any is read.
        Raises BoundExceeded."""
        if count > self.turns_per_call:
            raise BoundExceeded(f"{count} messages in one call: at most {self.turns_per_call} "
                                "(bound turns_per_call); send them in several calls")

    def check_call(self, texts: Sequence[str]) -> None:
        """Refuse the messages of one call past the bounds: too many (``turns_per_call``),
        one too long (``turn_chars``, named by its position) or too much text in all
        (``call_chars``). Raises BoundExceeded."""
        self.check_count(len(texts))
        for i, text in enumerate(texts, 1):
            self.check_text(text, i, what="message")
        total = sum(len(t) for t in texts)
        if total > self.call_chars:
            raise BoundExceeded(f"the messages of one call hold {total} characters: at most "
                                f"{self.call_chars} (bound call_chars); send them in several calls")

    def check_text(self, text: str, position: int, *, path: str | None = None,
                   what: str = "turn") -> None:
        """Refuse one turn's text past ``turn_chars``. Raises InputFileError naming its line
        of ``path``, else BoundExceeded naming its position."""
        if len(text) <= self.turn_chars:
            return
        said = (f"the text of {what} {position} holds {len(text)} characters: at most "
                f"{self.turn_chars} (bound turn_chars)")
        if path is not None:  # a line of a file: named as every bad line is
            raise InputFileError(position, f"the text holds {len(text)} characters: at most "
                                 f"{self.turn_chars} (bound turn_chars)", path)
        raise BoundExceeded(said)

    def check_query(self, query: str) -> None:
        """Refuse a recall query past ``query_chars``. Raises BoundExceeded."""
        if len(query) > self.query_chars:
            raise BoundExceeded(f"the recall query holds {len(query)} characters: at most "
                                f"{self.query_chars} (bound query_chars)")

    def check_asks(self, asks: int) -> None:
        """Refuse a recall query of more than ``query_asks`` asks. Raises BoundExceeded."""
        if asks > self.query_asks:
            raise BoundExceeded(f"the recall query asks {asks} questions: at most "
                                f"{self.query_asks} (bound query_asks); ask them in several calls")


__all__ = ["Bounds"]
