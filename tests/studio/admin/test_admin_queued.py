"""Queued admin actions on the studio host: UUID lessons and users, schools as scopes."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.models import DELETION, LogEntry
from django.test import Client, override_settings

from revel_recurring.models import EventSeries, QueuedAction, QueuedActionFailure
from revel_recurring.services.drift import detect_cadence_drift
from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.bookings.test_admin_bookings import (
    SKIPPED,
    ballet_series,
    drifted,
    member_of_ballet,
    owner,
    snapshot,
    texts,
)
from tests.studio.conftest import MakeSeries, lessons
from tests.support.drift import drift_every_date
from tests.support.queued import (
    CHANGELIST,
    FAN_OUT,
    Broker,
    broker,
    broker_down,
    every_request,
    queries_of,
    select_all,
)

__all__ = ["broker", "broker_down", "member_of_ballet", "owner"]  # fixtures, used by name

pytestmark = pytest.mark.django_db

SCRAPPED = Lesson.State.SCRAPPED
SMALL_LIMIT = override_settings(
    REVEL_RECURRING_ADMIN_INLINE_LIMIT=2, REVEL_RECURRING_GENERATION_CHUNK_SIZE=3
)


def scrapped(series: EventSeries) -> set[Any]:
    rows = Lesson.objects.filter(series=series, state=SCRAPPED)
    return set(rows.values_list("pk", flat=True))


@SMALL_LIMIT
def test_queued_requests_cost_the_same_for_5_and_40_uuid_series(
    owner: Client, make_series: MakeSeries, broker: Broker
) -> None:
    made: list[EventSeries] = []
    counts = {}
    for size in (5, 40):
        made += [drifted(make_series, name=f"Salsa {n}") for n in range(len(made), size)]
        shown = [series.pk for series in made]
        counts[size] = queries_of(owner, every_request(shown))
        assert [message.task for message in broker.take()] == [FAN_OUT] * 5
    assert counts[5] == counts[40]


@SMALL_LIMIT
def test_queued_cancellation_cancels_the_teachers_uuid_lessons_and_keeps_the_booked_one(
    member_of_ballet: Client, make_series: MakeSeries, broker: Broker, pupil: User
) -> None:
    mine = [drifted(make_series, name=name) for name in ("Salsa", "Tango", "Bachata")]
    barre = ballet_series(make_series, "Ballet Barre")  # the teacher only reads it
    drift_every_date(barre)
    kept = snapshot(barre)
    stale = {series.pk: detect_cadence_drift(series) for series in mine}
    booked = Lesson.objects.get(pk=stale[mine[2].pk][0])
    Booking.objects.create(lesson=booked, pupil=pupil)
    data = select_all("cancel_stale_action", [s.pk for s in (*mine, barre)])

    page = member_of_ballet.post(CHANGELIST, data)
    # Confirmed as shown: every listed date ticked but the booked one.
    listed = [str(pk) for pk in page.context["listed"]]
    ticked = [pk for pk in listed if pk != str(booked.pk)]
    done = member_of_ballet.post(
        CHANGELIST,
        {
            **data,
            "confirm": "yes",
            "rest": "yes",
            "occurrence": ticked,
            "listed": listed,
            "booked": [str(booked.pk)],
            "complete": page.context["complete"],
        },
        follow=True,
    )

    assert SKIPPED in texts(done)
    assert any(text.startswith("3 series queued for their stale dates") for text in texts(done))
    # The series the page listed go in one chunk with their UUIDs (none is left to fan out).
    [decided] = broker.take()
    assert decided.task == "revel_recurring.cancel_stale_chunk"
    assert sorted(decided.args[0]) == sorted(s.pk for s in mine)
    assert sorted(decided.kwargs["ticked"]) == sorted(ticked)
    broker.apply(decided)
    for series in mine:
        expected = set(stale[series.pk]) - {booked.pk}
        assert scrapped(series) == expected
    assert snapshot(barre) == kept


@SMALL_LIMIT
def test_queued_deletion_keeps_the_booked_series_and_records_the_others(
    owner: Client, make_series: MakeSeries, broker: Broker, pupil: User
) -> None:
    salsa, tango, _bachata = (make_series(name=n) for n in ("Salsa", "Tango", "Bachata"))
    Booking.objects.create(lesson=lessons(tango)[2], pupil=pupil)
    data = select_all("delete_selected", [salsa.pk])

    page = owner.post(CHANGELIST, data)
    done = owner.post(CHANGELIST, {**data, "post": "yes"}, follow=True)

    html = page.content.decode()
    assert page.templates[0].name == "admin/revel_recurring/eventseries/delete_queued.html"
    assert "of Tango has bookings" in html
    assert dict(page.context["model_count"])["lessons"] == 27  # 3 x (8 + the template)
    assert "3 series queued for deletion" in texts(done)[0]
    [result] = broker.run()["revel_recurring.delete_series_chunk"]
    assert list(result["kept"]) == [str(tango.pk)]
    assert list(EventSeries.objects.values_list("name", flat=True)) == ["Tango"]
    user = User.objects.get(email="owner@studio.example")
    entries = LogEntry.objects.filter(action_flag=DELETION, user=user)  # type: ignore[misc]
    assert sorted(entries.values_list("object_repr", flat=True)) == ["Bachata", "Salsa"]
    # The action's record: the owner's UUID as text, Tango named with its bookings.
    record = QueuedAction.objects.get()
    assert (record.user_pk, record.user_name) == (str(user.pk), "owner@studio.example")
    assert (record.series_count, record.done, record.failed) == (3, 2, 1)
    assert record.finished_at is not None
    failure = QueuedActionFailure.objects.get()
    assert (failure.series_pk, failure.series_name) == (tango.pk, "Tango")
    shown = owner.get(CHANGELIST).content.decode()
    assert "Recent bulk actions" in shown
    assert ": 2 of 3 series done, 1 failed." in shown
    assert "<li>Tango: " in shown


@SMALL_LIMIT
@pytest.mark.parametrize(
    ("action", "label", "extra"),
    [
        ("generate_now_action", "Generate now", {}),
        ("cancel_stale_action", "Cancel stale dates…", {"confirm": "yes", "rest": "yes"}),
        ("delete_selected", "Delete selected event series", {"post": "yes"}),
    ],
)
def test_with_the_broker_down_a_queued_action_names_what_was_not_queued_and_does_nothing(
    owner: Client,
    make_series: MakeSeries,
    broker_down: str,
    action: str,
    label: str,
    extra: dict[str, Any],
) -> None:
    made = [drifted(make_series, name=name) for name in ("Salsa", "Tango", "Bachata")]
    before = {series.pk: snapshot(series) for series in made}

    response = owner.post(CHANGELIST, select_all(action, [made[0].pk], **extra), follow=True)

    assert response.status_code == 200
    assert texts(response) == [
        "Nothing was queued: the task queue could not be reached. "
        f"“{label}” was not started for 3 series: Salsa, Tango, Bachata. Nothing was done "
        "to them; try again later."
    ]
    assert {pk: snapshot(EventSeries.objects.get(pk=pk)) for pk in before} == before
