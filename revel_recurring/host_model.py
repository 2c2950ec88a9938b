"""What the app needs to know about the shape of the host's Event model.

Shared by the system checks (``check`` warns early) and generation (which refuses
a batch with a clear error before the database would raise an IntegrityError).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import ngettext

from .exceptions import DuplicateUniqueValueError
from .mixins import OCCURRENCE_STATE_FIELDS, RecurringEventMixin


def mixin_constraint_names(model: type[models.Model]) -> tuple[str, str]:
    """The names the mixin's two constraints get on ``model`` (``%(app_label)s_%(class)s_...``)."""
    prefix = f"{model._meta.app_label}_{model.__name__.lower()}"
    return (f"{prefix}_one_template_per_series", f"{prefix}_unique_recurrence_id")


def is_managed_field(model: Any, field: Any) -> bool:
    """Whether revel-recurring writes ``field`` of ``model`` itself, so callers may not.

    The primary key, the mixin's per-occurrence state (series, is_template,
    occurrence_index, recurrence_id, ...) and the host's status field (set by
    generation, cancellation and restore). Creating a template and editing one
    both refuse such keys.
    """
    return bool(
        getattr(field, "primary_key", False)
        or field.name in OCCURRENCE_STATE_FIELDS
        or field.name == model.RECURRING_STATUS_FIELD
    )


def single_line_fields(model: Any) -> frozenset[str]:
    """Names of ``model``'s concrete ``CharField`` s: names, titles, slugs, one line of text each.

    Every ``CharField`` (and its subclasses: slugs, e-mail addresses, URLs) is
    single-line by Django's own widgets; a ``TextField`` (a description) may hold
    line breaks. The services refuse control characters in these
    (``validators.validate_single_line_values``).
    """
    return frozenset(
        field.name for field in model._meta.concrete_fields if isinstance(field, models.CharField)
    )


#: The fields, in this order, that can be the title of a host's events.
TITLE_FIELDS = ("title", "name")


def title_field(model: Any) -> str | None:
    """The field holding the title of ``model``'s events, or None.

    The first of ``title`` and ``name`` that is a single-line field among the
    host's ``PROPAGATABLE_FIELDS`` (the template gives it to every date): the field
    a split's new name is copied into unless the split gives a title of its own.
    """
    propagated = set(getattr(model, "PROPAGATABLE_FIELDS", ()))
    lines = single_line_fields(model)
    return next((name for name in TITLE_FIELDS if name in propagated and name in lines), None)


def _varying_fields(model: Any) -> set[str]:
    # Fields every occurrence gets its own value for: a unique constraint that
    # includes one of them cannot be broken by copying the template.
    names = set(OCCURRENCE_STATE_FIELDS) | {model.RECURRING_START_FIELD}
    if model.RECURRING_END_FIELD:
        names.add(model.RECURRING_END_FIELD)
    names.update(model.RECURRING_SHIFTED_FIELDS)
    names.update(model.RECURRING_UNCOPIED_FIELDS)
    return names


def copied_unique_fields(model: Any) -> list[tuple[str, ...]]:
    """Unique field groups that every occurrence would copy unchanged from its template.

    Single fields with ``unique=True`` and unconditional ``UniqueConstraint`` s
    none of whose fields varies per occurrence. Each of them makes the second
    occurrence of a batch (or the first, clashing with the template) fail.
    """
    varying = _varying_fields(model)
    groups: list[tuple[str, ...]] = []
    for field in model._meta.concrete_fields:
        if field.unique and not field.primary_key and field.name not in varying:
            groups.append((field.name,))
    for constraint in model._meta.constraints:
        if not isinstance(constraint, models.UniqueConstraint):
            continue
        if constraint.condition is not None or not constraint.fields:
            continue
        if not set(constraint.fields) & varying:
            groups.append(tuple(constraint.fields))
    return groups


def overrides_prepare_occurrence(model: Any) -> bool:
    """Whether the host model replaces the mixin's ``prepare_occurrence`` hook."""
    return bool(model.prepare_occurrence is not RecurringEventMixin.prepare_occurrence)


def _value(instance: Any, model: Any, name: str) -> Any:
    return getattr(instance, model._meta.get_field(name).attname)


def check_copied_unique_values(template: Any, occurrences: Sequence[Any]) -> None:
    """Raise DuplicateUniqueValueError when built occurrences repeat a unique value.

    In memory only (generation calls it inside its locked transaction): a value
    equal to the template's, or shared by two occurrences of the batch, would end
    the batch in a raw IntegrityError. NULLs never clash.
    """
    model = type(template)
    for group in copied_unique_fields(model):
        seen = {tuple(_value(template, model, name) for name in group)}
        for occurrence in occurrences:
            key = tuple(_value(occurrence, model, name) for name in group)
            if None in key:
                continue
            if key in seen:
                raise DuplicateUniqueValueError(
                    ngettext(
                        "Every occurrence would copy the unique field %(fields)s of the "
                        "template of series %(series)s (%(value)s). Override "
                        "%(model)s.prepare_occurrence() to give each occurrence its own "
                        "value (call super() first), or list the field in "
                        "RECURRING_UNCOPIED_FIELDS if it may stay empty.",
                        "Every occurrence would copy the unique fields %(fields)s of the "
                        "template of series %(series)s (%(value)s). Override "
                        "%(model)s.prepare_occurrence() to give each occurrence its own "
                        "value (call super() first), or list the field in "
                        "RECURRING_UNCOPIED_FIELDS if it may stay empty.",
                        len(group),
                    )
                    % {
                        "fields": ", ".join(f"'{name}'" for name in group),
                        "series": template.series_id,
                        "value": repr(key),
                        "model": model.__name__,
                    },
                    field=_blamed_field(model, group),
                )
            seen.add(key)


