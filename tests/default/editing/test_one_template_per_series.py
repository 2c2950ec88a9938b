"""One template per series on every backend, MariaDB included, where no constraint guards it.

The mixin's conditional unique constraint is not created on MariaDB (Django's
``models.W036``); the series lock and ``save_template`` are the guard there. The
race runs on the real servers (PostgreSQL and MariaDB passes of ``make test``),
each side on its own connection.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.services.templates import build_template, replace_template, save_template
from tests.hosts.testapp.models import Event
from tests.support.concurrency import Background
from tests.support.factories import DURATION, FIRST_MONDAY, NOW, template_of, weekly_series

needs_a_server = pytest.mark.skipif(
    connection.vendor == "sqlite", reason="SQLite runs one writer at a time: nothing races"
)


def _templates(series: EventSeries) -> list[str]:
    return list(
        Event.objects.filter(series=series, is_template=True).values_list("title", flat=True)
    )


@needs_a_server
@pytest.mark.django_db(transaction=True)
def test_two_templates_given_at_once_to_a_series_without_one_leave_one() -> None:
    # A series without a template (one made before its template, say): nothing to
    # delete, so no row lock orders the two writers; only the series lock does.
    rule = RecurrenceRule.objects.create(
        frequency="WEEKLY", dtstart=FIRST_MONDAY, timezone="Europe/Vienna"
    )
    series = EventSeries.objects.create(name="Monday yoga", recurrence_rule=rule)
    start = threading.Barrier(2)

    def give(title: str) -> Any:
        def hold_open(template: Any) -> None:
            # Keeps the transaction open after its insert, so without the lock both
            # inserts would be uncommitted at once.
            time.sleep(0.3)

        start.wait(10)
        return replace_template(
            series,
            {"title": title, "venue": "Studio 2", "ends_at": FIRST_MONDAY + DURATION},
            setup_template=hold_open,
            now=NOW,
        )

    first, second = Background(lambda: give("First")), Background(lambda: give("Second"))
    made = {first.result().title, second.result().title}

    assert made == {"First", "Second"}
    kept = _templates(series)
    assert len(kept) == 1
    assert kept[0] in made


@pytest.mark.django_db
def test_a_second_template_is_refused_on_every_backend() -> None:
    series = weekly_series(window_weeks=1)
    before = template_of(series)
    another = build_template(
        {"title": "Another", "venue": "Studio 9", "ends_at": FIRST_MONDAY + DURATION},
        dtstart=FIRST_MONDAY,
    )

    with pytest.raises(IntegrityError, match="one template per series"), transaction.atomic():
        save_template(series, another)

    assert _templates(series) == [before.title]


@pytest.mark.django_db
def test_saving_the_template_again_is_not_a_second_one() -> None:
    series = weekly_series(window_weeks=1)
    template = template_of(series)
    template.venue = "Studio 7"

    save_template(series, template)

    assert _templates(series) == [template.title]
    assert template_of(series).venue == "Studio 7"
