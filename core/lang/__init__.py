"""The language layer, at the bottom of the engine: what memdesk knows about
Chinese and English text, for every stage that reads it.

* ``numerals``: the one numeral parser (六千五百, 一万二, 1.5万, "fifteen
  hundred") that the modules below read numbers with;
* ``times``: event times ("next Friday", 下周五, 月底) resolved against the
  utterance time;
* ``amounts``: amounts of money (五千元, $12,000, "fifteen hundred pounds")
  with their currencies;
* ``sensitive``: phone numbers, e-mail addresses, ID and card numbers, found
  and masked;
* ``text``: folding (NFKC, case, Chinese numerals to digits), the grams and
  anchors recall and maintenance compare, stop words;
* ``questions``: what a question asks (a time? several things?).

Pure Python, offline, deterministic. Extraction, recall and maintenance import
from here; this package imports nothing of the engine above it (enforced by
``tests/test_import_graph.py``).
"""
