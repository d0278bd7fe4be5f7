"""memdesk's engine: a bitemporal fact store with gated writes, a review queue,
conflicts and provenance. Never imports the app or any UI toolkit.

    from memdesk import Store, ClaimInput, SourceRef
    with Store.open("memdesk.db") as store:
        store.import_file("facts.jsonl")
        store.as_of("user:alice", "lives_in", valid_at=..., known_at=...)
"""

from typing import TYPE_CHECKING

from .clock import Clock, ManualClock, SystemClock
from .errors import (
    AccessRefused,
    AlreadyDecided,
    BoundExceeded,
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
    TokenNotFound,
    TurnMismatch,
)
from .timeutil import iso, parse_time, parse_time_us

if TYPE_CHECKING:  # imported on first use (see _LAZY below); named here for type checkers
    from .access import Caller, Grant
    from .bounds import Bounds
    from .catalog import Catalog, Predicate
    from .claims import ClaimInput, SourceRef, read_claims
    from .errors import EmbedderUnavailable
    from .maintain import MaintenancePlan, MaintenanceReport, parse_age
    from .memory import Memory, Remembered
    from .recall import (
        Comparison,
        Embedder,
        HitSource,
        IndexReport,
        IndexSettings,
        Recaller,
        RecallHit,
        RecallWeights,
        make_embedder,
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
    from .tokens import Token
    from .views import (
        AuditStepView,
        MemoryAudit,
        MemoryCandidate,
        MemoryFact,
        MemoryHit,
        SourceView,
        StartView,
    )

__all__ = [
    "AlreadyDecided", "AuditReport", "AuditStep", "BoundExceeded", "Bounds", "Candidate",
    "CandidateNotFound",
    "Catalog", "ClaimInput", "Clock", "Conflict", "ConflictNotFound",
    "DEFAULT_REVIEW_THRESHOLD", "ExtractorUnavailable", "Fact", "FactNotFound", "FactRetired", "ImportSummary",
    "InputFileError", "InvalidInput", "ManualClock", "MemdeskError", "Predicate",
    "PredicateInfo", "PredicateMismatch", "RESOLUTIONS", "Source", "SourceRef", "Store",
    "StoreError", "SubjectNotFound", "SystemClock", "TurnMismatch", "TurnRecord", "iso", "parse_time", "parse_time_us",
    "read_claims",
    # maintenance
    "MaintenancePlan", "MaintenanceReport", "parse_age",
    # the agent's door
    "Memory", "Remembered", "AccessRefused", "Caller", "Grant", "Token", "TokenNotFound",
    "MemoryFact", "MemoryAudit", "AuditStepView", "MemoryCandidate", "MemoryHit", "SourceView",
    "StartView",
    # recall
    "Comparison", "Embedder", "EmbedderUnavailable", "HitSource", "IndexReport", "IndexSettings",
    "RecallHit", "RecallWeights", "Recaller", "make_embedder",
]

# Everything that loads SQLAlchemy, SQLModel and Alembic (the store and what
# it uses) or numpy and Annoy (recall, docs/DESIGN.md §4) is imported on first use:
# ``from memdesk import Store`` works as before, while ``import
# memdesk`` (the errors, clocks and time helpers) stays light, so the
# command line parses its arguments before the engine loads.
_LAZY = {
    "Bounds": "bounds",
    "Catalog": "catalog", "Predicate": "catalog",
    "ClaimInput": "claims", "SourceRef": "claims", "read_claims": "claims",
    "AuditReport": "records", "AuditStep": "records", "Candidate": "records",
    "Conflict": "records", "Fact": "records", "ImportSummary": "records",
    "PredicateInfo": "records", "Source": "records", "TurnRecord": "records",
    "DEFAULT_REVIEW_THRESHOLD": "store", "RESOLUTIONS": "store", "Store": "store",
    "Recaller": "recall", "RecallHit": "recall", "RecallWeights": "recall",
    "IndexSettings": "recall", "IndexReport": "recall", "Comparison": "recall",
    "HitSource": "recall", "Embedder": "recall", "make_embedder": "recall",
    "EmbedderUnavailable": "errors",
    "MaintenancePlan": "maintain", "MaintenanceReport": "maintain", "parse_age": "maintain",
    "Memory": "memory", "Remembered": "memory",
    "MemoryFact": "views", "MemoryAudit": "views", "AuditStepView": "views",
    "MemoryCandidate": "views", "MemoryHit": "views", "SourceView": "views", "StartView": "views",
    "Caller": "access", "Grant": "access", "Token": "tokens",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value  # later lookups skip __getattr__
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
