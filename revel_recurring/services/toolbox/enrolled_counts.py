"""How many enrolled users a plan or a page of dates concerns: two reads, whatever the dates.

A change plan, a split plan and the cancel-stale page count enrolled users beside
bookings. :func:`enrolled_from` reads the enrolments of one series that reach a day
(one query): how many users are enrolled, and how many of them each new date would
book (their enrolment covers its day). :func:`enrolled_on` counts, in one aggregate
query, the enrolled users booked on each of some existing dates (through their
enrolment, or by a booking of their own the enrolment found: ``booked`` and ``held``),
counting only users whose enrolment still reaches the day given. Neither asks the host
anything; both answer nothing, without a query, on a host without ``book_enrolled``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, OuterRef, QuerySet

from ...models import Enrolment, EnrolmentDate, EventSeries
from .enrolled import host_enrols

#: The states of a date an enrolled user is on.
_ON_DATE = (EnrolmentDate.State.BOOKED, EnrolmentDate.State.HELD)


@dataclass(frozen=True)
class EnrolledSpans:
    """The enrolments of a series reaching a day: (user key, first day, last day or None)."""

    spans: tuple[tuple[str, dt.date, dt.date | None], ...] = ()

    def __len__(self) -> int:
        return len(self.spans)

    def covering(self, day: dt.date) -> frozenset[str]:
        """The users whose enrolment covers ``day`` (a day on the series' wall clock)."""
        return frozenset(
            user
            for user, first, last in self.spans
            if first <= day and (last is None or day <= last)
        )


#: The annotation :func:`flag_enrolments` puts on a series read.
_FLAG = "revel_has_enrolments"


def flag_enrolments(queryset: QuerySet[EventSeries]) -> QuerySet[EventSeries]:
    """``queryset`` with each series saying whether it has an enrolment at all, in the
    same query: :func:`enrolled_from` then reads nothing for a series without any."""
    if not host_enrols():
        return queryset
    return queryset.annotate(**{_FLAG: Exists(Enrolment.objects.filter(series=OuterRef("pk")))})


def enrolled_from(series: EventSeries, day: dt.date) -> EnrolledSpans:
    """The enrolments of ``series`` that reach ``day`` or later: one query (none on a host
    that books no enrolled users, nor for a series read through :func:`flag_enrolments`
    without any)."""
    if not host_enrols() or not getattr(series, _FLAG, True):
        return EnrolledSpans()
    rows = (
        Enrolment.objects.filter(series_id=series.pk)
        .exclude(ends_on__lt=day)
        .order_by("pk")
        .values_list("user_pk", "starts_on", "ends_on")
    )
    return EnrolledSpans(tuple(rows))


def enrolled_on(
    series_ids: Collection[int], events: Iterable[Any], *, day: dt.date | None = None
) -> dict[str, int]:
    """How many enrolled users each of ``events`` (host event keys) books, by key as text.

    Counts the ``booked`` and ``held`` dates of the series ``series_ids`` on them, of
    users whose enrolment in that series reaches ``day`` (any enrolment when None):
    one aggregate query, none for no events or on a host without ``book_enrolled``.
    Dates without an enrolled user are left out.
    """
    keys = sorted({str(pk) for pk in events})
    if not keys or not series_ids or not host_enrols():
        return {}
    live = Enrolment.objects.filter(series_id=OuterRef("series_id"), user_pk=OuterRef("user_pk"))
    if day is not None:
        live = live.exclude(ends_on__lt=day)
    found: dict[str, int] = {}
    for start in range(0, len(keys), 1000):
        rows = (
            EnrolmentDate.objects.filter(
                series_id__in=list(series_ids),
                occurrence_pk__in=keys[start : start + 1000],
                state__in=_ON_DATE,
            )
            .filter(Exists(live))
            .values("occurrence_pk")
            .annotate(users=Count("pk"))
            .order_by()
            .values_list("occurrence_pk", "users")
        )
        found.update(rows)
    return found


def per_event(counts: Mapping[str, int], pk: Any) -> int:
    """``counts``' figure for the event ``pk`` (0 when left out)."""
    return counts.get(str(pk), 0)


__all__ = ["EnrolledSpans", "enrolled_from", "enrolled_on", "flag_enrolments", "per_event"]
