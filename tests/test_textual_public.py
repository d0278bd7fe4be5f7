"""The desk uses Textual's public API only (issue 30 §6): no private Textual
module is imported and no private name of the Textual classes the app builds
on (App, Screen, DataTable, … and their bases) is read, assigned or overridden,
so the app runs on a range of Textual releases (pyproject's ``app`` extra), not
on the one release whose internals it knew.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_SET_ON_SELF = re.compile(r"self\.(_[a-z]\w*)\s*[:=]")


def private_uses(source: str) -> tuple[set[str], set[str]]:
    """The private modules ``source`` imports from ``textual``, and the private names it reads,
    assigns or defines as methods (``x._name``, ``def _name``)."""
    modules: set[str] = set()
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "textual":
            if any(part.startswith("_") for part in node.module.split(".")):
                modules.add(node.module)
        elif isinstance(node, ast.Import):
            modules |= {a.name for a in node.names if a.name.split(".")[0] == "textual"
                        and any(part.startswith("_") for part in a.name.split("."))}
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id == "os"):  # os._exit: not Textual's
                names.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _private(node.name):
            names.add(node.name)
    return modules, names


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def textual_bases() -> set[type]:
    """The Textual classes in the ancestry of the app's classes."""
    import memdesk.app.ui as ui

    out: set[type] = set()
    for info in pkgutil.walk_packages(ui.__path__, ui.__name__ + "."):
        for obj in vars(importlib.import_module(info.name)).values():
            if inspect.isclass(obj) and obj.__module__.startswith("memdesk.app"):
                out |= {b for b in obj.__mro__ if b.__module__.split(".")[0] == "textual"}
    return out


def private_names_of(classes: set[type]) -> set[str]:
    """What the classes define privately: class attributes and methods, and attributes their
    own code sets on ``self``."""
    out: set[str] = set()
    for cls in classes:
        out |= {n for n in vars(cls) if _private(n)}
        try:
            out |= set(_SET_ON_SELF.findall(textwrap.dedent(inspect.getsource(cls))))
        except (OSError, TypeError):
            pass
    return out


def violations(sources: dict[str, str], private: set[str]) -> list[str]:
    """Each private Textual module imported and each private name of ``private`` used, with its file."""
    out = []
    for path, source in sorted(sources.items()):
        modules, names = private_uses(source)
        out += [f"{path}: imports {m}" for m in sorted(modules)]
        out += [f"{path}: uses {n}" for n in sorted(names & private)]
    return out


def test_the_app_uses_textuals_public_api_only():
    sources = {str(p.relative_to(ROOT)): p.read_text("utf-8") for p in sorted((ROOT / "app").rglob("*.py"))}
    assert violations(sources, private_names_of(textual_bases())) == []


def test_the_check_sees_a_private_import_a_private_read_and_an_override():
    from textual.app import App
    from textual.widgets import DataTable

    private = private_names_of({App, DataTable})
    assert {"_render_line", "_screen_stacks", "_init_mode", "_clear_caches"} <= private
    sources = {
        "a.py": "from textual._segment_tools import line_crop\n",
        "b.py": "def f(app):\n    return app._screen_stacks\n",
        "c.py": "class T:\n    def _render_line(self, y):\n        return y\n",
        "d.py": "import os\nclass U:\n    def _mine(self):\n        self._shown_rows = 1\n        os._exit(1)\n",
    }
    found = violations(sources, private)
    assert found == ["a.py: imports textual._segment_tools", "b.py: uses _screen_stacks",
                     "c.py: uses _render_line"], found
