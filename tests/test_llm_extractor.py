"""The LLM extractor against a scripted chat-completions stub on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from memdesk.errors import InvalidInput, MemdeskError
from memdesk.extract.llm import ExtractorUnavailable, LLMExtractor
from memdesk.ingest import Extractor
from memdesk.pipeline import Turn
from memdesk.timeutil import to_us

CST = timezone(timedelta(hours=8))
WHEN = datetime(2026, 3, 18, 9, 30, tzinfo=CST)
TURN = Turn("s1", 18, "user", WHEN, "我上周末搬到张江了", "alice")
EARLIER = Turn("s1", 17, "assistant", WHEN - timedelta(minutes=1), "最近怎么样？", "alice")


@dataclass
class Stub:
    """What the stub answers (status, raw body, delay) and what it received."""

    status: int = 200
    body: bytes = b""
    delay: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    url: str = ""

    def reply(self, content: Any, status: int = 200) -> None:
        """Answer with a chat-completions response whose message content is
        ``content`` (a string as is, anything else JSON-encoded)."""
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        self.status = status
        self.body = json.dumps({"choices": [{"index": 0, "message": {
            "role": "assistant", "content": text}}]}).encode("utf-8")


@pytest.fixture
def stub() -> Iterator[Stub]:
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            state.requests.append({
                "path": self.path,
                "headers": dict(self.headers.items()),
                "body": json.loads(self.rfile.read(length) or b"null"),
            })
            if state.delay:
                state.release.wait(state.delay)  # released at teardown
                return
            try:
                self.send_response(state.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(state.body)))
                self.end_headers()
                self.wfile.write(state.body)
            except OSError:
                pass

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=2)


def _fact(**changes: Any) -> dict[str, Any]:
    fact = {"subject": "user:alice", "predicate": "lives_in", "object": "张江", "value": None,
            "polarity": "positive", "scope": "global", "change": "evolution",
            "confidence": 0.92, "valid_from": "2026-03-14T00:00:00+08:00"}
    fact.update(changes)
    return fact


def _extractor(stub: Stub, **kw: Any) -> LLMExtractor:
    kw.setdefault("timeout", 2)
    return LLMExtractor(base_url=stub.url, model="tiny-model", **kw)


# ---------------------------------------------------------------- success

def test_valid_response_becomes_claims(stub: Stub) -> None:
    stub.reply({"facts": [_fact(), _fact(predicate="likes", object="咖啡", change=None,
                                         valid_from=None, confidence=0.8)]})
    ex: Extractor = _extractor(stub)  # satisfies the ingest protocol
    claims = ex.claims(TURN, [EARLIER])
    assert [(c.subject, c.predicate, c.object) for c in claims] == [
        ("user:alice", "lives_in", "张江"), ("user:alice", "likes", "咖啡")]
    first = claims[0]
    assert first.extractor == ex.name == "llm:tiny-model@1"
    assert first.change == "evolution" and first.confidence == 0.92
    assert first.valid_from == to_us(datetime(2026, 3, 14, tzinfo=CST))
    src = first.source
    assert (src.session, src.turn, src.speaker, src.kind, src.text) == (
        "s1", 18, "user", "user_explicit", "我上周末搬到张江了")
    assert src.time == to_us(WHEN) and src.tz == 480
    assert claims[1].valid_from == to_us(WHEN)  # defaults to the utterance time


def test_request_carries_model_turn_and_catalog(stub: Stub) -> None:
    stub.reply({"facts": []})
    assert _extractor(stub).claims(TURN, [EARLIER]) == []
    [req] = stub.requests
    assert req["path"] == "/v1/chat/completions"
    assert "Authorization" not in req["headers"]
    body = req["body"]
    assert body["model"] == "tiny-model"
    text = "\n".join(m["content"] for m in body["messages"])
    assert "我上周末搬到张江了" in text and "最近怎么样？" in text
    assert "lives_in" in text and "budget_limit" in text and "user:alice" in text


def test_api_key_sent_as_bearer(stub: Stub) -> None:
    stub.reply({"facts": []})
    _extractor(stub, api_key="sk-test").claims(TURN, [])
    assert stub.requests[0]["headers"]["Authorization"] == "Bearer sk-test"


def test_fenced_json_content(stub: Stub) -> None:
    stub.reply("```json\n" + json.dumps({"facts": [_fact()]}, ensure_ascii=False) + "\n```")
    [claim] = _extractor(stub).claims(TURN, [])
    assert (claim.predicate, claim.object) == ("lives_in", "张江")


def test_assistant_turn_is_agent_inferred_and_subject_defaults(stub: Stub) -> None:
    stub.reply({"facts": [{"predicate": "diet", "object": "vegetarian", "confidence": 0.5}]})
    turn = Turn("s2", 3, "assistant", WHEN, "You seem to be vegetarian?", "bob")
    [claim] = _extractor(stub).claims(turn, [])
    assert claim.subject == "user:bob"
    assert (claim.source.kind, claim.source.speaker) == ("agent_inferred", "assistant")


# ---------------------------------------------------------------- failures

def test_timeout(stub: Stub) -> None:
    stub.reply({"facts": []})
    stub.delay = 3.0
    with pytest.raises(ExtractorUnavailable, match="timeout") as info:
        _extractor(stub, timeout=0.5).claims(TURN, [])
    assert "turn 18" in str(info.value)


def test_http_500(stub: Stub) -> None:
    stub.status, stub.body = 500, b'{"error": "boom"}'
    with pytest.raises(ExtractorUnavailable, match="HTTP 500"):
        _extractor(stub).claims(TURN, [])


def test_response_not_json(stub: Stub) -> None:
    stub.body = b"<html>gateway</html>"
    with pytest.raises(ExtractorUnavailable, match="response .* is not JSON"):
        _extractor(stub).claims(TURN, [])


def test_no_choices(stub: Stub) -> None:
    stub.body = b'{"error": {"message": "model not loaded"}}'
    with pytest.raises(ExtractorUnavailable, match=r"choices\[0\]\.message\.content"):
        _extractor(stub).claims(TURN, [])


def test_content_not_json(stub: Stub) -> None:
    stub.reply("Sure! The user moved to Zhangjiang.")
    with pytest.raises(ExtractorUnavailable, match="model output is not valid JSON"):
        _extractor(stub).claims(TURN, [])


@pytest.mark.parametrize("content", [[_fact()], {"facts": {"a": 1}}, {"fact": []}])
def test_content_wrong_shape(stub: Stub, content: Any) -> None:
    stub.reply(content)
    with pytest.raises(ExtractorUnavailable, match=r'\{"facts": \[\.\.\.\]\}'):
        _extractor(stub).claims(TURN, [])


@pytest.mark.parametrize("bad, field_name", [
    ({"predicate": "Lives In"}, "predicate"),
    ({"valid_from": "next tuesday"}, "valid_from"),
    ({"valid_from": "2026-03-14T00:00:00"}, "valid_from"),
    ({"event_time": {"start": "soon"}}, "event_time.start"),
    ({"confidence": 7}, "confidence"),
    ({"object": None}, "object"),
    ({"source": {"session": "x"}}, "source"),
])
def test_invalid_fact_names_field_and_drops_whole_turn(stub: Stub, bad: dict,
                                                       field_name: str) -> None:
    stub.reply({"facts": [_fact(), _fact(**bad)]})
    with pytest.raises(ExtractorUnavailable) as info:
        _extractor(stub).claims(TURN, [])
    message = str(info.value)
    assert "fact 2" in message and field_name in message


def test_connection_refused() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ex = LLMExtractor(base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout=1)
    with pytest.raises(ExtractorUnavailable, match="connection refused"):
        ex.claims(TURN, [])


def test_error_class() -> None:
    assert issubclass(ExtractorUnavailable, MemdeskError)
    assert issubclass(ExtractorUnavailable, RuntimeError)


# ---------------------------------------------------------------- configuration

def test_from_env() -> None:
    env = {"MEMDESK_LLM_BASE_URL": "http://127.0.0.1:1/v1", "MEMDESK_LLM_MODEL": "qwen",
           "MEMDESK_LLM_API_KEY": "k"}
    ex = LLMExtractor.from_env(env)
    assert (ex.base_url, ex.model, ex.api_key, ex.timeout) == (
        "http://127.0.0.1:1/v1", "qwen", "k", 30.0)
    assert ex.name == "llm:qwen@1"
    assert LLMExtractor.from_env({k: v for k, v in env.items()
                                  if k != "MEMDESK_LLM_API_KEY"}).api_key is None


@pytest.mark.parametrize("missing", ["MEMDESK_LLM_BASE_URL", "MEMDESK_LLM_MODEL"])
def test_from_env_missing_variable(missing: str) -> None:
    env = {"MEMDESK_LLM_BASE_URL": "http://127.0.0.1:1/v1", "MEMDESK_LLM_MODEL": "qwen"}
    del env[missing]
    with pytest.raises(InvalidInput, match=missing):
        LLMExtractor.from_env(env)
