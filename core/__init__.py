"""memdesk: long-term memory for AI agents. A bitemporal fact store with gated
writes, a review queue, conflicts, provenance and recall. This module is the
public face: everything a program uses is importable from ``memdesk`` itself;
the modules behind it are private and may move. Never imports the app or any
UI toolkit.

    from memdesk import Memory
    with Memory.open("memdesk.db") as memory:
        memory.remember([{"role": "user", "content": "I moved to Leeds"}], user="ann")
        memory.recall("where does ann live?", user="ann")

    from memdesk import Store
    with Store.open("memdesk.db") as store:
        store.facts.import_file("facts.jsonl")
        store.facts.as_of("user:alice", valid_at=..., known_at=...)
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
    MissingExtra,
    PredicateMismatch,
    RequestCancelled,
    StoreError,
    SubjectNotFound,
    TokenNotFound,
    TurnMismatch,
    missing_extra,
)
from .timeutil import iso, parse_time, parse_time_us, read_moment, to_us

if TYPE_CHECKING:  # imported on first use (see _LAZY below); named here for type checkers
    from .access import Caller, Grant
    from .bounds import Bounds
    from .catalog import Catalog, Predicate
    from .checks import check_predicate, check_subject
    from .claims import (
        ClaimInput,
        SourceRef,
        decode_json,
        iter_jsonl,
        read_claims,
    )
    from .db.engine import refuse_statements
    from .errors import EmbedderUnavailable
    from .extract.llm import LLMExtractor
    from .failpoints import point as failpoint
    from .ingest import demo_files, iter_turns
    from .maintain import MaintenancePlan, MaintenanceReport, parse_age
    from .memory import MAX_PAGE, Memory, Remembered, one_user
    from .names import shown, shown_all
    from .pipeline import Turn
    from .recall import (
        Comparison,
        Embedder,
        IndexReport,
        IndexSettings,
        Recaller,
        RecallHit,
        RecallWeights,
        index_folder,
        make_embedder,
        remove_index_files,
    )
    from .recall import (
        HitSource as HitSource,  # kept importable (records.Source), not in __all__
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
    from .resources import data_path
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
    # the agent's door: remember, recall, read, propose (mem0's Memory, one to one)
    "Memory", "Remembered", "MemoryFact", "MemoryAudit", "AuditStepView", "MemoryCandidate", "MemoryHit",
    "SourceView", "StartView", "MAX_PAGE",
    # the store and what it returns
    "Store", "ClaimInput", "SourceRef", "read_claims", "Fact", "Candidate", "claimed_object", "Conflict", "Source", "TurnRecord",
    "AuditReport", "AuditStep", "ImportSummary", "PredicateInfo", "Catalog", "Predicate",
    "DEFAULT_REVIEW_THRESHOLD", "RESOLUTIONS", "MaintenancePlan", "MaintenanceReport", "parse_age",
    "Bounds", "Token",
    # recall
    "Recaller", "RecallHit", "RecallWeights", "IndexSettings", "IndexReport", "Comparison",
    "Embedder", "make_embedder", "KnownVectors", "load_known", "save_known",
    # who may read and write
    "Caller", "Grant",
    # clocks and times
    "Clock", "ManualClock", "SystemClock", "iso", "parse_time", "parse_time_us", "read_moment", "to_us",
    # errors (each also a builtin: ValueError, LookupError, RuntimeError …)
    "MemdeskError", "InvalidInput", "InputFileError", "StoreError", "AccessRefused", "AlreadyDecided",
    "BoundExceeded", "CandidateNotFound", "ConflictNotFound", "EmbedderUnavailable", "ExtractorUnavailable",
    "FactNotFound", "FactRetired", "MissingExtra", "PredicateMismatch", "RequestCancelled", "SubjectNotFound",
    "TokenNotFound", "TurnMismatch", "missing_extra",
    # for the doors built on the engine (the CLI, the MCP server, the desk): reading
    # conversation and import files, checking names, showing stored text safely,
    # the LLM extractor, the index's folder, the bundled data, the crash-test hook
    "Turn", "iter_turns", "demo_files", "iter_jsonl", "decode_json", "check_subject", "check_predicate",
    "one_user", "shown", "shown_all", "LLMExtractor", "index_folder", "remove_index_files", "data_path",
    "failpoint",
    # the HTTP door's stop for the work of a request nobody waits for any more
    "refuse_statements",
]

# Everything that loads SQLAlchemy, SQLModel and Alembic (the store and what
# it uses) or numpy and Annoy (recall, docs/DESIGN.md §4) is imported on first use:
# ``from memdesk import Store`` works as before, while ``import
# memdesk`` (the errors, clocks and time helpers) stays light, so the
# command line parses its arguments before the engine loads. A value names the
# module, and after a colon the name there when it differs.
_LAZY = {
    "Bounds": "bounds",
    "Catalog": "catalog", "Predicate": "catalog",
    "ClaimInput": "claims", "SourceRef": "claims", "read_claims": "claims", "check_predicate": "checks",
    "check_subject": "checks", "decode_json": "claims", "iter_jsonl": "claims",
    "AuditReport": "records", "AuditStep": "records", "Candidate": "records",
    "claimed_object": "records", "Conflict": "records", "Fact": "records", "ImportSummary": "records",
    "PredicateInfo": "records", "Source": "records", "TurnRecord": "records",
    "DEFAULT_REVIEW_THRESHOLD": "store", "RESOLUTIONS": "store", "Store": "store",
    "Recaller": "recall", "RecallHit": "recall", "RecallWeights": "recall",
    "IndexSettings": "recall", "IndexReport": "recall", "Comparison": "recall",
    "HitSource": "recall",  # the old name of a recall result's Source (records.Source): kept importable
    "Embedder": "recall", "make_embedder": "recall", "KnownVectors": "recall.known", "load_known": "recall.known", "save_known": "recall.known",
    "index_folder": "recall", "remove_index_files": "recall",
    "EmbedderUnavailable": "errors",
    "MaintenancePlan": "maintain", "MaintenanceReport": "maintain", "parse_age": "maintain",
    "Memory": "memory", "Remembered": "memory", "MAX_PAGE": "memory", "one_user": "memory",
    "MemoryFact": "views", "MemoryAudit": "views", "AuditStepView": "views",
    "MemoryCandidate": "views", "MemoryHit": "views", "SourceView": "views", "StartView": "views",
    "Caller": "access", "Grant": "access", "Token": "tokens",
    "Turn": "pipeline", "iter_turns": "ingest", "demo_files": "ingest",
    "shown": "names", "shown_all": "names", "LLMExtractor": "extract.llm",
    "data_path": "resources", "failpoint": "failpoints:point",
    "refuse_statements": "db.engine",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, _, attr = _LAZY[name].partition(":")
        value = getattr(importlib.import_module(f".{module}", __name__), attr or name)
        globals()[name] = value  # later lookups skip __getattr__
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
