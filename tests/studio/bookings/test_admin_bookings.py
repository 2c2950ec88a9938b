"""The series admin on the studio host: booked lessons unticked and kept, bulk paths scoped.

A school's teachers run its series; its members may see them in the changelist
but change nothing. Every bulk path (delete selected, the actions) leaves a
member's series alone and names it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from revel_recurring.admin.selection import LISTED_DATES
from revel_recurring.models import EventSeries
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.lifecycle import pause_series
from tests.hosts.studio.models import Booking, Lesson, School, User
from tests.studio.conftest import BERLIN, PASSWORD, MakeSeries, lessons
from tests.support.drift import drift_every_date

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"
SCRAPPED = Lesson.State.SCRAPPED
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


@pytest.fixture
def owner(db: Any) -> Client:
    User.objects.create_superuser("owner@studio.example", PASSWORD)
    client = Client()
    client.login(username="owner@studio.example", password=PASSWORD)
    return client


def texts(response: Any) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def warnings(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request) if m.level_tag == "warning"]


def display(lesson: Lesson) -> str:
    local = lesson.begins.astimezone(BERLIN)
    return f"{local:%a} {local.day} {local:%b %Y %H:%M} (Europe/Berlin)"


def checkboxes(page: str) -> dict[str, bool]:
    """Each listed lesson's UUID -> whether its checkbox is ticked."""
    found = re.findall(
        rf'<input type="checkbox" name="occurrence" value="({UUID})"( checked)?>', page
    )
    return {pk: bool(ticked) for pk, ticked in found}


def marked_booked(page: str) -> list[str]:
    return re.findall(rf'<input type="hidden" name="booked" value="({UUID})">', page)


def drifted(make_series: MakeSeries, name: str = "Salsa", **options: Any) -> EventSeries:
    """Thursday lessons generated, the rule then ended a week before them: every Thursday drifts."""
    series = make_series(name=name, **options)
    drift_every_date(series)
    series.refresh_from_db()
    return series


def book(lesson: Lesson, pupil: User) -> None:
    Booking.objects.create(lesson=lesson, pupil=pupil)


def state_of(lesson: Lesson) -> str:
    return Lesson.objects.values_list("state", flat=True).get(pk=lesson.pk)


# Booked lessons in the cancel-stale confirmation


def test_the_confirmation_shows_booked_lessons_unticked(
    owner: Client, make_series: MakeSeries, pupil: User
) -> None:
    series = drifted(make_series)
    stale = [str(pk) for pk in detect_cadence_drift(series)]
    booked = Lesson.objects.get(pk=stale[2])
    book(booked, pupil)

    page = owner.get(f"{CHANGELIST}{series.pk}/cancel-stale/").content.decode()

    assert checkboxes(page) == {pk: pk != str(booked.pk) for pk in stale}
    assert marked_booked(page) == [str(booked.pk)]
    assert 'id="revel-booked-note"' in page
    assert re.search(r'<li class="revel-booked">.*?' + re.escape(display(booked)), page)


def test_the_confirmation_reads_bookings_once_whatever_the_number_of_lessons(
    owner: Client, make_series: MakeSeries, pupil: User
) -> None:
    counts = []
    for weeks, name in ((2, "Salsa"), (12, "Tango")):
        series = drifted(make_series, name=name, generation_window_weeks=weeks)
        rows = lessons(series)
        book(rows[-1], pupil)
        with CaptureQueriesContext(connection) as captured:
            page = owner.get(f"{CHANGELIST}{series.pk}/cancel-stale/").content.decode()
        assert marked_booked(page) == [str(rows[-1].pk)]
        # The first LISTED_DATES stale dates, and the booked one after them.
        assert len(checkboxes(page)) == min(len(rows), LISTED_DATES + 1)
        table = Booking._meta.db_table
        # The bookings in one question, who would be told (the pupils booked) in one more.
        assert sum(table in query["sql"] for query in captured.captured_queries) == 2
        counts.append(len(captured))
    assert counts[0] == counts[1]


def test_confirming_as_shown_keeps_the_booked_lesson_and_names_it(
    owner: Client, make_series: MakeSeries, pupil: User
) -> None:
    series = drifted(make_series)
    stale = lessons(series)
    booked = stale[1]
    book(booked, pupil)
    page = owner.post(
        CHANGELIST, {"action": "cancel_stale_action", "_selected_action": [series.pk]}
    ).content.decode()
    ticked = [pk for pk, on in checkboxes(page).items() if on]

    done = owner.post(
        CHANGELIST,
        {
            "action": "cancel_stale_action",
            "_selected_action": [series.pk],
            "confirm": "yes",
            "occurrence": ticked,
            "booked": marked_booked(page),
        },
        follow=True,
    )

    assert len(ticked) == len(stale) - 1
    assert f"{len(ticked)} stale occurrences cancelled for Salsa." in texts(done)
    assert f"Salsa: kept 1 booked date: {display(booked)}." in texts(done)
    assert state_of(booked) == Lesson.State.BOOKABLE
    assert all(state_of(lesson) == SCRAPPED for lesson in stale if lesson != booked)


