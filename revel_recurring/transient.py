"""Which database errors are worth a retry.

Transient: lost connections, deadlocks, serialization failures and lock or
statement timeouts. Everything else (IntegrityError, a missing table, a bad rule)
would fail the same way again and must surface on the first attempt.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError

from .exceptions import SeriesBusyError

# SQLSTATE classes/codes (PostgreSQL; also used by psycopg for other servers).
_TRANSIENT_SQLSTATE_PREFIXES = ("08", "40", "53", "57P")
_TRANSIENT_SQLSTATES = {"55P03", "57014"}
# MySQL/MariaDB error numbers: lock wait timeout, deadlock, server gone, lost connection.
_TRANSIENT_MYSQL_CODES = {1205, 1213, 2006, 2013}
_TRANSIENT_SQLITE_MESSAGES = ("database is locked", "database table is locked")


def is_transient_db_error(exc: BaseException) -> bool:
    """Whether a retry may succeed (lost connection, deadlock, serialization, lock timeout)."""
    if isinstance(exc, (InterfaceError, SeriesBusyError)):
        return True
    if not isinstance(exc, OperationalError):
        return False
    cause = exc.__cause__ or exc
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    if sqlstate:
        return sqlstate in _TRANSIENT_SQLSTATES or sqlstate.startswith(_TRANSIENT_SQLSTATE_PREFIXES)
    args = getattr(cause, "args", ())
    if args and isinstance(args[0], int):
        return args[0] in _TRANSIENT_MYSQL_CODES
    message = str(cause).lower()
    if any(text in message for text in _TRANSIENT_SQLITE_MESSAGES):
        return True
    # psycopg raises OperationalError without a SQLSTATE when the connection
    # itself failed (server closed it, network down): that is transient too.
    return type(cause).__module__.startswith("psycopg")


# Lock conflicts a service may retry from its own savepoint: a NOWAIT lock that was
# taken, a deadlock, a serialization failure (PostgreSQL SQLSTATEs; MariaDB codes).
_LOCK_CONFLICT_SQLSTATES = {"55P03", "40P01", "40001"}
_LOCK_CONFLICT_MYSQL_CODES = {1205, 1213, 3572}


def is_lock_conflict(exc: BaseException) -> bool:
    """Whether ``exc`` says a lock was not granted (retry-safe once the savepoint rolled back)."""
    if not isinstance(exc, OperationalError):
        return False
    cause = exc.__cause__ or exc
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    if sqlstate:
        return sqlstate in _LOCK_CONFLICT_SQLSTATES
    args: tuple[object, ...] = getattr(cause, "args", ())
    return bool(args) and args[0] in _LOCK_CONFLICT_MYSQL_CODES
