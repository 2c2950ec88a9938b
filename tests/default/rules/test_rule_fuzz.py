"""Fuzzed rule fields through the model and both services: only app errors, saved rules work.

Whatever the fields, the model's ``save()``, ``create_recurring_series`` and
``update_series_recurrence`` either refuse them with a ``ValidationError`` (or a
``RecurrenceError``) or save a rule that generates and whose ``rrule_string``
dateutil and icalendar read back to the same occurrences. Each example runs in
a savepoint that is rolled back, so examples do not see each other's rows.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from revel_recurring import rules
from revel_recurring.exceptions import RecurrenceError
from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import create_recurring_series, update_series_recurrence
from tests.default.rules.test_rrule_string_roundtrip import read_with_dateutil, read_with_icalendar
from tests.support.factories import NOW

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
ZONES = [
    "Europe/Vienna",
    "America/New_York",
    "Asia/Tokyo",
    "Pacific/Kiritimati",
    "Africa/Abidjan",
    "UTC",
    "right/Europe/Vienna",
    "posix/Asia/Tokyo",
    "posixrules",
    "localtime",
    "Factory",
    "Mars/Olympus",
    " UTC",
    "../etc/passwd",
    "Europe/Vienna\x00",
    "",
]
JUNK: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=5),
    st.floats(allow_nan=True),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.lists(st.integers(min_value=-3, max_value=9), max_size=4),
)


def _integers(low: int, high: int) -> st.SearchStrategy[Any]:
    edges = st.sampled_from([0, -1, 2**31 - 1, 2**31, 2**63, 10_000, 10_001])
    return st.one_of(st.integers(min_value=low, max_value=high), edges, JUNK)


def _instants() -> st.SearchStrategy[Any]:
    offsets = st.integers(min_value=-23 * 60 - 59, max_value=23 * 60 + 59).map(
        lambda minutes: dt.timezone(dt.timedelta(minutes=minutes))
    )
    zones = st.sampled_from([ZoneInfo("Europe/Vienna"), ZoneInfo("Asia/Tokyo"), dt.UTC])
    near = st.datetimes(
        min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2032, 1, 1), timezones=zones
    )
    anywhere = st.datetimes(timezones=st.one_of(zones, offsets))
    edges = st.sampled_from(
        [
            dt.datetime(1, 1, 1, tzinfo=dt.UTC),
            dt.datetime(9999, 12, 31, 23, tzinfo=ZoneInfo("Asia/Tokyo")),
            dt.datetime(2026, 3, 2, 10, tzinfo=dt.timezone(dt.timedelta(hours=20))),
            dt.datetime(2026, 3, 2, 10, 0, 0, 999_999, tzinfo=dt.UTC),
            dt.datetime(2026, 3, 2, 10),
        ]
    )
    return st.one_of(edges, near, anywhere, st.datetimes(), JUNK)


RULE_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "frequency": st.one_of(st.sampled_from(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"]), JUNK),
    "interval": _integers(1, 400),
    "weekdays": st.one_of(st.lists(st.integers(min_value=-1, max_value=7), max_size=8), JUNK),
    "monthly_type": st.one_of(st.sampled_from(["", "DAY_OF_MONTH", "NTH_WEEKDAY"]), JUNK),
    "day_of_month": _integers(-2, 32),
    "nth_weekday": _integers(-6, 6),
    "weekday": _integers(-1, 7),
    "dtstart": _instants(),
    "until": st.one_of(st.none(), st.none(), _instants()),
    "count": st.one_of(st.none(), st.none(), _integers(1, 500)),
    "timezone": st.one_of(st.sampled_from(ZONES), JUNK),
}


@st.composite
def plausible_rule(draw: st.DrawFn) -> dict[str, Any]:
    """A rule an organiser might enter: right fields for its frequency, sane values."""
    frequency = draw(st.sampled_from(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"]))
    zone = draw(st.sampled_from(ZONES[:6]))
    start = draw(
        st.datetimes(
            min_value=dt.datetime(2020, 1, 1),
            max_value=dt.datetime(2032, 1, 1),
            timezones=st.just(ZoneInfo(zone)),
        )
    )
    data: dict[str, Any] = {
        "frequency": frequency,
        "dtstart": start,
        "timezone": zone,
        "interval": draw(st.integers(min_value=1, max_value=30)),
    }
    if frequency == "WEEKLY" and draw(st.booleans()):
        data["weekdays"] = draw(
            st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=7, unique=True)
        )
    if frequency == "MONTHLY":
        if draw(st.booleans()):
            data["monthly_type"] = "DAY_OF_MONTH"
            data["day_of_month"] = draw(st.sampled_from([*range(1, 32), -1]))
        else:
            data["monthly_type"] = "NTH_WEEKDAY"
            data["nth_weekday"] = draw(st.sampled_from([1, 2, 3, 4, 5, -1, -2, -5]))
            data["weekday"] = draw(st.integers(min_value=0, max_value=6))
    ending = draw(st.sampled_from(["none", "until", "count"]))
    if ending == "until":
        data["until"] = start + draw(
            st.timedeltas(min_value=dt.timedelta(0), max_value=dt.timedelta(days=900))
        )
    elif ending == "count":
        data["count"] = draw(st.integers(min_value=1, max_value=60))
    return data


@st.composite
def rule_data(draw: st.DrawFn, *, partial: bool = False) -> dict[str, Any]:
    """A plausible rule with up to three fields replaced by fuzz (edges, junk, wrong types).

    ``partial`` keeps only some fields, as an update passes them.
    """
    data = draw(plausible_rule())
    for name in draw(st.lists(st.sampled_from(list(RULE_FIELDS)), max_size=3, unique=True)):
        data[name] = draw(RULE_FIELDS[name])
    if partial:
        keep = draw(st.lists(st.sampled_from(list(data)), min_size=1, max_size=4, unique=True))
        data = {name: data[name] for name in keep}
    return data


# Anything else escaping a call fails the example.
REFUSALS = (ValidationError, RecurrenceError)


def _check_saved_rule(rule: RecurrenceRule) -> None:
    """The stored rule generates, and its rrule_string reads back to the same slots."""
    event("saved")
    stored = RecurrenceRule.objects.get(pk=rule.pk)
    spec = stored.to_spec()
    expected = list(itertools.islice(rules.iter_occurrences(spec), 4))
    assert expected, "a saved rule has at least one occurrence"
    parsed = read_with_dateutil(stored.rrule_string, tzids=ZoneInfo)
    assert [o.astimezone(dt.UTC) for o in itertools.islice(parsed, 4)] == expected
    icalendar_parsed = read_with_icalendar(stored.rrule_string)
    assert [o.astimezone(dt.UTC) for o in itertools.islice(icalendar_parsed, 4)] == expected
    series = EventSeries.objects.filter(recurrence_rule=stored).first()
    if series is None:
        series = EventSeries.objects.create(name="fuzz", recurrence_rule=stored)
    # From just before the first slot, so the window holds at least that one.
    generate_series_events(series, now=expected[0] - dt.timedelta(seconds=1))


def _in_savepoint(work: Any) -> None:
    with transaction.atomic():
        work()
        transaction.set_rollback(True)


@FUZZ
@given(data=rule_data())
def test_model_save_refuses_or_saves_a_working_rule(data: dict[str, Any]) -> None:
    def work() -> None:
        rule = RecurrenceRule(**data)
        try:
            rule.save()
        except REFUSALS as exc:
            event(f"refused: {type(exc).__name__}")
            return
        _check_saved_rule(rule)

    _in_savepoint(work)


@FUZZ
@given(data=rule_data())
def test_create_recurring_series_refuses_or_creates_a_working_series(data: dict[str, Any]) -> None:
    def work() -> None:
        try:
            series = create_recurring_series(
                rule_data=data, template_data={"title": "Fuzz"}, name="Fuzz", now=NOW
            )
        except REFUSALS as exc:
            event(f"refused: {type(exc).__name__}")
            return
        assert series.recurrence_rule is not None
        _check_saved_rule(series.recurrence_rule)

    _in_savepoint(work)


@FUZZ
@given(changes=rule_data(partial=True))
def test_update_series_recurrence_refuses_or_keeps_a_working_rule(changes: dict[str, Any]) -> None:
    def work() -> None:
        series = create_recurring_series(
            rule_data={
                "frequency": "WEEKLY",
                "dtstart": dt.datetime(2026, 3, 2, 18, 30, tzinfo=ZoneInfo("Europe/Vienna")),
                "timezone": "Europe/Vienna",
            },
            template_data={"title": "Fuzz"},
            name="Fuzz",
            now=NOW,
        )
        try:
            update_series_recurrence(series, rule_changes=changes, now=NOW)
        except REFUSALS as exc:
            event(f"refused: {type(exc).__name__}")
            return
        assert series.recurrence_rule is not None
        _check_saved_rule(series.recurrence_rule)

    _in_savepoint(work)
