"""The series admin on the studio host: e-mail login, UUID lessons in every form and button."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from revel_recurring.models import EventSeries
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.lifecycle import update_series_recurrence
from tests.hosts.studio.models import Lesson, User
from tests.studio.conftest import BERLIN, PASSWORD, MakeSeries, lessons, next_weekday

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


@pytest.fixture
def admin(db: Any) -> Client:
    User.objects.create_superuser("owner@studio.example", PASSWORD)
    client = Client()
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": "owner@studio.example", "password": PASSWORD, "next": "/admin/"},
    )
    assert response.status_code == 302, "the admin login takes the e-mail address"
    return client


def messages_of(response: Any) -> list[tuple[str, str]]:
    return [(m.level_tag, str(m)) for m in get_messages(response.wsgi_request)]


def drifted(make_series: MakeSeries, name: str = "Salsa") -> EventSeries:
    series = make_series(name=name)
    update_series_recurrence(series, rule_changes={"weekdays": [4]})
    series.refresh_from_db()
    return series


def scrapped(series: EventSeries) -> int:
    return Lesson.objects.filter(series=series, state=Lesson.State.SCRAPPED).count()


def test_login_page_asks_for_the_email_address(db: Any) -> None:
    page = Client().get("/admin/login/")

    assert page.status_code == 200
    assert "Email" in page.content.decode()


def test_change_page_lists_the_uuid_lessons(admin: Client, make_series: MakeSeries) -> None:
    series = make_series()

    page = admin.get(f"{CHANGELIST}{series.pk}/change/")

    assert page.status_code == 200
    rows = page.context["upcoming"]
    assert [row.event_id for row in rows] == [lesson.pk for lesson in lessons(series)]
    assert rows[0].admin_url == f"/admin/studio/lesson/{rows[0].event_id}/change/"
    assert f'href="{rows[0].admin_url}"' in page.content.decode()
    assert admin.get(CHANGELIST).status_code == 200


def test_cancel_stale_confirmation_cancels_the_uuid_lessons_it_showed(
    admin: Client, make_series: MakeSeries
) -> None:
    series = drifted(make_series)
    stale = detect_cadence_drift(series)
    url = f"{CHANGELIST}{series.pk}/cancel-stale/"

    shown = admin.get(url)
    page = shown.content.decode()
    assert all(f'name="occurrence" value="{pk}"' in page for pk in stale)
    done = admin.post(url, {"confirm": "yes", "occurrence": [str(pk) for pk in stale]}, follow=True)

    assert ("success", f"{len(stale)} stale occurrences cancelled for Salsa.") in messages_of(done)
    assert scrapped(series) == len(stale)
    assert detect_cadence_drift(series) == []


def test_cancel_stale_action_with_two_series_cancels_each_ones_own(
    admin: Client, make_series: MakeSeries
) -> None:
    salsa = drifted(make_series)
    tango = drifted(make_series, name="Tango")
    chosen = [detect_cadence_drift(salsa)[0], *detect_cadence_drift(tango)[:2]]

    done = admin.post(
        CHANGELIST,
        {
            "action": "cancel_stale_action",
            "_selected_action": [salsa.pk, tango.pk],
            "confirm": "yes",
            "occurrence": [str(pk) for pk in chosen],
        },
        follow=True,
    )

    assert messages_of(done) == [
        ("success", "3 stale occurrences cancelled in 2 series: Salsa (1), Tango (2).")
    ]
    assert (scrapped(salsa), scrapped(tango)) == (1, 2)


def test_a_selected_series_none_of_whose_dates_was_confirmed_is_not_reported(
    admin: Client, make_series: MakeSeries
) -> None:
    salsa = drifted(make_series)
    tango = drifted(make_series, name="Tango")

    done = admin.post(
        CHANGELIST,
        {
            "action": "cancel_stale_action",
            "_selected_action": [salsa.pk, tango.pk],
            "confirm": "yes",
            "occurrence": [str(pk) for pk in detect_cadence_drift(salsa)[:2]],
        },
        follow=True,
    )

    assert messages_of(done) == [("success", "2 stale occurrences cancelled for Salsa.")]
    assert (scrapped(salsa), scrapped(tango)) == (2, 0)


@pytest.mark.parametrize("posted", [[], ["12", "not-a-uuid", ""], ["PK OF ANOTHER SERIES"]])
def test_a_confirmation_that_matches_nothing_is_a_warning(
    admin: Client, make_series: MakeSeries, posted: list[str]
) -> None:
    series = drifted(make_series)
    if posted == ["PK OF ANOTHER SERIES"]:
        posted = [str(lessons(make_series(name="Other"))[0].pk)]

    done = admin.post(
        f"{CHANGELIST}{series.pk}/cancel-stale/",
        {"confirm": "yes", "occurrence": posted},
        follow=True,
    )

    levels = [level for level, _text in messages_of(done)]
    assert levels == ["warning"], messages_of(done)
    assert "nothing cancelled" in messages_of(done)[0][1]
    assert not Lesson.objects.filter(state=Lesson.State.SCRAPPED).exists()


def test_a_confirmation_whose_dates_no_longer_drift_is_a_warning(
    admin: Client, make_series: MakeSeries
) -> None:
    series = drifted(make_series)
    stale = [str(pk) for pk in detect_cadence_drift(series)]
    update_series_recurrence(series, rule_changes={"weekdays": [3]})  # back on the rule

    done = admin.post(
        f"{CHANGELIST}{series.pk}/cancel-stale/",
        {"confirm": "yes", "occurrence": stale},
        follow=True,
    )

    assert messages_of(done) == [
        ("warning", "Nothing cancelled for Salsa: none of the confirmed dates still drifts.")
    ]
    assert scrapped(series) == 0


def test_delete_page_of_a_series_with_bookings_protects_the_booked_lesson(
    admin: Client, make_series: MakeSeries, pupil: User
) -> None:
    series = make_series()
    booked = lessons(series)[1]
    booked.bookings.create(pupil=pupil)

    page = admin.get(f"{CHANGELIST}{series.pk}/delete/")
    admin.post(f"{CHANGELIST}{series.pk}/delete/", {"post": "yes"})

    assert page.status_code == 200
    protected = [str(line) for line in page.context["protected"]]
    assert len(protected) == 1
    assert "has bookings" in protected[0]
    assert EventSeries.objects.filter(pk=series.pk).exists()
    assert Lesson.objects.filter(pk=booked.pk).exists()


def test_lesson_admin_opens_a_lesson_by_its_uuid(admin: Client, make_series: MakeSeries) -> None:
    lesson = lessons(make_series())[0]

    page = admin.get(f"/admin/studio/lesson/{lesson.pk}/change/")

    assert page.status_code == 200
    assert str(lesson.pk) in page.content.decode()


def test_add_page_creates_a_series_from_a_uuid_lesson(admin: Client, school: Any) -> None:
    start = next_weekday(2)
    source = Lesson.objects.create(
        school=school, title="Lindy Hop", room="Loft", begins=start - dt.timedelta(days=7)
    )

    response = admin.post(
        f"{CHANGELIST}add/",
        {
            "name": "Lindy Hop",
            "is_active": "on",
            "generation_window_weeks": 4,
            "template_source": str(source.pk),
            "frequency": "WEEKLY",
            "interval": 1,
            "weekdays": ["2"],
            "dtstart_0": start.date().isoformat(),
            "dtstart_1": "18:30",
            "timezone": "Europe/Berlin",
        },
        follow=True,
    )

    assert response.status_code == 200
    series = EventSeries.objects.get(name="Lindy Hop")
    template = Lesson.objects.get(series=series, is_template=True)
    assert template.pk != source.pk
    assert (template.title, template.room, template.school_id) == ("Lindy Hop", "Loft", school.pk)
    assert lessons(series)
    assert all(lesson.begins.astimezone(BERLIN).hour == 18 for lesson in lessons(series))


def test_pages_show_the_lessons_state_by_its_choice_label(
    admin: Client, make_series: MakeSeries
) -> None:
    series = drifted(make_series)
    cancelled = lessons(series)[0]
    cancelled.state = Lesson.State.SCRAPPED
    cancelled.save()

    change = admin.get(f"{CHANGELIST}{series.pk}/change/")
    stale = admin.get(f"{CHANGELIST}{series.pk}/cancel-stale/").content.decode()

    statuses = {row.status for row in change.context["upcoming"]}
    assert statuses == {"Bookable", "Scrapped"}
    assert "<td>bookable</td>" not in change.content.decode()
    assert ", Bookable)" in stale
    assert ", bookable)" not in stale
