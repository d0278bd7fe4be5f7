"""Start the app on an open store."""

from __future__ import annotations

from memdesk import Store

from ..config import Settings
from .app import MemdeskApp
from .service import MemdeskService


def run_app(store: Store, settings: Settings, *, screen: str = "timeline",
            subject: str | None = None) -> int:
    """Run the app until the user quits. Returns the exit code."""
    from memdesk import Recaller, RecallWeights

    recaller = Recaller(store, embedder=settings.embedder, index_dir=settings.index_dir,
                        weights=RecallWeights(**dict(settings.recall_weights)))
    service = MemdeskService(store, settings.reviewer, recaller)
    MemdeskApp(service, start=screen, subject=subject).run()
    return 0
