"""The series admin's actions and change-page buttons, each one service call with a message."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from celery import Celery
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django_celery_beat.models import PeriodicTask
from django_celery_beat.schedulers import DatabaseScheduler

from revel_recurring.beat import PERIODIC_TASK_NAME
from revel_recurring.exceptions import SeriesBusyError
from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.services.drift import detect_cadence_drift
from tests.hosts.testapp.models import Event, Seat
from tests.support.admin import CHANGELIST, change_url, generated_series, mixed_series, texts
from tests.support.factories import VIENNA, make_series, occurrences

pytestmark = pytest.mark.django_db

CANCELLED = Event.RECURRING_STATUS_CANCELLED


def run_action(client: Any, action: str, *series: EventSeries, **extra: Any) -> Any:
    data = {"action": action, "_selected_action": [s.pk for s in series], **extra}
    return client.post(CHANGELIST, data, follow=True)


def test_generate_now_action_reports_the_count_in_one_message(admin_client: Any) -> None:
    yoga = make_series(name="Yoga")
    pilates = make_series(name="Pilates", window_weeks=2)

    response = run_action(admin_client, "generate_now_action", yoga, pilates)

    assert texts(response) == ["10 occurrences generated for 2 series: Yoga (8), Pilates (2)."]
    assert len(occurrences(yoga)) == 8
    assert len(occurrences(pilates)) == 2


def test_generate_now_again_generates_nothing_and_says_so(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")

    response = run_action(admin_client, "generate_now_action", yoga)

    assert "0 occurrences generated for Yoga." in texts(response)


def test_generate_now_button_on_the_change_page(admin_client: Any) -> None:
    yoga = make_series(name="Yoga")

    response = admin_client.post(change_url(yoga, "generate"), follow=True)

    assert response.redirect_chain[-1][0] == change_url(yoga)
    assert "8 occurrences generated for Yoga." in texts(response)
    assert len(response.context["upcoming"]) == 8


def test_buttons_refuse_get(admin_client: Any) -> None:
    yoga = make_series(name="Yoga")

    assert admin_client.get(change_url(yoga, "generate")).status_code == 405
    assert occurrences(yoga) == []


def test_generate_now_on_a_series_without_template_is_a_warning(admin_client: Any) -> None:
    rule = RecurrenceRule.objects.create(
        frequency="WEEKLY",
        dtstart=dt.datetime(2026, 3, 2, 10, tzinfo=VIENNA),
        timezone="Europe/Vienna",
    )
    yoga = EventSeries.objects.create(name="Yoga", recurrence_rule=rule)

    response = run_action(admin_client, "generate_now_action", yoga)

    assert response.status_code == 200
    assert "Yoga has no template event, so nothing can be generated." in texts(response)


def test_pause_and_resume_actions(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")

    paused = run_action(admin_client, "pause_action", yoga)
    again = run_action(admin_client, "pause_action", yoga)
    blocked = run_action(admin_client, "generate_now_action", yoga)
    yoga.refresh_from_db()
    assert not yoga.is_active
    resumed = admin_client.post(change_url(yoga, "resume"), follow=True)

    assert "Yoga paused." in texts(paused)
    assert "Yoga was already paused." in texts(again)
    assert "Yoga is paused, so nothing was generated. Resume it first." in texts(blocked)
    assert "Yoga resumed." in texts(resumed)
    yoga.refresh_from_db()
    assert yoga.is_active


def test_pause_resume_and_generate_over_many_series_say_so_once_each(
    admin_client: Any,
) -> None:
    many = [generated_series(name=f"Class {number}") for number in range(1, 8)]
    run_action(admin_client, "pause_action", many[0])

    paused = run_action(admin_client, "pause_action", *many)
    blocked = run_action(admin_client, "generate_now_action", *many[:2])
    resumed = run_action(admin_client, "resume_action", *many[:3])

    assert texts(paused) == [
        "6 series paused: Class 2, Class 3, Class 4, Class 5, Class 6 and 1 more.",
        "1 series was already paused: Class 1.",
    ]
    assert texts(blocked) == [
        "2 series were not generated: Class 1 is paused, so nothing was generated. Resume "
        "it first. Class 2 is paused, so nothing was generated. Resume it first."
    ]
    assert texts(resumed) == ["3 series resumed: Class 1, Class 2, Class 3."]
    assert EventSeries.objects.filter(is_active=False).count() == 4


def test_cancel_stale_asks_first_then_cancels_the_dates_it_showed(admin_client: Any) -> None:
    yoga = mixed_series(name="Yoga")
    drifted = detect_cadence_drift(yoga)
    assert len(drifted) == 6

    confirm = run_action(admin_client, "cancel_stale_action", yoga)

    assert confirm.status_code == 200
    assert confirm.templates[0].name == "admin/revel_recurring/eventseries/cancel_stale.html"
    page = confirm.content.decode()
    assert page.count('name="occurrence"') == 6
    assert "(Europe/Vienna)" in page
    assert Event.objects.filter(pk__in=drifted, state=CANCELLED).count() == 0

    # The organiser saw five of them (a sixth drifted after the page was shown).
    done = run_action(
        admin_client, "cancel_stale_action", yoga, confirm="yes", occurrence=drifted[:5]
    )

    assert "5 stale occurrences cancelled for Yoga." in texts(done)
    assert Event.objects.filter(pk__in=drifted[:5], state=CANCELLED).count() == 5
    assert Event.objects.get(pk=drifted[5]).state != CANCELLED
    yoga.refresh_from_db()
    assert len(yoga.exdates) == 6  # the first cancellation plus five slots


def test_cancel_stale_from_the_change_page(admin_client: Any) -> None:
    yoga = mixed_series(name="Yoga")
    drifted = detect_cadence_drift(yoga)
    url = change_url(yoga, "cancel-stale")

    shown = admin_client.get(url)
    done = admin_client.post(url, {"confirm": "yes", "occurrence": drifted}, follow=True)

    assert shown.status_code == 200
    assert shown.content.decode().count('name="occurrence"') == 6
    assert "6 stale occurrences cancelled for Yoga." in texts(done)
    assert detect_cadence_drift(yoga) == []


def test_cancel_and_restore_a_date_from_the_series_page(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")
    third = occurrences(yoga)[2]
    slot = third.starts_at.strftime("%Y-%m-%dT%H:%M:%SZ")

    cancelled = admin_client.post(change_url(yoga, "cancel-date"), {"instant": slot}, follow=True)
    third.refresh_from_db()
    assert third.state == CANCELLED
    restored = admin_client.post(change_url(yoga, "restore-date"), {"instant": slot}, follow=True)

    label = [m for m in texts(cancelled) if m.endswith("cancelled for Yoga.")]
    assert label
    assert "(Europe/Vienna)" in label[0]
    assert any(m.endswith("restored for Yoga.") for m in texts(restored))
    third.refresh_from_db()
    assert third.state != CANCELLED
    yoga.refresh_from_db()
    assert yoga.exdates == []


def test_cancelling_a_future_slot_not_generated_yet(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga", window_weeks=1)
    page = admin_client.get(change_url(yoga))
    value, _label = page.context["free_slots"][3]

    admin_client.post(change_url(yoga, "cancel-date"), {"instant": value})

    yoga.refresh_from_db()
    assert yoga.exdates == [value]
    listed = admin_client.get(change_url(yoga)).context["upcoming"]
    assert [row.slot for row in listed if row.cancelled and row.event_id is None] == [value]


@pytest.mark.parametrize(
    ("view", "instant", "fragment"),
    [
        ("cancel-date", "2031-01-01T03:17:00Z", "is not an occurrence of series"),
        ("cancel-date", "next tuesday", "Not a date and time"),
        ("restore-date", "SLOT", "is not cancelled"),
    ],
)
def test_service_errors_become_error_messages(
    admin_client: Any, view: str, instant: str, fragment: str
) -> None:
    yoga = generated_series(name="Yoga")
    if instant == "SLOT":
        instant = occurrences(yoga)[0].starts_at.strftime("%Y-%m-%dT%H:%M:%SZ")

    response = admin_client.post(change_url(yoga, view), {"instant": instant}, follow=True)

    assert response.status_code == 200
    errors = [m for m in response.context["messages"] if m.level_tag == "error"]
    assert errors
    assert fragment in str(errors[0])


def test_view_only_staff_see_the_series_but_cannot_operate(
    client: Any, django_user_model: Any
) -> None:
    yoga = make_series(name="Yoga")
    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_eventseries"))
    client.force_login(viewer)

    page = client.get(change_url(yoga))
    generate = client.post(change_url(yoga, "generate"))
    action = run_action(client, "generate_now_action", yoga)

    assert page.status_code == 200
    assert page.context["can_operate"] is False
    assert "Generate now" not in page.content.decode()
    assert generate.status_code == 403
    assert action.status_code == 200
    assert occurrences(yoga) == []


def test_staff_without_permission_see_no_series(client: Any, django_user_model: Any) -> None:
    make_series(name="Yoga")
    clerk = django_user_model.objects.create_user("clerk", password="x", is_staff=True)
    client.force_login(clerk)

    assert client.get(CHANGELIST).status_code == 403


def scheduled_names() -> set[str]:
    app = Celery("admin-tests", set_as_current=False)
    app.conf.beat_schedule = {}
    return set(DatabaseScheduler(app=app, lazy=True).all_as_schedule())


def test_disabling_the_periodic_task_in_its_admin_stops_the_daily_run(admin_client: Any) -> None:
    task = PeriodicTask.objects.get(name=PERIODIC_TASK_NAME)
    assert PERIODIC_TASK_NAME in scheduled_names()

    response = admin_client.post(
        "/admin/django_celery_beat/periodictask/",
        {"action": "disable_tasks", "_selected_action": [task.pk]},
        follow=True,
    )
    listed = admin_client.get(CHANGELIST).content.decode()

    assert response.status_code == 200
    task.refresh_from_db()
    assert not task.enabled
    assert PERIODIC_TASK_NAME not in scheduled_names()
    assert "revel-beat-disabled" in listed


def test_deleting_a_series_in_the_admin_deletes_its_events_and_rule(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")
    rule_id = yoga.recurrence_rule_id
    url = change_url(yoga, "delete")

    confirm = admin_client.get(url)
    done = admin_client.post(url, {"post": "yes"}, follow=True)

    assert confirm.status_code == 200
    assert "9 events (template and occurrences)" in confirm.content.decode()
    assert done.status_code == 200
    assert not EventSeries.objects.filter(pk=yoga.pk).exists()
    assert not Event.objects.filter(series_id=yoga.pk).exists()
    assert not RecurrenceRule.objects.filter(pk=rule_id).exists()


def test_a_series_with_bookings_cannot_be_deleted_in_the_admin(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")
    Seat.objects.filter(event=occurrences(yoga)[1]).update(booked=2)

    confirm = admin_client.get(change_url(yoga, "delete"))
    refused = admin_client.post(change_url(yoga, "delete"), {"post": "yes"})

    assert "has bookings" in confirm.content.decode()
    assert refused.status_code == 200
    assert EventSeries.objects.filter(pk=yoga.pk).exists()
    assert len(occurrences(yoga)) == 8


def test_delete_selected_action_goes_through_delete_series(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")
    pilates = generated_series(name="Pilates")

    response = run_action(admin_client, "delete_selected", yoga, pilates, post="yes")

    assert response.status_code == 200
    assert not EventSeries.objects.exists()
    assert not Event.objects.exists()
    assert not RecurrenceRule.objects.exists()


def test_a_service_error_from_generate_now_is_an_error_message(
    admin_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    yoga = generated_series(name="Yoga")

    def busy(*args: Any, **kwargs: Any) -> None:
        raise SeriesBusyError("occurrence rows stayed locked; try again")

    monkeypatch.setattr("revel_recurring.admin.operations.generate_series_events", busy)
    response = admin_client.post(change_url(yoga, "generate"), follow=True)

    assert response.status_code == 200
    errors = [str(m) for m in response.context["messages"] if m.level_tag == "error"]
    assert errors == ["Yoga: occurrence rows stayed locked; try again"]


@pytest.mark.parametrize("action", ["pause_action", "resume_action"])
def test_a_validation_error_from_pause_or_resume_is_an_error_message(
    admin_client: Any, monkeypatch: pytest.MonkeyPatch, action: str
) -> None:
    yoga = generated_series(name="Yoga")

    def invalid(*args: Any, **kwargs: Any) -> None:
        raise ValidationError("the series is being changed elsewhere")

    monkeypatch.setattr("revel_recurring.admin.operations.pause_series", invalid)
    monkeypatch.setattr("revel_recurring.admin.operations.resume_series", invalid)
    response = run_action(admin_client, action, yoga)

    assert response.status_code == 200
    assert "Yoga: the series is being changed elsewhere" in texts(response)
