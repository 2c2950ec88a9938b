"""Enrolments in the admin (tests/hosts/testapp, Django's test client).

The series page names who is enrolled and, per upcoming date, who skipped it and
who could not be booked; the enrolment admin adds through ``enrol`` and ends
through ``end_enrolment``, only in series the person may edit; a site without
``book_enrolled`` registers no enrolment admin.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin import AdminSite
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.admin import register_enrolments
from revel_recurring.instants import describe_instant
from revel_recurring.models import Enrolment, EventSeries
from revel_recurring.services.enrolments import enrol, skip_date
from tests.hosts.testapp.models import Event, SeatHolder
from tests.support.admin import change_url, form_errors, generated_series, texts
from tests.support.api import user_with
from tests.support.factories import VIENNA, occurrences

pytestmark = pytest.mark.django_db
ENROLMENTS = "/admin/revel_recurring/enrolment/"


def _series() -> tuple[EventSeries, list[Event]]:
    series = generated_series(name="Tuesday class", auto_publish=True, window_weeks=4)
    return series, occurrences(series)


def _user(django_user_model: Any, name: str, **extra: Any) -> Any:
    return django_user_model.objects.create_user(name, f"{name}@example.com", "pw", **extra)


def test_the_series_page_names_the_enrolled_and_who_skipped_each_date(
    admin_client: Any, django_user_model: Any
) -> None:
    series, rows = _series()
    anna = _user(django_user_model, "anna", first_name="Anna", last_name="Berg")
    ben = _user(django_user_model, "ben")
    enrol(series, anna)
    skip_date(enrol(series, ben).enrolment, rows[1])
    Event.objects.filter(pk=rows[2].pk).update(capacity=0)
    cleo = _user(django_user_model, "cleo")
    enrol(series, cleo)

    with CaptureQueriesContext(connection) as three:
        page = admin_client.get(change_url(series)).content.decode()
    assert 'id="revel-enrolled"' in page
    assert "Enrolled: 3 users" in page
    assert page.count('class="revel-enrolled-row"') == 3
    assert ">Anna Berg</a>" in page  # the adapter's name, linked to the enrolment
    skipped = page.split(f'href="/admin/testapp/event/{rows[1].pk}/change/"')[0]
    assert "skipped by ben@example.com" in skipped.rsplit('class="revel-row', 1)[1]
    assert page.count('revel-skipped"') == 1
    refused = page.split(f'href="/admin/testapp/event/{rows[2].pk}/change/"')[0]
    assert (
        "could not be booked for cleo@example.com (full)"
        in refused.rsplit('class="revel-row', 1)[1]
    )

    # More enrolled users and skips cost no more queries.
    for name in ("dora", "emil", "fritz"):
        skip_date(enrol(series, _user(django_user_model, name)).enrolment, rows[0])
    with CaptureQueriesContext(connection) as six:
        page = admin_client.get(change_url(series)).content.decode()
    assert "Enrolled: 6 users" in page
    assert "skipped by dora@example.com, emil@example.com, fritz@example.com" in page
    assert len(six.captured_queries) <= len(three.captured_queries)


def test_adding_and_ending_an_enrolment_go_through_the_services(
    admin_client: Any, django_user_model: Any
) -> None:
    series, rows = _series()
    anna = user_with(django_user_model, "anna", "view_eventseries")  # may see the series
    add = f"{ENROLMENTS}add/"

    refused = admin_client.post(add, {"series": series.pk, "user": "424242"})
    assert form_errors(refused) == {"user": ["No user has this key."]}
    backwards = admin_client.post(
        add,
        {"series": series.pk, "user": anna.pk, "starts_on": "2031-05-02", "ends_on": "2031-05-01"},
    )
    assert list(form_errors(backwards)) == ["ends_on"]
    assert not Enrolment.objects.exists()

    added = admin_client.post(add, {"series": series.pk, "user": anna.pk}, follow=True)
    enrolment = Enrolment.objects.get()
    assert (enrolment.user_pk, enrolment.created_by_pk) == (
        str(anna.pk),
        str(added.wsgi_request.user.pk),
    )
    assert f"{len(rows)} dates booked for the user." in texts(added)
    assert SeatHolder.objects.filter(user=anna).count() == len(rows)
    listed = admin_client.get(f"{ENROLMENTS}?series__id__exact={series.pk}")
    assert listed.status_code == 200
    assert list(listed.context["cl"].result_list) == [enrolment]

    page = admin_client.get(f"{ENROLMENTS}{enrolment.pk}/change/").content.decode()
    assert page.count("</li>", page.index("revel-enrolled-dates")) >= len(rows)
    assert f"<li>{describe_instant(rows[0].starts_at, 'Europe/Vienna')}: booked</li>" in page
    last_day = rows[0].starts_at.astimezone(VIENNA).date()
    ended = admin_client.post(
        f"{ENROLMENTS}{enrolment.pk}/change/",
        {"end": "on", "last_day": last_day.isoformat()},
        follow=True,
    )
    assert f"1 enrolment ended; {len(rows) - 1} dates released." in texts(ended)
    enrolment.refresh_from_db()
    assert (enrolment.ends_on, enrolment.ended_at is not None) == (last_day, True)
    assert list(SeatHolder.objects.filter(user=anna).values_list("event_id", flat=True)) == [
        rows[0].pk
    ]


def test_a_person_who_may_only_see_the_series_cannot_add_or_end(
    client: Any, django_user_model: Any
) -> None:
    series, _rows = _series()
    anna = user_with(django_user_model, "anna", "view_eventseries")
    enrolment = enrol(series, anna).enrolment
    viewer = user_with(
        django_user_model,
        "viewer",
        "view_eventseries",
        "view_enrolment",
        "change_enrolment",
        "add_enrolment",
    )
    viewer.is_staff = True
    viewer.save(update_fields=["is_staff"])
    client.force_login(viewer)

    page = client.get(f"{ENROLMENTS}{enrolment.pk}/change/")
    assert page.status_code == 200
    assert "last_day" not in page.content.decode()
    assert client.post(f"{ENROLMENTS}{enrolment.pk}/change/", {"end": "on"}).status_code == 403
    added = client.post(f"{ENROLMENTS}add/", {"series": series.pk, "user": anna.pk})
    assert list(form_errors(added)) == ["series"], "only series they may edit are offered"
    Enrolment.objects.get(ended_at__isnull=True)


def test_the_enrolment_admin_is_registered_only_where_the_host_books_enrolled_users(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert register_enrolments(AdminSite(name="with_hook")) is True

    monkeypatch.delattr(Event, "book_enrolled")
    bare = AdminSite(name="without_hook")

    assert register_enrolments(bare) is False
    assert not bare.is_registered(Enrolment)
