"""Value labels from the conversation sets (core/signals/conversation_labels.py) and the tagger trained on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.signals import train_spans
from memdesk.signals.conversation_labels import conversation_labels, set_labels


def _set(root: Path, name: str, turns: list[tuple[str, str]], facts: list[dict]) -> Path:
    folder = root / "convo_blind" / name
    folder.mkdir(parents=True)
    rows = [{"session": "s1", "turn": i, "speaker": who, "user": "ann", "time": f"2026-03-0{1 + i // 9}T10:0{i % 9}:00+00:00",
             "text": text} for i, (who, text) in enumerate(turns, 1)]
    (folder / "conversations.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    (folder / "expect.jsonl").write_text("".join(json.dumps(f, ensure_ascii=False) + "\n" for f in facts), "utf-8")
    return folder


def _fact(turn: int, predicate: str | None, obj: str, **more: object) -> dict:
    line: dict = {"kind": "fact", "subject": "user:ann", "object": obj, "turn": ["s1", turn], **more}
    if predicate is not None:
        line["predicate"] = predicate
    return line


def test_each_fact_is_placed_where_its_value_is_said_and_a_turn_that_paraphrases_is_left_out(tmp_path: Path):
    folder = _set(tmp_path, "setA", [
        ("assistant", "Where are you based these days?"),
        ("user", "moved to leeds last month, tbh I don't eat pork any more"),  # case aside; a negated value
        ("assistant", "Noted."),
        ("user", "预算最多八万，别超了"),  # an amount placed by its value
        ("user", "I'll sort the venue thing soon"),  # a paraphrase the turn never says: left out
        ("user", "lovely weather today"),  # no fact: kept, no value
        ("user", "sis says hi"),  # a fact that may be one of two predicates: left out
        ("user", "status: busy, off to Bristol Tuesday"),  # a predicate the tagger does not tag: ignored
    ], [
        _fact(2, "lives_in", "Leeds"),
        _fact(2, "diet", "pork", polarity="negative", accept=["pork meat"]),
        _fact(4, "budget_limit", "80000 CNY"),
        _fact(5, "todo", "book the venue", keywords=["venue"]),
        _fact(7, None, "hi", predicate_any=["plan", "todo"]),
        _fact(8, "status", "busy"),
    ])
    labels = set_labels(folder)
    assert (labels.turns, labels.kept, labels.values) == (6, 4, 3)
    said = {(c.text[v.start:v.end], v.label) for c in labels.clauses for v in c.values}
    assert said == {("leeds", "lives_in"), ("pork", "diet~neg"), ("八万", "budget_limit")}
    leeds = next(c for c in labels.clauses if "leeds" in c.text)
    assert leeds.author == "setA" and leeds.lang == "en" and leeds.assistant == "Where are you based these days?"
    assert any(c.text == "lovely weather today" and not c.values for c in labels.clauses)
    assert not any("venue" in c.text or "sis" in c.text for c in labels.clauses)


def test_a_missing_set_or_file_is_one_line(tmp_path: Path):
    with pytest.raises(SystemExit, match="no conversation set 'nope' under"):
        conversation_labels(tmp_path, ["nope"])
    (tmp_path / "convo_dev" / "half").mkdir(parents=True)
    (tmp_path / "convo_dev" / "half" / "conversations.jsonl").write_text("", "utf-8")
    with pytest.raises(SystemExit, match="half: no expect.jsonl"):
        conversation_labels(tmp_path, ["half"])


def _labelled_author(data: Path) -> None:
    (data / "train" / "A").mkdir(parents=True)
    rows = [{"id": f"a-{i}", "lang": "en", "assistant": "", "text": f"I live in {p} now", "clauses": [
        {"span": f"I live in {p} now", "about": "user", "act": "statement", "family": "residence",
         "facts": [{"predicate": "lives_in", "value": p, "polarity": "positive", "about": "user"}]}]}
            for i, p in enumerate(["Leeds", "Bristol", "Austin", "Denver", "Lisbon"])]
    (data / "train" / "A" / "part-01.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")


def test_the_tagger_trains_on_the_sets_its_file_names_and_never_on_one_it_holds_out(tmp_path: Path):
    data, sets = tmp_path / "data", tmp_path / "sets"
    _labelled_author(data)
    _set(sets, "setA", [("user", f"I'm a {job} at the hospital") for job in ("nurse", "porter", "cleaner")],
         [_fact(i, "role", job) for i, job in enumerate(("nurse", "porter", "cleaner"), 1)])
    _set(sets, "setB", [("user", "hi")], [])
    alone, with_set = tmp_path / "alone.crfsuite", tmp_path / "with.crfsuite"
    args = ["--data", str(data), "--sets", str(sets)]
    assert train_spans.main([*args, "--out", str(alone)]) == 0
    (data / "train" / "tagger.toml").write_text('conversations = ["setA"]\nconversation_dev = ["setB"]\n', "utf-8")
    assert train_spans.main([*args, "--out", str(with_set)]) == 0
    assert alone.read_bytes() != with_set.read_bytes()
    (data / "train" / "tagger.toml").write_text('conversations = ["setA"]\nconversation_dev = ["setA"]\n', "utf-8")
    with pytest.raises(SystemExit, match="setA both trained on and held out"):
        train_spans.main([*args, "--out", str(tmp_path / "m")])
    (data / "train" / "tagger.toml").write_text('conversations = "setA"\n', "utf-8")
    with pytest.raises(SystemExit, match="'conversations' must be a list of names"):
        train_spans.main([*args, "--out", str(tmp_path / "m")])
