"""The value judge (core/signals/judge.py), its place in the layer, and its training script."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from memdesk.claims import ClaimInput
from memdesk.ingest import RuleExtractor, SignalledExtractor
from memdesk.pipeline import HEDGED_CONFIDENCE, SourceRef, Turn
from memdesk.signals import train_judge
from memdesk.signals.judge import FORMAT, NEAR, SEP, JudgedValue, ValueJudge, features
from memdesk.signals.layer import SignalLayer, judged_value
from memdesk.timeutil import to_us

WHEN = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


def turn(text: str) -> Turn:
    return Turn(session="s", turn=1, speaker="user", time=WHEN, text=text, user="ann")


def claim(predicate: str, obj: str, t: Turn, **kw: object) -> ClaimInput:
    fields: dict = {"subject": "user:ann", "predicate": predicate, "object": obj,
                    "source": SourceRef(session=t.session, turn=t.turn, text=t.text, time=to_us(t.time),
                                        kind="user_explicit"),
                    "valid_from": to_us(t.time), "confidence": 0.9, "extractor": "rules@1"}
    fields.update(kw)
    return ClaimInput(**fields)


def judging(*bad: str) -> ValueJudge:
    """A judge that finds a value unlikely only when it has one of ``bad`` features."""
    return ValueJudge.of({f: -20.0 for f in bad}, 5.0, 0.5)


# -- features ------------------------------------------------------------


def test_features_read_the_value_its_edges_and_the_words_around_it():
    v = JudgedValue("budget_limit", "60000 CAD", None, "the reno budget is 60000 CAD max")
    got = features(v)
    assert got == sorted(set(got))
    assert {"p:budget_limit", "u:budget_limit:2", "v:budget_limit:True",
            "f:#", "l:cad", "b:is", "bb:budget is", "a:max"} <= set(got)
    assert not any(f.startswith(("n:", "s:")) for f in got)  # polarity, whose: filing conventions, no shape


def test_a_number_is_read_by_its_shape_and_a_value_not_said_has_no_context():
    a = features(JudgedValue("budget_limit", "1500 GBP", None, "1500 tops for the move"))
    b = features(JudgedValue("budget_limit", "2400 GBP", None, "2400 tops for the move"))
    assert a == b
    assert "v:budget_limit:False" in a and not any(f.startswith(("b:", "a:")) for f in a)


def test_a_value_opening_or_closing_the_turn_is_marked_so():
    got = features(JudgedValue("plan", "move to Leeds", None, "move to Leeds"))
    assert {"b:plan:<start>", "a:plan:<end>"} <= set(got)


def test_the_work_per_value_is_bounded_by_the_characters_near_it():
    text = "we decided on the blue van, final"
    far = "x " * 200_000 + text + " y" * 200_000
    assert features(JudgedValue("decision", "blue van", None, text)) != []
    # what lies beyond NEAR characters of the value does not change what the judge reads
    near_only = features(JudgedValue("decision", "blue van", None, far))
    assert near_only == features(JudgedValue("decision", "blue van", None,
                                             far[far.find("blue van") - NEAR:far.find("blue van") + 8 + NEAR]))


# -- the shipped judge ----------------------------------------------------


def test_the_shipped_judge_loads_and_reads_deterministically():
    judge = ValueJudge()
    assert 0.0 < judge.threshold <= 0.5 and judge.weights
    v = JudgedValue("plan", "be", None, "hoping to be in by mid may")
    p = judge.likely(v)
    assert 0.0 < p < 1.0 and p == judge.likely(v)
    assert judge.keeps(v) == (p >= judge.threshold)


def test_a_judge_file_of_another_format_or_shape_is_refused(tmp_path):
    path = tmp_path / "judge.npz"
    vocab = np.frombuffer(SEP.join(["p:plan", "u:plan:1"]).encode("utf-8"), dtype=np.uint8)
    np.savez(path, format=np.array(FORMAT + 1), vocab=vocab, weights=np.zeros(2, np.float32),
             bias=np.array(0.0), threshold=np.array(0.2))
    with pytest.raises(ValueError, match="format"):
        ValueJudge(path)
    np.savez(path, format=np.array(FORMAT), vocab=vocab, weights=np.zeros(3, np.float32),
             bias=np.array(0.0), threshold=np.array(0.2))
    with pytest.raises(ValueError, match="2 features but 3 weights"):
        ValueJudge(path)
    with pytest.raises(FileNotFoundError):
        ValueJudge(tmp_path / "missing.npz")


def test_the_judge_that_keeps_all_keeps_every_value():
    judge = ValueJudge.keeping_all()
    v = JudgedValue("plan", "be", None, "be")
    assert judge.likely(v) == 1.0 and judge.keeps(v)


# -- in the layer ---------------------------------------------------------


def test_the_judge_reads_only_an_extractors_value_about_to_be_written():
    lay = SignalLayer(judge=ValueJudge.keeping_all())
    t = turn("we dropped the van, going with the bike")
    assert lay.judged(claim("decision", "bike", t))
    assert not lay.judged(claim("decision", "bike", t, extractor=lay.name))  # the layer's own
    assert not lay.judged(claim("decision", "bike", t, confidence=HEDGED_CONFIDENCE))  # waiting already
    assert not lay.judged(claim("decision", "van", t, change="correction", polarity="negative"))  # retired
    assert not lay.judged(claim("deadline", "", t, change="evolution"))  # the one said last moves
    assert not lay.judged(claim("lives_in", "Leeds", t, change="ending"))
    assert not lay.judged(claim("note", "we dropped the van", t))
    assert not lay.judged(claim("decision", "bike", t, source=SourceRef(session="s", turn=1, text=t.text, time=0,
                                                                                kind="agent_inferred")))


def test_a_value_the_judge_finds_unlikely_waits_for_a_reviewer_and_others_are_written():
    lay = SignalLayer(judge=judging("f:be"))
    t = turn("hoping to be in by mid may, and I live in Leeds")
    out = lay.judge_claims(t, [claim("plan", "be", t), claim("lives_in", "Leeds", t)])
    assert [c.confidence for c in out] == [HEDGED_CONFIDENCE, 0.9]
    assert [c.object for c in out] == ["be", "Leeds"]  # nothing lost: the value is kept, to review


def test_the_signalled_extractor_judges_what_it_returns():
    t = turn("I live in Leeds")
    kept = SignalledExtractor(RuleExtractor(), SignalLayer(judge=ValueJudge.keeping_all())).claims(t, [])
    queued = SignalledExtractor(RuleExtractor(), SignalLayer(judge=judging("p:lives_in"))).claims(t, [])
    home = [c for c in kept if c.predicate == "lives_in"]
    assert home and home[0].confidence > HEDGED_CONFIDENCE
    assert [c.confidence for c in queued if c.predicate == "lives_in"] == [HEDGED_CONFIDENCE]


def test_judged_value_reads_the_claim_in_its_turn_and_not_whose_it_is():
    t = turn("my sister lives in Hull")
    v = judged_value(claim("lives_in", "Hull", t, subject="person:ann/sister"), t)
    assert (v.predicate, v.object, v.change, v.text) == ("lives_in", "Hull", None, t.text)
    assert judged_value(claim("lives_in", "Hull", t), t) == v  # another person's value is judged as the user's


# -- training -------------------------------------------------------------


def _write_set(root: Path, name: str, turns: list[dict], facts: list[dict]) -> None:
    folder = root / "convo_dev" / name
    folder.mkdir(parents=True)
    (folder / "conversations.jsonl").write_text("".join(json.dumps(t) + "\n" for t in turns), "utf-8")
    (folder / "expect.jsonl").write_text("".join(json.dumps(f) + "\n" for f in facts), "utf-8")


def test_training_examples_are_the_values_written_with_whether_their_author_recorded_them(tmp_path):
    turns = [{"session": "a", "turn": 1, "speaker": "user", "time": "2026-03-02T09:00:00+00:00",
              "text": "I live in Leeds and I work at Acme", "user": "ann"}]
    facts = [{"kind": "fact", "subject": "user:ann", "predicate": "lives_in", "object": "Leeds", "turn": ["a", 1]}]
    _write_set(tmp_path, "tiny", turns, facts)
    got = {(e.value.predicate, e.value.object, e.right) for e in train_judge.set_examples(tmp_path, ["tiny"])}
    assert ("lives_in", "Leeds", True) in got and ("works_at", "Acme", False) in got


def test_a_value_filed_under_another_predicate_or_polarity_counts_as_recorded(tmp_path):
    turns = [{"session": "a", "turn": 1, "speaker": "user", "time": "2026-03-02T09:00:00+00:00",
              "text": "I don't eat pork", "user": "ann"}]
    facts = [{"kind": "fact", "subject": "user:ann", "predicate": "dislikes", "object": "pork"}]
    _write_set(tmp_path, "tiny", turns, facts)
    assert [e.right for e in train_judge.set_examples(tmp_path, ["tiny"]) if e.value.object == "pork"] == [True]


def test_a_malformed_set_or_list_stops_training_with_one_line(tmp_path):
    _write_set(tmp_path, "bad", [{"session": "a", "turn": "x"}], [])
    with pytest.raises(SystemExit, match=r"conversations.jsonl:1"):
        train_judge.set_examples(tmp_path, ["bad"])
    with pytest.raises(SystemExit, match="no conversation set 'gone'"):
        train_judge.set_examples(tmp_path, ["gone"])
    (tmp_path / "judge.toml").write_text('conversations = ["a"]\ndev = ["a"]\n', "utf-8")
    with pytest.raises(SystemExit, match="a both trained on and held out"):
        train_judge.chosen_sets(tmp_path)
    (tmp_path / "judge.toml").write_text('conversations = "a"\n', "utf-8")
    with pytest.raises(SystemExit, match="must be a list"):
        train_judge.chosen_sets(tmp_path)
    with pytest.raises(SystemExit, match="judge.toml"):
        train_judge.chosen_sets(tmp_path / "nowhere")


def _examples(pairs: list[tuple[str, bool]]) -> list[train_judge.Example]:
    return [train_judge.Example(f"set{i % 7}", JudgedValue("plan", obj, None, f"so {obj} then"), right)
            for i, (obj, right) in enumerate(pairs)]


def test_the_fit_is_deterministic_and_learns_which_values_are_fragments():
    pytest.importorskip("sklearn")  # the train extra
    examples = _examples([("be", False), ("it", False), ("move to Leeds", True), ("sell the van", True)] * 12)
    first, second = train_judge.fit(examples), train_judge.fit(examples)
    assert first[0] == second[0] and np.array_equal(first[1], second[1]) and first[2] == second[2]
    judge = train_judge._judge(*first, 0.5)
    assert judge.likely(examples[0].value) < 0.5 < judge.likely(examples[2].value)


def test_the_threshold_is_the_highest_sending_few_right_values_to_review():
    examples = _examples([("a", False)] * 8 + [("b", True)] * 8)
    p = np.array([0.02] * 8 + [0.3] * 8)
    assert train_judge.threshold_for(examples, p) == 0.3  # below 0.3 only wrong values are sent
    p = np.array([0.4] * 8 + [0.02] * 8)
    assert train_judge.threshold_for(examples, p) == 0.0  # every threshold sends right values first
