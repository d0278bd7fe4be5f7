"""The calibration of the tagger's written values (tests/benchmarks/calibrate_tagged.py): its pure parts,
and one run over a conversation set."""

from __future__ import annotations

from pathlib import Path

from tests.benchmarks.calibrate_tagged import Tagged, chosen, table, tagged_values


def _values(predicate: str, kind: str, right: int, wrong: int, p: float) -> list[Tagged]:
    return [Tagged(predicate, kind, p, 0.9, True)] * right + [Tagged(predicate, kind, p, 0.9, False)] * wrong


def test_a_predicate_qualifies_from_the_least_probability_where_enough_values_are_right_enough():
    values = [*_values("pet", "user", 30, 2, 0.95), *_values("pet", "user", 5, 10, 0.7),
              *_values("plan", "user", 20, 20, 0.99), *_values("name", "person", 9, 0, 0.99)]
    # pet: 35 of 47 from 0.6 (0.74), 30 of 32 from 0.9 (0.94); plan never 90 %; name: too few values
    assert chosen(values, [0.6, 0.9], share=0.9, least=30) == {("pet", "user"): 0.9}
    lines = table(values, [0.6, 0.9], family=0.0)
    assert any(line.startswith("pet") and "30/32 (0.94)" in line for line in lines)


def test_a_run_over_a_conversation_set_marks_each_tagged_value(tmp_path: Path):
    folder = Path(__file__).resolve().parent / "sets" / "convo_dev" / "devE"
    values = tagged_values(folder)
    assert values, "the tagger adds values on a set of 300 turns"
    assert all(0.0 <= v.probability <= 1.0 and v.subject_kind in ("user", "person", "project") for v in values)
    assert any(v.right for v in values) and not all(v.right for v in values)
