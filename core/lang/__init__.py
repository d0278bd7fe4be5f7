"""The language layer, at the bottom of the engine: what memdesk knows about
Chinese and English text, for every stage that reads it.

* ``times``: event times ("next Friday", 下周五, 月底) resolved against the
  utterance time;
* ``amounts``: amounts of money (五千元, $12,000, "fifteen hundred pounds")
  with their currencies;
* ``sensitive``: phone numbers, e-mail addresses, ID and card numbers, found
  and masked.

Pure Python, offline, deterministic. Extraction, recall and maintenance import
from here; this package imports nothing of the engine above it (enforced by
``tests/test_import_graph.py``).
"""
