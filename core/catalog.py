"""The predicate catalog: which predicates exist, their labels, whether they
hold one value at a time, how long their facts stay fresh, and where they are
routed. Loaded from a TOML file (``data/predicates.toml`` by default)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from .errors import InvalidInput
from .resources import data_path

ROUTINGS = ("structured", "vector", "both")
VALUE_KINDS = ("taste", "place", "organisation", "means", "occasion")  # how values of the kind relate (core/gates.py)
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
    # the predicate that says the opposite of this one (likes / dislikes): a
    # claim of one meets the other's rows, the polarity flipped, at the gates
    opposite: str | None = None
    # how two values relate beyond equality ("taste", "place", "organisation": core/lang/values.py)
    values: str | None = None
    # said in a project's turn, the fact is the project's, not the speaker's
    team: bool = False

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
            opposite = entry.get("opposite")
            if opposite is not None and not (isinstance(opposite, str) and _ID.match(opposite)):
                raise InvalidInput(f"{where}: opposite must be a predicate id")
            values = entry.get("values")
            if values is not None and values not in VALUE_KINDS:
                raise InvalidInput(f"{where}: values must be one of {', '.join(VALUE_KINDS)}")
            team = entry.get("team", False)
            if not isinstance(team, bool):
                raise InvalidInput(f"{where}: team must be true or false")
            predicates[pid] = Predicate(
                opposite=opposite,
                team=team,
                values=values,
                id=pid,
                zh=str(entry["zh"]),
                en=str(entry["en"]),
                single_valued=bool(entry["single_valued"]),
                ttl=ttl_class,
                ttl_hours=ttl[ttl_class],
                routing=routing,
            )
        return cls(predicates=_paired(predicates, file), ttl_hours=dict(ttl), path=str(file))


def _paired(predicates: dict[str, Predicate], file: Path) -> dict[str, Predicate]:
    """Opposites declared on either side, made symmetric. Raises InvalidInput
    for an unknown opposite, a predicate opposite to itself, two predicates
    claiming one opposite, or a pair that differs in arity."""
    pairs: dict[str, str] = {}
    for p in predicates.values():
        if p.opposite is None:
            continue
        other = predicates.get(p.opposite)
        where = f"{file}: predicate {p.id!r}"
        if other is None or other.id == p.id:
            raise InvalidInput(f"{where}: opposite {p.opposite!r} is not another catalogued predicate")
        if other.single_valued != p.single_valued:
            raise InvalidInput(f"{where}: opposite {other.id!r} must be single-valued too"
                               if p.single_valued else
                               f"{where}: opposite {other.id!r} must be multi-valued too")
        for a, b in ((p.id, other.id), (other.id, p.id)):
            if pairs.setdefault(a, b) != b:
                raise InvalidInput(f"{file}: predicate {a!r} is declared opposite to both "
                                   f"{pairs[a]!r} and {b!r}")
    return {pid: replace(p, opposite=pairs.get(pid)) for pid, p in predicates.items()}


def is_predicate_id(text: str) -> bool:
    """True for a well-formed predicate id (snake_case ASCII)."""
    return bool(_ID.match(text))
