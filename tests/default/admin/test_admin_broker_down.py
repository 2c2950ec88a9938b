"""With the Celery broker unreachable, a queued admin action is an error message, not a 500.

The broker is a Redis URL on a port nothing listens on (``broker_down``): every
publish really fails. The request answers with the list and a message naming the
action and the series that were not queued, and nothing of the action happened.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from revel_recurring.models import EventSeries
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.lifecycle import pause_series
from tests.default.admin.test_admin_bulk_scope import state
from tests.default.admin.test_admin_queued import book, drifting
from tests.support.admin import texts
from tests.support.factories import make_series
from tests.support.queued import CHANGELIST, FAN_OUT, Broker, broker, broker_down, select_all

__all__ = ["broker", "broker_down"]  # fixtures, used by name

pytestmark = pytest.mark.django_db

SMALL_LIMIT = override_settings(
    REVEL_RECURRING_ADMIN_INLINE_LIMIT=3, REVEL_RECURRING_GENERATION_CHUNK_SIZE=4
)


def not_queued(action: str, names: str, count: int = 5) -> str:
    return (
        "Nothing was queued: the task queue could not be reached. "
        f"“{action}” was not started for {count} series: {names}. Nothing was done to "
        "them; try again later."
    )


@SMALL_LIMIT
@pytest.mark.parametrize(
    ("action", "label", "extra", "prepare"),
    [
        ("generate_now_action", "Generate now", {}, make_series),
        ("pause_action", "Pause", {}, drifting),
        ("resume_action", "Resume", {}, drifting),
        ("cancel_stale_action", "Cancel stale dates…", {"confirm": "yes", "rest": "yes"}, drifting),
        ("delete_selected", "Delete selected event series", {"post": "yes"}, drifting),
    ],
)
def test_a_queued_action_with_the_broker_down_says_what_was_not_queued_and_does_nothing(
    admin_client: Any,
    broker_down: str,
    action: str,
    label: str,
    extra: dict[str, Any],
    prepare: Any,
) -> None:
    made = [prepare(name=f"Yoga {n}") for n in range(5)]
    if action == "resume_action":
        for series in made:
            pause_series(series)
    before = {series.pk: state(series) for series in made}

    response = admin_client.post(CHANGELIST, select_all(action, [made[0].pk], **extra), follow=True)

    assert response.status_code == 200
    assert response.redirect_chain == [(CHANGELIST, 302)]
    said = texts(response)
    assert said == [not_queued(label, "Yoga 0, Yoga 1, Yoga 2, Yoga 3, Yoga 4")]
    assert {pk: state(EventSeries.objects.get(pk=pk)) for pk in before} == before


@SMALL_LIMIT
def test_a_confirmed_stale_page_with_the_broker_down_cancels_neither_its_listed_nor_the_rest(
    admin_client: Any, broker_down: str
) -> None:
    """The page's own decisions and the other series travel in one message, or in none."""
    listed, rest = drifting("Listed", weeks=3), [drifting(f"Rest {n}") for n in range(3)]
    book(detect_cadence_drift(rest[0])[0])  # booked and never listed: kept either way
    everything = [listed, *rest]
    before = {series.pk: state(series) for series in everything}
    data = select_all("cancel_stale_action", [listed.pk], confirm="yes", rest="yes")
    stale_dates = [str(pk) for pk in detect_cadence_drift(listed)]

    response = admin_client.post(
        CHANGELIST,
        {**data, "occurrence": stale_dates, "listed": stale_dates, "complete": [listed.pk]},
        follow=True,
    )

    assert response.status_code == 200
    assert texts(response) == [
        not_queued("Cancel stale dates…", "Listed, Rest 0, Rest 1, Rest 2", count=4)
    ]
    assert {pk: state(EventSeries.objects.get(pk=pk)) for pk in before} == before


def test_within_the_inline_limit_the_broker_is_not_needed(
    admin_client: Any, broker_down: str
) -> None:
    """Two series run in the request, with the broker down all the same."""
    made = [drifting(f"Yoga {n}") for n in range(2)]

    response = admin_client.post(CHANGELIST, select_all("pause_action", [made[0].pk]), follow=True)

    assert response.status_code == 200
    assert not any(EventSeries.objects.get(pk=s.pk).is_active for s in made)
    assert not any("Nothing was queued" in text for text in texts(response))


@SMALL_LIMIT
def test_a_confirmed_stale_page_sends_its_listed_series_and_the_rest_as_one_message(
    admin_client: Any, broker: Broker
) -> None:
    """One message is what makes "nothing half-done" hold: the broker takes it or not."""
    listed, rest = drifting("Listed", weeks=3), [drifting(f"Rest {n}") for n in range(3)]
    data = select_all("cancel_stale_action", [listed.pk], confirm="yes", rest="yes")
    stale_dates = [str(pk) for pk in detect_cadence_drift(listed)]

    admin_client.post(
        CHANGELIST,
        {**data, "occurrence": stale_dates[1:], "listed": stale_dates, "complete": [listed.pk]},
    )

    [sent] = broker.take()
    assert sent.task == FAN_OUT
    assert sent.args[1] == [series.pk for series in rest]
    assert sent.args[3]["series_ids"] == [listed.pk]
    broker.apply(sent)
    for message in broker.take():
        broker.apply(message)
    assert [str(pk) for pk in detect_cadence_drift(listed)] == stale_dates[:1]  # left unticked
    assert all(detect_cadence_drift(series) == [] for series in rest)
