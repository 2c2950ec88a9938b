"""The smallest host: other field names and status values than the defaults.

Bookings come in two kinds, and both count. ``Seat.booked`` counts places taken
by nobody in particular (sold at the door, by a partner): the host knows how
many, not who. A ``SeatHolder`` is one more place, taken by a named person. So an
event is booked when a seat has ``booked > 0`` or a holder exists; its bookings
are the sum of ``booked`` plus its holders; and the people booked on it
(``people_booked_among``) are its holders, one per address. An enrolled user is
booked as a holder linked to their user (``book_enrolled``), within ``capacity``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models
from django.db.models.functions import Coalesce

from revel_recurring.enrolled import BookingAnswer
from revel_recurring.models import RecurringEventMixin
from revel_recurring.people import BookedPerson
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
        # One query, the same as the batched answer's.
        return self.pk in type(self).booked_among([self])

    @classmethod
    def booked_among(cls, events: Sequence[Event]) -> set[Any]:
        # One query: the events with a taken seat or a named holder.
        if not events:
            return set()
        taken = Seat.objects.filter(event=models.OuterRef("pk"), booked__gt=0)
        held = SeatHolder.objects.filter(event=models.OuterRef("pk"))
        return set(
            Event.objects.filter(pk__in=[event.pk for event in events])
            .filter(models.Exists(taken) | models.Exists(held))
            .order_by()
            .values_list("pk", flat=True)
        )

    @classmethod
    def count_bookings_among(cls, events: Sequence[Event]) -> dict[Any, int]:
        # One query: the seats' taken places plus one for each named holder.
        if not events:
            return {}
        taken = (
            Seat.objects.filter(event=models.OuterRef("pk"))
            .order_by()
            .values("event")
            .annotate(places=models.Sum("booked"))
            .values("places")
        )
        held = (
            SeatHolder.objects.filter(event=models.OuterRef("pk"))
            .order_by()
            .values("event")
            .annotate(people=models.Count("pk"))
            .values("people")
        )
        rows = (
            Event.objects.filter(pk__in=[event.pk for event in events])
            .order_by()
            .annotate(
                taken=Coalesce(models.Subquery(taken), 0),
                held=Coalesce(models.Subquery(held), 0),
            )
            .values_list("pk", "taken", "held")
        )
        return {pk: taken + held for pk, taken, held in rows if taken + held}

    @classmethod
    def people_booked_among(cls, events: Sequence[Event]) -> Mapping[Any, Sequence[BookedPerson]]:
        # One query over the holders; a person holding two places is named once.
        if not events:
            return {}
        holders = (
            SeatHolder.objects.filter(event__in=[event.pk for event in events])
            .order_by("event_id", "pk")
            .values_list("event_id", "address", "name", "language", "timezone")
        )
        people: dict[Any, dict[str, BookedPerson]] = {}
        for event_id, address, name, language, zone in holders:
            person = BookedPerson(address=address, name=name, language=language, timezone=zone)
            people.setdefault(event_id, {}).setdefault(person.key, person)
        return {pk: list(named.values()) for pk, named in people.items()}

    @classmethod
    def book_enrolled(cls, pairs: Sequence[tuple[Event, str]]) -> Mapping[tuple[Any, str], Any]:
        # A named place per (event, user), within the event's capacity: four queries.
        if not pairs:
            return {}
        pks = sorted({event.pk for event, _user in pairs})
        held = {
            (event_id, str(user_id))
            for event_id, user_id in SeatHolder.objects.filter(
                event__in=pks, user__isnull=False
            ).values_list("event_id", "user_id")
        }
        taken = dict(cls.count_bookings_among([event for event, _user in pairs]))
        capacity = dict(Event.objects.filter(pk__in=pks).values_list("pk", "capacity"))
        users = {
            str(user.pk): user
            for user in get_user_model().objects.filter(pk__in={u for _e, u in pairs})
        }
        answers: dict[tuple[Any, str], BookingAnswer] = {}
        places = []
        for event, user_key in pairs:
            user = users.get(user_key)
            if user is None:
                answers[(event.pk, user_key)] = BookingAnswer.refused("no such user")
            elif (event.pk, user_key) in held:
                answers[(event.pk, user_key)] = BookingAnswer.held()
            elif (
                capacity.get(event.pk) is not None and taken.get(event.pk, 0) >= capacity[event.pk]
            ):
                answers[(event.pk, user_key)] = BookingAnswer.refused("full")
            else:
                taken[event.pk] = taken.get(event.pk, 0) + 1
                held.add((event.pk, user_key))
                places.append(
                    SeatHolder(event_id=event.pk, user=user, address=user.email, name=user.username)
                )
                answers[(event.pk, user_key)] = BookingAnswer.booked()
        SeatHolder.objects.bulk_create(places)
        return answers

    @classmethod
    def release_enrolled(cls, pairs: Sequence[tuple[Event, str]]) -> None:
        # One DELETE for every pair.
        if not pairs:
            return
        wanted = models.Q()
        for event, user_key in pairs:
            wanted |= models.Q(event_id=event.pk, user_id=user_key)
        SeatHolder.objects.filter(wanted).delete()


class Seat(models.Model):
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="seats")
    label = models.CharField(max_length=50)
    quantity = models.PositiveIntegerField(default=0)
    booked = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.label} ({self.quantity})"


class SeatHolder(models.Model):
    """One place on an event taken by a named person: who to tell when the date changes."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="seat_holders")
    address = models.EmailField()
    name = models.CharField(max_length=200, blank=True, default="")
    # A language code ("de"); empty: the site's LANGUAGE_CODE.
    language = models.CharField(max_length=16, blank=True, default="")
    # An IANA zone ("America/New_York"); empty: the series' zone.
    timezone = models.CharField(max_length=64, blank=True, default="")
    # Set when the place was taken for an enrolled user (book_enrolled).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="seat_holders",
    )

    def __str__(self) -> str:
        return f"{self.address} on {self.event_id}"
