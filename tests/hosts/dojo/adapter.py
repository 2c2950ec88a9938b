"""The dojo's adapter: one studio, so the default permissions decide; its own feed domain."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import QuerySet
from django.urls import reverse

from revel_recurring.adapter import DefaultRecurringAdapter
from revel_recurring.models import EventSeries
from revel_recurring.people import BookedPerson
from tests.hosts.enrolled import people_of

from .models import Training, User


class DojoAdapter(DefaultRecurringAdapter):
    def get_ical_uid_domain(self) -> str:
        return "dojo.example"

    def get_series_feed_url(self, series: EventSeries) -> str:
        # Every series' own feed is the API's, open to all (is_feed_open below).
        return "https://dojo.example" + reverse("revel_recurring:series-ical", args=[series.pk])

    def get_ical_fields(self, model: type[Any]) -> list[str]:
        return [*super().get_ical_fields(model), "mat"]

    def get_ical_location(self, event: Training, series: EventSeries) -> str:
        return event.mat

    def is_feed_open(self, series: EventSeries, template: Any | None) -> bool:
        # Every training of the dojo is public.
        return template is not None

    def get_staff_and_owners(self, series: EventSeries, template: Training) -> QuerySet[User]:
        return User.objects.filter(is_staff=True, is_active=True).order_by("email")

    def get_enrolled_people(self, user_keys: Sequence[str]) -> dict[str, BookedPerson]:
        # Each user in their own language and time zone, in one query.
        return people_of(user_keys, name_field="name")
