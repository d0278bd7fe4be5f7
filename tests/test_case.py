"""English typed without capitals: the names get their capitals back (core/lang/case.py), so the rules that
find names by their capitals read chat typing too."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from memdesk.extract.rules import extract
from memdesk.lang.case import recased, typed_without_capitals
from memdesk.pipeline import Turn


@pytest.mark.parametrize(("typed", "read"), [
    ("i drive for brackwell freight out of wigan", "I drive for Brackwell freight out of Wigan"),
    # common words stay as typed; a name the lists hold only capitalised gets its capital
    ("we moved to leeds in june", "we moved to Leeds in June"),
    # chat abbreviations, money words and stretched words are no names
    ("sooo tired lol, budget is 3k gbp tbh", "sooo tired lol, budget is 3k gbp tbh"),
    # a possessive: the name before it
    ("my sister oriel's flat", "my sister Oriel's flat"),
    # digits, addresses and paths stay as typed
    ("mail me at kwazo.bell@fastmail.com on the 21st", "mail me at kwazo.bell@fastmail.com on the 21st"),
    # the pronoun
    ("i think i'll go", "I think I'll go"),
])
def test_a_turn_typed_without_capitals_gets_its_names_capitals(typed: str, read: str) -> None:
    assert recased(typed) == read


@pytest.mark.parametrize("text", [
    "I moved to Leeds with my partner bertil",  # a capital beyond the sentence's first word: typed with case
    "我住在杭州 bertil 是我朋友",  # Chinese
    "",
])
def test_a_turn_typed_with_case_or_in_chinese_is_left_alone(text: str) -> None:
    assert not typed_without_capitals(text) or text == ""
    assert recased(text) == text


@pytest.mark.parametrize("text", [
    "Hey so we moved. now in leeds",  # the first word of each sentence
    "GOT IT!! starting at brackwell monday",  # words all in capitals
    "so I'm here, and I'll stay",  # I
])
def test_capitals_that_say_nothing_of_case(text: str) -> None:
    assert typed_without_capitals(text)


def _facts(text: str) -> set[tuple[str, str]]:
    turn = Turn("s", 1, "user", datetime(2026, 3, 3, 9, 0, tzinfo=timezone(timedelta(hours=1))), text, "u", None)
    return {(f.predicate, f.object) for f in extract(turn, [])}


def test_an_employer_and_a_home_typed_in_lower_case_are_read() -> None:
    facts = _facts("im a night porter at quillfield infirmary, live out in tolworth")
    assert ("works_at", "Quillfield Infirmary") in facts  # a name as names are written
    assert ("lives_in", "Tolworth") in facts
    # the same typed with capitals reads the same
    assert ("works_at", "Quillfield Infirmary") in _facts("I'm a night porter at Quillfield Infirmary")


def test_the_lexicon_is_built_from_word_lists_reproducibly(tmp_path, capsys) -> None:
    """``python -m memdesk.lang.build_words``: the lower-case entries, without possessives, sorted, the same
    bytes each time; a missing list is one line and exit 2."""
    import gzip

    from memdesk.lang.build_words import main

    lists = tmp_path / "a.txt", tmp_path / "b.txt"
    lists[0].write_text("Portland\nfreight\ndog's\nhaulage\n", encoding="utf-8")
    lists[1].write_text("colour\nfreight\nLeeds\n", encoding="utf-8")
    out = tmp_path / "words.txt.gz"
    assert main([str(p) for p in lists] + ["--out", str(out)]) == 0
    assert gzip.decompress(out.read_bytes()).decode().split() == ["colour", "freight", "haulage"]
    first = out.read_bytes()
    assert main([str(p) for p in lists] + ["--out", str(out)]) == 0
    assert out.read_bytes() == first
    assert main([str(tmp_path / "missing.txt"), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such word list" in err[0]


def test_a_name_where_a_frame_calls_for_one_gets_its_capitals_whatever_the_lexicon_holds() -> None:
    """``[name_slot]``: after "a job at", "works for", "called" the words are a name even when they are common
    words ("admiral", "ember & oak"), up to an end word or punctuation; elsewhere a common word stays a word."""
    assert recased("got a job at admiral. claims handler, start monday") \
        == "got a job at Admiral. claims handler, start Monday"
    assert recased("barista at a roastery called ember & oak on division") \
        == "barista at a Roastery called Ember & Oak on division"
    assert recased("he works for sparkwell electrical now") == "he works for Sparkwell Electrical now"
    assert recased("i work at home most days") == "I work at home most days"  # an end word, no name
    assert recased("i work for myself now, she called back") == "I work for myself now, she called back"
    assert recased("renee started at the school here") == "Renee started at the school here"  # a noun, no name
    assert recased("me and Tom work at admiral now") == "me and Tom work at admiral now"  # typed with capitals
    assert ("works_at", "Admiral") in _facts("got a job at admiral. start 2 march")
