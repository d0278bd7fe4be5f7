"""The database layer: engines (``engine``), the tables (``tables``), every
statement recall runs (``recall``), the schema migrations (``migrations``)
and the frozen hash-chain codec the old migrations use (``chain_legacy``). The rest of the engine reaches the
database through this package.
"""

from .engine import DEFAULT_DB, PreparedQuery, clear_wal, make_engine, normalise_url

__all__ = ["DEFAULT_DB", "PreparedQuery", "clear_wal", "make_engine", "normalise_url"]
