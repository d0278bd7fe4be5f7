"""One query layer (issue 30 §3): every statement memdesk runs is built and
executed in ``memdesk.db`` (core/db/), the only package that imports
SQLAlchemy, SQLModel or a database driver and the only one that names the
tables. Everything else (the facets, the writer, recall, the doors) hands a
connection or an engine to the functions of a module there.

The check reads the source (every import, also under ``if TYPE_CHECKING:``,
and every call) of each module of the engine and the app outside core/db/."""

from __future__ import annotations

import ast

from tests.test_import_graph import modules

DRIVERS = ("sqlalchemy", "sqlmodel", "sqlite3", "psycopg", "psycopg2", "alembic")
# what runs a statement on a connection, an engine, a session or a cursor
RUNS_SQL = {"execute", "executemany", "executescript", "exec", "exec_driver_sql",
            "execution_options", "scalar", "scalars"}
LAYER = "memdesk.db"


def in_layer(name: str) -> bool:
    return name == LAYER or name.startswith(LAYER + ".")


def _imported(node: ast.AST, here: str) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            anchor = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
            base = f"{anchor}.{base}" if base else anchor
        return [base] + [f"{base}.{a.name}" for a in node.names]
    return []


def sql_outside(name: str, source: str, is_init: bool = False) -> list[str]:
    """What module ``name`` (outside the layer) does that only the layer may:
    import a database library, name the tables, or run a statement. One line each."""
    here = name if is_init else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        for imported in _imported(node, here):
            top = imported.partition(".")[0]
            if top in DRIVERS:
                found.append(f"{name}:{node.lineno} imports {imported}")
            elif imported == f"{LAYER}.tables" or imported.startswith(f"{LAYER}.tables."):
                found.append(f"{name}:{node.lineno} names the tables ({imported})")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in RUNS_SQL):
            found.append(f"{name}:{node.lineno} runs a statement (.{node.func.attr})")
    return sorted(set(found))


def violations() -> list[str]:
    out: list[str] = []
    for name, (path, is_init) in sorted(modules().items()):
        if in_layer(name) or name.startswith("memdesk.data"):
            continue
        out += sql_outside(name, path.read_text(encoding="utf-8"), is_init)
    return out


def test_no_module_outside_the_query_layer_imports_sqlalchemy_names_a_table_or_runs_sql():
    assert violations() == []


def test_the_layer_is_the_package_that_imports_sqlalchemy():
    layer = [name for name, (path, _) in modules().items() if in_layer(name)
             and "sqlalchemy" in path.read_text(encoding="utf-8")]
    assert "memdesk.db.engine" in layer and "memdesk.db.tables" in layer


def test_the_check_sees_each_kind_of_reach_into_the_database():
    source = ("from sqlalchemy import select\n"
              "import sqlite3\n"
              "from ..db.tables import FACT\n"
              "from ..db import make_engine\n"
              "def f(conn):\n"
              "    return conn.execute(select(FACT.c.id)).scalar()\n")
    found = sql_outside("memdesk.facets.facts", source)
    assert found == sorted([
        "memdesk.facets.facts:1 imports sqlalchemy",
        "memdesk.facets.facts:1 imports sqlalchemy.select",
        "memdesk.facets.facts:2 imports sqlite3",
        "memdesk.facets.facts:3 names the tables (memdesk.db.tables)",
        "memdesk.facets.facts:3 names the tables (memdesk.db.tables.FACT)",
        "memdesk.facets.facts:6 runs a statement (.execute)",
        "memdesk.facets.facts:6 runs a statement (.scalar)",
    ])
    # the layer's public names (an engine, a prepared query) are fine
    assert sql_outside("memdesk.facets.facts", "from ..db import make_engine, Connection\n") == []
