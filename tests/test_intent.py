"""What a recall query names: the subject matcher files its name patterns by
key, and must find exactly what trying every pattern would find."""

from __future__ import annotations

import random

from memdesk.lang.text import fold_case
from memdesk.recall.intent import Mention, SubjectMatcher, _longest_first, _pattern


def brute_force(names: dict[str, set[str]], query: str) -> list[str]:
    text = fold_case(query)
    found = [Mention(s, m.start(), m.end(), n)
             for s, ns in sorted(names.items()) for n in sorted(ns) if len(n.strip()) >= 2
             for m in _pattern(n).finditer(text)]
    return list(dict.fromkeys(m.target for m in _longest_first(found)))


def test_names_by_id_and_name_fact_in_both_languages():
    m = SubjectMatcher.build(["user:alice", "user:bob", "project:renovation", "user:liwei"],
                             [("user:alice", "王工"), ("user:bob", "Dr. Patel"),
                              ("user:liwei", "Kevin")])
    assert m.subjects("where does Alice live now") == ["user:alice"]
    assert m.subjects("王工现在住哪儿？") == ["user:alice"]
    assert m.subjects("what did dr. patel decide about the renovation") == [
        "user:bob", "project:renovation"]
    assert m.subjects("Kevin's budget") == ["user:liwei"]
    assert m.subjects("alices and bobs") == ["user:alice", "user:bob"]  # simple inflections
    assert m.subjects("malice and kebob") == []  # never inside a word
    assert m.subjects("Renovations planned") == ["project:renovation"]


def test_keyed_lookup_finds_what_every_pattern_finds():
    rng = random.Random(7)
    latin = ["ann", "anna", "bo", "li wei", "o'brien", "dr. who", "x-ray", "jo", "mary ann",
             "sam", "samuel", "ed", "ted"]
    cjk = ["王工", "王工程师", "小李", "李伟", "陈姐", "老王"]
    names: dict[str, set[str]] = {}
    for i in range(400):
        pool = latin if i % 2 else cjk
        names.setdefault(f"user:u{i % 150}", set()).add(rng.choice(pool) + ("" if i < 300 else str(i)))
    matcher = SubjectMatcher(names)
    words = latin + cjk + ["annas", "samuels", "eds", "teding", "the", "住在", "哪里", "?", " ",
                           "O'Brien", "DR. WHO", "李伟的", "王工呢"]
    for _ in range(300):
        query = " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))
        assert matcher.subjects(query) == brute_force(names, query), query
