"""Read-side filters: for series, and a QuerySet hosts compose into their Event model."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Self, TypeVar

from django.db import models
from django.utils import timezone

if TYPE_CHECKING:
    from .models import EventSeries  # noqa: F401

    _Base = models.QuerySet["EventSeries"]
else:
    _Base = models.QuerySet


class EventSeriesQuerySet(_Base):
    def active(self) -> EventSeriesQuerySet:
        return self.filter(is_active=True)

    def due(self, *, now: dt.datetime | None = None) -> EventSeriesQuerySet:
        """Active series whose next undone occurrence has entered its window.

        One range scan over the partial index on ``next_due_at``: the column
        already holds "next slot minus window", so no per-row arithmetic is needed.
        """
        moment = now or timezone.now()
        return self.filter(is_active=True, next_due_at__isnull=False, next_due_at__lte=moment)

    def with_rule(self) -> EventSeriesQuerySet:
        return self.filter(recurrence_rule__isnull=False)


_M = TypeVar("_M", bound=models.Model)


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
