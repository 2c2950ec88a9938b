"""The example site's policy hooks: who sees and runs a series."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from revel_recurring.adapter import DefaultRecurringAdapter
from revel_recurring.models import EventSeries

from .models import Event, Membership, Organization


def _series_of(organizations: QuerySet[Organization]) -> QuerySet[EventSeries]:
    # A series belongs to the organisation of its template; Exists keeps one row per
    # series however many ways the user is related to the organisation.
    templates = Event.objects.filter(
        series=OuterRef("pk"), is_template=True, organization__in=organizations
    )
    return EventSeries.objects.filter(Exists(templates))


class ExampleAdapter(DefaultRecurringAdapter):
    """Scoping by organisation: staff and the owner run its series, active members see them."""

    def get_editable_series(self, user: Any) -> QuerySet[EventSeries]:
        if not user.is_authenticated:
            return EventSeries.objects.none()
        if user.is_superuser:
            return EventSeries.objects.all()
        return _series_of(organizations_run_by(user))

    def get_visible_series(self, user: Any) -> QuerySet[EventSeries]:
        if not user.is_authenticated:
            return EventSeries.objects.none()
        if user.is_superuser:
            return EventSeries.objects.all()
        return _series_of(
            Organization.objects.filter(
                Q(owner=user)
                | Q(staff=user)
                | Q(memberships__user=user, memberships__status=Membership.Status.ACTIVE)
            )
        )

    def can_create_series(self, user: Any) -> bool:
        # Which organisation is checked by the template serializer's choices.
        return bool(user.is_authenticated) and (user.is_superuser or _runs_any(user))

    def get_template_serializer_class(self) -> type[Any]:
        from .api import EventTemplateSerializer

        return EventTemplateSerializer


def organizations_run_by(user: Any) -> QuerySet[Organization]:
    """Organisations ``user`` owns or is staff of (all of them for a superuser)."""
    if not user.is_authenticated:
        return Organization.objects.none()
    if user.is_superuser:
        return Organization.objects.all()
    return Organization.objects.filter(Q(owner=user) | Q(staff=user)).distinct()


def _runs_any(user: Any) -> bool:
    return organizations_run_by(user).exists()
