"""The unique checks of many rows at once: unique fields, ``unique_together`` and
unconditional ``UniqueConstraint`` s, one query per group for the whole set.

Part of :func:`~.row_validation.first_invalid_row`: the rows are compared with
the stored ones (other than themselves) and among themselves, since the database
holds none of their new values yet.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import connections

# Values per IN (...) of the set-wide reads (foreign keys, the varying field of a
# unique group), well inside SQLite's 999 parameters.
IN_BATCH = 500

ErrorDict = dict[str, list[ValidationError]]
# A failed set-wide unique check of one row: the fields it read, the errors it adds.
Finding = tuple[frozenset[str], ErrorDict]


def _unique_groups(model: Any, exclude: frozenset[str]) -> list[tuple[Any, tuple[str, ...], Any]]:
    """(model class, field names, UniqueConstraint or None) of every total unique check."""
    groups: list[tuple[Any, tuple[str, ...], Any]] = []
    for klass in (model, *model._meta.all_parents):
        for field in klass._meta.local_concrete_fields:
            if field.unique and not field.primary_key:
                groups.append((klass, (field.name,), None))
        for names in klass._meta.unique_together:
            groups.append((klass, tuple(names), None))
        for constraint in klass._meta.total_unique_constraints:
            if constraint.nulls_distinct is not False and not any(
                klass._meta.get_field(name).generated for name in constraint.fields
            ):
                groups.append((klass, tuple(constraint.fields), constraint))
    return [group for group in groups if not set(group[1]) & exclude]


def set_wide_findings(
    model: Any, rows: Sequence[Any], copied: frozenset[str], exclude: frozenset[str], using: str
) -> list[tuple[int, Finding]]:
    """Unique groups reading a copied field, checked for all rows at once."""
    findings: list[tuple[int, Finding]] = []
    empty_is_null = connections[using].features.interprets_empty_strings_as_nulls
    for klass, names, constraint in _unique_groups(model, exclude):
        if not set(names) & copied:
            continue
        attnames = [klass._meta.get_field(name).attname for name in names]
        keys: dict[int, tuple[Any, ...]] = {}
        for index, row in enumerate(rows):
            key = tuple(getattr(row, attname) for attname in attnames)
            # NULL never equals NULL in SQL: such a key cannot clash.
            if not any(value is None or (value == "" and empty_is_null) for value in key):
                keys[index] = key
        taken = _stored_keys(klass, names, attnames, set(keys.values()), rows, using)
        # The rows among themselves: the database holds none of the new values yet.
        counts = Counter(keys.values())
        for index, key in keys.items():
            if key in taken or counts[key] > 1:
                error = _unique_error(rows[index], klass, names, constraint)
                findings.append((index, (frozenset(names), error)))
    return findings


def _stored_keys(
    klass: Any,
    names: tuple[str, ...],
    attnames: list[str],
    keys: set[tuple[Any, ...]],
    rows: Sequence[Any],
    using: str,
) -> set[tuple[Any, ...]]:
    """Which of ``keys`` a stored row other than ``rows`` already holds.

    The fields every key shares (the copied ones) are matched by value, the
    first other one by ``IN`` over its values, one query per page of them; the
    exact tuples are compared in Python, and so is "other than ``rows``" (their
    stored values are the ones being replaced).
    """
    if not keys:
        return set()
    first = next(iter(keys))
    shared = {
        name: first[position]
        for position, name in enumerate(names)
        if all(key[position] == first[position] for key in keys)
    }
    queryset = klass._default_manager.using(using).filter(**shared).order_by()
    varying = [(position, name) for position, name in enumerate(names) if name not in shared]
    pages = [queryset]
    if varying:
        position, name = varying[0]
        values = list({key[position] for key in keys})
        pages = [
            queryset.filter(**{f"{name}__in": values[start : start + IN_BATCH]})
            for start in range(0, len(values), IN_BATCH)
        ]
    own = {row.pk for row in rows}
    stored: set[tuple[Any, ...]] = set()
    for page in pages:
        for pk, *found in page.values_list("pk", *attnames):
            if pk not in own:
                stored.add(tuple(found))
    return keys & stored


def _unique_error(row: Any, klass: Any, names: tuple[str, ...], constraint: Any) -> ErrorDict:
    """The error ``full_clean()`` raises for this clash, keyed as it keys it."""
    if constraint is None or (
        constraint.violation_error_message == constraint.default_violation_error_message
    ):
        error = row.unique_error_message(klass, names)
    else:
        error = ValidationError(
            constraint.get_violation_error_message(), code=constraint.violation_error_code
        )
    key = names[0] if len(names) == 1 else NON_FIELD_ERRORS
    return {key: [error]}


__all__ = ["IN_BATCH", "ErrorDict", "Finding", "set_wide_findings"]