def test_ticking_the_booked_lesson_cancels_it_with_its_bookings(
    owner: Client, make_series: MakeSeries, pupil: User
) -> None:
    series = drifted(make_series)
    stale = [str(pk) for pk in detect_cadence_drift(series)]
    book(Lesson.objects.get(pk=stale[0]), pupil)

    done = owner.post(
        f"{CHANGELIST}{series.pk}/cancel-stale/",
        {"confirm": "yes", "occurrence": stale, "booked": [stale[0]]},
        follow=True,
    )

    assert f"{len(stale)} stale occurrences cancelled for Salsa." in texts(done)
    assert not [text for text in texts(done) if "kept" in text]
    assert Lesson.objects.filter(pk__in=stale, state=SCRAPPED).count() == len(stale)


def test_a_lesson_booked_after_the_page_was_shown_is_kept_and_named(
    owner: Client, make_series: MakeSeries, pupil: User
) -> None:
    series = drifted(make_series)
    url = f"{CHANGELIST}{series.pk}/cancel-stale/"
    page = owner.get(url).content.decode()
    shown = [pk for pk, on in checkboxes(page).items() if on]
    late = Lesson.objects.get(pk=shown[3])
    book(late, pupil)  # a pupil booked while the teacher read the page

    done = owner.post(
        url, {"confirm": "yes", "occurrence": shown, "booked": marked_booked(page)}, follow=True
    )

    assert f"{len(shown) - 1} stale occurrences cancelled for Salsa." in texts(done)
    assert f"Salsa: kept 1 booked date: {display(late)}." in texts(done)
    assert state_of(late) == Lesson.State.BOOKABLE


# Bulk paths by a user who may view a school's series but not change them

ALL_SERIES_PERMISSIONS = (
    "view_eventseries",
    "add_eventseries",
    "change_eventseries",
    "delete_eventseries",
    "view_lesson",
    "delete_lesson",
    "delete_booking",
)


@pytest.fixture
def member_of_ballet(teacher: User, client: Client) -> Client:
    """The salsa teacher, staff with every model permission, and only a member of Ballet."""
    ballet = School.objects.create(name="Ballet", slug="ballet")
    ballet.members.add(teacher)
    teacher.is_staff = True
    teacher.save()
    teacher.user_permissions.add(*Permission.objects.filter(codename__in=ALL_SERIES_PERMISSIONS))
    client.force_login(teacher)  # type: ignore[arg-type]
    return client


def ballet_series(make_series: MakeSeries, name: str, **options: Any) -> EventSeries:
    series = make_series(name=name, **options)
    Lesson.objects.filter(series=series).update(school=School.objects.get(slug="ballet"))
    return series


def snapshot(series: EventSeries) -> tuple[Any, ...]:
    """Everything a bulk path could change about a series, to compare before and after."""
    fresh = EventSeries.objects.get(pk=series.pk)
    rows = Lesson.objects.filter(series=series).order_by("pk")
    return (
        fresh.is_active,
        fresh.last_generated_until,
        fresh.exdates,
        [(row.pk, row.state, row.begins) for row in rows],
    )


SKIPPED = "Skipped Ballet Barre: you may view but not change them; nothing done to them."


def test_the_member_sees_the_other_schools_series_but_may_not_change_it(
    member_of_ballet: Client, make_series: MakeSeries
) -> None:
    barre = ballet_series(make_series, "Ballet Barre")

    listing = member_of_ballet.get(CHANGELIST)
    change = member_of_ballet.get(f"{CHANGELIST}{barre.pk}/change/")
    delete = member_of_ballet.get(f"{CHANGELIST}{barre.pk}/delete/")

    assert [series.name for series in listing.context["cl"].result_list] == ["Ballet Barre"]
    assert change.status_code == 200
    assert change.context["has_change_permission"] is False
    assert delete.status_code == 403


def test_delete_selected_deletes_only_the_teachers_own_series_and_names_the_rest(
    member_of_ballet: Client, make_series: MakeSeries
) -> None:
    salsa = make_series(name="Salsa")
    barre = ballet_series(make_series, "Ballet Barre")
    kept = snapshot(barre)
    selected = {"action": "delete_selected", "_selected_action": [salsa.pk, barre.pk]}

    confirm = member_of_ballet.post(CHANGELIST, selected)
    done = member_of_ballet.post(CHANGELIST, {**selected, "post": "yes"}, follow=True)

    assert [series.pk for series in confirm.context["queryset"]] == [salsa.pk]
    assert f'name="_selected_action" value="{barre.pk}"' not in confirm.content.decode()
    assert warnings(confirm) == [SKIPPED]
    assert warnings(done) == [SKIPPED]
    assert list(EventSeries.objects.values_list("name", flat=True)) == ["Ballet Barre"]
    assert not Lesson.objects.filter(series_id=salsa.pk).exists()
    assert snapshot(barre) == kept


