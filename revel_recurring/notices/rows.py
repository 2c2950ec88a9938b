"""The rows of an operation's series, read before and after it, and their calendar identity."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.db.models import Q

from .. import rules
from ..adapter import get_adapter
from ..ical.master import folded_extra_dates
from ..models import EventSeries, get_event_model


@dataclass(frozen=True)
class Identity:
    """What a calendar knows a date by: its UID and RECURRENCE-ID (None: an event of its own).

    The feeds' identity (:mod:`revel_recurring.ical.series`): a date on its series'
    rule is an instance of the series' VEVENT, any other an event of its own.
    """

    uid: str
    recurrence_id: dt.datetime | None

    @cached_property
    def key(self) -> str:
        """The identity as one text (``CalendarCopy.identity``)."""
        rid = "" if self.recurrence_id is None else self.recurrence_id.strftime("%Y%m%dT%H%M%SZ")
        return f"{self.uid}|{rid}"


@dataclass(frozen=True)
class RowState:
    """What a person booked on a row sees of it: when, whether it takes place, as what."""

    pk: Any
    series_id: int | None
    recurrence_id: dt.datetime | None
    start: dt.datetime
    status: str  # "live", "cancelled" or "draft"
    identity: Identity


def _status(model: Any, event: Any) -> str:
    value = event.occurrence_status
    if model.is_status(value, model.RECURRING_STATUS_CANCELLED):
        return "cancelled"
    if model.is_status(value, model.RECURRING_STATUS_DRAFT):
        return "draft"
    return "live"


def light_fields(model: Any) -> list[str]:
    """The columns a row's state needs (its length is read later, for booked rows only)."""
    return [
        "pk",
        "series",
        "recurrence_id",
        model.RECURRING_START_FIELD,
        model.RECURRING_STATUS_FIELD,
    ]


def read_rows(series_ids: Collection[int], *, now: dt.datetime | None) -> list[Any]:
    """The occurrences of ``series_ids`` still to come (by start or by slot), light;
    ``now`` None: all of them, past ones too."""
    model = get_event_model()
    start = model.RECURRING_START_FIELD
    rows = model._base_manager.filter(series_id__in=list(series_ids), is_template=False)
    if now is not None:
        rows = rows.filter(Q(**{f"{start}__gte": now}) | Q(recurrence_id__gte=now))
    return list(rows.only(*light_fields(model)).order_by())


def read_rows_by_pk(pks: Collection[Any]) -> list[Any]:
    """The rows ``pks`` as they are now (those deleted meanwhile are missing), light."""
    model = get_event_model()
    return list(model._base_manager.filter(pk__in=list(pks)).only(*light_fields(model)).order_by())


def _slots(series: EventSeries, rids: list[dt.datetime]) -> set[dt.datetime]:
    rule = series.recurrence_rule if series.recurrence_rule_id is not None else None
    if rule is None or not rids:
        return set()
    spec = series.dates_spec(rule)
    cursor = series.last_generated_until
    until = max(rids) if cursor is None else max(max(rids), cursor)
    slots = set(rules.occurrences_between(spec, min(rids), until, inclusive=True))
    # An extra date in a repeated hour is an event of its own in the feeds.
    return slots - set(folded_extra_dates(spec))


def states_of(rows: Iterable[Any], series: Mapping[int, EventSeries]) -> dict[Any, RowState]:
    """Each row's state, its identity read against its series' rule as it is now."""
    model = get_event_model()
    domain = get_adapter().get_ical_uid_domain()
    rows = list(rows)
    by_series: dict[int | None, list[Any]] = {}
    for row in rows:
        by_series.setdefault(row.series_id, []).append(row)
    states: dict[Any, RowState] = {}
    for series_id, group in by_series.items():
        one = series.get(series_id) if series_id is not None else None
        slots = (
            _slots(one, [r.recurrence_id for r in group if r.recurrence_id is not None])
            if one is not None
            else set()
        )
        for row in group:
            if row.recurrence_id is not None and row.recurrence_id in slots:
                identity = Identity(
                    f"revel-recurring-series-{series_id}@{domain}", row.recurrence_id
                )
            else:
                identity = Identity(f"revel-recurring-event-{row.pk}@{domain}", None)
            states[row.pk] = RowState(
                pk=row.pk,
                series_id=row.series_id,
                recurrence_id=row.recurrence_id,
                start=row.occurrence_start,
                status=_status(model, row),
                identity=identity,
            )
    return states
