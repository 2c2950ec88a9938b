"""Every bulk path of the series admin touches only what the user may change, and names the rest.

The changelist shows what ``get_visible_series`` allows; an action's model
permission says nothing about which series. Each bulk path (the actions, "delete
selected" and its confirmation page) keeps ``get_editable_series(user)`` and warns
with the names of the series it skipped.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.db.models import QuerySet
from django.test import override_settings

from revel_recurring.adapter import DefaultRecurringAdapter
from revel_recurring.models import EventSeries
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.lifecycle import pause_series
from tests.hosts.testapp.models import Event
from tests.support.admin import CHANGELIST, generated_series, mixed_series, texts
from tests.support.factories import make_series, occurrences

pytestmark = pytest.mark.django_db


class OthersViewOnlyAdapter(DefaultRecurringAdapter):
    """Series named "Theirs..." are visible to everyone with the permission, editable by none."""

    def get_editable_series(self, user: Any) -> QuerySet[EventSeries]:
        return super().get_editable_series(user).exclude(name__startswith="Theirs")


ADAPTER = "tests.default.admin.test_admin_bulk_scope.OthersViewOnlyAdapter"


def staff_with(django_user_model: Any, client: Any, *codenames: str) -> Any:
    user = django_user_model.objects.create_user("clerk", password="x", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client.force_login(user)
    return user


def post_action(client: Any, action: str, *series: EventSeries, **extra: Any) -> Any:
    data = {"action": action, "_selected_action": [s.pk for s in series], **extra}
    return client.post(CHANGELIST, data, follow=True)


def state(series: EventSeries) -> tuple[Any, ...]:
    """Everything a bulk path could change about a series, to compare before and after."""
    series.refresh_from_db()
    rows = Event.objects.filter(series=series).order_by("pk")
    return (
        series.is_active,
        series.last_generated_until,
        [(row.pk, row.state, row.starts_at) for row in rows],
    )


def warnings(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"] if m.level_tag == "warning"]


def test_delete_selected_by_a_viewer_with_the_delete_permission_deletes_nothing(
    client: Any, django_user_model: Any
) -> None:
    # The model's delete permission is all Django's action checks; the default adapter
    # lets only change_eventseries edit.
    yoga = generated_series(name="Yoga")
    pilates = generated_series(name="Pilates")
    before = [state(yoga), state(pilates)]
    staff_with(django_user_model, client, "view_eventseries", "delete_eventseries", "delete_event")

    confirm = post_action(client, "delete_selected", yoga, pilates)
    done = post_action(client, "delete_selected", yoga, pilates, post="yes")

    named = "Skipped Yoga, Pilates: you may view but not change them; nothing done to them."
    assert confirm.redirect_chain[-1][0] == CHANGELIST  # no confirmation page for nothing
    assert warnings(confirm) == [named]
    assert warnings(done) == [named]
    assert not any("Successfully deleted" in text for text in texts(done))
    assert [state(yoga), state(pilates)] == before


@pytest.mark.parametrize(
    "action", ["generate_now_action", "pause_action", "resume_action", "cancel_stale_action"]
)
def test_actions_are_not_offered_to_a_viewer(
    client: Any, django_user_model: Any, action: str
) -> None:
    yoga = mixed_series(name="Yoga")
    before = state(yoga)
    staff_with(django_user_model, client, "view_eventseries", "delete_eventseries")
    drifted = list(detect_cadence_drift(yoga))

    response = post_action(client, action, yoga, confirm="yes", occurrence=drifted)

    assert response.status_code == 200
    assert state(yoga) == before


@override_settings(REVEL_RECURRING_ADAPTER=ADAPTER)
def test_delete_selected_confirmation_lists_and_deletes_only_the_editable_series(
    client: Any, django_user_model: Any
) -> None:
    mine = generated_series(name="Mine")
    theirs = generated_series(name="Theirs")
    kept = state(theirs)
    staff_with(
        django_user_model,
        client,
        "view_eventseries",
        "change_eventseries",
        "delete_eventseries",
        "delete_event",
    )

    confirm = post_action(client, "delete_selected", mine, theirs)

    assert confirm.status_code == 200
    assert confirm.templates[0].name.endswith("delete_selected_confirmation.html")
    assert [s.pk for s in confirm.context["queryset"]] == [mine.pk]
    assert dict(confirm.context["model_count"])["event series"] == 1
    page = confirm.content.decode()
    assert f'name="_selected_action" value="{mine.pk}"' in page
    assert f'name="_selected_action" value="{theirs.pk}"' not in page
    assert warnings(confirm) == [
        "Skipped Theirs: you may view but not change them; nothing done to them."
    ]

    # A forged confirmation naming both deletes only the editable one.
    done = post_action(client, "delete_selected", mine, theirs, post="yes")

    assert list(EventSeries.objects.values_list("name", flat=True)) == ["Theirs"]
    assert state(theirs) == kept
    assert "Successfully deleted 1 event series." in texts(done)
    assert warnings(done) == [
        "Skipped Theirs: you may view but not change them; nothing done to them."
    ]


@override_settings(REVEL_RECURRING_ADAPTER=ADAPTER)
def test_delete_queryset_skips_what_the_user_may_not_change(
    rf: Any, django_user_model: Any
) -> None:
    # Hosts' own actions call delete_queryset directly: it is guarded too.
    from django.contrib import admin
    from django.contrib.messages.storage.fallback import FallbackStorage

    mine = generated_series(name="Mine")
    theirs = generated_series(name="Theirs")
    request = rf.post(CHANGELIST)
    request.user = django_user_model.objects.create_user("clerk", is_staff=True)
    request.user.user_permissions.add(Permission.objects.get(codename="change_eventseries"))
    request.user = django_user_model.objects.get(pk=request.user.pk)
    request.session = {}
    request._messages = FallbackStorage(request)

    admin.site._registry[EventSeries].delete_queryset(request, EventSeries.objects.all())

    assert list(EventSeries.objects.values_list("pk", flat=True)) == [theirs.pk]
    assert not Event.objects.filter(series_id=mine.pk).exists()
    assert [str(m) for m in request._messages] == [
        "Skipped Theirs: you may view but not change them; nothing done to them."
    ]


@override_settings(REVEL_RECURRING_ADAPTER=ADAPTER)
@pytest.mark.parametrize(
    ("action", "prepare", "changed"),
    [
        ("generate_now_action", make_series, lambda s: len(occurrences(s)) == 8),
        ("pause_action", generated_series, lambda s: s.is_active is False),
        ("resume_action", generated_series, lambda s: s.is_active is True),
        (
            "cancel_stale_action",
            mixed_series,
            lambda s: detect_cadence_drift(s) == [],
        ),
    ],
)
def test_every_action_changes_only_the_editable_series_and_names_the_rest(
    client: Any, django_user_model: Any, action: str, prepare: Any, changed: Any
) -> None:
    mine = prepare(name="Mine")
    theirs = prepare(name="Theirs Studio")
    if action == "resume_action":
        pause_series(mine)
        pause_series(theirs)
    kept = state(theirs)
    drifted = [*detect_cadence_drift(mine), *detect_cadence_drift(theirs)]
    staff_with(django_user_model, client, "view_eventseries", "change_eventseries")

    response = post_action(client, action, mine, theirs, confirm="yes", occurrence=drifted)

    assert response.status_code == 200
    mine.refresh_from_db()
    assert changed(mine)
    assert state(theirs) == kept
    assert warnings(response)[0] == (
        "Skipped Theirs Studio: you may view but not change them; nothing done to them."
    )
