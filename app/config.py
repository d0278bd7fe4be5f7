"""User settings: where the store is, who the reviewer is, the review threshold.

Looked up in this order, first one wins: command-line flag, environment
(MEMDESK_DB, MEMDESK_REVIEWER, MEMDESK_REVIEW_THRESHOLD, MEMDESK_CATALOG), the
config file (MEMDESK_CONFIG, else ~/.config/memdesk/config.toml), built-in
defaults.
"""

from __future__ import annotations

import getpass
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from core import DEFAULT_REVIEW_THRESHOLD, InvalidInput

DEFAULT_CONFIG = Path("~/.config/memdesk/config.toml")


@dataclass(frozen=True)
class Settings:
    db: str
    reviewer: str
    review_threshold: float
    catalog: str | None


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


def load_settings(db: str | None = None, env: dict[str, str] | None = None) -> Settings:
    """Resolve settings. Raises InvalidInput for a bad config file or threshold."""
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
    )
