"""The series admin on the dojo, in German: text keys from the add page, status labels."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.contrib.admin.utils import quote
from django.test import Client, override_settings

from revel_recurring.models import EventSeries, QueuedAction
from tests.dojo.conftest import BERLIN, PASSWORD, MakeSeries, next_weekday, template_of, trainings
from tests.hosts.dojo.models import Training, User
from tests.support.queued import Broker, broker, select_all

__all__ = ["broker"]  # the fixture, used by name

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"
OWNER = "inhaber@dojo.example"


@pytest.fixture
def admin(db: Any) -> Client:
    User.objects.create_superuser(OWNER, PASSWORD)
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": OWNER, "password": PASSWORD, "next": "/admin/"},
    )
    assert response.status_code == 302, "the admin login takes the e-mail address"
    return client


def cells(page: Any) -> list[str]:
    """The status column of the change page's upcoming table."""
    table = page.content.decode().split('id="revel-upcoming"', 1)[1]
    row = r'<tr class="revel-row[^"]*"[^>]*>\s*<td>[^<]*</td>\s*<td>([^<]*)</td>'
    return [cell.strip() for cell in re.findall(row, table)]


def test_the_add_page_creates_a_series_whose_template_gets_the_hosts_key(admin: Client) -> None:
    start = next_weekday(3)
    source = Training.objects.create(
        slug="kata-probe",
        title="Kata",
        mat="Matte 4",
        begins_at=start - dt.timedelta(days=7, hours=1),
        duration=dt.timedelta(minutes=45),
    )

    response = admin.post(
        f"{CHANGELIST}add/",
        {
            "name": "Kata",
            "is_active": "on",
            "generation_window_weeks": 4,
            "template_source": source.pk,
            "frequency": "WEEKLY",
            "interval": 1,
            "weekdays": ["3"],
            "dtstart_0": start.date().isoformat(),
            "dtstart_1": "19:00",
            "timezone": "Europe/Berlin",
        },
        follow=True,
    )

    assert response.status_code == 200
    series = EventSeries.objects.get(name="Kata")
    template = template_of(series)
    assert template.slug.startswith(f"kata-ab-{start.astimezone(dt.UTC):%Y%m%d}-")
    assert (template.title, template.mat, template.duration) == (
        "Kata",
        "Matte 4",
        dt.timedelta(minutes=45),
    )
    rows = trainings(series)
    assert rows
    assert all(row.begins_at.astimezone(BERLIN).hour == 19 for row in rows)
    assert Training.objects.get(pk="kata-probe").series_id is None


def test_the_change_page_shows_status_labels_and_opens_trainings_by_their_slug(
    admin: Client, make_series: MakeSeries
) -> None:
    series = make_series()
    rows = trainings(series)
    admin.post(
        f"{CHANGELIST}{series.pk}/cancel-date/",
        {"instant": rows[0].begins_at.astimezone(dt.UTC).isoformat()},
    )

    page = admin.get(f"{CHANGELIST}{series.pk}/change/")

    assert page.status_code == 200
    statuses = cells(page)
    assert statuses[0] == "Abgesagt"
    assert set(statuses[1:]) == {"Buchbar"}
    assert f"/admin/dojo/training/{quote(rows[1].slug)}/change/" in page.content.decode()
    training = admin.get(f"/admin/dojo/training/{quote(rows[1].slug)}/change/")
    assert training.status_code == 200


@override_settings(REVEL_RECURRING_ADMIN_INLINE_LIMIT=2, REVEL_RECURRING_GENERATION_CHUNK_SIZE=2)
def test_a_queued_pause_is_shown_running_then_finished_in_german(
    admin: Client, make_series: MakeSeries, broker: Broker
) -> None:
    made = [make_series(name=name) for name in ("Karate", "Judo", "Aikido")]

    done = admin.post(CHANGELIST, select_all("pause_action", [made[0].pk]), follow=True)
    running = admin.get(CHANGELIST).content.decode()
    broker.run()
    finished = admin.get(CHANGELIST).content.decode()

    said = [str(message) for message in done.context["messages"]]
    assert said == ["3 Serien zum Pausieren eingereiht; diese Seite zeigt, wann es fertig ist."]
    assert "Letzte Sammelaktionen" in running
    assert "Pausieren, 3 Serien, eingereiht am " in running
    assert f"von {OWNER}" in running
    assert "Läuft: 0 von 3 Serien erledigt, 0 fehlgeschlagen." in running
    assert "Abgeschlossen am " in finished
    assert ": 3 von 3 Serien erledigt, 0 fehlgeschlagen." in finished
    assert not EventSeries.objects.filter(is_active=True).exists()
    record = QueuedAction.objects.get()
    assert record.user_pk == str(User.objects.get(email=OWNER).pk)  # an integer key, as text
