"""The admin's History of a series and the read-only list of every operation."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from revel_recurring.instants import describe_instant
from revel_recurring.models import SeriesOperation
from revel_recurring.services.lifecycle import delete_series
from tests.support.admin import CHANGELIST, change_url, generated_series
from tests.support.api import user_with
from tests.support.factories import make_series, occurrences
from tests.support.history import DAY, LATER, record_operation

pytestmark = pytest.mark.django_db

OPERATIONS = "/admin/revel_recurring/seriesoperation/"


def history_url(series: Any) -> str:
    return f"{CHANGELIST}{series.pk}/history/"


def test_the_history_shows_each_operation_with_who_when_and_its_dates(
    admin_client: Client,
) -> None:
    series = make_series(name="Yoga")
    start = timezone.now().replace(microsecond=0) + 3 * DAY
    plan = record_operation(
        series,
        kind="plan",
        rows=3,
        change="moved",
        first_slot=start,
        actor_name="ana",
        face="admin",
        before={"rule": {"weekdays": [0]}},
        after={"rule": {"weekdays": [2]}},
    )
    record_operation(series, kind="cancel", rows=1, actor_name="bob", face="api")

    page = admin_client.get(history_url(series))

    assert page.status_code == 200
    text = page.content.decode()
    entries = page.context["operations"]
    assert [entry.operation.kind for entry in entries] == ["cancel", "plan"]
    shown = entries[1]
    assert (shown.kind, shown.who, shown.face) == ("plan applied", "ana", "admin")
    assert [row.before for row in shown.rows] == [
        describe_instant(start + n * DAY, "Europe/Vienna") for n in range(3)
    ]
    assert shown.rows[0].after == describe_instant(start + LATER, "Europe/Vienna")
    assert shown.rows[0].moved
    assert shown.changes == [("rule.weekdays", [0], [2])]
    assert f'id="revel-operation-{plan.pk}"' in text
    block = text.split(f'id="revel-operation-{plan.pk}"', 1)[1]
    assert '<strong class="revel-op-who">ana</strong>' in block
    assert '<strong class="revel-op-face">admin</strong>' in block
    assert describe_instant(start + LATER, "Europe/Vienna") in text
    # Django's own log of the form's edits stays below.
    assert 'id="change-history"' in text


def test_a_10000_row_record_shows_ten_dates_and_pages_the_rest(admin_client: Client) -> None:
    series = make_series()
    big = record_operation(series, kind="cancel_stale", rows=10_000)
    for _ in range(25):
        record_operation(series, kind="cancel", rows=1)
    admin_client.get(history_url(series))  # the session and permissions, once

    with CaptureQueriesContext(connection) as read:
        first = admin_client.get(history_url(series))
    second = admin_client.get(history_url(series), {"ops": 2})
    entry = second.context["operations"][-1]
    with CaptureQueriesContext(connection) as paged:
        dates = admin_client.get(entry.url, {"page": 100})

    assert len(first.context["operations"]) == 20
    assert entry.operation == big
    assert (len(entry.rows), entry.more) == (10, 9_990)
    assert "And 9990 more dates: see them all" in second.content.decode()
    assert dates.status_code == 200
    assert [view.row.position for view in dates.context["rows"]] == list(range(9_900, 10_000))
    assert dates.content.decode().count('<tr class="revel-operation-row') == 100
    assert len(read.captured_queries) <= 16
    assert len(paged.captured_queries) <= 12


def test_an_operation_of_another_series_is_not_found_on_this_ones_page(
    admin_client: Client,
) -> None:
    series = make_series()
    other = make_series(name="Pilates")
    theirs = record_operation(other, kind="cancel", rows=1)

    assert admin_client.get(f"{history_url(series)}{theirs.pk}/").status_code == 404
    assert admin_client.get(f"{history_url(other)}{theirs.pk}/").status_code == 200


def test_a_user_who_may_not_see_the_series_gets_no_history(django_user_model: Any) -> None:
    series = make_series()
    operation = record_operation(series, kind="cancel", rows=1)
    staff = user_with(django_user_model, "staff")
    staff.is_staff = True
    staff.save()
    client = Client()
    client.force_login(staff)

    assert client.get(f"{history_url(series)}{operation.pk}/").status_code in (403, 404)
    assert client.get(history_url(series)).status_code in (302, 403, 404)


def test_the_list_of_operations_filters_and_keeps_a_deleted_series_records(
    admin_client: Client,
) -> None:
    series = make_series(name="Doomed yoga")
    kept = make_series(name="Pilates")
    gone = record_operation(series, kind="cancel_stale", rows=250, face="command")
    record_operation(kept, kind="plan", rows=2, face="admin")
    delete_series(series)

    deleted = admin_client.get(OPERATIONS, {"series_state": "deleted"})
    by_face = admin_client.get(OPERATIONS, {"face": "admin"})
    searched = admin_client.get(OPERATIONS, {"q": "doomed"})
    page = admin_client.get(f"{OPERATIONS}{gone.pk}/change/", {"page": 3})

    # The deletion itself is on record too, beside the earlier operation.
    assert [op.kind for op in deleted.context["cl"].result_list] == ["delete", "cancel_stale"]
    assert [op.kind for op in by_face.context["cl"].result_list] == ["plan"]
    assert [op.kind for op in searched.context["cl"].result_list] == ["delete", "cancel_stale"]
    assert page.status_code == 200
    assert SeriesOperation.objects.get(pk=gone.pk).series is None
    assert [view.row.position for view in page.context["rows"]] == list(range(200, 250))
    assert page.context["series_history_url"] is None
    assert "Doomed yoga" in page.content.decode()


def test_the_list_of_operations_reads_a_fixed_number_of_queries(admin_client: Client) -> None:
    series = make_series()
    for _ in range(3):
        record_operation(series, kind="cancel", rows=1)
    admin_client.get(OPERATIONS)
    with CaptureQueriesContext(connection) as few:
        admin_client.get(OPERATIONS)
    for _ in range(20):
        record_operation(series, kind="cancel", rows=1)
    with CaptureQueriesContext(connection) as many:
        admin_client.get(OPERATIONS)

    assert len(many.captured_queries) == len(few.captured_queries)


def test_the_operations_a_user_sees_are_those_of_the_series_they_may_see(
    django_user_model: Any,
) -> None:
    series = make_series()
    record_operation(series, kind="cancel", rows=1)
    record_operation(None, kind="cancel", series_ref=999_999, series_name="gone")
    viewer = user_with(django_user_model, "viewer", "view_eventseries", "view_seriesoperation")
    viewer.is_staff = True
    viewer.save()
    client = Client()
    client.force_login(viewer)

    listed = client.get(OPERATIONS)

    assert listed.status_code == 200
    assert [op.series_ref for op in listed.context["cl"].result_list] == [series.pk]


def test_the_settings_changed_leave_out_a_creation_and_the_generations_bookkeeping() -> None:
    from revel_recurring.history import settings_changes

    before = {"name": "Yoga", "next_due_at": "a", "rule": {"weekdays": [0], "interval": 1}}
    after = {"name": "Yoga", "next_due_at": "b", "rule": {"weekdays": [2], "interval": 1}}

    assert settings_changes(before, after) == [("rule.weekdays", [0], [2])]
    assert settings_changes(None, after) == []
    assert settings_changes({"paused": False}, {"paused": True}) == [("paused", False, True)]


def test_a_date_cancelled_on_the_series_page_shows_in_its_history_with_who(
    admin_client: Client,
) -> None:
    yoga = generated_series(name="Yoga")
    third = occurrences(yoga)[2]
    slot = third.starts_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    admin_client.post(change_url(yoga, "cancel-date"), {"instant": slot})

    page = admin_client.get(history_url(yoga))

    latest = page.context["operations"][0]
    assert (latest.operation.kind, latest.who, latest.face) == ("cancel", "admin", "admin")
    assert [(view.row.occurrence_pk, view.row.status_after) for view in latest.rows] == [
        (str(third.pk), "cancelled")
    ]
    assert latest.rows[0].before == describe_instant(third.starts_at, "Europe/Vienna")
