"""The host's validation of many rows that take the same copied values, in few queries.

``Model.full_clean()`` on one row runs a query for each foreign key (does the
target exist), each unique field or group and each constraint: about a dozen
for a typical host event. A propagated template edit validates hundreds of rows
that differ from their stored state only in the copied fields, all holding the
template's values, which passed ``full_clean()`` on the template just before.
:func:`first_invalid_row` gives the answer ``full_clean()`` would give for each
row, with a number of queries that does not grow with the rows wherever the
check allows it:

- ``clean_fields()`` and the host's ``clean()`` run on every row, in Python (a
  value shared by many rows is cleaned once for all of them);
- foreign keys: one query per key field for the whole set;
- unique fields, ``unique_together`` and unconditional ``UniqueConstraint`` s that
  read a copied field: one query per group for the whole set, plus a comparison
  of the rows among themselves (the database sees none of the new values yet;
  :mod:`.unique_checks`);
- a ``CheckConstraint`` reading only copied fields holds, as it did on the template;
  one reading copied and per-row fields is asked once per distinct set of values;
- any other constraint or ``unique_for_date`` check reading a copied field runs
  per row (a query each; no shipped host has one).

Checks reading no copied field are not repeated: the row satisfied them when it
was stored, and the database enforces its constraints and keys.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Sequence
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS, FieldDoesNotExist, ValidationError
from django.db import models, router
from django.db.models.constants import LOOKUP_SEP
from django.db.models.expressions import DatabaseDefault

from .unique_checks import IN_BATCH, ErrorDict, Finding, set_wide_findings


def first_invalid_row(
    rows: Sequence[Any], *, copied: Collection[str], exclude: Collection[str] = ()
) -> tuple[Any, ValidationError] | None:
    """The first of ``rows`` (in their order) that ``full_clean(exclude=exclude)`` refuses.

    ``copied`` names the fields every row was just given from one instance whose
    ``full_clean()`` passed (all rows hold the same values there). Returns the row
    and its ``ValidationError`` (a dict keyed like ``full_clean()``'s), or None when
    every row is valid. Fields in ``exclude`` are neither validated nor read.
    """
    if not rows:
        return None
    model = type(rows[0])
    using = router.db_for_write(model, instance=rows[0])
    copied = frozenset(copied)
    exclude = frozenset(exclude)
    relations = [
        field
        for field in model._meta.concrete_fields
        if isinstance(field, models.ForeignKey) and field.name not in exclude
    ]
    relation_errors = _relation_errors(rows, relations)
    findings: dict[int, list[Finding]] = {}
    for index, finding in set_wide_findings(model, rows, copied, exclude, using):
        findings.setdefault(index, []).append(finding)
    clean_fields = _FieldCleaner(model, exclude | {field.name for field in relations})
    per_row = _per_row_checks(model, copied, exclude)
    for index, row in enumerate(rows):
        errors = clean_fields(row)
        _merge(errors, relation_errors.get(index, {}))
        # As full_clean(): clean() runs even when a field failed.
        try:
            row.clean()
        except ValidationError as exc:
            errors = exc.update_error_dict(errors)
        # Unique and constraint checks only for the fields that passed, as full_clean().
        failed = {name for name in errors if name != NON_FIELD_ERRORS}
        for fields, found in findings.get(index, ()):
            if not fields & failed:
                _merge(errors, found)
        for check in per_row:
            _merge(errors, check(row, exclude | failed, using))
        if errors:
            return row, ValidationError(errors)
    return None


# What _FieldCleaner remembers for a value clean_fields() does not look at.
_SKIPPED = object()


class _FieldCleaner:
    """``Model.clean_fields(exclude=skip)`` for many rows, each (field, value) cleaned once.

    Django's own field classes clean a value without reading the instance, and
    most values of a propagated row are the template's, shared by every row: one
    answer serves them all (about two thirds of the work for a year of dates). A
    field class of the host's own, an unhashable value (JSON) and a model that
    overrides ``clean_fields()`` are asked on every row.
    """

    _METHODS = ("clean", "to_python", "validate", "run_validators")

    def __init__(self, model: Any, skip: frozenset[str]) -> None:
        self.skip = skip
        self.plain = model.clean_fields is models.Model.clean_fields
        self.fields = [f for f in model._meta.fields if f.name not in skip and not f.generated]
        self.shared = {
            field.name
            for field in self.fields
            if all(
                getattr(type(field), name).__module__.startswith("django.")
                for name in self._METHODS
            )
        }
        self.answers: dict[tuple[str, type, Any], Any] = {}

    def __call__(self, row: Any) -> ErrorDict:
        if not self.plain:
            try:
                row.clean_fields(exclude=self.skip)
            except ValidationError as exc:
                return exc.update_error_dict({})
            return {}
        errors: ErrorDict = {}
        for field in self.fields:
            raw = getattr(row, field.attname)
            key = (field.name, type(raw), raw) if field.name in self.shared else None
            try:
                outcome = self.answers[key]  # type: ignore[index]
            except (KeyError, TypeError):  # not seen yet, or no key (unhashable, host's class)
                outcome = self._clean(field, raw, row)
                if key is not None:
                    with contextlib.suppress(TypeError):
                        self.answers[key] = outcome
            if outcome is raw or outcome is _SKIPPED:
                continue
            if isinstance(outcome, ValidationError):
                errors[field.name] = outcome.error_list
            else:
                setattr(row, field.attname, outcome)
        return errors

    @staticmethod
    def _clean(field: Any, raw: Any, row: Any) -> Any:
        # The same steps and skips as Model.clean_fields() for one field.
        if (field.blank and raw in field.empty_values) or isinstance(raw, DatabaseDefault):
            return _SKIPPED
        try:
            return field.clean(raw, row)
        except ValidationError as exc:
            return exc


def _merge(errors: ErrorDict, found: ErrorDict) -> None:
    for key, messages in found.items():
        errors.setdefault(key, []).extend(messages)


def _relation_errors(rows: Sequence[Any], fields: Sequence[Any]) -> dict[int, ErrorDict]:
    """Each row's foreign-key errors, with one query per key field for all rows.

    ``ForeignKey.validate()`` asks whether its target exists (through
    ``limit_choices_to``) once per row; here one query reads which of the set's
    values exist, and only a value that does not is validated again on its row,
    which produces Django's own message.
    """
    errors: dict[int, ErrorDict] = {}
    for field in fields:
        values = list({getattr(row, field.attname) for row in rows} - {None})
        found: set[Any] = set()
        if values and not field.remote_field.parent_link:
            target = field.remote_field.model
            name = field.remote_field.field_name
            existing = (
                target._base_manager.using(router.db_for_read(target, instance=rows[0]))
                .complex_filter(field.get_limit_choices_to())
                .order_by()
            )
            for start in range(0, len(values), IN_BATCH):
                page = {f"{name}__in": values[start : start + IN_BATCH]}
                found.update(existing.filter(**page).values_list(name, flat=True))
        for index, row in enumerate(rows):
            value = getattr(row, field.attname)
            # clean_fields() skips an empty value of a field that may be blank.
            if field.blank and value in field.empty_values:
                continue
            if value in found or field.remote_field.parent_link:
                continue
            try:
                field.clean(value, row)
            except ValidationError as exc:
                errors.setdefault(index, {})[field.name] = exc.error_list
    return errors


def _names_in(expression: Any) -> set[str]:
    """The base field names a condition or expression reads (F() and lookups alike)."""
    if isinstance(expression, models.Q):
        return set(expression.referenced_base_fields)
    names: set[str] = set()
    for node in expression.flatten() if hasattr(expression, "flatten") else [expression]:
        if isinstance(node, models.F):
            names.add(str(getattr(node, "name", "")).split(LOOKUP_SEP, 1)[0])
        elif isinstance(node, models.Q):
            names |= node.referenced_base_fields
    return names


def _constraint_fields(model: Any, constraint: Any) -> frozenset[str] | None:
    """The names of the fields a constraint reads, or None when that cannot be told."""
    if isinstance(constraint, models.CheckConstraint):
        found = _names_in(constraint.condition)
    elif isinstance(constraint, models.UniqueConstraint):
        found = set(constraint.fields)
        for expression in (constraint.condition, *constraint.expressions):
            if expression is not None:
                found |= _names_in(expression)
    else:
        return None  # e.g. PostgreSQL's ExclusionConstraint: validated per row
    try:
        # Lookups may name a foreign key by its attname ("venue_id").
        return frozenset(model._meta.get_field(name).name for name in found)
    except FieldDoesNotExist:
        return None


def _per_row_checks(model: Any, copied: frozenset[str], exclude: frozenset[str]) -> list[Any]:
    """The checks reading a copied field that cannot be answered for the set at once.

    Each is a callable ``(row, exclude, using) -> error dict``. A check constraint
    is asked once per distinct combination of the values it reads (on one row of
    each), so one that reads only copied fields and per-series fields costs one
    query in all.
    """
    checks: list[Any] = []
    total = {
        id(constraint)
        for klass in (model, *model._meta.all_parents)
        for constraint in klass._meta.total_unique_constraints
        if constraint.nulls_distinct is not False
    }
    for klass in (model, *model._meta.all_parents):
        for constraint in klass._meta.constraints:
            if id(constraint) in total:
                continue  # a set-wide unique group
            fields = _constraint_fields(klass, constraint)
            if fields is not None and not fields & copied:
                continue
            if isinstance(constraint, models.CheckConstraint) and fields is not None:
                if fields <= copied:
                    continue  # the template holds the same values and passed
                checks.append(_memoised_check(klass, constraint, fields))
            else:
                checks.append(_constraint_check(klass, constraint))
        for field in klass._meta.local_concrete_fields:
            for kind in ("date", "year", "month"):
                other = getattr(field, f"unique_for_{kind}")
                if other and {field.name, other} & copied:
                    checks.append(_date_check(model, field.name, other))
    return checks


def _constraint_error(exc: ValidationError, constraint: Any) -> ErrorDict:
    # Keyed as Model.validate_constraints() keys it.
    if getattr(exc, "code", None) == "unique" and len(getattr(constraint, "fields", ())) == 1:
        return {constraint.fields[0]: [exc]}
    return exc.update_error_dict({})


def _constraint_check(klass: Any, constraint: Any) -> Any:
    def check(row: Any, exclude: frozenset[str], using: str) -> ErrorDict:
        try:
            constraint.validate(klass, row, exclude=exclude, using=using)
        except ValidationError as exc:
            return _constraint_error(exc, constraint)
        return {}

    return check


def _memoised_check(klass: Any, constraint: Any, fields: frozenset[str]) -> Any:
    attnames = sorted(klass._meta.get_field(name).attname for name in fields)
    answers: dict[tuple[Any, ...], ErrorDict] = {}
    plain = _constraint_check(klass, constraint)

    def check(row: Any, exclude: frozenset[str], using: str) -> ErrorDict:
        if fields & exclude:
            return {}
        key = tuple(getattr(row, attname) for attname in attnames)
        if key not in answers:
            answers[key] = plain(row, exclude, using)
        return answers[key]

    return check


def _date_check(model: Any, name: str, other: str) -> Any:
    everything = frozenset(field.name for field in model._meta.concrete_fields)

    def check(row: Any, exclude: frozenset[str], using: str) -> ErrorDict:
        if {name, other} & exclude:
            return {}
        # validate_unique() limited to the two fields runs this one date check.
        try:
            row.validate_unique(exclude=everything - {name, other})
        except ValidationError as exc:
            return exc.update_error_dict({})
        return {}

    return check


__all__ = ["first_invalid_row"]
