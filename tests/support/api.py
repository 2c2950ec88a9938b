"""Users and clients for the testapp host's API tests (mounted by ``tests.api_urls``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.models import Permission
from django.utils import timezone
from rest_framework.test import APIClient

from tests.support.factories import VIENNA


def user_with(django_user_model: Any, name: str, *codenames: str) -> Any:
    """A user named ``name`` holding the app's permissions ``codenames``."""
    user = django_user_model.objects.create_user(username=name)
    user.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="revel_recurring", codename__in=codenames
        )
    )
    # has_perm caches permissions on the instance; a fresh read sees the grant.
    return django_user_model.objects.get(pk=user.pk)


def client(user: Any) -> APIClient:
    """An API client signed in as ``user``."""
    api = APIClient()
    api.force_authenticate(user)
    return api


def next_tuesday() -> dt.datetime:
    """The next Tuesday after today (real clock), 10:00 in Vienna."""
    today = timezone.now().astimezone(VIENNA).date()
    day = today + dt.timedelta(days=(1 - today.weekday()) % 7 or 7)
    return dt.datetime.combine(day, dt.time(10, 0), tzinfo=VIENNA)
