"""The smallest host: other field names and status values than the defaults."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import models

from revel_recurring.models import RecurringEventMixin
from revel_recurring.querysets import RecurringEventQuerySet


class Event(RecurringEventMixin, models.Model):
    title = models.CharField(max_length=200)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(null=True, blank=True)
    doors_open_at = models.DateTimeField(null=True, blank=True)
    state = models.CharField(max_length=20, default="planned")
    capacity = models.PositiveIntegerField(null=True, blank=True)
    venue = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = RecurringEventQuerySet["Event"].as_manager()

    RECURRING_START_FIELD = "starts_at"
    RECURRING_END_FIELD = "ends_at"
    RECURRING_STATUS_FIELD = "state"
    RECURRING_STATUS_DRAFT = "planned"
    RECURRING_STATUS_OPEN = "on_sale"
    RECURRING_STATUS_CANCELLED = "called_off"
    RECURRING_SHIFTED_FIELDS = ("doors_open_at",)
    RECURRING_UNCOPIED_FIELDS = ("created_at",)
    PROPAGATABLE_FIELDS = ("title", "capacity", "venue")

    class Meta(RecurringEventMixin.Meta):
        ordering = ("starts_at", "pk")

    def __str__(self) -> str:
        return f"{self.title} @ {self.starts_at.isoformat()}"

    @classmethod
    def clone_related(cls, template: Event, occurrences: Sequence[Event]) -> None:
        seats = list(template.seats.all())
        Seat.objects.bulk_create(
            [
                Seat(event=occurrence, label=seat.label, quantity=seat.quantity)
                for occurrence in occurrences
                for seat in seats
            ]
        )

    def has_bookings(self) -> bool:
        return self.seats.filter(booked__gt=0).exists()

    @classmethod
    def booked_among(cls, events: Sequence[Event]) -> set[Any]:
        if not events:
            return set()
        return set(
            Seat.objects.filter(event__in=[event.pk for event in events], booked__gt=0)
            .values_list("event_id", flat=True)
            .distinct()
        )

    @classmethod
    def count_bookings_among(cls, events: Sequence[Event]) -> dict[Any, int]:
        # A seat's "booked" is how many places of it are taken.
        if not events:
            return {}
        return dict(
            Seat.objects.filter(event__in=[event.pk for event in events], booked__gt=0)
            .values("event_id")
            .annotate(taken=models.Sum("booked"))
            .values_list("event_id", "taken")
        )


class Seat(models.Model):
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="seats")
    label = models.CharField(max_length=50)
    quantity = models.PositiveIntegerField(default=0)
    booked = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.label} ({self.quantity})"
