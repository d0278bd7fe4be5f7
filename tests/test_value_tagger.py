"""The value tagger (core/signals/spans.py) and its training script (core/signals/train_spans.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.signals import train_spans
from memdesk.signals.spans import SpanTagger, Unit, asked, features, spans_of, tokenize


def test_units_are_cjk_characters_words_numbers_and_marks_with_their_places():
    text = "我住张江, moved in 2026 (£7,500)"
    units = tokenize(text)
    assert [u.text for u in units] == ["我", "住", "张", "江", ",", "moved", "in", "2026", "(", "£", "7,500", ")"]
    assert all(text[u.start:u.end] == u.text for u in units)


def test_spans_are_read_from_tags_an_orphan_inside_tag_opening_one():
    text = "I live in New York, love sushi"
    units = tokenize(text)
    tags = ["O", "O", "O", "B-lives_in", "I-lives_in", "O", "O", "I-likes~neg"]
    spans = spans_of(units, tags, [1.0, 1.0, 1.0, 0.9, 0.7, 1.0, 1.0, 0.6], text)
    assert [(s.predicate, s.polarity, s.text, round(s.probability, 2)) for s in spans] == [
        ("lives_in", "positive", "New York", 0.8), ("likes", "negative", "sushi", 0.6)]


def test_features_read_the_neighbours_and_what_the_assistant_asked():
    units = [Unit("tram", 0, 4)]
    (only,) = features(units, "en", asked("How do you get to work these days?"))
    assert {"w=tram", "w-1=<s>", "w+1=</s>", "first", "last", "a=work", "a=days"} <= set(only)
    assert "a=?" not in only


def _write(folder: Path, author: str, turns: list[dict]) -> None:
    (folder / author).mkdir(parents=True)
    (folder / author / "part-01.jsonl").write_text(
        "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in turns), "utf-8")


def _turn(n: int, place: str) -> dict:
    text = f"we moved, I live in {place} now"
    return {"id": f"x-{n}", "lang": "en", "assistant": "", "text": text, "clauses": [
        {"span": "we moved", "about": "user", "act": "statement", "family": "none", "facts": []},
        {"span": f"I live in {place} now", "about": "user", "act": "change", "family": "residence",
         "facts": [{"predicate": "lives_in", "value": place, "polarity": "positive", "about": "user"}]}]}


def test_training_is_deterministic_and_the_tagger_learns_the_frame(tmp_path: Path):
    places = ["Leeds", "Bristol", "Austin", "Denver", "Lisbon", "Porto", "Osaka", "Perth", "Quito", "Dakar"]
    _write(tmp_path / "train", "A", [_turn(i, p) for i, p in enumerate(places)])
    _write(tmp_path / "train", "B", [_turn(i + 10, p) for i, p in enumerate(reversed(places))])
    first, second = tmp_path / "one.crfsuite", tmp_path / "two.crfsuite"
    assert train_spans.main(["--data", str(tmp_path), "--out", str(first)]) == 0
    assert train_spans.main(["--data", str(tmp_path), "--out", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    spans = SpanTagger(first).tag("I live in Nairobi now", "en")
    assert [(s.predicate, s.text) for s in spans] == [("lives_in", "Nairobi")]


def test_the_tagger_trains_on_the_authors_its_file_names(tmp_path: Path):
    """``train/tagger.toml`` names the authors the tagger reads; ``--authors`` overrides it; an author
    it names that wrote nothing is one line."""
    places = ["Leeds", "Bristol", "Austin", "Denver", "Lisbon", "Porto", "Osaka", "Perth", "Quito", "Dakar"]
    _write(tmp_path / "train", "A", [_turn(i, p) for i, p in enumerate(places)])
    _write(tmp_path / "train", "B", [_turn(i + 10, p) for i, p in enumerate(reversed(places))])
    (tmp_path / "train" / "tagger.toml").write_text('authors = ["A"]\n', "utf-8")
    only_a, both = tmp_path / "a.crfsuite", tmp_path / "ab.crfsuite"
    assert train_spans.main(["--data", str(tmp_path), "--out", str(only_a)]) == 0
    assert train_spans.main(["--data", str(tmp_path), "--out", str(both), "--authors", "A,B"]) == 0
    assert only_a.read_bytes() != both.read_bytes()
    with pytest.raises(SystemExit, match="by C under"):
        train_spans.main(["--data", str(tmp_path), "--out", str(tmp_path / "m"), "--authors", "A,C"])


@pytest.mark.parametrize("line, message", [
    ({"text": "I live in Leeds", "clauses": [{"span": "I live in Leeds", "facts": [
        {"predicate": "lives_in", "value": "York"}]}]}, "value 'York' is not in its span"),
    ({"text": "I live in Leeds", "clauses": [{"span": "I live in Leeds", "facts": [
        {"predicate": "home", "value": "Leeds"}]}]}, "predicate 'home' is not one of"),
    ({"text": "I live in Leeds", "clauses": [{"span": "I am in York", "facts": []}]}, "is not in the text"),
])
def test_a_bad_label_is_one_line_naming_the_file_and_line(tmp_path: Path, line: dict, message: str):
    _write(tmp_path / "train", "A", [line])
    with pytest.raises(SystemExit) as exc:
        train_spans.main(["--data", str(tmp_path), "--out", str(tmp_path / "m")])
    assert message in str(exc.value) and "part-01.jsonl:1" in str(exc.value)


def test_the_shipped_tagger_loads_and_tags_without_error():
    tagger = SpanTagger()
    for text, lang in [("我现在住在杭州", "zh"), ("my sister lives in Denver", "en"), ("", "en")]:
        for span in tagger.tag(text, lang):
            assert text[span.start:span.end] == span.text and 0.0 <= span.probability <= 1.0
