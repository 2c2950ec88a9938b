"""The adapter decides what the series admin shows and allows, for superusers too.

No shortcut for ``is_superuser``: the admin asks ``get_visible_series``,
``get_editable_series`` and ``can_create_series`` for every user, as the API does.
(The default adapter answers from the model permissions, which a superuser has.)
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.db.models import QuerySet
from django.test import Client

from revel_recurring.adapter import DefaultRecurringAdapter
from revel_recurring.models import EventSeries
from tests.support.admin import ADD, CHANGELIST, change_url
from tests.support.factories import make_series, occurrences

pytestmark = pytest.mark.django_db


class ScopedAdapter(DefaultRecurringAdapter):
    """Everyone sees Yoga and Pilates, may change Yoga only, and may not create series."""

    def get_visible_series(self, user: Any) -> QuerySet[EventSeries]:
        return EventSeries.objects.filter(name__in=["Yoga", "Pilates"])

    def get_editable_series(self, user: Any) -> QuerySet[EventSeries]:
        return EventSeries.objects.filter(name="Yoga")

    def can_create_series(self, user: Any) -> bool:
        return False


@pytest.fixture(autouse=True)
def scoped_adapter(settings: Any) -> None:
    settings.REVEL_RECURRING_ADAPTER = (
        "tests.default.admin.test_admin_adapter_decides.ScopedAdapter"
    )


@pytest.fixture(params=["superuser", "staff"])
def user_client(request: Any, django_user_model: Any) -> Client:
    """A superuser, or staff holding every series permission: the adapter decides for both."""
    if request.param == "superuser":
        user = django_user_model.objects.create_superuser("root", "root@example.com", "x")
    else:
        user = django_user_model.objects.create_user("clerk", is_staff=True)
        user.user_permissions.add(
            *Permission.objects.filter(content_type__app_label="revel_recurring")
        )
    client = Client()
    client.force_login(user)
    return client


def test_the_list_shows_what_the_adapter_lets_the_user_see(user_client: Client) -> None:
    for name in ("Yoga", "Pilates", "Swim"):
        make_series(name=name)

    listed = user_client.get(CHANGELIST)
    hidden = user_client.get(change_url(EventSeries.objects.get(name="Swim")))

    assert sorted(s.name for s in listed.context["cl"].result_list) == ["Pilates", "Yoga"]
    assert hidden.status_code == 302  # the admin's "does not exist" redirect


def test_a_series_the_adapter_does_not_let_change_is_read_only(user_client: Client) -> None:
    yoga, pilates = make_series(name="Yoga"), make_series(name="Pilates", window_weeks=2)

    page = user_client.get(change_url(pilates))
    button = user_client.post(change_url(pilates, "generate"))
    action = user_client.post(
        CHANGELIST,
        {"action": "generate_now_action", "_selected_action": [yoga.pk, pilates.pk]},
        follow=True,
    )

    assert page.status_code == 200
    assert not page.context["has_change_permission"]
    assert button.status_code == 403
    texts = [str(m) for m in get_messages(action.wsgi_request)]
    assert "Skipped Pilates: you may view but not change them; nothing done to them." in texts
    assert (len(occurrences(yoga)), occurrences(pilates)) == (8, [])


def test_the_add_page_follows_can_create_series(user_client: Client) -> None:
    listed = user_client.get(CHANGELIST)

    assert user_client.get(ADD).status_code == 403
    assert not listed.context["has_add_permission"]
    assert ADD not in listed.content.decode()
