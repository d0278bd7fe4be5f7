"""Where a store's recall index files live: beside a SQLite file, or in the
user's cache folder for a server store (the URL's parts read through
``memdesk.db.recall.store_location``)."""

from __future__ import annotations

import os
import re
import tempfile
from hashlib import sha1
from pathlib import Path

from ..db.recall import store_location


def default_index_dir(url: str) -> Path:
    """Where the index files of a store live: beside a SQLite file
    (``memdesk.db`` → ``memdesk.db.recall/``); for a server store, in the user's
    cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``) under
    ``memdesk/recall/<host>-<port>-<database>-<hash>``."""
    parsed = store_location(url)
    if parsed.backend == "sqlite":
        db = parsed.database
        if db and db != ":memory:":
            return Path(db).expanduser().resolve().with_name(Path(db).name + ".recall")
        return Path(tempfile.gettempdir()) / f"memdesk-recall-{os.getpid()}-{id(url)}"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    digest = sha1(parsed.safe_url.encode()).hexdigest()[:10]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_",
                  f"{parsed.host or 'local'}-{parsed.port or 5432}-{parsed.database or ''}")
    return cache / "memdesk" / "recall" / f"{name}-{digest}"


def index_folder(url: str, index_dir: str | Path | None = None) -> Path:
    """The folder a Recaller of the store at ``url`` keeps its index files in:
    ``index_dir`` when given, else ``default_index_dir(url)``."""
    return Path(index_dir) if index_dir else default_index_dir(url)


__all__ = ["default_index_dir", "index_folder"]
