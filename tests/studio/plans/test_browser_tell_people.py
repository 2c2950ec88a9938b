"""Chromium: the plan page says how many people would be told; unticked, nobody is.

Tuesday/Thursday lessons at 18:30, three people booked on two of them, move to
19:30 with the site telling everyone by default. The plan page states
"3 people booked on these dates will get one message each" with the "Tell the
people booked" box ticked; the organiser unticks it and confirms: every lesson,
the booked ones too, moves to 19:30, and no notice or e-mail is written.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core import mail

from example_project.tests.browser import browser_page, read_db, screenshot
from revel_recurring.models import EventSeries, PersonNotice, SeriesOperation
from tests.hosts.studio.models import Lesson, User
from tests.studio.conftest import BERLIN, MakeSeries, lessons, sign_in
from tests.support.people import BookPerson

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def three_booked(
    make_series: MakeSeries, book_person: BookPerson
) -> tuple[EventSeries, list[Lesson]]:
    """Tuesday/Thursday lessons: two people on the second, one of them and a third on the
    fifth (three people, one of them on two dates)."""
    series = make_series(weekdays=(1, 3))
    rows = lessons(series)
    book_person(rows[1], "ada@example.com", name="Ada", language="en")
    book_person(rows[1], "bo@example.com", name="Bo", language="de")
    book_person(rows[4], "cy@example.com", name="Cy", language="en")
    return series, rows


# The data fixtures come before browser_page: see example_project/tests/browser.read_db.
def test_unticking_tell_the_people_booked_moves_the_lessons_without_a_message(
    live_server: Any,
    owner: User,
    three_booked: tuple[EventSeries, list[Lesson]],
    browser_page: Any,
    settings: Any,
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "all"
    series, rows = three_booked
    booked = [rows[1], rows[4]]
    page = browser_page
    url = f"{live_server.url}/admin/revel_recurring/eventseries/{series.pk}/change/"

    sign_in(page, live_server.url, url.removeprefix(live_server.url))
    page.wait_for_selector("#revel-upcoming")
    page.fill("input[name=dtstart_1]", "19:30:00")
    page.click("input[name=_continue]")

    page.wait_for_selector("#revel-plan")
    told = page.inner_text("#revel-people-told")
    assert told == "3 people booked on these dates will get one message each."
    box = page.locator("#revel-notify")
    assert box.is_checked()
    # With the people told, the booked lessons are ticked to move like the others.
    booked_boxes = page.locator("#revel-plan-drift li.revel-booked input[type=checkbox]")
    assert booked_boxes.count() == 2
    assert all(booked_boxes.nth(i).is_checked() for i in range(2))
    screenshot(page, "studio-tell-01-plan")

    box.uncheck()
    assert not box.is_checked()
    screenshot(page, "studio-tell-02-unticked")
    page.click("#revel-plan-form input[name=_continue]")
    page.wait_for_selector(".messagelist")
    assert f"{len(rows)} dates moved" in page.inner_text(".messagelist")
    screenshot(page, "studio-tell-03-applied")

    def state() -> tuple[set[dt.time], int, int, int]:
        starts = Lesson.objects.filter(pk__in=[row.pk for row in booked]).values_list(
            "begins", flat=True
        )
        times = {start.astimezone(BERLIN).time() for start in starts}
        return (
            times,
            PersonNotice.objects.count(),
            SeriesOperation.objects.filter(notices__isnull=False).distinct().count(),
            len(mail.outbox),
        )

    times, notices, operations, sent = read_db(state)
    # The booked lessons start at 19:30 now; nobody told: the operation's record
    # (the series' history) holds no notice, and no e-mail went out.
    assert times == {dt.time(19, 30)}
    assert (notices, operations, sent) == (0, 0, 0)
