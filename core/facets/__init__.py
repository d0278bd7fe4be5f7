"""The facets of a Store (``store.facts``, ``store.review``,
``store.conflicts``, ``store.audit``, ``store.admin``), each over the state
they share (``base.StoreCore``)."""

from .admin import Admin
from .audit import Audit
from .base import StoreCore
from .conflicts import Conflicts
from .facts import Facts
from .review import Review

__all__ = ["Admin", "Audit", "Conflicts", "Facts", "Review", "StoreCore"]
