"""The query layer (issue 30 §3): the only package of memdesk that imports
SQLAlchemy, SQLModel or a database driver, names the tables or runs a
statement (``tests/test_query_layer.py`` fails otherwise). The rest of the
engine holds a connection or an engine and hands it to the functions here.

Engines and prepared queries (``engine``), the tables, each aliased once
(``tables``), the time axes as SQL conditions (``axes``), the errors a caller
may catch (``errors``), the schema and meta row (``meta``), the reads the
facets share (``reads``); then one module of statements per room, named after
it: ``writes`` (the write path), ``ingest``, ``undo``, ``facts``, ``review``,
``conflicts``, ``tokens``, ``erase``, ``mentions``, ``audit_trail``,
``maintain``, ``export``, ``chain``, ``memory``, ``recall``. The schema
migrations (``migrations``) and the frozen hash-chain codec the old ones use
(``chain_legacy``) live here too.
"""

from sqlalchemy import Connection, Engine

from .engine import DEFAULT_DB, PreparedQuery, clear_wal, make_engine, normalise_url

# Connection and Engine are named here for annotations: a module outside this
# package holds a connection or an engine and hands it to the functions of a
# module here, but never builds or runs a statement itself.
__all__ = ["DEFAULT_DB", "Connection", "Engine", "PreparedQuery", "clear_wal", "make_engine",
           "normalise_url"]
