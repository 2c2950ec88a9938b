"""PyMySQL as Django's MySQL/MariaDB driver when mysqlclient is not installed.

mysqlclient (``MySQLdb``) is the driver Django documents, but it builds from C and
needs pkg-config and the MariaDB client headers; PyMySQL is pure Python and comes
with the test extra. Every test host's settings call :func:`use_pymysql_for` with
its ``DATABASE_URL`` (docs/howto/mariadb.md shows a site the same lines).
"""

from __future__ import annotations


def use_pymysql_for(url: str | None) -> None:
    """Install PyMySQL as ``MySQLdb`` when ``url`` names MySQL/MariaDB and mysqlclient is absent."""
    if not url or not url.startswith(("mysql:", "mariadb:")):
        return
    try:
        import MySQLdb  # noqa: F401  (mysqlclient, when a site has it)
    except ImportError:
        import pymysql

        # Django checks the client's version (mysqlclient >= 2.2.1 for Django 5.2 and
        # 6.0); PyMySQL announces a supported one to pass that check.
        pymysql.version_info = (2, 2, 1, "final", 0)
        pymysql.install_as_MySQLdb()


#: Loads the server's time zone tables (as root, once per server).
LOAD_TIME_ZONES = "mariadb-tzinfo-to-sql /usr/share/zoneinfo | mariadb -h 127.0.0.1 -u root mysql"


def missing_time_zone_tables() -> str | None:
    """Why a MySQL/MariaDB server cannot convert to named zones, or None when it can.

    Django converts datetimes in SQL (``__date`` lookups, the admin's
    ``date_hierarchy``) with ``CONVERT_TZ``, which gives NULL while the server's time
    zone tables are empty: those lookups then find nothing and the admin's dates fail
    with "Database returned an invalid datetime value". None on other backends.
    """
    from django.db import connection

    if connection.vendor != "mysql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT CONVERT_TZ('2027-01-01 12:00:00', 'UTC', 'Europe/Vienna')")
        row = cursor.fetchone()
    if row and row[0] is not None:
        return None
    return (
        f"The MariaDB server at {connection.settings_dict['HOST']} has no time zone tables; "
        f"load them once: {LOAD_TIME_ZONES}"
    )
