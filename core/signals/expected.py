"""The conversation sets' expectations and how a value is matched against one.

A set (``tests/sets/convo_*/<name>/``, the format in ``tests/sets/convo_dev/README.md``) holds
``conversations.jsonl`` and ``expect.jsonl``: the facts a careful note-taker would record and the
checks. One matching rule serves everyone who reads them: the conversation evaluation
(``tests/benchmarks/eval_conversations.py``) and the training of the value judge
(``core.signals.train_judge``). Pure: no I/O beyond ``load``.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def norm(text: str) -> str:
    """NFKC, lower case, without spaces, punctuation or control characters."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in text if unicodedata.category(ch)[0] not in "PZC")


@dataclass
class Expected:
    """One fact or check line of expect.jsonl, with its matching rules."""

    line: dict[str, Any]

    @property
    def predicates(self) -> set[str]:
        """The predicates that match ("*": any). The format's ``relation`` of a
        ``person:`` subject is their name, which the store keeps as ``name``."""
        out = {self.line.get("predicate", "*"), *self.line.get("predicate_any", [])}
        if self.line["subject"].startswith("person:") and out & {"relation", "name"}:
            out |= {"relation", "name"}
        return out

    def subject_ok(self, subject: str) -> bool:
        want = self.line["subject"]
        if not want.startswith("person:"):
            return subject == want
        owner = want.split("/", 1)[0]
        if not subject.startswith(owner + "/"):
            return False
        who = {norm(w) for w in [want.split("/", 1)[1], *self.line.get("who", [])]}
        return norm(subject.split("/", 1)[1]) in who

    def object_ok(self, obj: str, *, within: bool = False) -> bool:
        """Whether ``obj`` is the value (every keyword in it, or one of the accepted
        forms); with ``within``, whether it holds the value somewhere in it."""
        got = norm(obj)
        if self.line.get("keywords"):
            return all(norm(k) in got for k in self.line["keywords"])
        forms = [norm(f) for f in (self.line.get("object", ""), *self.line.get("accept", [])) if f]
        return any((f in got) if within else (got == f) for f in forms if f)

    def polarity_ok(self, polarity: str) -> bool:
        return self.line.get("polarity", "positive") == polarity

    def holds(self, subject: str, predicate: str, obj: str, polarity: str) -> bool:
        return (self.subject_ok(subject) and (predicate in self.predicates or "*" in self.predicates)
                and self.object_ok(obj) and self.polarity_ok(polarity))


def set_folder(root: Path, name: str) -> Path:
    """The folder of the set ``name`` under ``root`` (``tests/sets``: in one of its ``convo_*`` folders), for
    the training scripts that read sets from a checkout. Raises SystemExit with one line when there is none."""
    found = sorted(p for p in root.glob(f"convo_*/{name}") if p.is_dir())
    if not found:
        raise SystemExit(f"no conversation set {name!r} under {root}/convo_*")
    return found[0]


def load(folder: Path) -> tuple[list[dict[str, Any]], list[Expected], list[Expected]]:
    """The turns, expected facts and checks of one set folder. Raises OSError when a file is
    missing, ValueError when a line is not JSON."""
    turns = [json.loads(s) for s in (folder / "conversations.jsonl").read_text("utf-8").splitlines()
             if s.strip()]
    lines = [json.loads(s) for s in (folder / "expect.jsonl").read_text("utf-8").splitlines()
             if s.strip()]
    facts = [Expected(x) for x in lines if x["kind"] == "fact"]
    checks = [Expected(x) for x in lines if x["kind"] == "check"]
    return turns, facts, checks