def _blamed_field(model: Any, group: Sequence[str]) -> str:
    # In ("organization", "slug") it is the slug that needs a value of its own.
    plain = [name for name in group if not model._meta.get_field(name).is_relation]
    return (plain or list(group))[0]


# Column types whose values have no size bound in the schema: a template's copy of
# one of them is repeated on every occurrence, so these decide what a row weighs.
_BULKY_FIELD_TYPES = (models.TextField, models.BinaryField, models.JSONField)
# What a column other than text or bytes costs at most in a statement (a bigint, a
# timestamp, a short string's header), so a row of small values is not counted as free.
_SMALL_VALUE_BYTES = 16


def bulky_fields(model: Any) -> tuple[str, ...]:
    """Names of ``model``'s concrete unbounded columns (text, binary, JSON) the app never reads.

    Reads that only need dates and states defer these, so a request's memory does
    not grow with a description copied onto every occurrence. The fields the app
    itself reads (start, end, status, visibility, the change stamp, the mixin's
    own) are never among them, whatever their type: deferring one of those would
    cost a query per row.
    """
    used = {
        model.RECURRING_START_FIELD,
        model.RECURRING_END_FIELD,
        model.RECURRING_DURATION_FIELD,
        model.RECURRING_STATUS_FIELD,
        model.RECURRING_VISIBILITY_FIELD,
        model.RECURRING_UPDATED_FIELD,
        *OCCURRENCE_STATE_FIELDS,
    }
    return tuple(
        field.name
        for field in model._meta.concrete_fields
        if isinstance(field, _BULKY_FIELD_TYPES)
        and not field.primary_key
        and field.name not in used
    )


class RowSizer:
    """Estimates the bytes a prepared row adds to an INSERT, from its text and binary values.

    Occurrences share their template's string objects, so each distinct value is
    measured once (by identity) and a batch of a thousand copies costs one scan.
    A row is measured once too: generation weighs its rows when it builds them
    and again when it cuts them into INSERTs, unchanged in between.
    Non-ASCII text is measured as UTF-8, as the database receives it.
    """

    def __init__(self, model: Any) -> None:
        self.attnames = [field.attname for field in model._meta.concrete_fields]
        self._seen: dict[int, tuple[object, int]] = {}
        self._rows: dict[int, tuple[object, int]] = {}

    def value_bytes(self, value: object) -> int:
        if not isinstance(value, (str, bytes, bytearray, memoryview)):
            return _SMALL_VALUE_BYTES
        known = self._seen.get(id(value))
        # The value is kept next to its size: an id is only unique while its object lives.
        if known is not None and known[0] is value:
            return known[1]
        if isinstance(value, str):
            size = len(value) if value.isascii() else len(value.encode("utf-8"))
        else:
            size = len(value)
        # A short string costs as much as any small value, the first time and every time.
        size = max(size, _SMALL_VALUE_BYTES)
        self._seen[id(value)] = (value, size)
        return size

    def row_bytes(self, instance: Any) -> int:
        """The estimated size of ``instance``'s column values, in bytes (measured once)."""
        known = self._rows.get(id(instance))
        if known is not None and known[0] is instance:
            return known[1]
        size = sum(self.value_bytes(getattr(instance, name, None)) for name in self.attnames)
        self._rows[id(instance)] = (instance, size)
        return size

    def largest_field(self, instance: Any, model: Any) -> tuple[str, int]:
        """The concrete field of ``instance`` with the largest value, and its size."""
        sizes = [
            (self.value_bytes(getattr(instance, field.attname, None)), field.name)
            for field in model._meta.concrete_fields
        ]
        size, name = max(sizes)
        return name, size


def parse_event_pks(model: Any, values: Iterable[object]) -> list[Any]:
    """The valid primary keys of ``model`` among ``values`` (text from a form), parsed.

    Read through the model's own pk field (``to_python`` and its validators), so
    integer, big integer, UUID and text keys all work; a value that is no key of
    this type (or out of the column's range) is dropped, not an error: it cannot
    name a row. Order is kept, duplicates are dropped.
    """
    field = model._meta.pk
    found: dict[Any, None] = {}
    for value in values:
        try:
            pk = field.to_python(value)
            if pk is None or pk == "":
                continue
            field.run_validators(pk)
        except (ValidationError, TypeError, ValueError):
            continue
        found[pk] = None
    return list(found)
