"""memdesk's engine: a bitemporal fact store with gated writes, a review queue,
conflicts and provenance. Never imports the app or any UI toolkit.

    from memdesk.core import Store, ClaimInput, SourceRef
    with Store.open("memdesk.db") as store:
        store.import_file("facts.jsonl")
        store.as_of("user:alice", "lives_in", valid_at=..., known_at=...)
"""

from .catalog import Catalog, Predicate
from .claims import ClaimInput, SourceRef, read_claims
from .clock import Clock, ManualClock, SystemClock
from .errors import (
    AlreadyDecided,
    CandidateNotFound,
    ConflictNotFound,
    ExtractorUnavailable,
    FactNotFound,
    FactRetired,
    InputFileError,
    InvalidInput,
    MemdeskError,
    PredicateMismatch,
    StoreError,
    SubjectNotFound,
    TurnMismatch,
)
from .records import (
    AuditReport,
    AuditStep,
    Candidate,
    Conflict,
    Fact,
    ImportSummary,
    PredicateInfo,
    Source,
    TurnRecord,
)
from .store import DEFAULT_REVIEW_THRESHOLD, RESOLUTIONS, Store
from .timeutil import iso, parse_time, parse_time_us

__all__ = [
    "AlreadyDecided", "AuditReport", "AuditStep", "Candidate", "CandidateNotFound",
    "Catalog", "ClaimInput", "Clock", "Conflict", "ConflictNotFound",
    "DEFAULT_REVIEW_THRESHOLD", "ExtractorUnavailable", "Fact", "FactNotFound", "FactRetired", "ImportSummary",
    "InputFileError", "InvalidInput", "ManualClock", "MemdeskError", "Predicate",
    "PredicateInfo", "PredicateMismatch", "RESOLUTIONS", "Source", "SourceRef", "Store",
    "StoreError", "SubjectNotFound", "SystemClock", "TurnMismatch", "TurnRecord", "iso", "parse_time", "parse_time_us",
    "read_claims",
]

# Recall (DESIGN §4) loads numpy and Annoy, so it is imported on first use:
# ``from core import Recaller`` works, and ``import core`` stays light.
_LAZY = {
    "Recaller": "recall", "RecallHit": "recall", "RecallWeights": "recall",
    "IndexSettings": "recall", "IndexReport": "recall", "Comparison": "recall",
    "HitSource": "recall", "Embedder": "recall", "make_embedder": "recall",
    "EmbedderUnavailable": "errors",
}
__all__ += list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
