"""Data memdesk reads at run time (the predicate catalog, extraction rules, demo
conversations), shipped inside the wheel and read with ``importlib.resources``."""
