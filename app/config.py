"""User settings: where the store is, who the reviewer is, the review threshold,
the recall embedder, index folder and score weights, the bounds on one request's work.

Looked up in this order, first one wins: command-line flag, environment
(MEMDESK_DB, MEMDESK_REVIEWER, MEMDESK_REVIEW_THRESHOLD, MEMDESK_CATALOG,
MEMDESK_EMBEDDER, MEMDESK_INDEX_DIR, MEMDESK_RECALL_<WEIGHT>, MEMDESK_MAX_<BOUND>),
the config file (MEMDESK_CONFIG, else ~/.config/memdesk/config.toml; recall
weights in its ``[recall]`` table, bounds in ``[bounds]``), built-in defaults.
"""

from __future__ import annotations

import getpass
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from memdesk import InvalidInput

DEFAULT_CONFIG = Path("~/.config/memdesk/config.toml")
DEFAULT_EMBEDDER = "use"
DEFAULT_TURN_EMBEDDER = "e5"  # core.recall.DEFAULT_TURN_EMBEDDER (not imported: --help stays light)
RECALL_WEIGHTS = ("relevance", "recency", "importance", "subject", "lexical", "half_life_days",
                  "stale_factor", "dense", "words", "dated")
"""Names of the recall score settings (core.recall.RecallWeights fields)."""
BOUNDS = ("turn_chars", "turns_per_call", "call_chars", "query_chars", "query_asks")
"""Names of the bounds on one request's work (core.bounds.Bounds fields): flag ``--max-NAME``
(dashes for underscores), environment ``MEMDESK_MAX_NAME``, config file ``[bounds]`` table."""


@dataclass(frozen=True)
class Settings:
    db: str
    reviewer: str
    review_threshold: float
    catalog: str | None
    db_configured: bool = True  # False: no flag, env or config named a store
    embedder: str = DEFAULT_EMBEDDER  # recall embedder of memories: use, e5 or use+e5
    turn_embedder: str = DEFAULT_TURN_EMBEDDER  # recall embedder of raw turns
    index_dir: str | None = None  # recall index folder (default: beside the SQLite file)
    recall_weights: tuple[tuple[str, float], ...] = ()  # overrides of RecallWeights defaults
    bounds: tuple[tuple[str, int], ...] = ()  # overrides of core.bounds.Bounds defaults


def _config_file(env: dict[str, str]) -> dict:
    path = Path(env.get("MEMDESK_CONFIG") or DEFAULT_CONFIG).expanduser()
    if not path.is_file():
        if env.get("MEMDESK_CONFIG"):
            raise InvalidInput(f"config file not found: {path}")
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"{path}: not valid TOML: {exc}") from None


def _section(conf: dict, name: str, known: tuple[str, ...], holds: str) -> dict:
    """The config file's ``[name]`` table. Raises InvalidInput when it is not a
    table or names a setting not in ``known``."""
    table = conf.get(name, {})
    if not isinstance(table, dict):
        raise InvalidInput(f"config file: [{name}] must be a table of {holds}")
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise InvalidInput(f"config file: unknown [{name}] setting {unknown[0]!r} "
                           f"(known: {', '.join(known)})")
    return table


def _recall_weights(env: dict[str, str], conf: dict) -> tuple[tuple[str, float], ...]:
    table = _section(conf, "recall", RECALL_WEIGHTS, "weights")
    out = []
    for name in RECALL_WEIGHTS:
        text = env.get(f"MEMDESK_RECALL_{name.upper()}", table.get(name))
        if text is None:
            continue
        try:
            out.append((name, float(text)))
        except (TypeError, ValueError):
            raise InvalidInput(f"recall setting {name} must be a number, got {text!r}") from None
    return tuple(out)


def _bounds(env: dict[str, str], conf: dict) -> tuple[tuple[str, int], ...]:
    """The bounds set by the environment (``MEMDESK_MAX_<NAME>``) or the config file's ``[bounds]``
    table. Raises InvalidInput naming one that is unknown or not a whole number of at least 1."""
    table = _section(conf, "bounds", BOUNDS, "whole numbers")
    out = []
    for name in BOUNDS:
        value = env.get(f"MEMDESK_MAX_{name.upper()}", table.get(name))
        if value is None:
            continue
        try:
            number = value if isinstance(value, int) and not isinstance(value, bool) else int(str(value))
        except ValueError:
            number = 0
        if number < 1:
            raise InvalidInput(f"bound {name} must be a whole number of at least 1, got {value!r}")
        out.append((name, number))
    return tuple(out)


def load_settings(db: str | None = None, env: dict[str, str] | None = None,
                  embedder: str | None = None) -> Settings:
    """Resolve settings. Raises InvalidInput for a bad config file, threshold or
    recall weight."""
    from memdesk import DEFAULT_REVIEW_THRESHOLD  # loads the store: only once a command runs

    env = dict(os.environ) if env is None else env
    conf = _config_file(env)
    threshold_text = env.get("MEMDESK_REVIEW_THRESHOLD", conf.get("review_threshold"))
    try:
        threshold = float(threshold_text) if threshold_text is not None else DEFAULT_REVIEW_THRESHOLD
    except (TypeError, ValueError):
        raise InvalidInput(f"review threshold must be a number, got {threshold_text!r}") from None
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "reviewer"
    return Settings(
        db=db or env.get("MEMDESK_DB") or conf.get("db") or "memdesk.db",
        reviewer=env.get("MEMDESK_REVIEWER") or conf.get("reviewer") or user,
        review_threshold=threshold,
        catalog=env.get("MEMDESK_CATALOG") or conf.get("catalog"),
        db_configured=bool(db or env.get("MEMDESK_DB") or conf.get("db")),
        embedder=embedder or env.get("MEMDESK_EMBEDDER") or conf.get("embedder") or DEFAULT_EMBEDDER,
        turn_embedder=(embedder or env.get("MEMDESK_TURN_EMBEDDER") or conf.get("turn_embedder")
                       or DEFAULT_TURN_EMBEDDER),
        index_dir=env.get("MEMDESK_INDEX_DIR") or conf.get("index_dir"),
        recall_weights=_recall_weights(env, conf),
        bounds=_bounds(env, conf),
    )
