"""The reads behind the API's lists, each a constant number of queries per page."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, overload

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from .. import changelog
from ..beyond_window import BeyondDate, beyond_boundary, dates_beyond_window
from ..exclusions import holiday_placer
from ..host_model import bulky_fields
from ..models import EventSeries, get_event_model
from ..querysets import upcoming_q
from ..services.toolbox.bookings import booked_ids
from ..slots import holiday_of, shifted_start
from .filters import OccurrenceFilter, slot_matches
from .serializers.occurrences import OccurrenceRow


@dataclass
class SeriesExtras:
    """The template and the occurrence counts of a page of series (two queries)."""

    templates: dict[int, Any] = field(default_factory=dict)
    counts: dict[int, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, series_ids: list[int]) -> SeriesExtras:
        extras = cls()
        if not series_ids:
            return extras
        model = get_event_model()
        manager = model._default_manager
        for template in manager.filter(series_id__in=series_ids, is_template=True):
            extras.templates[template.series_id] = template  # type: ignore[index]
        status_field = model.RECURRING_STATUS_FIELD
        upcoming = Count("pk", filter=upcoming_q(model, now=timezone.now()))
        rows = (
            manager.filter(series_id__in=series_ids, is_template=False)
            .order_by()
            .values("series_id", status_field)
            .annotate(n=Count("pk"), upcoming=upcoming)
        )
        for row in rows:
            counts = extras.counts.setdefault(
                row["series_id"], {"total": 0, "upcoming": 0, "by_status": {}}
            )
            counts["total"] += row["n"]
            counts["upcoming"] += row["upcoming"]
            counts["by_status"][str(row[status_field])] = row["n"]
        return extras


@dataclass(frozen=True, order=True)
class ChangedRow:
    """One entry of a ``modified_since`` listing: a live occurrence or a tombstone.

    Entries sort by ``at`` (a live row's start, a deleted row's original slot),
    live rows before tombstones at the same instant, then by ``id``: the order the
    listing is paginated in. A live entry carries no row: the rows of one page are
    read together (:func:`page_rows`). Equal entries count once.
    """

    at: dt.datetime
    deleted: bool
    id: Any
    tombstone: OccurrenceRow | None = field(default=None, compare=False)


def changed_rows(
    series: EventSeries,
    filterset: Any,
    params: dict[str, Any],
    since: dt.datetime,
    now: dt.datetime,
) -> list[ChangedRow]:
    """What changed in ``series`` since ``since``, sorted for pagination.

    A live row matches every filter; a cancelled one (a tombstone that still has
    its row) only the date filters, so a client syncing open occurrences still
    learns of a cancellation. Deleted rows come from the change log.
    """
    model = get_event_model()
    start, updated = model.RECURRING_START_FIELD, model.RECURRING_UPDATED_FIELD
    if updated:
        changed = Q(pk__in=changelog.changed_pks(series.pk, since))
        changed |= Q(**{f"{updated}__gte": since})
    else:
        changed = Q(pk__isnull=False)  # without a change stamp every row may have changed
    dates_only = OccurrenceFilter(
        {k: v for k, v in filterset.data.items() if k not in ("status", "is_modified")},
        queryset=series.occurrences(),
    ).qs
    cancelled = dates_only.filter(
        **{model.RECURRING_STATUS_FIELD: model.RECURRING_STATUS_CANCELLED}
    )
    matching = (
        series.occurrences()
        .filter(changed)
        .filter(Q(pk__in=filterset.qs.values("pk")) | Q(pk__in=cancelled.values("pk")))
    )
    entries: dict[ChangedRow, ChangedRow] = {}
    for pk, value in matching.values_list("pk", start):
        live = ChangedRow(at=value, deleted=False, id=pk)
        entries[live] = live
    for change in changelog.deleted_since(series.pk, since):
        if slot_matches(params, change.recurrence_id, now):
            row = OccurrenceRow.tombstone(change)
            gone = ChangedRow(
                at=change.recurrence_id or change.at, deleted=True, id=row.id, tombstone=row
            )
            # A later record of the same slot and row replaces the earlier one.
            entries[gone] = gone
    return sorted(entries.values())


def beyond_dates(series: EventSeries, params: Mapping[str, Any], now: dt.datetime) -> list[Any]:
    """The dates beyond the window ``occurrences/?beyond_window=true`` lists (none without it).

    Only the date filters apply to them: a listing filtered by ``status`` or
    ``is_modified``, or of the changes since a moment, has none, as has
    ``is_future=false`` (they are all to come).
    """
    if not params.get("beyond_window") or params.get("modified_since") is not None:
        return []
    if params.get("status") not in (None, "") or params.get("is_modified") is not None:
        return []
    if params.get("is_future") is False:
        return []
    return list(
        dates_beyond_window(
            series,
            now=now,
            starts_from=params.get("date_from_after"),
            starts_before=params.get("date_from_before"),
        )
    )


class RowsAndBeyond(Sequence[Any]):
    """A series' rows with its dates beyond the window merged in by start, for the paginator.

    The rows up to the boundary (:func:`~revel_recurring.beyond_window.beyond_boundary`)
    stay a queryset sliced per page; the few after it (dates materialized ahead)
    are read at once and sorted with the dates beyond. A constant number of
    queries per page.
    """

    def __init__(
        self, queryset: QuerySet[Any], beyond: list[BeyondDate], boundary: dt.datetime
    ) -> None:
        start = get_event_model().RECURRING_START_FIELD
        self._head = queryset.filter(**{f"{start}__lte": boundary})
        later: list[Any] = list(queryset.filter(**{f"{start}__gt": boundary}))
        self._tail: list[Any] = sorted([*later, *beyond], key=_start_and_kind)
        self._head_count: int | None = None

    def __len__(self) -> int:
        """The rows up to the boundary (one COUNT, read once) and the tail: the page count."""
        if self._head_count is None:
            self._head_count = self._head.count()
        return self._head_count + len(self._tail)

    @overload
    def __getitem__(self, key: int) -> Any: ...

    @overload
    def __getitem__(self, key: slice) -> list[Any]: ...

    def __getitem__(self, key: int | slice) -> Any:
        if isinstance(key, int):
            one = self[key : key + 1]
            if not one:
                raise IndexError(key)
            return one[0]
        head = len(self) - len(self._tail)
        first = key.start or 0
        last = len(self) if key.stop is None else key.stop
        found: list[Any] = []
        if first < head:
            found.extend(self._head[first : min(last, head)])
        found.extend(self._tail[max(first - head, 0) : max(last - head, 0)])
        return found


def _start_and_kind(item: Any) -> tuple[dt.datetime, int]:
    if isinstance(item, BeyondDate):
        return item.start, 1
    return item.occurrence_start, 0


def listed_rows(
    page: Iterable[Any], *, drifted: Collection[Any], series: EventSeries
) -> list[OccurrenceRow]:
    """The rows of a page of :class:`RowsAndBeyond` (or of rows alone), in page order."""
    items = list(page)
    events = [item for item in items if not isinstance(item, BeyondDate)]
    live = iter(occurrence_rows(events, drifted=drifted, series=series))
    return [
        OccurrenceRow.beyond(item) if isinstance(item, BeyondDate) else next(live) for item in items
    ]


def rows_with_beyond(
    queryset: QuerySet[Any], series: EventSeries, params: Mapping[str, Any], now: dt.datetime
) -> QuerySet[Any] | RowsAndBeyond:
    """What ``occurrences/`` paginates: ``queryset``, with the dates beyond when asked."""
    beyond = beyond_dates(series, params, now)
    if not beyond:
        return queryset
    return RowsAndBeyond(queryset, beyond, beyond_boundary(series, now))


def moved_rows(ids: Collection[Any]) -> list[Any]:
    """The host events ``ids`` (dates a change moved), in start order, in one query."""
    if not ids:
        return []
    model = get_event_model()
    return list(
        model._default_manager.filter(pk__in=list(ids))
        .defer(*bulky_fields(model))
        .order_by(model.RECURRING_START_FIELD, "pk")
    )


def occurrence_rows(
    events: Iterable[Any],
    *,
    drifted: Collection[Any] = (),
    series: EventSeries | None = None,
) -> list[OccurrenceRow]:
    """The rows of live ``events``, in their order; the host is asked once which are booked.

    With ``series`` (the events' series, its rule loaded), each row also names the
    holiday on its slot and the slot a holiday moved it from.
    """
    rows = list(events)
    booked = booked_ids(rows)
    found = [
        OccurrenceRow.of(event, drifted=event.pk in drifted, booked=event.pk in booked)
        for event in rows
    ]
    return with_holidays(found, series)


def with_holidays(rows: list[OccurrenceRow], series: EventSeries | None) -> list[OccurrenceRow]:
    """``rows`` naming the holidays of ``series``' calendar on their slots.

    Rule maths on the series' rule (no query when it is loaded, none at all for a
    series without a calendar), never a query per row.
    """
    placer = None if series is None else holiday_placer(series)
    if placer is None:
        return rows
    named = []
    for row in rows:
        slot = row.recurrence_id
        fate, name = (None, "") if slot is None else holiday_of(placer, slot)
        if fate is None:
            named.append(row)
            continue
        moved = shifted_start(fate) is not None and row.start not in (None, slot)
        named.append(replace(row, holiday=name, shifted_from=slot if moved else None))
    return named


def page_rows(
    page: Iterable[ChangedRow],
    queryset: QuerySet[Any],
    *,
    drifted: Collection[Any],
    series: EventSeries | None = None,
    rescheduled: Mapping[Any, dt.datetime] | None = None,
) -> list[OccurrenceRow]:
    """The rows of one page of :func:`changed_rows`, in page order.

    The live occurrences are read from ``queryset`` in one query; one deleted
    since the listing was read is left out. Tombstones are kept as they are
    (naming their slot's holiday, with ``series``). ``rescheduled``: the slots the
    rescheduled ones stood for (:func:`~revel_recurring.changelog.rescheduled_since`).
    """
    entries = list(page)
    events = {e.pk: e for e in queryset.filter(pk__in=[e.id for e in entries if not e.deleted])}
    live = {row.id: row for row in occurrence_rows(events.values(), drifted=drifted)}
    for pk, slot in (rescheduled or {}).items():
        if pk in live:
            live[pk] = replace(live[pk], rescheduled_from=slot)
    rows = [
        entry.tombstone if entry.tombstone is not None else live[entry.id]
        for entry in entries
        if entry.tombstone is not None or entry.id in live
    ]
    return with_holidays(rows, series)
