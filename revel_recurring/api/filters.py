"""django-filter FilterSets of the API: the series list, a series' occurrences and operations.

The occurrence filters are named as pretix names them for its dates where they
fit (``date_from_after``, ``date_from_before``, ``is_future``, ``modified_since``);
they work on whatever the host calls its start, end and status fields. Each
FilterSet belongs to one action (:class:`ActionFilterBackend`): the series list's
filters never reach a detail route.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import django_filters
from django import forms
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import DateTimeField, ExpressionWrapper, F, Q, QuerySet
from django.db.models.lookups import GreaterThanOrEqual
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_filters.rest_framework import DjangoFilterBackend

from ..instants import AwareInstantField
from ..models import EventSeries, SeriesOperation, get_event_model


class AwareDateTimeFilter(django_filters.Filter):  # type: ignore[misc]
    """An instant with its UTC offset, read by the app's one parser (``instants.py``)."""

    field_class = AwareInstantField


class StrictBooleanFormField(forms.Field):
    """``true`` / ``false`` (or 1 / 0); anything else is a 400, not silently ignored."""

    _values = {"true": True, "1": True, "false": False, "0": False}

    def to_python(self, value: Any) -> bool | None:
        if value in self.empty_values:
            return None
        text = str(value).strip().lower()
        if text not in self._values:
            raise forms.ValidationError(_("Give true or false."), code="invalid")
        return self._values[text]


class StrictBooleanFilter(django_filters.BooleanFilter):  # type: ignore[misc]
    field_class = StrictBooleanFormField


class StatusFormField(forms.CharField):
    """A status as the host's status field holds it: read by the field's own ``to_python``.

    A value the field cannot hold (``published`` for an ``IntegerField``) is a 400
    on ``status`` naming the accepted values (the field's choices, or its kind),
    never a database error.
    """

    def to_python(self, value: Any) -> Any:
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        # The length limit is on the text given, before it becomes an int or an enum.
        super().run_validators(text)
        model = get_event_model()
        try:
            return model.status_value(text)
        except DjangoValidationError:
            field: Any = model._meta.get_field(model.RECURRING_STATUS_FIELD)
            if field.choices:
                accepted = ", ".join(f"{key} ({label})" for key, label in field.flatchoices)
                message = _("%(value)s is not a status. Accepted values: %(accepted)s.")
            else:
                accepted = str(field.description)
                message = _("%(value)s is not a status. The status field holds: %(accepted)s.")
            raise forms.ValidationError(
                message, code="invalid", params={"value": text, "accepted": accepted}
            ) from None

    def run_validators(self, value: Any) -> None:
        # Run in to_python on the text; the converted value need not be a str.
        return None


class StatusFilter(django_filters.CharFilter):  # type: ignore[misc]
    field_class = StatusFormField


class SeriesFilter(django_filters.FilterSet):  # type: ignore[misc]
    """``GET series/``: flags, a name search and the orderings a front end needs."""

    search = django_filters.CharFilter(
        method="filter_search", max_length=200, label=_("Name contains (case-insensitive)")
    )
    ordering = django_filters.OrderingFilter(
        fields=(
            ("name", "name"),
            ("created_at", "created"),
            ("next_occurrence", "next_occurrence"),
        ),
        label=_("Order by name, created or next_occurrence; prefix - to reverse"),
    )

    is_active = StrictBooleanFilter(field_name="is_active")
    auto_publish = StrictBooleanFilter(field_name="auto_publish")

    class Meta:
        model = EventSeries
        fields = ("is_active", "auto_publish")

    def filter_search(self, queryset: QuerySet[EventSeries], name: str, value: str) -> Any:
        return queryset.filter(name__icontains=value) if value else queryset


