"""Faults on the dojo (text keys, integer statuses, a duration, in German).

Every write action of the API through a real WSGI server answers its documented
status; a queued admin action with the Celery broker unreachable is a German
error message naming what was not queued, and nothing of it runs; the dojo's
feed changed within the second of a poll is not answered 304 to that poll's date.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import icalendar
import pytest
import recurring_ical_events
from django.test import Client, override_settings

from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from tests.dojo.conftest import MakeSeries, next_weekday, trainings
from tests.hosts.dojo.models import Training, User
from tests.support.http_dates import (
    after_this_second,
    restore_for_another_attempt,
    within_one_second,
)
from tests.support.live_http import LiveApi, write_every_action
from tests.support.queued import CHANGELIST, broker_down, select_all

__all__ = ["broker_down"]  # the fixture, used by name


@pytest.mark.django_db(transaction=True)
def test_every_write_action_through_a_real_wsgi_server_answers_its_documented_status(
    live_server: Any, trainer: User, make_series: MakeSeries
) -> None:
    series = make_series(name="Karate Anfänger")
    start = next_weekday(3)
    create = {
        "name": "Judo Kinder",
        "recurrence": {
            "frequency": "WEEKLY",
            "dtstart": start.isoformat(),
            "timezone": "Europe/Berlin",
        },
        "template": {"title": "Judo Kinder", "mat": "Matte 2", "duration": "01:15:00"},
    }

    answered = write_every_action(
        LiveApi(live_server.url, trainer),
        series.pk,
        [training.begins_at for training in trainings(series)],
        create=create,
        template={"mat": "Matte 3"},
    )

    assert answered == {
        name: (documented, documented) for name, (_, documented) in answered.items()
    }
    assert len(answered) == 17


@pytest.mark.django_db
@override_settings(REVEL_RECURRING_ADMIN_INLINE_LIMIT=2)
def test_with_the_broker_down_a_queued_action_says_in_german_what_was_not_queued(
    trainer: User, make_series: MakeSeries, broker_down: str
) -> None:
    made = [make_series(name=name) for name in ("Karate", "Judo", "Aikido")]
    before = {
        s.pk: list(Training.objects.filter(series=s).values_list("slug", "status")) for s in made
    }
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    client.force_login(trainer)  # type: ignore[arg-type]

    response = client.post(CHANGELIST, select_all("pause_action", [made[0].pk]), follow=True)

    assert response.status_code == 200
    said = [str(message) for message in response.context["messages"]]
    assert said == [
        "Nichts wurde eingereiht: die Aufgabenwarteschlange war nicht erreichbar. "
        "„Pausieren“ wurde für 3 Serien nicht gestartet: Karate, Judo, Aikido. Mit ihnen "
        "ist nichts geschehen; versuchen Sie es später erneut."
    ]
    assert all(s.is_active for s in EventSeries.objects.filter(pk__in=before))
    assert {pk: keys_and_statuses(pk) for pk in before} == before


def keys_and_statuses(series_pk: int) -> list[tuple[str, int]]:
    return list(Training.objects.filter(series_id=series_pk).values_list("slug", "status"))


@pytest.mark.django_db
def test_the_dojo_feed_changed_within_the_second_of_a_poll_is_seen_by_date(
    make_series: MakeSeries,
) -> None:
    series = make_series(name="Karate")
    first, second, third = (training.begins_at for training in trainings(series)[:3])
    client = Client()

    def poll_between_two_changes() -> str:
        restore_for_another_attempt(series, first, second)
        cancel_occurrence(series, first)
        polled = client.get("/kalender.ics")["Last-Modified"]
        cancel_occurrence(series, second)
        return str(polled)

    polled = within_one_second(poll_between_two_changes)
    again = client.get("/kalender.ics", HTTP_IF_MODIFIED_SINCE=polled)

    assert again.status_code == 200
    calendar = icalendar.Calendar.from_ical(again.content)
    window = (first - dt.timedelta(days=1), second + dt.timedelta(days=8))
    shown = {e["DTSTART"].dt for e in recurring_ical_events.of(calendar).between(*window)}
    assert shown == {third}
    after_this_second()
    settled = client.get("/kalender.ics")["Last-Modified"]
    assert client.get("/kalender.ics", HTTP_IF_MODIFIED_SINCE=settled).status_code == 304
