"""Read-side filters for series."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

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
