"""Normalisation helpers for the rule-based extractor: amounts of money
(``amounts``) and event times resolved against the utterance time (``times``).
Pure Python, offline, no third-party dependency."""
