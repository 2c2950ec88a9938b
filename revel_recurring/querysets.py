"""Read-side filters: for series, and a QuerySet hosts compose into their Event model."""

from __future__ import annotations

import datetime as dt
from typing import Any, Self, TypeVar

from django.db import models
from django.utils import timezone

_M = TypeVar("_M", bound=models.Model)
_Q = TypeVar("_Q", bound=models.QuerySet[Any])


# Generic over the model rather than naming EventSeries: models/series.py builds its
# manager from this class, and a reference back (even a type-only one) would
# make the two modules import each other.
class EventSeriesQuerySet(models.QuerySet[_M]):
    """Read-side filters of ``EventSeries.objects``."""

    def active(self) -> Self:
        """Series that generate (not paused)."""
        return self.filter(is_active=True)

    def due(self, *, now: dt.datetime | None = None) -> Self:
        """Active, unparked series whose next undone occurrence has entered its window.

        One range scan over the partial index on ``next_due_at``: the column
        already holds "next slot minus window", so no per-row arithmetic is needed.
        Parked series (``parked_at`` set after a failure a retry cannot fix) wait
        for someone to unpark them.
        """
        moment = now or timezone.now()
        return self.filter(
            is_active=True,
            parked_at__isnull=True,
            next_due_at__isnull=False,
            next_due_at__lte=moment,
        )

    def parked(self) -> Self:
        """Series the daily pass parked after a generation failure (``parked_at`` set)."""
        return self.filter(parked_at__isnull=False)

    def with_rule(self) -> Self:
        """Series that have a recurrence rule."""
        return self.filter(recurrence_rule__isnull=False)


def upcoming_q(
    model: Any, *, now: dt.datetime, prefix: str = "", include_cancelled: bool = False
) -> models.Q:
    """The one definition of "upcoming": an occurrence (not a template) that starts at
    or after ``now`` and is not cancelled.

    An occurrence that has started and not ended yet is not upcoming, nor is a
    cancelled one. ``model`` is the host's Event model; ``prefix`` reaches it
    through a relation (``"events__"`` from ``EventSeries``), for annotations.
    ``include_cancelled`` keeps cancelled ones for lists that offer to restore
    them (the admin's upcoming dates); every count of "upcoming" leaves it off.
    The queryset method, the API's ``occurrence_counts.upcoming`` and
    ``next_occurrence``, and the admin's list column and change page all use it.
    """
    condition = models.Q(
        **{f"{prefix}is_template": False, f"{prefix}{model.RECURRING_START_FIELD}__gte": now}
    )
    if include_cancelled:
        return condition
    return condition & ~models.Q(
        **{f"{prefix}{model.RECURRING_STATUS_FIELD}": model.RECURRING_STATUS_CANCELLED}
    )


def upcoming_occurrences(queryset: _Q, *, now: dt.datetime) -> _Q:
    """The occurrences of ``queryset`` that are upcoming (:func:`upcoming_q`) at ``now``.

    What drift detection and template propagation may touch. A function over any
    queryset of the host's Event model (its default manager need not use
    :class:`RecurringEventQuerySet`); the queryset method calls it.
    """
    return queryset.filter(upcoming_q(queryset.model, now=now))


class RecurringEventQuerySet(models.QuerySet[_M]):
    """Read-side filters for the host's Event model; compose it into your own.

    ``objects = RecurringEventQuerySet.as_manager()`` on a model using
    ``RecurringEventMixin``, or subclass it for a QuerySet of your own
    (``class EventQuerySet(RecurringEventQuerySet["Event"])``) and keep your
    methods next to these. Templates are blueprints, not events anyone attends:
    lists, searches and the admin usually want :meth:`without_templates`.
    """

    def occurrences(self) -> Self:
        """Materialized occurrences of a series (not templates, not one-off events)."""
        return self.filter(series__isnull=False, is_template=False)

    def templates(self) -> Self:
        """The template of each series."""
        return self.filter(is_template=True)

    def one_offs(self) -> Self:
        """Events that belong to no series."""
        return self.filter(series__isnull=True)

    def without_templates(self) -> Self:
        """Everything people attend: occurrences and one-off events."""
        return self.exclude(is_template=True)

    def upcoming(self, *, now: dt.datetime | None = None) -> Self:
        """Occurrences starting at or after ``now`` (default: the current time), not cancelled."""
        return upcoming_occurrences(self, now=now or timezone.now())
