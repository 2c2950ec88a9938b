"""The example site's revel_recurring adapter (``REVEL_RECURRING_ADAPTER``).

One visibility policy decides both who reads a series and who hears about its new
dates (``revel_recurring.notifications.visibility_audience``), by the visibility of
its template:

- public: every signed-in user reads it; the owner, staff, members and followers
  who opted in to new-event notifications are told;
- members only: the owner, staff and members (active or paused) read it and are told;
- staff only, private, unlisted: the owner and staff of the organisation only
  (an unlisted series' page and open feed are still reachable by their link).

Only the owner and staff edit; superusers read and edit everything. Every hook is
one query, and the preferences of all candidates are read in one more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.urls import reverse

from revel_recurring.adapter import DefaultRecurringAdapter
from revel_recurring.models import EventSeries
from revel_recurring.notifications import Audience, visibilities_reaching

from .api import EventTemplateSerializer
from .models import Event, Follow, Membership, NotificationPreference, Organization, SeriesFollow
from .scoping import organizations_run_by

#: Membership states that make a member: told about members-only dates, and allowed
#: to read them (one set for both, so a digest's link opens for its recipient).
NOTIFIED_MEMBERSHIP_STATES = (Membership.Status.ACTIVE, Membership.Status.PAUSED)


def absolute_url(path: str) -> str:
    """``path`` on the site's public address (``EXAMPLE_SITE_URL``), for e-mail links."""
    return settings.EXAMPLE_SITE_URL.rstrip("/") + path


def _active_users(condition: Q) -> QuerySet[Any]:
    # Deactivated accounts are never told; pk order keeps digests reproducible.
    return get_user_model()._default_manager.filter(condition, is_active=True).order_by("pk")


def _templates(condition: Q) -> Exists:
    # A series belongs to the organisation of its template; Exists keeps one row per
    # series however many ways the user is related to the organisation.
    return Exists(Event.objects.filter(condition, series=OuterRef("pk"), is_template=True))


def _series_of(organizations: QuerySet[Organization]) -> QuerySet[EventSeries]:
    return EventSeries.objects.filter(_templates(Q(organization__in=organizations)))


def readable_series(user: Any) -> QuerySet[EventSeries]:
    """The series ``user`` may read, by the same policy as the digest's audience.

    Staff and owners read every series of their organisations; members (the
    digest's members) those whose template visibility reaches members; everyone
    signed in those that reach the public. Anonymous visitors get none here: the
    site's public pages decide for them.
    """
    if not user.is_authenticated:
        return EventSeries.objects.none()
    if user.is_superuser:
        return EventSeries.objects.all()
    member_of = Membership.objects.filter(user=user, status__in=NOTIFIED_MEMBERSHIP_STATES)
    return EventSeries.objects.filter(
        _templates(Q(organization__in=organizations_run_by(user)))
        | _templates(
            Q(
                organization__in=member_of.values("organization_id"),
                visibility__in=visibilities_reaching(Event, Audience.MEMBERS),
            )
        )
        | _templates(Q(visibility__in=visibilities_reaching(Event, Audience.PUBLIC)))
    )


