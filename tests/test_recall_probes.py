"""The probe set (tests/sets/probes/recall.jsonl) runs on every change to scoring:
queries in Chinese and English worded unlike their memories, with the
memories they must find and the stale values that must not rank first. Uses
the default embedder (the real model, loaded once: a few seconds)."""

from __future__ import annotations

from memdesk.recall import Recaller

from .benchmarks.eval_recall import build_demo_store, evaluate, load_probes


def test_probe_set_with_the_default_embedder(tmp_path):
    probes = load_probes()
    assert {p["lang"] for p in probes} == {"zh", "en"} and len(probes) >= 58
    store = build_demo_store(tmp_path)
    try:
        recaller = Recaller(store, index_dir=tmp_path / "idx")
        recaller.reindex()  # memories and turns embedded, as `memdesk demo` leaves them
        result = evaluate(recaller, probes)
    finally:
        store.close()
    table = result["table"]
    print({lang: (round(v["hit@1"], 3), round(v["hit@5"], 3)) for lang, v in table.items()})
    assert result["stale_first"] == []
    assert result["leaks"] == []  # a recall asked for one user returns nobody else's memory
    for kind in ("scope", "no-subject", "time"):
        assert table[f"kind:{kind}"]["hit@5"] >= (0.6 if kind == "scope" else 0.75), kind
    assert table["all"]["hit@5"] >= 0.9
    assert table["zh"]["hit@5"] >= 0.85 and table["en"]["hit@5"] >= 0.85
    assert table["all"]["hit@1"] >= 0.7
