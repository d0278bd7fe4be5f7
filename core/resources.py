"""The data memdesk reads at run time: the ``memdesk.data`` package (the
repository's ``data/`` folder, shipped inside the wheel), found through
``importlib.resources`` so that it works from a checkout and an install alike."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

DATA_PACKAGE = "memdesk.data"


def data_path(*parts: str) -> Path:
    """The filesystem path of a bundled data file or folder, e.g.
    ``data_path("predicates.toml")``. Opening a path that is not there (an
    install without its data) raises FileNotFoundError, as for any file."""
    return Path(str(files(DATA_PACKAGE).joinpath(*parts)))
