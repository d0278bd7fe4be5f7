"""Data memdesk reads at run time (the predicate catalog, extraction rules,
the language layer's word tables, demo conversations), shipped inside the
wheel and read with ``importlib.resources``."""
