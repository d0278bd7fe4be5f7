"""The database layer: engines (``engine``), the tables (``tables``), every
statement recall runs (``recall``), the schema migrations (``migrations``)
and the frozen hash-chain codec the old migrations use (``chain_legacy``). The rest of the engine reaches the
database through this package.
"""

from sqlalchemy import Connection, Engine

from .engine import DEFAULT_DB, PreparedQuery, clear_wal, make_engine, normalise_url

# Connection and Engine are named here for annotations: a module outside this
# package holds a connection or an engine and hands it to the functions of a
# module here, but never builds or runs a statement itself.
__all__ = ["DEFAULT_DB", "Connection", "Engine", "PreparedQuery", "clear_wal", "make_engine",
           "normalise_url"]
