"""Admin actions over more series than REVEL_RECURRING_ADMIN_INLINE_LIMIT go to Celery.

The request sends one task per chunk and answers at once, naming how many series
were queued; the tasks change exactly the selected series the user may change.
The confirmation pages list a bounded summary. Every such request costs the same
number of queries for 5 series as for 40.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.models import DELETION, LogEntry
from django.contrib.auth.models import Permission
from django.test import override_settings
from django.utils import timezone

from revel_recurring.admin import deletion, stale
from revel_recurring.models import EventSeries, QueuedAction
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import pause_series
from tests.default.admin.test_admin_bulk_scope import ADAPTER, state
from tests.hosts.testapp.models import Event, Seat
from tests.support.admin import texts
from tests.support.drift import drift_without_partners
from tests.support.factories import make_series, occurrences
from tests.support.queued import (
    CHANGELIST,
    FAN_OUT,
    Broker,
    broker,
    every_request,
    queries_of,
    select_all,
    ticked,
)

__all__ = ["broker"]  # the fixture, used by name

pytestmark = pytest.mark.django_db

CANCELLED = Event.RECURRING_STATUS_CANCELLED
SMALL_LIMIT = override_settings(
    REVEL_RECURRING_ADMIN_INLINE_LIMIT=3, REVEL_RECURRING_GENERATION_CHUNK_SIZE=4
)


def drifting(name: str, *, weeks: int = 8) -> EventSeries:
    """A weekly series with ``weeks`` Mondays generated, then its rule ended at its start
    (long past): all drift, with nowhere to move."""
    series = make_series(name=name, window_weeks=weeks)
    generate_series_events(series, now=timezone.now())
    drift_without_partners(series, keep=0)
    return series


def book(event_id: Any) -> None:
    Seat.objects.create(event_id=event_id, label="Paid", quantity=5, booked=1)


def staff(client: Any, django_user_model: Any) -> Any:
    user = django_user_model.objects.create_user("clerk", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            codename__in=[
                "view_eventseries",
                "change_eventseries",
                "delete_eventseries",
                "delete_event",
            ]
        )
    )
    client.force_login(user)
    return user


def cancelled(series: EventSeries) -> set[Any]:
    rows = Event.objects.filter(series=series, is_template=False, state=CANCELLED)
    return set(rows.values_list("pk", flat=True))


@SMALL_LIMIT
def test_each_request_costs_the_same_queries_for_5_and_40_series(
    admin_client: Any, broker: Broker
) -> None:
    made: list[EventSeries] = []
    counts: dict[int, dict[str, int]] = {}
    for size in (5, 40):
        made += [drifting(f"Yoga {n}") for n in range(len(made), size)]
        shown = [series.pk for series in made]
        counts[size] = queries_of(admin_client, every_request(shown))
        # One message per queued post, whatever the size: the chunks go from the worker.
        sent = broker.take()
        assert [message.task for message in sent] == [FAN_OUT] * 5
        assert all(len(message.args[1]) == size for message in sent)
        assert all(series.is_active for series in EventSeries.objects.all())  # nothing ran
    assert counts[5] == counts[40]
    assert max(counts[40].values()) < 30


@SMALL_LIMIT
@override_settings(REVEL_RECURRING_ADAPTER=ADAPTER)
@pytest.mark.parametrize(
    ("action", "extra", "prepare", "changed"),
    [
        ("generate_now_action", {}, make_series, lambda s: len(occurrences(s)) == 8),
        ("pause_action", {}, drifting, lambda s: not EventSeries.objects.get(pk=s.pk).is_active),
        ("resume_action", {}, drifting, lambda s: EventSeries.objects.get(pk=s.pk).is_active),
        (
            "cancel_stale_action",
            {"confirm": "yes", "rest": "yes"},
            drifting,
            lambda s: detect_cadence_drift(s) == [],
        ),
        (
            "delete_selected",
            {"post": "yes"},
            drifting,
            lambda s: not EventSeries.objects.filter(pk=s.pk).exists(),
        ),
    ],
)
def test_a_queued_action_changes_exactly_the_editable_selected_series(
    client: Any,
    django_user_model: Any,
    broker: Broker,
    action: str,
    extra: dict[str, Any],
    prepare: Any,
    changed: Any,
) -> None:
    mine = [prepare(name=f"Mine {n}") for n in range(5)]
    theirs = prepare(name="Theirs Mine")  # found by the search, but only viewable
    other = prepare(name="Elsewhere")  # not found by the search: not selected
    if action == "resume_action":
        for series in (*mine, theirs, other):
            pause_series(series)
    kept = {series.pk: state(series) for series in (theirs, other)}
    staff(client, django_user_model)

    # "Select all" on the list searched for "Mine": six series, five editable.
    response = client.post(
        f"{CHANGELIST}?q=Mine", select_all(action, [mine[0].pk], **extra), follow=True
    )

    assert response.status_code == 200
    said = texts(response)
    assert "Skipped Theirs Mine: you may view but not change them; nothing done to them." in said
    assert any(text.startswith("5 series queued") for text in said), said
    [fan_out] = broker.take()
    assert fan_out.task == FAN_OUT
    assert fan_out.args[1] == [series.pk for series in mine]
    assert broker.apply(fan_out)["chunks"] == 2
    chunks = broker.take()
    assert [len(message.args[0]) for message in chunks] == [4, 1]  # GENERATION_CHUNK_SIZE
    for message in chunks:
        broker.apply(message)
    assert all(changed(series) for series in mine)
    assert {pk: state(EventSeries.objects.get(pk=pk)) for pk in kept} == kept


@pytest.mark.parametrize("limit", [2, 10], ids=["queued", "inline"])
def test_cancel_stale_page_is_bounded_and_its_confirmation_cancels_what_it_said(
    admin_client: Any, broker: Broker, monkeypatch: pytest.MonkeyPatch, settings: Any, limit: int
) -> None:
    settings.REVEL_RECURRING_ADMIN_INLINE_LIMIT = limit
    monkeypatch.setattr(stale, "LISTED_SERIES", 2)
    long = drifting("Long", weeks=12)  # 12 stale dates: 10 listed, then 2 more
    short = drifting("Short", weeks=3)  # 3 stale dates, all listed
    late = drifting("Late", weeks=3)  # not listed (and, queued, not even checked)
    long_stale, short_stale, late_stale = (detect_cadence_drift(s) for s in (long, short, late))
    book(long_stale[11])  # after the first ten: listed all the same, unticked
    book(late_stale[0])  # never listed: kept
    data = select_all("cancel_stale_action", [long.pk, short.pk, late.pk])

    page = admin_client.post(CHANGELIST, data)

    html = page.content.decode()
    listed = page.context["listed"]
    assert listed == [*long_stale[:10], long_stale[11], *short_stale]
    assert [group.more for group in page.context["groups"]] == [1, 0]
    assert "and 1 more stale date, cancelled too unless booked" in html
    if limit == 2:
        assert "1 more selected series was not checked here" in html
        assert page.context["unscanned"] == 1
    else:
        assert "and 1 more series with stale dates (3 in all)" in html
    assert page.context["complete"] == [short.pk]
    assert 'name="rest" value="yes"' in html
    assert 'name="select_across" value="1"' in html

    # The organiser unticks one date of each listed series and confirms.
    chosen = [pk for pk in listed if pk not in (long_stale[0], short_stale[0], long_stale[11])]
    done = admin_client.post(
        CHANGELIST,
        {
            **data,
            "revel_up_to": str(late.pk),
            "confirm": "yes",
            "rest": "yes",
            "occurrence": chosen,
            "listed": listed,
            "booked": [long_stale[11]],
            "complete": [short.pk],
        },
        follow=True,
    )

    if limit == 2:
        assert "3 series queued for their stale dates to be cancelled" in texts(done)[0]
        assert cancelled(long) == set()  # nothing yet: the worker has not run
        results = broker.run()["revel_recurring.cancel_stale_chunk"]
        assert sum(result["cancelled"] for result in results) == 14
        # The booked date nobody was shown is named as kept.
        assert [list(result["kept"]) for result in results] == [[], [str(late.pk)]]
        # Its record: the page's two series and the rest, all done (a kept booked
        # date is no failure), finished by the last chunk.
        record = QueuedAction.objects.get()
        assert (record.action, record.series_count, record.done, record.failed) == (
            "cancel_stale",
            3,
            3,
            0,
        )
        assert record.finished_at is not None
    else:
        assert not QueuedAction.objects.exists()  # within the limit: nothing queued
        assert broker.take() == []
        assert "14 stale occurrences cancelled in 3 series: Long (10), Short (2), Late (2)." in (
            texts(done)
        )
    assert cancelled(long) == set(long_stale) - {long_stale[0], long_stale[11]}
    assert cancelled(short) == set(short_stale) - {short_stale[0]}
    assert cancelled(late) == set(late_stale) - {late_stale[0]}


@SMALL_LIMIT
def test_queued_deletion_keeps_booked_series_spares_later_ones_and_is_recorded(
    admin_client: Any, admin_user: Any, broker: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deletion, "LISTED_SERIES", 2)
    series = [drifting(f"Yoga {n}") for n in range(5)]
    book(occurrences(series[1])[0].pk)
    data = select_all("delete_selected", [series[0].pk])

    page = admin_client.post(CHANGELIST, data)
    # Created after the page was shown: "select all" still means what the page showed.
    newcomer = make_series(name="Yoga newcomer")
    done = admin_client.post(
        CHANGELIST, {**data, "post": "yes", "revel_up_to": str(series[-1].pk)}, follow=True
    )

    html = page.content.decode()
    assert dict(page.context["model_count"]) == {"event series": 5, "events": 45}
    assert "… and 3 more series" in html
    assert f"of {series[1].name} has bookings" in html
    assert 'name="revel_up_to"' in html
    assert texts(done)[0].startswith("5 series queued for deletion")
    results = broker.run()["revel_recurring.delete_series_chunk"]
    assert [list(result["kept"]) for result in results] == [[str(series[1].pk)], []]
    left = set(EventSeries.objects.values_list("pk", flat=True))
    assert left == {series[1].pk, newcomer.pk}
    logged = LogEntry.objects.filter(action_flag=DELETION, user=admin_user)
    assert sorted(map(int, logged.values_list("object_id", flat=True))) == sorted(
        s.pk for s in series if s is not series[1]
    )


def test_delete_confirmation_within_the_limit_is_bounded_too(
    admin_client: Any, broker: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deletion, "LISTED_SERIES", 1)
    monkeypatch.setattr(deletion, "LISTED_DATES", 2)
    series = [drifting(f"Yoga {n}") for n in range(3)]
    for event in occurrences(series[0])[:3]:
        book(event.pk)
    book(occurrences(series[2])[0].pk)

    page = admin_client.post(CHANGELIST, ticked("delete_selected", series))

    assert page.templates[0].name.endswith("delete_selected_confirmation.html")
    protected = [str(line) for line in page.context["protected"]]
    assert len(protected) == 3
    assert protected[-1] == "… and 2 more booked dates"
    assert page.context["deletable_objects"][0][-1] == "… and 2 more series"
    assert broker.take() == []
