"""Small builders shared by the tests."""

from __future__ import annotations

import importlib
import pkgutil
from datetime import datetime, timedelta, timezone
from types import ModuleType

from memdesk import ClaimInput, SourceRef, parse_time_us
from memdesk.db import make_engine, migrations, normalise_url
from memdesk.extract import rules

CST = timezone(timedelta(hours=8))
DAY0 = datetime(2026, 3, 1, 10, 0, tzinfo=CST)


def day(n: float) -> int:
    """Microseconds for day ``n`` of the worked example (day 1 = 1 March 2026, 10:00 +08:00)."""
    return parse_time_us((DAY0 + timedelta(days=n - 1)).isoformat())


def claim(subject: str, predicate: str, obj: str, *, at: int, turn: int, valid_from: int | None = None,
          session: str = "s1", text: str | None = None, change: str | None = None,
          confidence: float = 0.95, kind: str = "user_explicit", value=None,
          polarity: str = "positive", scope: str | None = None, valid_to: int | None = None,
          single_valued: bool | None = None, stated: bool | None = None) -> ClaimInput:
    """A claim told at ``at``; its start is stated when ``valid_from`` is given
    (as for an import line), unless ``stated`` says otherwise."""
    scope = scope or ("project" if subject.startswith("project:") else "global")
    return ClaimInput(
        subject=subject, predicate=predicate, object=obj,
        source=SourceRef(session=session, turn=turn, text=text or f"turn {turn}: {obj}",
                         time=at, tz=480, kind=kind),
        valid_from=valid_from if valid_from is not None else at, valid_to=valid_to,
        value=value, polarity=polarity, scope=scope, confidence=confidence, change=change,
        single_valued=single_valued,
        start_stated=valid_from is not None if stated is None else stated,
    )


def worked_example() -> list[ClaimInput]:
    """docs/DESIGN.md §2: turn 1 facts, moved to 张江 at turn 18, budget raised at turn 30."""
    t1 = "我叫王工，住在徐家汇，对花生过敏，预算上限五千元"
    return [
        claim("user:me", "lives_in", "徐家汇", at=day(1), turn=1, text=t1),
        claim("user:me", "allergy", "花生", at=day(1), turn=1, text=t1),
        claim("user:me", "name", "王工", at=day(1), turn=1, text=t1),
        claim("project:home", "budget_limit", "5000 元", at=day(1), turn=1, text=t1,
              value={"amount": 5000, "currency": "CNY"}),
        claim("user:me", "lives_in", "张江", at=day(18), turn=18, text="我搬到张江了",
              change="evolution"),
        claim("project:home", "budget_limit", "6500 元", at=day(30), turn=30,
              text="预算上调至六千五百元", change="evolution",
              value={"amount": 6500, "currency": "CNY"}),
    ]


def pending_lines(n: int, session: str = "review-race") -> list[dict]:
    """``n`` import lines below the review threshold: each waits in the queue."""
    out = []
    for i in range(1, n + 1):
        t = f"2026-03-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00+08:00"
        out.append({
            "subject": f"user:u{i % 97}", "predicate": "likes", "object": f"thing {i}",
            "confidence": 0.5, "extractor": "bench@1",
            "source": {"session": session, "turn": i, "speaker": "user", "kind": "user_explicit",
                       "text": f"maybe I like thing {i}", "time": t},
        })
    return out


def downgrade(url: str, revision: str) -> None:
    """Take the store at ``url`` down to migration ``revision``, in one transaction."""
    from alembic import command

    engine = make_engine(normalise_url(url))
    try:
        with engine.begin() as conn:
            cfg = migrations.config()
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, revision)
    finally:
        engine.dispose()


def written(store) -> tuple:
    """What any write changes: the store's change stamp and every table's row
    count (equal before and after: nothing was written)."""
    from memdesk.db.tables import AUDIT, CLAIM, CONFLICT, FACT, MEMORY, TURN
    from sqlalchemy import func, select

    with store.engine.connect() as conn:
        counts = tuple(conn.execute(select(func.count()).select_from(t)).scalar_one()
                       for t in (TURN, CLAIM, FACT, MEMORY, AUDIT, CONFLICT))
    return store.change_stamp(), counts


def manual_memory(store_url: str, index_dir) -> tuple:
    """A ``Memory`` over a store at ``store_url`` whose clock stands at
    2026-06-01 09:00 (+08:00) until moved, with the hash embedder (no model
    loads); returns (memory, clock). The caller closes the memory."""
    from memdesk import ManualClock, Memory, Store
    from memdesk.recall import Recaller

    from .recall_fixtures import HashEmbedder

    clock = ManualClock(datetime(2026, 6, 1, 9, 0, tzinfo=timezone(timedelta(hours=8))))
    store = Store.open(store_url, clock=clock)
    return Memory(store, Recaller(store, embedder=HashEmbedder(), index_dir=index_dir)), clock


def rule_modules() -> list[ModuleType]:
    """The rule extractor's modules: the package ``memdesk.extract.rules`` and each module in it. Each binds
    the names it reads (the patterns ``_P``, ``find_times``, its pattern constants) under its own name, so a
    test that swaps one of them swaps it in every module that has it."""
    return [rules, *(importlib.import_module(f"{rules.__name__}.{m.name}")
                     for m in pkgutil.iter_modules(rules.__path__))]


def examples(thorough: int) -> int:
    """How many examples a slow property test draws: half of ``thorough`` in the default run (the suite's time
    on 2 cores), all of them, or any multiple, with ``MEMDESK_EXAMPLES=1`` (``=2``, …). The draws are
    derandomized, so a run is the same each time at one scale."""
    import os

    scale = float(os.environ.get("MEMDESK_EXAMPLES", "0.5"))
    return max(10, round(thorough * scale))
