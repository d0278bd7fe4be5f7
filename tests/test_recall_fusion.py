"""The word channel (core/recall/bm25.py), score fusion (core/recall/fusion.py)
and what they do for recall over turns and for facts told in turns."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from memdesk import Store
from memdesk.recall import Recaller
from memdesk.recall.bm25 import Bm25Index, analyze
from memdesk.recall.fusion import fuse, relevance_of, zscores

from .recall_fixtures import HashEmbedder


def test_analyze_stems_english_and_pairs_chinese():
    tokens = analyze("I moved my vets' appointments to Bristol; 预算五千元，猫")
    assert "move" in tokens and "vet" in tokens and "appoint" in tokens and "bristol" in tokens
    assert "i" not in tokens and "my" not in tokens and "to" not in tokens  # stopwords
    assert "预算" in tokens and "5000" in tokens  # numerals folded to digits
    assert "猫" in tokens  # a one-character run stands for itself


def test_bm25_scores_rare_words_and_nothing_for_unknown_words():
    ix = Bm25Index([10, 11, 12], ["the vet said Mochi is fine", "the weather was fine",
                                  "we talked about the weather"])
    scores = ix.scores("what did the vet say about Mochi")
    assert scores.argmax() == 0 and scores[1] == scores[2] == 0
    assert not ix.scores("zzz unknown").any()
    assert len(Bm25Index([], [])) == 0 and not Bm25Index([], []).scores("vet").any()


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=50))
def test_zscores_are_standardised_or_zero(values):
    z = zscores(np.asarray(values))
    if np.ptp(values) < 1e-6:
        return
    assert abs(z.mean()) < 1e-6 and (z.std() == 0 or abs(z.std() - 1) < 1e-6)


def test_fuse_weights_channels_and_refuses_mismatched_lengths():
    dense, words = np.array([0.9, 0.5, 0.1]), np.array([0.0, 0.0, 5.0])
    assert fuse([(dense, 1.0), (words, 0.0)]).argmax() == 0
    assert fuse([(dense, 0.0), (words, 1.0)]).argmax() == 2
    assert not fuse([(np.ones(3), 1.0)]).any()  # a channel that tells nothing apart adds nothing
    with pytest.raises(ValueError):
        fuse([(dense, 1.0), (np.ones(2), 1.0)])
    assert relevance_of(0.0) == 0.5 and relevance_of(4.0) > relevance_of(1.0) > 0.5


def write(path, turns, user="ines", project=None):
    with path.open("w", encoding="utf-8") as fh:
        for n, (speaker, text) in enumerate(turns, 1):
            row = {"session": f"{user}-s1", "turn": n, "speaker": speaker, "text": text,
                   "time": f"2026-01-05T10:{n:02d}:00+01:00", "user": user}
            if project:
                row["project"] = project
            fh.write(json.dumps(row) + "\n")
    return path


def test_a_turn_is_found_through_the_question_it_answers(store: Store, tmp_path):
    """The answer "the second one" shares no word with the question; the
    assistant's question before it does, and a turn is indexed with its
    neighbours."""
    store.facts.ingest_file(write(tmp_path / "c.jsonl", [
        ("user", "I need to pick a cello teacher this week."),
        ("assistant", "Which cello teacher appeals more, Frau Brandt or Herr Okafor?"),
        ("user", "The second one, definitely."),
        ("assistant", "Noted."),
        ("user", "The weather in Berlin is grey again."),
        ("user", "My sister's wedding is in Porto in June."),
    ]))
    r = Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx")
    hits = r.search("which cello teacher did I choose", over="turns", subject="user:ines", k=4)
    answer = [h for h in hits if h.text == "The second one, definitely."]
    assert answer and answer[0].words > 0  # its own words share nothing with the question
    assert all(h.channel == "fused" and h.fused is not None for h in hits)
    top = hits[0].to_json()
    assert {"words", "fused", "semantic"} <= set(top)


def test_a_fact_told_in_a_turn_is_found_without_its_predicate_named(store: Store, tmp_path):
    store.facts.ingest_file(write(tmp_path / "p.jsonl", [
        ("user", "Morning! The Kestrel budget is €40,000 for the forecasting work."),
        ("assistant", "Noted: €40,000."),
        ("user", "Finance came back after the review and bumped the budget to €46,000."),
        ("assistant", "Updated to €46,000."),
        ("user", "I'm vegetarian now, by the way."),
    ], project="kestrel"))
    r = Recaller(store, embedder=HashEmbedder(), index_dir=tmp_path / "idx")
    r.reindex(over="turns")
    hits = r.search("what did finance come back with after the review?", subject="user:ines", k=5)
    told = [h for h in hits if h.kind == "fact" and h.channel == "told"]
    assert told and told[0].subject == "project:kestrel" and told[0].object == "46000 EUR"
    assert all(h.object != "40000 EUR" for h in told)  # the current value, not the one told first
