"""An LLM-backed extractor for any OpenAI-compatible chat-completions endpoint.

``LLMExtractor`` implements the :class:`core.ingest.Extractor` protocol: it
sends one turn (with a few turns of context and the predicate catalog) to
``{base_url}/chat/completions``, asks for JSON facts only, and validates every
fact exactly like an import line (docs/DESIGN.md §6) through
:meth:`core.claims.ClaimInput.from_dict`, with the ``source`` taken from the
turn. Configuration comes from the caller or the environment
(``MEMDESK_LLM_BASE_URL``, ``MEMDESK_LLM_MODEL``, ``MEMDESK_LLM_API_KEY``).

Every failure (timeout, refused connection, HTTP error status, a response
that is not JSON, content of the wrong shape, a fact that fails validation)
raises :class:`ExtractorUnavailable` naming the turn and the cause; a turn
whose output is invalid yields no claims at all, never a partial list.
Only the standard library is used (``urllib.request``).
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..catalog import Catalog
from ..claims import ClaimInput
from ..errors import ExtractorUnavailable, InvalidInput
from ..pipeline import Turn

__all__ = ["ENV_API_KEY", "ENV_BASE_URL", "ENV_MODEL", "ExtractorUnavailable", "LLMExtractor"]

ENV_BASE_URL = "MEMDESK_LLM_BASE_URL"
ENV_MODEL = "MEMDESK_LLM_MODEL"
ENV_API_KEY = "MEMDESK_LLM_API_KEY"

CONTEXT_TURNS = 4
# the fields a model may set on a fact; source and extractor are ours
_FACT_FIELDS = {
    "subject", "predicate", "object", "value", "polarity", "scope", "change",
    "confidence", "valid_from", "event_time",
}
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n?(.*?)\n?[ \t]*```", re.DOTALL)


@dataclass(frozen=True)
class LLMExtractor:
    """Extract claims with an OpenAI-compatible chat-completions endpoint.

    ``base_url`` is the API root (e.g. ``http://127.0.0.1:8080/v1``); the
    request goes to ``{base_url}/chat/completions``. ``timeout`` is in seconds.
    """

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 30.0

    @property
    def name(self) -> str:
        return f"llm:{self.model}@1"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *,
                 timeout: float = 30.0) -> LLMExtractor:
        """Configure from MEMDESK_LLM_BASE_URL, MEMDESK_LLM_MODEL and the optional
        MEMDESK_LLM_API_KEY. Raises InvalidInput naming a missing variable."""
        env = os.environ if env is None else env
        values = {}
        for var in (ENV_BASE_URL, ENV_MODEL):
            value = (env.get(var) or "").strip()
            if not value:
                raise InvalidInput(f"environment variable {var} is not set (the LLM extractor needs it)")
            values[var] = value
        key = (env.get(ENV_API_KEY) or "").strip() or None
        return cls(base_url=values[ENV_BASE_URL], model=values[ENV_MODEL], api_key=key,
                   timeout=timeout)

    # ------------------------------------------------------------ protocol

    def claims(self, turn: Turn, context: Sequence[Turn]) -> list[ClaimInput]:
        """The validated claims of ``turn``. Raises ExtractorUnavailable."""
        body = self.request_body(turn, context)
        response = self._post(body, turn)
        content = self._content(response, turn)
        return self._to_claims(content, turn)

    # ------------------------------------------------------------ request

    def request_body(self, turn: Turn, context: Sequence[Turn]) -> dict[str, Any]:
        """The chat-completions request for one turn (public for inspection)."""
        return {
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": _system_prompt(turn)},
                {"role": "user", "content": _user_prompt(turn, context)},
            ],
        }

    def _post(self, body: dict[str, Any], turn: Turn) -> Any:
        url = self.base_url.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")
        where = self._where(turn)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            try:
                detail = _snippet(exc.read() if exc.fp is not None else b"")
            except OSError:
                detail = ""
            raise ExtractorUnavailable(
                f"{where}: {url} answered HTTP {exc.code} {exc.reason}"
                + (f": {detail}" if detail else "")) from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, TimeoutError):
                raise ExtractorUnavailable(self._timeout_message(where, url)) from None
            if isinstance(reason, ConnectionRefusedError):
                raise ExtractorUnavailable(f"{where}: connection refused by {url}") from None
            raise ExtractorUnavailable(f"{where}: cannot reach {url}: {reason}") from None
        except TimeoutError:
            raise ExtractorUnavailable(self._timeout_message(where, url)) from None
        except ConnectionRefusedError:
            raise ExtractorUnavailable(f"{where}: connection refused by {url}") from None
        except (OSError, ValueError) as exc:  # reset connection, bad URL, protocol errors
            raise ExtractorUnavailable(f"{where}: request to {url} failed: {exc}") from None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ExtractorUnavailable(
                f"{where}: response from {url} is not JSON: {_snippet(raw)!r}") from None

    def _timeout_message(self, where: str, url: str) -> str:
        return f"{where}: timeout after {self.timeout:g} s waiting for {url}"

    def _where(self, turn: Turn) -> str:
        return f"extractor {self.name}, session {turn.session!r} turn {turn.turn}"

    # ------------------------------------------------------------ response

    def _content(self, response: Any, turn: Turn) -> Any:
        """The JSON decoded from choices[0].message.content."""
        where = self._where(turn)
        try:
            content = response["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ExtractorUnavailable(
                f"{where}: response has no choices[0].message.content") from None
        if not isinstance(content, str):
            raise ExtractorUnavailable(
                f"{where}: choices[0].message.content must be a string, got "
                f"{type(content).__name__}")
        text = content.strip()
        fenced = _FENCE.search(text)
        if fenced:
            text = fenced.group(1).strip()
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ExtractorUnavailable(
                f"{where}: model output is not valid JSON ({exc.msg} at column {exc.colno}): "
                f"{_snippet(content.encode('utf-8'))!r}") from None

    def _to_claims(self, content: Any, turn: Turn) -> list[ClaimInput]:
        where = self._where(turn)
        if not isinstance(content, dict) or not isinstance(content.get("facts"), list):
            raise ExtractorUnavailable(
                f'{where}: model output must be a JSON object {{"facts": [...]}}, got '
                f"{_snippet(json.dumps(content, ensure_ascii=False).encode('utf-8'))!r}")
        source = {
            "session": turn.session, "turn": turn.turn, "speaker": turn.speaker,
            "kind": "user_explicit" if turn.speaker == "user" else "agent_inferred",
            "text": turn.text, "time": turn.time.isoformat(),
        }
        out: list[ClaimInput] = []
        for number, fact in enumerate(content["facts"], start=1):
            if not isinstance(fact, dict):
                raise ExtractorUnavailable(
                    f"{where}: fact {number} must be a JSON object, got {type(fact).__name__}")
            unknown = sorted(set(fact) - _FACT_FIELDS)
            if unknown:
                raise ExtractorUnavailable(
                    f"{where}: fact {number} has unknown field(s): {', '.join(unknown)}")
            line = dict(fact)
            if line.get("subject") is None:
                line["subject"] = f"user:{turn.user}"
            line["source"] = source
            line["extractor"] = self.name
            try:
                out.append(ClaimInput.from_dict(line))
            except InvalidInput as exc:
                raise ExtractorUnavailable(f"{where}: fact {number} is invalid: {exc}") from None
        return out


# ---------------------------------------------------------------- prompts

def _system_prompt(turn: Turn) -> str:
    catalog = Catalog.load()
    lines = []
    for p in catalog:
        kind = "single-valued" if p.single_valued else "multi-valued"
        lines.append(f"- {p.id}: {p.en} / {p.zh} ({kind})")
    subjects = f'"user:{turn.user}" (the user)'
    if turn.project:
        team = ", ".join(p.id for p in catalog if p.team)
        subjects += f', or "project:{turn.project}" for the project\'s facts ({team})'
    return "\n".join([
        "You extract lasting facts about the user from one conversation turn "
        "(Chinese or English) for a memory store.",
        "Answer with JSON only, no prose, in exactly this shape:",
        '{"facts": [{"subject": "...", "predicate": "...", "object": "...", "value": null, '
        '"polarity": "positive", "scope": "global", "change": null, "confidence": 0.9, '
        '"valid_from": "ISO 8601 with offset (optional)", '
        '"event_time": {"start": "ISO 8601 with offset", "end": "ISO 8601 with offset"} }]}',
        f"subject: {subjects}.",
        "predicate: one of these catalog ids (snake_case):",
        *lines,
        "object: a short normalised phrase in the language of the turn.",
        "value: null, or plain JSON for amounts and dates, e.g. "
        '{"amount": 5000, "currency": "CNY"}.',
        "polarity: positive, negative or neutral. scope: global, project or session.",
        "change: \"evolution\" when the user says something changed (moved to, raised to), "
        "\"correction\" when the user corrects what they just said, \"ending\" when a state "
        "stopped holding with nothing said in its place (quit a job, moved out, no longer vegan: "
        "object the value that ended, or empty when it is not named; valid_from when it ended), "
        "otherwise null.",
        "confidence: a number between 0 and 1.",
        "valid_from (optional): when the new state began, for evolutions. "
        "event_time (optional): the resolved time the statement is about. "
        f"Resolve relative dates against the turn time {turn.time.isoformat()}; "
        "every time must carry a UTC offset.",
        "Skip small talk, questions, temporary states, hypotheticals and facts about other "
        "people. The assistant's words are never facts by themselves. "
        'If there is nothing worth remembering, answer {"facts": []}.',
    ])


def _user_prompt(turn: Turn, context: Sequence[Turn]) -> str:
    parts = []
    recent = list(context)[-CONTEXT_TURNS:]
    if recent:
        parts.append("Earlier turns (context only, do not extract from them):")
        parts.extend(f"[{t.time.isoformat()}] {t.speaker}: {t.text}" for t in recent)
        parts.append("")
    parts.append("Turn to extract from:")
    parts.append(f"[{turn.time.isoformat()}] {turn.speaker}: {turn.text}")
    return "\n".join(parts)


def _snippet(raw: bytes, limit: int = 200) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    return text if len(text) <= limit else text[:limit] + "…"