def test_delete_selected_of_only_the_other_schools_series_changes_nothing(
    member_of_ballet: Client, make_series: MakeSeries
) -> None:
    barre = ballet_series(make_series, "Ballet Barre")
    kept = snapshot(barre)
    selected = {"action": "delete_selected", "_selected_action": [barre.pk]}

    confirm = member_of_ballet.post(CHANGELIST, selected, follow=True)
    done = member_of_ballet.post(CHANGELIST, {**selected, "post": "yes"}, follow=True)

    assert confirm.redirect_chain[-1][0] == CHANGELIST  # no confirmation page for nothing
    assert warnings(confirm) == warnings(done) == [SKIPPED]
    assert not any("Successfully deleted" in text for text in texts(done))
    assert snapshot(barre) == kept


def _unpaused(series: EventSeries) -> bool:
    return series.is_active


ACTIONS: list[tuple[str, dict[str, Any], Callable[[EventSeries], bool]]] = [
    ("generate_now_action", {"generate": False}, lambda s: len(lessons(s)) > 0),
    ("pause_action", {}, lambda s: s.is_active is False),
    ("resume_action", {"is_active": False}, _unpaused),
    ("cancel_stale_action", {"drift": True}, lambda s: detect_cadence_drift(s) == []),
]


@pytest.mark.parametrize(("action", "options", "changed"), ACTIONS, ids=[a[0] for a in ACTIONS])
def test_every_action_changes_only_the_teachers_series_and_names_the_rest(
    member_of_ballet: Client,
    make_series: MakeSeries,
    action: str,
    options: dict[str, Any],
    changed: Callable[[EventSeries], bool],
) -> None:
    options = dict(options)
    drift = options.pop("drift", False)
    paused = options.pop("is_active", True) is False
    salsa = make_series(name="Salsa", **options)
    barre = ballet_series(make_series, "Ballet Barre", **options)
    for series in (salsa, barre):
        if paused:
            pause_series(series)
        if drift:
            drift_every_date(series)
    kept = snapshot(barre)
    stale = [*detect_cadence_drift(salsa), *detect_cadence_drift(barre)]

    response = member_of_ballet.post(
        CHANGELIST,
        {
            "action": action,
            "_selected_action": [salsa.pk, barre.pk],
            "confirm": "yes",
            "occurrence": [str(pk) for pk in stale],
        },
        follow=True,
    )

    assert response.status_code == 200
    assert changed(EventSeries.objects.get(pk=salsa.pk))
    assert snapshot(barre) == kept
    assert warnings(response)[0] == SKIPPED


# One booked lesson on the change page, and the delete pages


def test_cancelling_one_booked_lesson_needs_with_its_bookings(
    owner: Client, make_series: MakeSeries, pupil: User
) -> None:
    series = make_series()
    booked = lessons(series)[1]
    book(booked, pupil)
    url = f"{CHANGELIST}{series.pk}/cancel-date/"
    page = owner.get(f"{CHANGELIST}{series.pk}/change/").content.decode()
    slot = booked.recurrence_id.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    row = re.search(rf'<tr class="revel-row" data-slot="{slot}">(.*?)</tr>', page, re.S)
    assert row is not None
    assert "revel-badge-booked" in row.group(1)
    assert page.count('name="include_booked"') == 1

    refused = owner.post(url, {"instant": slot}, follow=True)

    assert [text for text in texts(refused) if text.startswith("Salsa: ")] == [
        f"Salsa: {display(booked)} has bookings and was not cancelled; tick “with its "
        "bookings” to cancel it with them."
    ]
    assert state_of(booked) == Lesson.State.BOOKABLE

    done = owner.post(url, {"instant": slot, "include_booked": "yes"}, follow=True)

    assert f"{display(booked)} cancelled for Salsa." in texts(done)
    assert state_of(booked) == SCRAPPED


def test_the_delete_pages_name_booked_lessons_by_date_in_one_booking_read(
    owner: Client, make_series: MakeSeries, pupil: User
) -> None:
    salsa = make_series(name="Salsa", generation_window_weeks=6)
    tango = make_series(name="Tango", generation_window_weeks=6)
    booked = lessons(tango)[3]
    book(booked, pupil)
    table = Booking._meta.db_table

    with CaptureQueriesContext(connection) as one:
        page = owner.get(f"{CHANGELIST}{tango.pk}/delete/").content.decode()
    with CaptureQueriesContext(connection) as selected:
        bulk = owner.post(
            CHANGELIST, {"action": "delete_selected", "_selected_action": [salsa.pk, tango.pk]}
        ).content.decode()

    for html, captured in ((page, one), (bulk, selected)):
        assert f"{display(booked)} of Tango has bookings" in html
        assert str(booked.pk) not in html.split("has bookings")[0].rsplit("<li>", 1)[-1]
        assert sum(table in query["sql"] for query in captured.captured_queries) == 1
