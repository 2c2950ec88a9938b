"""A member's calendar copy across five changes of their training series (dojo host).

Text keys, integer statuses, a duration field instead of an end, Berlin under
Germany's holidays. The changes and the checks are those of
tests/default/people/test_calendar_copies.py (tests/support/calendar_changes.py,
tests/support/calendar_checks.py).
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.test import override_settings

from revel_recurring.people import BookedPerson
from tests.dojo.conftest import MakeSeries
from tests.support.calendar_changes import (
    Booked,
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
from tests.support.people import BookPerson

pytestmark = pytest.mark.django_db

BERLIN = ZoneInfo("Europe/Berlin")
ORGANIZER = '"Dojo Kreuzberg e.V." <training@dojo.example>'
ADDRESS = "mitglied@dojo.example"
NAME = "Aylin Öztürk"


def _booked_series(
    make_series: MakeSeries, book_person: BookPerson
) -> tuple[Any, Booked, BookedPerson]:
    holiday = holiday_ahead("DE", BERLIN)
    series = make_series(
        weekdays=(holiday.weekday(),),
        generation_window_weeks=30,
        holidays={"country": "DE", "policy": "keep"},
    )
    rows = occurrences(series)
    booked = pick_dates(rows, holiday_index(rows, holiday, BERLIN), ADDRESS)
    for row in booked.rows:
        person = book_person(row, ADDRESS, name=NAME, language="de")
    return series, booked, person


@override_settings(REVEL_RECURRING_ORGANIZER=ORGANIZER)
def test_every_calendar_part_reads_alike_in_three_consumers_with_its_identity_and_people(
    make_series: MakeSeries, book_person: BookPerson
) -> None:
    series, booked, person = _booked_series(make_series, book_person)

    changes = run_changes(series, booked, after_each=expect_after_each)

    counts = check_attachments(
        changes,
        organizer=("training@dojo.example", "Dojo Kreuzberg e.V."),
        attendee=(person.address, person.name),
    )
    assert (counts["time"], counts["cancel"], counts["split"], counts["restore"]) == (10, 1, 4, 1)


@override_settings(REVEL_RECURRING_ORGANIZER=ORGANIZER)
def test_the_messages_in_any_order_leave_the_members_calendar_on_their_trainings(
    make_series: MakeSeries, book_person: BookPerson
) -> None:
    series, booked, _ = _booked_series(make_series, book_person)
    changes = run_changes(series, booked)

    count, dates = check_store_in_any_order(changes)

    assert count >= 17
    assert len(dates) == 5
