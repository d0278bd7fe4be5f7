"""English third-person verbs read back to the speaker's form (core/lang/verbs.py)."""

from __future__ import annotations

import pytest
from memdesk.lang.verbs import first_person_of


@pytest.mark.parametrize(("word", "base"), [
    ("lives", "live"), ("Works", "work"), ("uses", "use"), ("fixes", "fix"), ("watches", "watch"),
    ("studies", "study"), ("is", "am"), ("doesn't", "don't"), ("doesn’t", "don't"), ("has", "have"),
    ("goes", "go"), ("misses", "miss"),
])
def test_a_third_person_verb_gives_its_first_person_form(word: str, base: str):
    assert first_person_of(word) == base


@pytest.mark.parametrize("word", ["work", "was", "bus", "yes", "its", "always", "glass", "Thomas", "crisis", "5s", ""])
def test_other_words_are_no_third_person_verb(word: str):
    assert first_person_of(word) is None
