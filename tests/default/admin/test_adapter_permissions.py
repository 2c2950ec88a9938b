"""The default scoping hooks: Django model permissions of the app."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, Permission

from revel_recurring.adapter import DefaultRecurringAdapter
from tests.support.factories import make_series

pytestmark = pytest.mark.django_db


def user_with(django_user_model: Any, *codenames: str) -> Any:
    user = django_user_model.objects.create_user(username="-".join(codenames) or "plain")
    user.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="revel_recurring", codename__in=codenames
        )
    )
    # has_perm caches permissions on the instance; a fresh read sees the grant.
    return django_user_model.objects.get(pk=user.pk)


def test_without_permissions_a_user_sees_and_edits_nothing(django_user_model: Any) -> None:
    make_series()
    adapter, user = DefaultRecurringAdapter(), user_with(django_user_model)
    assert list(adapter.get_visible_series(user)) == []
    assert list(adapter.get_editable_series(user)) == []


def test_view_permission_shows_every_series_but_edits_none(django_user_model: Any) -> None:
    series = make_series()
    adapter, user = DefaultRecurringAdapter(), user_with(django_user_model, "view_eventseries")
    assert list(adapter.get_visible_series(user)) == [series]
    assert list(adapter.get_editable_series(user)) == []


def test_change_permission_sees_and_edits_every_series(django_user_model: Any) -> None:
    series = make_series()
    adapter, user = DefaultRecurringAdapter(), user_with(django_user_model, "change_eventseries")
    assert list(adapter.get_visible_series(user)) == [series]
    assert list(adapter.get_editable_series(user)) == [series]


def test_superuser_and_anonymous(django_user_model: Any) -> None:
    series = make_series()
    adapter = DefaultRecurringAdapter()
    root = django_user_model.objects.create_superuser(username="root", password="x")
    assert list(adapter.get_editable_series(root)) == [series]
    assert list(adapter.get_visible_series(AnonymousUser())) == []
    assert list(adapter.get_editable_series(AnonymousUser())) == []
