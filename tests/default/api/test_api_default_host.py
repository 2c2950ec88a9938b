"""The API on the smallest host: other field names, the default adapter and serializer."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from revel_recurring.models import EventSeries
from tests.hosts.testapp.models import Event, Seat
from tests.support.api import client, user_with
from tests.support.factories import VIENNA, make_series, occurrences

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
API = "/api/recurring/series/"


def tomorrow() -> dt.datetime:
    day = (timezone.now() + dt.timedelta(days=1)).astimezone(VIENNA)
    return day.replace(hour=10, minute=0, second=0, microsecond=0)


def test_model_permissions_decide_by_default(django_user_model: Any) -> None:
    series = make_series(dtstart=tomorrow())
    viewer = client(user_with(django_user_model, "viewer", "view_eventseries"))
    nobody = client(user_with(django_user_model, "nobody"))
    assert [row["id"] for row in viewer.get(API).json()["results"]] == [series.pk]
    assert viewer.get(f"{API}{series.pk}/template/").status_code == 200
    assert viewer.post(f"{API}{series.pk}/pause/").status_code == 403
    assert nobody.get(API).json()["results"] == []
    assert nobody.get(f"{API}{series.pk}/").status_code == 404
    assert viewer.post(API, {}, format="json").status_code == 403


def test_create_and_read_back_on_a_host_with_other_field_names(django_user_model: Any) -> None:
    editor = client(user_with(django_user_model, "editor", "add_eventseries", "change_eventseries"))
    start = tomorrow()
    body = {
        "name": "Yoga",
        "recurrence": {
            "frequency": "DAILY",
            "dtstart": start.isoformat(),
            "timezone": "Europe/Vienna",
            "count": 3,
        },
        "template": {"title": "Yoga", "ends_at": (start + dt.timedelta(hours=1)).isoformat()},
        "auto_publish": True,
    }
    response = editor.post(API, body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["recurrence"]["description"] == (
        "Every day at 10:00 (Europe/Vienna), 3 times"
    )
    assert response.json()["occurrence_counts"]["by_status"] == {"on_sale": 3}
    series = EventSeries.objects.get(pk=response.json()["id"])
    template = editor.get(f"{API}{series.pk}/template/").json()
    assert template["starts_at"] == start.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert template["state"] == "planned"
    bad = editor.patch(f"{API}{series.pk}/template/", {"state": "on_sale"}, format="json")
    assert bad.status_code == 400
    assert list(bad.json()) == ["state"]
    first = occurrences(series)[0]
    cancelled = editor.post(
        f"{API}{series.pk}/cancel-occurrence/",
        {"occurrence": first.starts_at.isoformat()},
        format="json",
    ).json()["occurrence"]
    assert (cancelled["status"], cancelled["cancelled"]) == ("called_off", True)


def test_modified_since_without_a_change_stamp_reports_every_live_row(
    django_user_model: Any,
) -> None:
    editor = client(user_with(django_user_model, "editor", "change_eventseries"))
    series = make_series(dtstart=tomorrow(), auto_publish=True, window_weeks=3)
    editor.post(f"{API}{series.pk}/generate/", {}, format="json")
    rows = occurrences(series)
    gone = rows[0]
    Event.objects.get(pk=gone.pk).delete()
    since = (timezone.now() - dt.timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = editor.get(f"{API}{series.pk}/occurrences/?modified_since={since}").json()
    assert [(row["id"], row["deleted"]) for row in body["results"]] == [
        (gone.pk, True),
        *((e.pk, False) for e in rows[1:]),
    ]


def test_importing_the_app_without_the_api_imports_no_drf() -> None:
    # The app's non-API modules must work on a site that never mounts the API.
    code = textwrap.dedent(
        """
        import sys
        import django
        from django.conf import settings
        settings.configure(
            INSTALLED_APPS=[
                "django.contrib.auth", "django.contrib.contenttypes",
                "django_celery_beat", "revel_recurring", "tests.hosts.testapp",
            ],
            DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
            REVEL_RECURRING_EVENT_MODEL="testapp.Event",
            USE_TZ=True,
        )
        django.setup()
        import revel_recurring.adapter, revel_recurring.describe, revel_recurring.slots
        import revel_recurring.changelog, revel_recurring.tasks
        from revel_recurring.services import (
            cancellation, drift, generation, lifecycle, propagation,
        )
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in (
            "rest_framework", "drf_spectacular", "django_filters", "revel_recurring.api",
        ) or m.startswith("revel_recurring.api"))
        print(loaded)
        sys.exit(1 if loaded else 0)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_booked_dates_through_the_api_on_the_smallest_host(django_user_model: Any) -> None:
    editor = client(
        user_with(django_user_model, "editor", "change_eventseries", "delete_eventseries")
    )
    series = make_series(dtstart=tomorrow(), auto_publish=True, window_weeks=3)
    editor.post(f"{API}{series.pk}/generate/", {}, format="json")
    rows = occurrences(series)
    Seat.objects.create(event=rows[1], label="Paid", quantity=4, booked=1)
    local = rows[1].starts_at.astimezone(VIENNA)
    display = f"{local:%a} {local.day} {local:%b %Y %H:%M} (Europe/Vienna)"
    listed = editor.get(f"{API}{series.pk}/occurrences/").json()["results"]
    assert [row["has_bookings"] for row in listed] == [False, True, False]

    # The rule ends after its first date: the other two have nowhere to move.
    ended = editor.patch(f"{API}{series.pk}/", {"recurrence": {"count": 1}}, format="json")
    assert ended.status_code == 200, ended.json()
    assert [row["id"] for row in ended.json()["drift"]] == [rows[1].pk, rows[2].pk]
    stale = editor.post(f"{API}{series.pk}/cancel-stale/", {}, format="json").json()
    assert stale["cancelled"] == [rows[2].pk]
    assert stale["kept_booked"] == [
        {
            "id": rows[1].pk,
            "start": rows[1].starts_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "display": display,
        }
    ]
    one = {"occurrence": rows[1].starts_at.isoformat()}
    refused = editor.post(f"{API}{series.pk}/cancel-occurrence/", one, format="json")
    assert refused.status_code == 409
    assert refused.json()["detail"].startswith(f"{display} of series ")
    deleted = editor.delete(f"{API}{series.pk}/")
    assert deleted.status_code == 409
    assert f"cannot be deleted: {display} has bookings." in deleted.json()["detail"]

    stale = editor.post(
        f"{API}{series.pk}/cancel-stale/", {"include_booked": True}, format="json"
    ).json()
    assert (stale["cancelled"], stale["kept_booked"]) == ([rows[1].pk], [])
    assert Event.objects.get(pk=rows[1].pk).state == "called_off"


def test_a_patch_whose_rule_is_refused_writes_nothing_else(django_user_model: Any) -> None:
    series = make_series(dtstart=tomorrow())
    codenames = ("view_eventseries", "change_eventseries")
    editor = client(user_with(django_user_model, "editor", *codenames))
    answer = editor.patch(
        f"{API}{series.pk}/",
        {"name": "Renamed", "description": "New text", "recurrence": {"frequency": "MONTHLY"}},
        format="json",
    )
    assert answer.status_code == 400
    assert list(answer.json()["recurrence"]) == ["monthly_type"]
    series.refresh_from_db()
    assert (series.name, series.description) == ("Monday yoga", "")
