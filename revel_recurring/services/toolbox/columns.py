"""Writing a few columns of many rows of one model, each row its own values, in one UPDATE.

What ``QuerySet.bulk_update`` writes, without its cost in Python: Django builds a
``When(pk=...)`` expression per row and column and resolves each through the
query machinery (about a tenth of a millisecond apiece), which made the cursor
write of a daily chunk cost more than the rest of the chunk (docs/benchmarks.md,
"Profile"). Here the statement is written out once: a column every row gives
the same value is a plain assignment, the others a ``CASE`` on the primary key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connections, router


def update_columns(rows: Sequence[Any], names: Sequence[str]) -> None:
    """Write the columns ``names`` of every object in ``rows`` (saved, one model) as they are.

    One statement for all rows, or a few where the backend caps the parameters of
    one (SQLite's 999). Values go through each field's ``get_db_prep_save``, as a
    save would; nothing else of a save runs (no ``pre_save``, no ``auto_now``, no
    signals).
    """
    if not rows:
        return
    model = type(rows[0])
    connection = connections[router.db_for_write(model)]
    fields = [model._meta.get_field(name) for name in names]
    # Per row: its key and one value per column, then the key again in the WHERE.
    most = connection.features.max_query_params
    size = len(rows) if most is None else max(1, most // (2 * len(fields) + 1))
    for start in range(0, len(rows), size):
        _update_batch(connection, model, fields, rows[start : start + size])


def _update_batch(connection: Any, model: Any, fields: list[Any], rows: Sequence[Any]) -> None:
    quote = connection.ops.quote_name
    pk = model._meta.pk
    keys = [pk.get_db_prep_value(row.pk, connection) for row in rows]
    assignments: list[str] = []
    params: list[Any] = []
    for field in fields:
        raw = [getattr(row, field.attname) for row in rows]
        column = quote(field.column)
        if all(value == raw[0] and type(value) is type(raw[0]) for value in raw[1:]):
            assignments.append(f"{column} = %s")
            params.append(field.get_db_prep_save(raw[0], connection))
            continue
        values = [field.get_db_prep_save(value, connection) for value in raw]
        case = f"CASE {quote(pk.column)} {' '.join(['WHEN %s THEN %s'] * len(rows))} END"
        if connection.features.requires_casted_case_in_updates:
            # PostgreSQL types a CASE of parameters from its branches: all NULL
            # would be text. bulk_update casts for the same reason.
            case = f"CAST({case} AS {field.cast_db_type(connection)})"
        assignments.append(f"{column} = {case}")
        for key, value in zip(keys, values, strict=True):
            params.extend((key, value))
    where = ", ".join(["%s"] * len(keys))
    sql = (
        f"UPDATE {quote(model._meta.db_table)} SET {', '.join(assignments)} "
        f"WHERE {quote(pk.column)} IN ({where})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *keys])


__all__ = ["update_columns"]
