"""The package's import graph has no cycle (issue 13): data flows one way,
turn -> extraction -> gates -> plan -> write -> index -> recall -> screens,
and no module imports one that (directly or not) imports it back. Every
import that runs counts, at module level or inside a function (a deferred
import still makes the two modules depend on each other); only imports under
``if TYPE_CHECKING:``, which never run, are left out (annotations may name a
type of a module that depends on this one). Below the graph lies the language
layer (memdesk.lang, issue 28), which imports nothing above it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"core": "memdesk", "app": "memdesk.app", "data": "memdesk.data"}


def in_engine(name: str) -> bool:
    """A module of the engine (core/, installed as ``memdesk`` itself), not of the app or the data."""
    return name.startswith("memdesk") and not name.startswith(("memdesk.app", "memdesk.data"))


def modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: name -> (file, is a package's __init__)."""
    out = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            is_init = parts[-1] == "__init__"
            if is_init:
                parts = parts[:-1]
            out[".".join([package, *parts])] = (path, is_init)
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_nodes(tree: ast.AST, typing_too: bool = False):
    """Every node of ``tree`` except the bodies of ``if TYPE_CHECKING:``
    (``typing_too``: those as well)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if not typing_too and isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def imports(name: str, path: Path, is_init: bool, known: dict, typing_too: bool = False) -> set[str]:
    """The package modules ``name`` imports (``from X import Y`` names module
    X.Y when that is a module, else X); ``typing_too``: those imported for the
    type checker only as well."""
    here = name if is_init else name.rsplit(".", 1)[0]
    found = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8")), typing_too):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    return {m for m in found if m in known and m != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def graph(typing_too: bool = False) -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, is_init, known, typing_too)
            for name, (path, is_init) in known.items()}


def test_the_package_has_no_import_cycle():
    assert cycles(graph()) == []


def test_no_cycle_even_for_the_type_checker():
    """Imports under ``if TYPE_CHECKING:`` count too (issue 30 §8): the
    screens, the command palette and the header know the app through the
    ``Desk`` protocol (app/ui/desk.py), never through ``app.py``."""
    assert cycles(graph(typing_too=True)) == []
    g = graph(typing_too=True)
    assert not any("memdesk.app.ui.app" in deps for name, deps in g.items()
                   if name.startswith("memdesk.app.ui.") and name != "memdesk.app.ui.launch")


def test_the_checker_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    tree = ast.parse("import x\nif TYPE_CHECKING:\n    import y\nelse:\n    import z\n"
                     "def f():\n    import w\n")
    found = {a.name for n in _runtime_nodes(tree) if isinstance(n, ast.Import) for a in n.names}
    assert found == {"x", "z", "w"}


def test_the_engine_never_imports_the_app_and_stages_only_look_back():
    g = graph()
    for name, deps in g.items():
        if in_engine(name):
            assert not any(d.startswith("memdesk.app") for d in deps), name
    # the pure rules import no stage after them
    assert g["memdesk.pipeline"] == set()
    assert g["memdesk.bitemporal"] == set()
    # (and the language layer's value relations, beneath every stage: core/lang/values.py)
    assert g["memdesk.gates"] <= {"memdesk.bitemporal", "memdesk.errors",
                                       "memdesk.lang.values"}
    assert not any(d.startswith("memdesk.extract") for d in g["memdesk.writer"])


def test_the_doors_use_only_the_public_face():
    """The CLI, the MCP server and the desk (everything in app/) reach the engine only through
    ``memdesk`` itself, as any program built on it does (issue 30 §1): its modules are private."""
    g = graph(typing_too=True)
    for name, deps in sorted(g.items()):
        if name.startswith("memdesk.app"):
            private = sorted(d for d in deps if in_engine(d) and d != "memdesk")
            assert private == [], (name, private)


def test_the_face_check_sees_a_private_import(tmp_path):
    known = {"memdesk": (tmp_path / "__init__.py", True), "memdesk.names": (tmp_path / "names.py", False),
             "memdesk.app.cli": (tmp_path / "cli.py", False)}
    path = tmp_path / "cli.py"
    path.write_text("from memdesk import Store\nfrom memdesk.names import shown\n", encoding="utf-8")
    assert imports("memdesk.app.cli", path, False, known) == {"memdesk", "memdesk.names"}


# The language layer (issue 28): what memdesk knows of Chinese and English text
# (numerals, times, amounts, sensitive spans, folding and grams, stop words,
# question words) is one package at the bottom of the engine. It imports
# nothing above it; extraction, recall and maintenance read text through it.
# The extractors are a stage, not a library: outside memdesk.extract only
# the stage that runs them (ingest) and the command that picks one (the CLI's
# --extractor) import them, and only their entry points.
LANG_MAY_IMPORT = {"memdesk.resources", "memdesk.errors"}
EXTRACTOR_ENTRY_POINTS = {
    "memdesk.ingest": {"memdesk.extract.rules"},
    "memdesk.app.cli": {"memdesk.extract.llm"},
    # whose a team's item is (the project's, or the speaker's own life): one rule for the rules and the layer
    "memdesk.signals.layer": {"memdesk.extract.rules"},
}


def test_the_language_layer_is_at_the_bottom_and_nothing_reads_text_through_the_extractor():
    g = graph()
    lang = {name for name in g if name.startswith("memdesk.lang")}
    assert {"memdesk.lang.numerals", "memdesk.lang.times", "memdesk.lang.amounts",
            "memdesk.lang.sensitive", "memdesk.lang.text"} <= lang
    for name in sorted(lang):
        assert g[name] <= lang | LANG_MAY_IMPORT, (name, sorted(g[name] - lang - LANG_MAY_IMPORT))
    for name, deps in sorted(g.items()):
        if name == "memdesk.extract" or name.startswith("memdesk.extract."):
            continue
        from_extract = {d for d in deps if d == "memdesk.extract" or d.startswith("memdesk.extract.")}
        assert from_extract <= EXTRACTOR_ENTRY_POINTS.get(name, set()), (name, sorted(from_extract))
    # the stages that read text do so through the language layer
    for reader in ("memdesk.extract.rules", "memdesk.recall.service", "memdesk.maintain"):
        assert g[reader] & lang, reader


def test_the_direction_check_sees_a_reach_into_the_extractor(tmp_path):
    known = {"memdesk.recall.service": (tmp_path / "service.py", False),
             "memdesk.extract.times": (tmp_path / "times.py", False)}
    path = tmp_path / "service.py"
    path.write_text("from ..extract.times import find_times\n", encoding="utf-8")
    assert imports("memdesk.recall.service", path, False, known) == {"memdesk.extract.times"}


# Data flows one way (issue 30, docs/DESIGN.md's map of the rooms): each
# module of the engine and the app belongs to one stage, and imports only
# from its own stage or an earlier one. A new module must be placed here.
STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("memdesk.errors", "memdesk.resources", "memdesk.timeutil", "memdesk.clock",
                    "memdesk.failpoints", "memdesk.canonical", "memdesk.lifeline", "memdesk.names",
                    "memdesk.records", "memdesk.views", "memdesk.bitemporal", "memdesk.lang")),
    ("turn", ("memdesk.pipeline", "memdesk.claims", "memdesk.checks", "memdesk.catalog",
              "memdesk.access", "memdesk.bounds", "memdesk.parallel_parse")),
    ("extraction", ("memdesk.extract", "memdesk.signals", "memdesk.parallel_extract")),
    ("gates", ("memdesk.gates", "memdesk.replaced", "memdesk.moved", "memdesk.new_job")),
    ("plan", ("memdesk.maintain",)),
    ("write", ("memdesk.db", "memdesk.chain", "memdesk.writer", "memdesk.writer_audit", "memdesk.writer_process",
               "memdesk.ingest", "memdesk.undo", "memdesk.tokens", "memdesk.erase",
               "memdesk.mentions", "memdesk.export", "memdesk.maintain_store",
               "memdesk.audit_trail", "memdesk.store", "memdesk.facets",
               # the value judge's training reads the sets as an ingest's extraction does (memdesk.ingest)
               "memdesk.signals.train_judge")),
    ("index", ("memdesk.recall.embedders", "memdesk.recall.embedding", "memdesk.recall.vectors",
               "memdesk.recall.annoy_index", "memdesk.recall.collection",
               "memdesk.recall.query_map", "memdesk.recall.train_query_map")),
    ("recall", ("memdesk.recall",)),
    ("doors", ("memdesk", "memdesk.memory")),
    ("screens", ("memdesk.app",)),
)


def stage_of(name: str) -> int:
    """The stage of module ``name`` (its longest matching prefix); raises KeyError when unplaced."""
    best = (-1, -1)
    for rank, (_, prefixes) in enumerate(STAGES):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best[0]:
                best = (len(prefix), rank)
    if best[1] < 0:
        raise KeyError(name)
    return best[1]


def later_imports(g: dict[str, set[str]]) -> list[str]:
    """Every import of a module of a later stage, as 'a (stage) -> b (stage)'."""
    out = []
    for name, deps in sorted(g.items()):
        here = stage_of(name)
        for dep in sorted(deps):
            if stage_of(dep) > here:
                out.append(f"{name} ({STAGES[here][0]}) -> {dep} ({STAGES[stage_of(dep)][0]})")
    return out


def test_every_module_has_a_stage_and_imports_only_its_own_or_an_earlier_one():
    g = {name: deps for name, deps in graph().items() if not name.startswith("memdesk.data")}
    unplaced = []
    for name in g:
        try:
            stage_of(name)
        except KeyError:
            unplaced.append(name)
    assert unplaced == []
    assert later_imports(g) == []


def test_the_stage_check_sees_an_import_of_a_later_stage():
    g = {"memdesk.gates": {"memdesk.recall.service", "memdesk.bitemporal"},
         "memdesk.recall.service": {"memdesk.store"}, "memdesk.store": set(), "memdesk.bitemporal": set()}
    assert later_imports(g) == ["memdesk.gates (gates) -> memdesk.recall.service (recall)"]
    assert stage_of("memdesk.recall.vectors") < stage_of("memdesk.recall.service")
    assert stage_of("memdesk.app.ui.app") == len(STAGES) - 1
