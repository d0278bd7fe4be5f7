"""The people book an ingest starts from is read from the store (``core.ingest.known_people``): each
user's own people, matched on the user's name exactly, on both backends."""

from __future__ import annotations

import json

from memdesk.ingest import known_people

TIME = "2026-03-02T10:00:00+00:00"


def _ingest(store, tmp_path, user: str, text: str) -> None:
    path = tmp_path / f"{user}.jsonl"
    path.write_text(json.dumps({"session": f"s-{user}", "turn": 1, "speaker": "user", "time": TIME,
                                "text": text, "user": user}) + "\n", "utf-8")
    store.facts.ingest_file(path)


def test_the_people_a_user_named_are_read_back_for_that_user_only(store, tmp_path):
    """Two users whose names differ only in case (and one whose name holds a LIKE wildcard) each get
    back the names they gave, never the other's."""
    _ingest(store, tmp_path, "Ann", "My sister is called Mia.")
    _ingest(store, tmp_path, "ann", "My brother is called Olek.")
    _ingest(store, tmp_path, "a_n", "My sister is called Zoe.")
    with store.engine.connect() as conn:
        book = known_people(conn, ["Ann", "ann", "a_n", "axn"])
    later = 2 ** 62
    assert book.before("Ann", later) == {"mia": "sister"}
    assert book.before("ann", later) == {"olek": "brother"}
    assert book.before("a_n", later) == {"zoe": "sister"}
    assert book.before("axn", later) == {}
