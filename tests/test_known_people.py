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


def test_what_the_book_reads_back_is_as_of_when_the_store_was_told_it(store, tmp_path):
    """A home told on the 23rd with a stated start on the 6th is not where a turn of the 10th was typed
    from: the book holds each fact at the time it was told, as the ingest learned it, so reading the
    file again reads its turns as the first time (a rerun adds nothing)."""
    path = tmp_path / "moves.jsonl"
    lines = [("2026-03-02T10:00:00+00:00", "I live in Leeds."),
             ("2026-05-23T10:00:00+00:00", "We moved to York on the 6th of May.")]
    path.write_text("".join(json.dumps({"session": "s-moves", "turn": i + 1, "speaker": "user", "time": t,
                                        "text": text, "user": "kit"}) + "\n" for i, (t, text) in enumerate(lines)),
                    "utf-8")
    store.facts.ingest_file(path)
    with store.engine.connect() as conn:
        book = known_people(conn, ["kit"])
    may_10 = 1778407200 * 1_000_000  # 2026-05-10T10:00Z
    assert book.home_before("kit", may_10) == "Leeds"
    assert book.home_before("kit", 2 ** 62) == "York"
    assert store.facts.ingest_file(path).fact_rows == 0


def test_the_users_own_name_after_a_word_for_their_role_is_nobody_elses(store, tmp_path):
    """我是仓库主管钱伟: the user is the supervisor called 钱伟; no "manager" of theirs is named."""
    _ingest(store, tmp_path, "qw", "我是仓库主管钱伟")
    rows = {(f.subject, f.predicate, f.object) for s in store.facts.subjects() for f in store.facts.history(s)}
    assert ("user:qw", "name", "钱伟") in rows and ("user:qw", "role", "仓库主管") in rows
    assert not any(s.startswith("person:") for s, _, _ in rows)
