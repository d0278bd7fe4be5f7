"""The predicate catalog: which predicates exist, their labels, whether they
hold one value at a time, how long their facts stay fresh, and where they are
routed. Loaded from a TOML file (``data/predicates.toml`` by default)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import InvalidInput
from .resources import data_path

ROUTINGS = ("structured", "vector", "both")
_ID = re.compile(r"^[a-z][a-z0-9_]*$")

DEFAULT_CATALOG_PATH = data_path("predicates.toml")


@dataclass(frozen=True)
class Predicate:
    """One catalogued predicate."""

    id: str
    zh: str
    en: str
    single_valued: bool
    ttl: str
    ttl_hours: int
    routing: str

    @property
    def ttl_us(self) -> int | None:
        """Lifetime in microseconds, or None for facts that never expire."""
        return self.ttl_hours * 3_600_000_000 if self.ttl_hours else None


@dataclass(frozen=True)
class Catalog:
    """The loaded catalog. Look predicates up with ``get``; ``path`` says where it came from."""

    predicates: dict[str, Predicate]
    ttl_hours: dict[str, int]
    path: str

    def get(self, predicate_id: str) -> Predicate | None:
        return self.predicates.get(predicate_id)

    def __contains__(self, predicate_id: object) -> bool:
        return predicate_id in self.predicates

    def __iter__(self):
        return iter(self.predicates.values())

    @classmethod
    def load(cls, path: str | Path | None = None) -> Catalog:
        """Load a catalog TOML file (the bundled one when ``path`` is None).

        Raises FileNotFoundError when the file is missing and InvalidInput when
        it is not valid TOML or an entry is incomplete.
        """
        file = Path(path) if path is not None else DEFAULT_CATALOG_PATH
        try:
            doc = tomllib.loads(file.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise InvalidInput(f"{file}: not valid TOML: {exc}") from None
        ttl = doc.get("ttl", {})
        if not isinstance(ttl, dict) or not all(
            isinstance(v, int) and v >= 0 for v in ttl.values()
        ):
            raise InvalidInput(f"{file}: [ttl] must map class names to whole hours >= 0")
        ttl.setdefault("permanent", 0)
        predicates: dict[str, Predicate] = {}
        for pid, entry in doc.get("predicates", {}).items():
            where = f"{file}: predicate {pid!r}"
            if not _ID.match(pid):
                raise InvalidInput(f"{where}: ids are snake_case ASCII")
            if not isinstance(entry, dict):
                raise InvalidInput(f"{where}: must be a table")
            missing = [k for k in ("zh", "en", "single_valued") if k not in entry]
            if missing:
                raise InvalidInput(f"{where}: missing {', '.join(missing)}")
            ttl_class = entry.get("ttl", "permanent")
            if ttl_class not in ttl:
                raise InvalidInput(f"{where}: unknown ttl class {ttl_class!r}")
            routing = entry.get("routing", "structured")
            if routing not in ROUTINGS:
                raise InvalidInput(f"{where}: routing must be one of {', '.join(ROUTINGS)}")
            predicates[pid] = Predicate(
                id=pid,
                zh=str(entry["zh"]),
                en=str(entry["en"]),
                single_valued=bool(entry["single_valued"]),
                ttl=ttl_class,
                ttl_hours=ttl[ttl_class],
                routing=routing,
            )
        return cls(predicates=predicates, ttl_hours=dict(ttl), path=str(file))


def is_predicate_id(text: str) -> bool:
    """True for a well-formed predicate id (snake_case ASCII)."""
    return bool(_ID.match(text))
