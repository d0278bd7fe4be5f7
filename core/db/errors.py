"""The database errors the rest of the engine may catch, named once here so
that no module outside ``memdesk.db`` imports SQLAlchemy (issue 30 §3).

They are SQLAlchemy's own classes, re-exported: a caller catches
``DBAPIError`` (any error the driver raised, rolled back), ``OperationalError``
(locked, unreachable, disk full), ``IntegrityError`` (a constraint refused a
row), ``ProgrammingError`` and ``DatabaseError`` (not a database, or not ours).
"""

from sqlalchemy.exc import (
    DatabaseError,
    DBAPIError,
    IntegrityError,
    OperationalError,
    ProgrammingError,
)

__all__ = ["DBAPIError", "DatabaseError", "IntegrityError", "OperationalError", "ProgrammingError"]
