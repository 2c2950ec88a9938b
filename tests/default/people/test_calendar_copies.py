"""The calendar copy of a person booked on several dates, across five changes (default host).

The person's messages are read by the three consumers of the feed tests; every
calendar part is checked (METHOD, UID, RECURRENCE-ID, SEQUENCE, ORGANIZER,
ATTENDEE), and the messages applied in shuffled orders to an attendee's
calendar kept by RFC 5546's rules leave exactly the dates they hold a seat on.
See tests/support/calendar_changes.py for the five changes.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import override_settings

from revel_recurring.services.lifecycle import create_recurring_series
from tests.support.calendar_changes import (
    first_weekday,
    holiday_ahead,
    holiday_index,
    occurrences,
    pick_dates,
    run_changes,
)
from tests.support.calendar_checks import (
    check_attachments,
    check_store_in_any_order,
    expect_after_each,
)
from tests.support.factories import VIENNA
from tests.support.people import BookPerson

pytestmark = pytest.mark.django_db

ORGANIZER = '"Yoga Süd, Wien" <team@yoga.example>'
ADDRESS = "zoe@example.org"
NAME = "Zoë Müller-O'Brien"


def _booked_series(book_person: BookPerson) -> Any:
    holiday = holiday_ahead("AT", VIENNA)
    start = first_weekday(holiday.weekday(), VIENNA, hour=18)
    series = create_recurring_series(
        name="Evening yoga",
        rule_data={"frequency": "WEEKLY", "dtstart": start, "timezone": "Europe/Vienna"},
        template_data={
            "title": "Evening yoga",
            "venue": "Studio 2",
            "ends_at": start + dt.timedelta(hours=1),
        },
        auto_publish=True,
        generation_window_weeks=30,
        holidays={"country": "AT", "policy": "keep"},
    )
    rows = occurrences(series)
    booked = pick_dates(rows, holiday_index(rows, holiday, VIENNA), ADDRESS)
    for row in booked.rows:
        person = book_person(row, ADDRESS, name=NAME, language="de")
    return series, booked, person


@override_settings(REVEL_RECURRING_ORGANIZER=ORGANIZER)
def test_every_calendar_part_reads_alike_in_three_consumers_with_its_identity_and_people(
    book_person: BookPerson,
) -> None:
    series, booked, person = _booked_series(book_person)

    changes = run_changes(series, booked, after_each=expect_after_each)

    counts = check_attachments(
        changes,
        organizer=("team@yoga.example", "Yoga Süd, Wien"),
        attendee=(person.address, person.name),
    )
    # The hour moves all five dates (a new slot each: cancel the old, invite the new);
    # the split hands two on to the new series' UID.
    assert counts == {
        "time": 10,
        "cancel": 1,
        "holidays": counts["holidays"],
        "split": 4,
        "restore": 1,
    }


@override_settings(REVEL_RECURRING_ORGANIZER=ORGANIZER)
def test_the_messages_in_any_order_leave_the_persons_calendar_on_their_dates(
    book_person: BookPerson,
) -> None:
    series, booked, _ = _booked_series(book_person)
    changes = run_changes(series, booked)

    count, dates = check_store_in_any_order(changes)

    assert count >= 17
    assert len(dates) == 5
