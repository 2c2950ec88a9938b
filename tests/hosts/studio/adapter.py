"""The studio's adapter: a school's teachers see and run its series, its members only see
them; superusers all."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet, prefetch_related_objects
from django.urls import reverse

from revel_recurring.adapter import DefaultRecurringAdapter
from revel_recurring.models import EventSeries
from revel_recurring.people import BookedPerson
from tests.hosts.enrolled import people_of

from .models import Lesson, School, User


def _series_of(schools: QuerySet[School]) -> QuerySet[EventSeries]:
    templates = Lesson.objects.filter(series=OuterRef("pk"), is_template=True, school__in=schools)
    return EventSeries.objects.filter(Exists(templates))


class StudioAdapter(DefaultRecurringAdapter):
    def get_visible_series(self, user: Any) -> QuerySet[EventSeries]:
        if not user.is_authenticated:
            return EventSeries.objects.none()
        if user.is_superuser:
            return EventSeries.objects.all()
        return _series_of(School.objects.filter(Q(teachers=user) | Q(members=user)))

    def get_editable_series(self, user: Any) -> QuerySet[EventSeries]:
        if not user.is_authenticated:
            return EventSeries.objects.none()
        if user.is_superuser:
            return EventSeries.objects.all()
        return _series_of(School.objects.filter(teachers=user))

    def can_create_series(self, user: Any) -> bool:
        return bool(user.is_authenticated) and (
            user.is_superuser or School.objects.filter(teachers=user).exists()
        )

    def get_template_sources(self, user: Any) -> QuerySet[Lesson]:
        lessons = Lesson.objects.filter(series__isnull=True)
        if user.is_superuser:
            return lessons
        return lessons.filter(school__teachers=user)

    def get_webhook_scope(self, user: Any) -> str | None:
        # A school's webhooks are its teachers' (the first school they teach);
        # superusers run the site-wide ones; members run none.
        if not user.is_authenticated:
            return None
        if user.is_superuser:
            return ""
        school = School.objects.filter(teachers=user).order_by("pk").values_list("pk", flat=True)
        first = school.first()
        return None if first is None else f"school:{first}"

    def get_series_webhook_scope(self, series: EventSeries) -> str:
        school = (
            Lesson.objects.filter(series=series, is_template=True)
            .values_list("school_id", flat=True)
            .first()
        )
        return "" if school is None else f"school:{school}"

    def get_ical_uid_domain(self) -> str:
        return "studio.example"

    def get_series_feed_url(self, series: EventSeries) -> str:
        # A series is in its school's feed: the one its subscribers take.
        template = Lesson.objects.filter(series=series, is_template=True).first()
        if template is None:
            return ""
        path = reverse("school_feed", kwargs={"slug": template.school.slug})
        return f"https://studio.example{path}"

    def get_ical_fields(self, model: type[Any]) -> list[str]:
        return [*super().get_ical_fields(model), "hall", "room"]

    def prefetch_ical_events(self, events: Sequence[Any]) -> None:
        # One query for the halls of the whole feed.
        prefetch_related_objects(list(events), "hall")

    def get_ical_location(self, event: Lesson, series: EventSeries) -> str:
        hall = event.hall
        where = ", ".join(part for part in (hall.name, hall.street) if part) if hall else ""
        return " / ".join(part for part in (event.room, where) if part)

    def get_staff_and_owners(self, series: EventSeries, template: Lesson) -> QuerySet[User]:
        return User.objects.filter(schools=template.school_id, is_active=True).order_by("email")

    def get_enrolled_people(self, user_keys: Sequence[str]) -> dict[str, BookedPerson]:
        # Each user in their own language and time zone, in one query.
        return people_of(user_keys, name_field="full_name")
