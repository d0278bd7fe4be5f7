"""The ``memdesk`` command line. Every command speaks JSON with ``--json``
(DESIGN.md section 6) and prints tables otherwise. User mistakes end with a
message on stderr and exit code 1 (2 for bad usage), never a traceback.

The arguments are parsed before the engine loads: this module imports only the
light part of ``memdesk`` (errors, time helpers) at the top, and the store
(SQLAlchemy, SQLModel, Alembic), recall (numpy, Annoy) and the app (Textual)
inside the commands, so ``memdesk --help`` and ``--version`` start at once.

One module per concern: ``common`` (errors, time arguments, output), ``parser``
(every command and flag), ``curate`` (import, ingest, demo, facts, audit,
review, conflicts, predicates, retract), ``upkeep`` (verify, erase, upgrade,
maintain, export, restore), ``serve`` (recall, mcp, tokens, reindex, the app);
this module picks the store and runs the command (``main``)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from memdesk import MemdeskError, missing_extra, shown

from ..config import Settings, load_settings
from .common import EXIT_ERROR, UserError
from .common import RESOLUTIONS as RESOLUTIONS  # the --keep choices (a test keeps them the store's)
from .parser import (
    _BOUND_FLAGS as _BOUND_FLAGS,  # the bound flags (a test keeps their defaults the engine's)
)
from .parser import _bounds, build_parser
from .serve import _embed_for_recall, cmd_app
from .upkeep import cmd_upgrade


def _default_store(settings: Settings) -> str | None:
    """The store a command without a configured one (no --db, $MEMDESK_DB or
    config ``db=``) reads, the same for the app and every command that needs
    a store: ``./memdesk.db`` when it exists, else the demo store when it has
    been built (said on stderr, with how to pick another). None: neither."""
    from ..demo import default_demo_path

    if settings.db_configured or _new_sqlite_file(settings.db) is None:
        return settings.db
    demo = default_demo_path()
    if demo.exists():
        print(f"memdesk: no store configured and no {settings.db} here: using the demo store "
              f"at {demo} (--db PATH or MEMDESK_DB=PATH picks another)", file=sys.stderr)
        return str(demo)
    return None


def _app_store(settings: Settings) -> str:
    """The store the app opens: the default store (``_default_store``), or the
    demo store, built on first use, when there is none."""
    found = _default_store(settings)
    if found is not None:
        return found
    from ..demo import build_demo, default_demo_path, demo_vectors

    path = default_demo_path()
    if not path.exists():
        from memdesk import Store

        path.parent.mkdir(parents=True, exist_ok=True)
        print(f"memdesk: no store configured; building the demo store at {path} …", file=sys.stderr)
        partial = path.with_name(path.name + ".building")
        for leftover in path.parent.glob(partial.name + "*"):
            leftover.unlink()
        with Store.open(partial, catalog=settings.catalog,
                        review_threshold=settings.review_threshold) as store:
            build_demo(store, progress=lambda text: print(f"  {text}", file=sys.stderr))
            # embedded as `memdesk demo` does, so recall over turns works at once; the
            # index goes where the finished store's is looked for
            from memdesk import index_folder

            print("  embedding memories and turns for recall", file=sys.stderr)
            final = str(index_folder(f"sqlite:///{path}", settings.index_dir))
            _embed_for_recall(store, argparse.Namespace(), replace(settings, index_dir=final),
                              known=demo_vectors())
        partial.rename(path)
    return str(path)


CREATING = {"ingest", "import", "demo", "restore", "mcp", "app"}
"""Commands that may create the store they are pointed at; the others need
one (a mistyped --db must not answer "no facts" from a new empty store)."""


def _new_sqlite_file(db: str) -> Path | None:
    """The SQLite file ``db`` names when it does not exist yet (None for a
    server URL or an existing file)."""
    if "://" in db and not db.startswith("sqlite:///"):
        return None
    path = Path(db.removeprefix("sqlite:///")).expanduser()
    if path.exists() or str(path) == ":memory:" or not path.parent.is_dir():
        return None  # (a missing folder: Store.open names it)
    return path


def _holds_nothing(store: Any) -> bool:
    """Whether ``store`` holds nothing (``Store.holds_nothing``); False when that cannot be
    read (the command's own failure is what the user hears about, and the file stays)."""
    try:
        return bool(store.holds_nothing())
    except Exception:  # noqa: BLE001 - never hide the command's own error behind this check
        return False


def _remove_store_files(path: Path) -> None:
    """Delete a SQLite store's file and its companions (write-ahead log, shared memory, journal)."""
    for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        leftover.unlink(missing_ok=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args.command, args.func, args.screen, args.subject = "app", cmd_app, "timeline", None
    try:
        settings = load_settings(getattr(args, "db", None))
        if args.command == "app":
            settings = replace(settings, db=_app_store(settings))
        elif args.command not in CREATING:  # a command that reads: the app's default store too
            settings = replace(settings, db=_default_store(settings) or settings.db)
        if args.command == "upgrade":
            return cmd_upgrade(args, settings)
        threshold = args.review_threshold if args.review_threshold is not None else settings.review_threshold
        from memdesk import Store

        new_file = _new_sqlite_file(settings.db)
        creates = args.command in CREATING or (args.command, getattr(args, "action", None)) \
            == ("tokens", "create")  # the first token of a team's new store
        if new_file is not None and not creates:
            raise UserError(f"no memdesk store at {new_file}: name one with --db PATH (before or "
                            "after the command) or MEMDESK_DB=PATH, make one with `memdesk --db "
                            "PATH ingest FILE`, `import FILE` or `demo`, or run `memdesk` to "
                            "build and open the demo store")
        done = empty = False
        try:
            with Store.open(settings.db, catalog=settings.catalog,
                            review_threshold=threshold, bounds=_bounds(args, settings)) as store:
                try:
                    code = args.func(store, args, settings)
                    done = code == 0
                    return code
                finally:
                    # a store this command created and left holding nothing (only its schema) goes
                    empty = new_file is not None and not done and _holds_nothing(store)
        finally:
            if empty and new_file is not None:
                _remove_store_files(new_file)
    except IsADirectoryError as exc:
        return _fail(f"{exc.filename} is a folder, not a file")
    except (UserError, MemdeskError) as exc:
        return _fail(str(exc))
    except FileNotFoundError as exc:
        return _fail(f"no such file: {exc.filename}")
    except BrokenPipeError:
        return 0
    except OSError as exc:  # permission denied, a full disk, …
        where = f": {exc.filename}" if exc.filename else ""
        return _fail(f"{exc.strerror or exc}{where}")
    except KeyboardInterrupt:
        print("memdesk: interrupted; nothing was written by the unfinished command", file=sys.stderr)
        return 130
    except ImportError as exc:  # an optional package (mcp, textual, …) this command needs
        extra = missing_extra(exc, f"memdesk {args.command}")
        return _fail(str(extra) if extra is not None else
                     f"this command needs the Python package {exc.name or exc}, which is not installed here")
    except Exception as exc:  # noqa: BLE001 - the last guard: a user never sees a traceback
        if os.environ.get("MEMDESK_DEBUG"):
            raise
        return _fail(_unexpected(exc))


def _fail(message: str) -> int:
    """Say ``message`` on stderr as one ``memdesk: error:`` line; the exit code."""
    line = " / ".join(part.strip() for part in str(message).splitlines() if part.strip())
    print(f"memdesk: error: {shown(line)}", file=sys.stderr)
    return EXIT_ERROR


def _unexpected(exc: Exception) -> str:
    """The message for an exception no command maps: the database driver's
    failure said as such, anything else named as the bug it is."""
    if type(exc).__module__.partition(".")[0] == "sqlalchemy":
        return f"the store failed: {getattr(exc, 'orig', None) or exc}"
    return (f"unexpected {type(exc).__name__}: {exc} (a bug in memdesk: please report it; "
            "MEMDESK_DEBUG=1 shows the traceback)")