class ExampleAdapter(DefaultRecurringAdapter):
    """Scoping by organisation, and audience hooks over Organization, Membership,
    Follow, SeriesFollow and preferences."""

    def get_editable_series(self, user: Any) -> QuerySet[EventSeries]:
        if not user.is_authenticated:
            return EventSeries.objects.none()
        if user.is_superuser:
            return EventSeries.objects.all()
        return _series_of(organizations_run_by(user))

    def get_visible_series(self, user: Any) -> QuerySet[EventSeries]:
        return readable_series(user)

    def can_create_series(self, user: Any) -> bool:
        # Which organisation is checked by the template serializer's choices.
        return bool(user.is_authenticated) and organizations_run_by(user).exists()

    def get_template_sources(self, user: Any) -> QuerySet[Event]:
        # The admin's add page: one-off events of the organisations the user runs.
        return Event.objects.one_offs().filter(organization__in=organizations_run_by(user))

    def get_template_serializer_class(self) -> type[Any]:
        return EventTemplateSerializer

    def get_webhook_scope(self, user: Any) -> str | None:
        # An organisation's staff and owners run its webhooks (the first one they
        # run); superusers the site-wide ones; everyone else none.
        if not user.is_authenticated:
            return None
        if user.is_superuser:
            return ""
        first = organizations_run_by(user).order_by("pk").values_list("pk", flat=True).first()
        return None if first is None else f"organization:{first}"

    def get_series_webhook_scope(self, series: EventSeries) -> str:
        organization = (
            Event.objects.filter(series=series, is_template=True)
            .values_list("organization_id", flat=True)
            .first()
        )
        return "" if organization is None else f"organization:{organization}"

    def get_series_url(self, series: EventSeries) -> str:
        return absolute_url(reverse("events:series_detail", kwargs={"slug": series.slug}))

    def get_series_feed_url(self, series: EventSeries) -> str:
        # The open feed of a public or unlisted series; the others' feeds are per person.
        open_ones = (Event.Visibility.PUBLIC, Event.Visibility.UNLISTED)
        if not Event.objects.templates().filter(series=series, visibility__in=open_ones).exists():
            return ""
        return absolute_url(reverse("events:series_feed", kwargs={"slug": series.slug}))

    def get_ical_fields(self, model: type[Any]) -> list[str]:
        # What the hooks below read: a feed loads no other column of the events.
        return ["name", "description", "address", "latitude", "longitude"]

    def get_ical_summary(self, event: Event, series: EventSeries) -> str:
        return event.name

    def get_ical_description(self, event: Event, series: EventSeries) -> str:
        return event.description

    def get_ical_location(self, event: Event, series: EventSeries) -> str:
        return event.address

    def get_ical_geo(self, event: Event, series: EventSeries) -> tuple[float, float] | None:
        if event.latitude is None or event.longitude is None:
            return None
        return float(event.latitude), float(event.longitude)

    def get_ical_uid_domain(self) -> str:
        return urlsplit(settings.EXAMPLE_SITE_URL).hostname or "localhost"

    def get_staff_and_owners(self, series: EventSeries, template: Event) -> QuerySet[Any]:
        organization = template.organization_id
        owner = Organization.objects.filter(pk=organization).values("owner_id")
        staff = Organization.staff.through.objects.filter(organization_id=organization)
        return _active_users(Q(pk__in=owner) | Q(pk__in=staff.values("user_id")))

    def get_members(self, series: EventSeries, template: Event) -> QuerySet[Any]:
        members = Membership.objects.filter(
            organization_id=template.organization_id, status__in=NOTIFIED_MEMBERSHIP_STATES
        )
        return _active_users(Q(pk__in=members.values("user_id")))

    def get_followers(self, series: EventSeries, template: Event) -> QuerySet[Any]:
        of_organization = Follow.objects.filter(
            organization_id=template.organization_id, notify_new_events=True
        )
        of_series = SeriesFollow.objects.filter(series=series, notify_new_events=True)
        return _active_users(
            Q(pk__in=of_organization.values("user_id")) | Q(pk__in=of_series.values("user_id"))
        )

    def wants_notification(self, recipient: Any, notification_type: str) -> bool:
        return bool(self.filter_by_preferences([recipient], notification_type))

    def filter_by_preferences(self, candidates: Sequence[Any], notification_type: str) -> list[Any]:
        """Everyone without a preference row, or whose row allows the type; one query."""
        refused = {
            preference.user_id
            for preference in NotificationPreference.objects.filter(
                user_id__in=[candidate.pk for candidate in candidates]
            ).only("user_id", "silence_all", "disabled_types")
            if not preference.allows(notification_type)
        }
        return [candidate for candidate in candidates if candidate.pk not in refused]
