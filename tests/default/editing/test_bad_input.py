"""Bad input is refused with an app error naming the field, never a crash or a DataError.

Runs on every backend; the DataError cases (offsets, NUL, 2**31) only crashed on
PostgreSQL before, which is where they matter.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ObjectDoesNotExist, ValidationError

from revel_recurring import rules
from revel_recurring.exceptions import (
    GenerationWindowError,
    InvalidArgumentError,
    NotAnOccurrenceError,
    RecurrenceError,
    SeriesNotFoundError,
)
from revel_recurring.models import EventSeries, PendingExdate, RecurrenceRule
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import (
    create_recurring_series,
    delete_series,
    pause_series,
    update_series_recurrence,
)
from revel_recurring.services.propagation import update_template
from revel_recurring.validators import validate_rule
from tests.support.factories import FIRST_MONDAY, NOW, UTC, occurrences, weekly_series

pytestmark = pytest.mark.django_db

RULE: dict[str, Any] = {"frequency": "WEEKLY", "dtstart": FIRST_MONDAY, "timezone": "Europe/Vienna"}
FAR_EAST = dt.timezone(dt.timedelta(hours=20))  # a valid Python offset PostgreSQL refuses


def _errors(**rule: Any) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        validate_rule({**RULE, **rule})
    return caught.value.message_dict


def _create(*, rule: dict[str, Any] | None = None, **options: Any) -> EventSeries:
    values: dict[str, Any] = {
        "rule_data": {**RULE, **(rule or {})},
        "template_data": {"title": "Yoga"},
        "name": "Yoga",
        "now": NOW,
        **options,
    }
    return create_recurring_series(**values)


@pytest.mark.parametrize(
    "dtstart",
    [
        dt.datetime(1, 1, 1, tzinfo=UTC),
        dt.datetime(9999, 12, 31, 23, tzinfo=ZoneInfo("Asia/Tokyo")),
        dt.datetime(9999, 12, 31, 23, tzinfo=UTC),
    ],
)
def test_dtstart_at_the_ends_of_the_calendar_is_refused_with_the_other_errors(
    dtstart: dt.datetime,
) -> None:
    errors = _errors(dtstart=dtstart, interval=0, timezone="America/New_York")
    assert "between" in errors["dtstart"][0]
    assert "interval" in errors  # not hidden behind a crash


def test_until_beyond_the_supported_range_is_refused() -> None:
    assert "between" in _errors(until=dt.datetime(9999, 12, 31, tzinfo=UTC))["until"][0]


def test_update_to_a_year_one_dtstart_is_a_validation_error() -> None:
    series = weekly_series()
    with pytest.raises(ValidationError) as caught:
        update_series_recurrence(
            series, rule_changes={"dtstart": dt.datetime(1, 1, 1, tzinfo=UTC)}, now=NOW
        )
    assert set(caught.value.message_dict) == {"dtstart"}


@pytest.mark.parametrize("field", ["interval", "count"])
def test_values_beyond_the_integer_column_are_refused_by_the_service(field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        _create(rule={field: 2**31})
    assert list(caught.value.message_dict) == [field]
    assert not EventSeries.objects.exists()


def test_count_is_bounded_and_the_message_says_by_what() -> None:
    message = _errors(count=10_001)["count"][0]
    assert "10000" in message.replace(",", "")


def test_offsets_beyond_what_the_database_stores_are_saved_as_the_same_instant() -> None:
    start = FIRST_MONDAY.astimezone(FAR_EAST)
    series = _create(
        rule={"dtstart": start, "until": start + dt.timedelta(weeks=3)},
        template_data={"title": "Yoga", "ends_at": start + dt.timedelta(hours=1)},
    )
    rule = RecurrenceRule.objects.get(pk=series.recurrence_rule_id)
    assert rule.dtstart == FIRST_MONDAY
    assert len(occurrences(series)) == 4
    update_series_recurrence(
        series, rule_changes={"dtstart": start + dt.timedelta(days=1)}, now=NOW
    )
    assert RecurrenceRule.objects.get(pk=rule.pk).dtstart == FIRST_MONDAY + dt.timedelta(days=1)


@pytest.mark.parametrize("field", ["name", "description"])
def test_nul_characters_in_the_series_are_refused(field: str) -> None:
    options: dict[str, Any] = {"name": "Yoga", "description": "", field: "Yo\x00ga"}
    with pytest.raises(ValidationError) as caught:
        _create(**options)
    assert list(caught.value.message_dict) == [field]
    assert not EventSeries.objects.exists()


def test_nul_characters_in_template_fields_are_refused() -> None:
    with pytest.raises(ValidationError) as caught:
        _create(template_data={"title": "Yo\x00ga"})
    assert list(caught.value.message_dict) == ["title"]


def test_nul_characters_in_a_propagated_field_are_refused() -> None:
    series = weekly_series()
    with pytest.raises(ValidationError) as caught:
        update_template(series, {"venue": "Hall\x00 1"}, propagate="all_future", now=NOW)
    assert list(caught.value.message_dict) == ["venue"]


def test_rrule_string_pads_years_before_1000() -> None:
    spec = rules.RuleSpec(
        frequency=rules.Frequency.DAILY,
        dtstart=dt.datetime(999, 6, 1, 11, 47, 4, tzinfo=UTC),
        timezone="UTC",
        until=dt.datetime(999, 6, 3, tzinfo=UTC),
    )
    assert rules.to_rrule_string(spec) == (
        "DTSTART;TZID=UTC:09990601T114704\nRRULE:FREQ=DAILY;UNTIL=09990603T000000Z"
    )


@pytest.mark.parametrize(
    "name", ["right/Europe/Vienna", "posix/Europe/Vienna", "posixrules", "localtime", "Factory"]
)
def test_zone_keys_that_are_not_iana_names_are_refused(name: str) -> None:
    assert "Unknown time zone" in _errors(timezone=name)["timezone"][0]


@pytest.mark.parametrize("name", ["UTC", "Etc/GMT+5", "US/Eastern", "America/Argentina/Salta"])
def test_iana_names_and_their_links_are_accepted(name: str) -> None:
    validate_rule({**RULE, "timezone": name})


def test_services_on_a_series_deleted_meanwhile_raise_an_app_error() -> None:
    series = weekly_series()
    stale = EventSeries.objects.get(pk=series.pk)
    delete_series(series)
    calls = [
        lambda: pause_series(stale, now=NOW),
        lambda: update_template(stale, {"venue": "Hall"}, now=NOW),
        lambda: cancel_occurrence(stale, FIRST_MONDAY, now=NOW),
        lambda: update_series_recurrence(stale, rule_changes={"interval": 2}, now=NOW),
    ]
    for call in calls:
        with pytest.raises(SeriesNotFoundError) as caught:
            call()
        assert isinstance(caught.value, RecurrenceError)
        assert isinstance(caught.value, ObjectDoesNotExist)
        assert "no longer exists" in str(caught.value)
    assert generate_series_events(stale, now=NOW) == []


def test_host_deleting_an_occurrence_of_a_deleted_series_is_quiet(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = weekly_series()
    orphan = occurrences(series)[0]
    delete_series(series)
    with django_capture_on_commit_callbacks(execute=True):
        orphan.delete()
    assert not PendingExdate.objects.exists()


@pytest.mark.parametrize("value", ["2026-03-02T09:00:00Z", dt.date(2026, 3, 2), 1772442000])
def test_cancel_and_restore_refuse_what_is_not_a_datetime(value: Any) -> None:
    series = weekly_series()
    for service in (cancel_occurrence, restore_occurrence):
        with pytest.raises(NotAnOccurrenceError, match="aware datetime"):
            service(series, value, now=NOW)


def test_generate_refuses_an_until_that_is_not_a_datetime() -> None:
    series = weekly_series(generate=False)
    with pytest.raises(GenerationWindowError, match="'until' must be a datetime"):
        generate_series_events(series, until="2026-04-01", now=NOW)  # type: ignore[arg-type]


def test_a_naive_now_is_an_app_error_everywhere() -> None:
    series = weekly_series(generate=False)
    naive = NOW.replace(tzinfo=None)
    calls = [
        lambda: generate_series_events(series, now=naive),
        lambda: pause_series(series, now=naive),
        lambda: cancel_occurrence(series, FIRST_MONDAY, now=naive),
        lambda: update_series_recurrence(series, rule_changes={"interval": 2}, now=naive),
        lambda: _create(now=naive),
    ]
    for call in calls:
        with pytest.raises(InvalidArgumentError, match="'now' must be an aware datetime"):
            call()


def test_dtstart_with_microseconds_and_until_a_second_later_has_one_occurrence() -> None:
    start = FIRST_MONDAY.replace(microsecond=500_000)
    validate_rule({**RULE, "dtstart": start, "until": start + dt.timedelta(seconds=1)})
    series = _create(rule={"dtstart": start, "until": start + dt.timedelta(seconds=1)})
    assert [e.starts_at for e in occurrences(series)] == [FIRST_MONDAY.replace(microsecond=0)]


def test_until_before_the_whole_second_of_dtstart_names_until() -> None:
    start = FIRST_MONDAY.replace(microsecond=500_000)
    message = _errors(dtstart=start, until=FIRST_MONDAY - dt.timedelta(seconds=1))["until"][0]
    assert "later than the start" in message


@pytest.mark.parametrize("value", ["12", None, 1.0, True])
def test_generate_refuses_a_series_that_is_neither_a_series_nor_a_key(value: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="EventSeries or its primary key"):
        generate_series_events(value, now=NOW)


def test_a_non_boolean_auto_publish_is_keyed_by_its_field() -> None:
    series = weekly_series()
    with pytest.raises(ValidationError) as caught:
        update_series_recurrence(series, auto_publish="yes", now=NOW)  # type: ignore[arg-type]
    assert list(caught.value.message_dict) == ["auto_publish"]