class OccurrenceFilter(django_filters.FilterSet):  # type: ignore[misc]
    """``GET series/{id}/occurrences/``. ``modified_since`` is read by the view itself:
    its tombstones of deleted rows are not in this queryset."""

    date_from_after = AwareDateTimeFilter(
        method="filter_date_from_after", label=_("Starts at or after")
    )
    date_from_before = AwareDateTimeFilter(
        method="filter_date_from_before", label=_("Starts before")
    )
    status = StatusFilter(method="filter_status", max_length=64)
    is_modified = StrictBooleanFilter(field_name="is_modified")
    is_future = StrictBooleanFilter(
        method="filter_is_future", label=_("Ends (or starts) now or later")
    )
    beyond_window = StrictBooleanFilter(
        method="filter_nothing",
        label=_(
            "Also the rule's dates beyond the window that have no row yet "
            "(materialized false, no id), at most REVEL_RECURRING_BEYOND_WINDOW_DATES, "
            "in start order with the rows; not with status, is_modified or modified_since"
        ),
    )
    modified_since = AwareDateTimeFilter(
        method="filter_nothing",
        label=_("Changed at or after; also reports cancelled and deleted ones (tombstones)"),
    )

    def filter_date_from_after(self, queryset: QuerySet[Any], name: str, value: Any) -> Any:
        return queryset.filter(**{f"{get_event_model().RECURRING_START_FIELD}__gte": value})

    def filter_date_from_before(self, queryset: QuerySet[Any], name: str, value: Any) -> Any:
        return queryset.filter(**{f"{get_event_model().RECURRING_START_FIELD}__lt": value})

    def filter_status(self, queryset: QuerySet[Any], name: str, value: Any) -> Any:
        return queryset.filter(**{get_event_model().RECURRING_STATUS_FIELD: value})

    def filter_is_future(self, queryset: QuerySet[Any], name: str, value: bool | None) -> Any:
        if value is None:
            return queryset
        condition = future_q(timezone.now())
        return queryset.filter(condition) if value else queryset.exclude(condition)

    def filter_nothing(self, queryset: QuerySet[Any], name: str, value: Any) -> Any:
        return queryset


class OperationFilter(django_filters.FilterSet):  # type: ignore[misc]
    """``GET series/{id}/operations/``: by kind, and those done at or after an instant."""

    kind = django_filters.CharFilter(
        field_name="kind", max_length=32, label=_("Kind of operation (plan, split, cancel...)")
    )
    since = AwareDateTimeFilter(
        field_name="created_at", lookup_expr="gte", label=_("Done at or after")
    )

    class Meta:
        model = SeriesOperation
        fields = ("kind",)


def future_q(now: dt.datetime) -> Q:
    """Occurrences still ahead or going on: their end >= now.

    The end as ``occurrence_end`` reads it from the columns: the end field, else
    the start plus the duration field, else the start plus
    ``RECURRING_DEFAULT_DURATION`` (the start alone without one). A host that
    overrides ``occurrence_duration`` with other columns is filtered by these.
    """
    model = get_event_model()
    start, end = model.RECURRING_START_FIELD, model.RECURRING_END_FIELD
    duration = model.RECURRING_DURATION_FIELD
    default = model.RECURRING_DEFAULT_DURATION or dt.timedelta(0)
    ahead = Q(**{f"{start}__gte": now - default})
    if duration:
        ends = ExpressionWrapper(F(start) + F(duration), output_field=DateTimeField())
        ahead = Q(GreaterThanOrEqual(ends, now)) | (Q(**{f"{duration}__isnull": True}) & ahead)
    if not end:
        return ahead
    return Q(**{f"{end}__gte": now}) | (Q(**{f"{end}__isnull": True}) & ahead)


def slot_matches(params: dict[str, Any], slot: dt.datetime | None, now: dt.datetime) -> bool:
    """The date filters applied to a tombstone's original slot."""
    if slot is None:
        return True
    after, before = params.get("date_from_after"), params.get("date_from_before")
    future = params.get("is_future")
    return (
        (after is None or slot >= after)
        and (before is None or slot < before)
        and (future is None or (slot >= now) == future)
    )


class ActionFilterBackend(DjangoFilterBackend):  # type: ignore[misc]
    """django-filter's backend with one FilterSet per viewset action.

    The view names them in ``filterset_classes`` (``{"list": SeriesFilter,
    "occurrences": OccurrenceFilter}``); an action without one is not filtered.
    A detail route of a viewset with one ``filterset_class`` would run the list's
    filters on its single object (``?search=zzz`` made it a 404), and the browsable
    API would offer them in the Filters form of every page.
    """

    def get_filterset_class(self, view: Any, queryset: Any = None) -> Any:
        classes: dict[str, Any] = getattr(view, "filterset_classes", {})
        return classes.get(getattr(view, "action", None) or "")
