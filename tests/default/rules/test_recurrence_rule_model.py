"""RecurrenceRule: rrule_string upkeep, clean(), to_rrule() and get_occurrences()."""

from __future__ import annotations

import datetime as dt

import pytest
from dateutil.rrule import rrule
from django.core.exceptions import ValidationError

from revel_recurring.models import RecurrenceRule
from tests.conftest import MakeRule
from tests.support.factories import UTC, VIENNA


def stored_rrule_string(rule: RecurrenceRule) -> str:
    return RecurrenceRule.objects.values_list("rrule_string", flat=True).get(pk=rule.pk)


@pytest.mark.django_db
def test_rrule_string_is_computed_on_create(make_rule: MakeRule) -> None:
    rule = make_rule(weekdays=[0, 3], count=8)
    assert stored_rrule_string(rule) == (
        "DTSTART;TZID=Europe/Vienna:20250317T100000\nRRULE:FREQ=WEEKLY;COUNT=8;BYDAY=MO,TH"
    )
    assert str(rule) == rule.rrule_string


@pytest.mark.django_db
def test_rrule_string_is_recomputed_on_save_with_update_fields(make_rule: MakeRule) -> None:
    rule = make_rule()
    rule.interval = 2
    rule.save(update_fields=["interval"])
    assert stored_rrule_string(rule) == (
        "DTSTART;TZID=Europe/Vienna:20250317T100000\nRRULE:FREQ=WEEKLY;INTERVAL=2"
    )


@pytest.mark.django_db
def test_rrule_string_follows_a_timezone_change(make_rule: MakeRule) -> None:
    rule = make_rule()
    rule.timezone = "America/New_York"
    rule.save(update_fields=["timezone"])
    # Same instant (09:00Z), now read on New York's wall clock.
    assert stored_rrule_string(rule).startswith("DTSTART;TZID=America/New_York:20250317T050000\n")


@pytest.mark.django_db
def test_rrule_string_is_recomputed_on_plain_save(make_rule: MakeRule) -> None:
    rule = make_rule()
    rule.until = dt.datetime(2025, 6, 30, 8, 0, tzinfo=UTC)
    rule.save()
    assert stored_rrule_string(rule).endswith("RRULE:FREQ=WEEKLY;UNTIL=20250630T080000Z")


@pytest.mark.django_db
def test_rrule_string_set_by_hand_is_overwritten(make_rule: MakeRule) -> None:
    rule = make_rule()
    rule.rrule_string = "RRULE:FREQ=HOURLY"
    rule.save()
    assert stored_rrule_string(rule).endswith("RRULE:FREQ=WEEKLY")


@pytest.mark.django_db
def test_save_refuses_an_invalid_rule(make_rule: MakeRule) -> None:
    rule = make_rule()
    rule.interval = 0
    with pytest.raises(ValidationError) as excinfo:
        rule.save(update_fields=["interval"])
    assert set(excinfo.value.message_dict) == {"interval"}
    rule.refresh_from_db()
    assert rule.interval == 1


@pytest.mark.parametrize(
    ("fields", "key"),
    [
        ({"interval": 0}, "interval"),
        ({"weekdays": [7]}, "weekdays"),
        ({"weekdays": [True]}, "weekdays"),
        ({"frequency": "MONTHLY"}, "monthly_type"),
        ({"frequency": "DAILY", "weekdays": [1]}, "weekdays"),
        ({"day_of_month": 3}, "day_of_month"),
        ({"count": 0}, "count"),
        ({"until": dt.datetime(2025, 3, 17, 9, 0, tzinfo=UTC)}, "until"),
        ({"timezone": "../etc/passwd"}, "timezone"),
        ({"dtstart": dt.datetime(2025, 3, 17, 10, 0)}, "dtstart"),
    ],
)
def test_clean_raises_error_keyed_by_field(
    make_rule: MakeRule, fields: dict[str, object], key: str
) -> None:
    rule = make_rule(save=False, **fields)
    with pytest.raises(ValidationError) as excinfo:
        rule.clean()
    assert set(excinfo.value.message_dict) == {key}


def test_full_clean_reports_the_rule_error_under_its_field(make_rule: MakeRule) -> None:
    rule = make_rule(save=False, weekdays=[0, 8])
    with pytest.raises(ValidationError) as excinfo:
        rule.full_clean()
    assert "weekdays" in excinfo.value.message_dict


def test_clean_accepts_a_valid_rule(make_rule: MakeRule) -> None:
    make_rule(save=False, frequency="MONTHLY", monthly_type="DAY_OF_MONTH", day_of_month=-1).clean()


def test_to_rrule_yields_wall_clock_times_in_the_rule_zone(make_rule: MakeRule) -> None:
    rule = make_rule(save=False, count=3)
    parsed = rule.to_rrule()
    assert isinstance(parsed, rrule)
    # Naive local times: 10:00 on both sides of the Mar 30 switch.
    assert list(parsed) == [
        dt.datetime(2025, 3, 17, 10, 0),
        dt.datetime(2025, 3, 24, 10, 0),
        dt.datetime(2025, 3, 31, 10, 0),
    ]


@pytest.mark.django_db
def test_get_occurrences_is_strictly_between(make_rule: MakeRule) -> None:
    rule = make_rule()
    mar_17, mar_24, mar_31 = (
        dt.datetime(2025, 3, 17, 9, 0, tzinfo=UTC),
        dt.datetime(2025, 3, 24, 9, 0, tzinfo=UTC),
        dt.datetime(2025, 3, 31, 8, 0, tzinfo=UTC),
    )
    assert rule.get_occurrences(mar_17, mar_31) == [mar_24]
    assert rule.get_occurrences(mar_17 - dt.timedelta(seconds=1), mar_31) == [mar_17, mar_24]
    assert rule.get_occurrences(mar_17, mar_31 + dt.timedelta(seconds=1)) == [mar_24, mar_31]
    assert rule.get_occurrences(mar_31, mar_17) == []


@pytest.mark.django_db
def test_get_occurrences_after_reload_uses_the_rule_zone(make_rule: MakeRule) -> None:
    make_rule()
    rule = RecurrenceRule.objects.get()  # dtstart comes back in UTC
    assert rule.dtstart.tzinfo is not VIENNA
    occurrences = rule.get_occurrences(
        dt.datetime(2025, 3, 20, tzinfo=UTC), dt.datetime(2025, 4, 10, tzinfo=UTC)
    )
    assert [o.astimezone(VIENNA).time() for o in occurrences] == [dt.time(10, 0)] * 3
    assert [o.hour for o in occurrences] == [9, 8, 8]


def test_get_occurrences_refuses_naive_bounds(make_rule: MakeRule) -> None:
    rule = make_rule(save=False)
    with pytest.raises(ValueError, match="aware"):
        rule.get_occurrences(dt.datetime(2025, 3, 1), dt.datetime(2025, 4, 1))


@pytest.mark.django_db
def test_sub_second_dtstart_is_saved_on_the_whole_second(make_rule: MakeRule) -> None:
    # dateutil drops the fraction (RFC 5545 times are whole seconds), so a rule that
    # kept it would have its first occurrence just *before* dtstart, and a generation
    # window starting at dtstart would skip that first occurrence.
    start = dt.datetime(2025, 3, 17, 10, 0, 0, 250_000, tzinfo=VIENNA)
    rule = make_rule(frequency="DAILY", dtstart=start)
    rule.refresh_from_db()
    assert rule.dtstart == dt.datetime(2025, 3, 17, 9, 0, tzinfo=UTC)
    first = rule.get_occurrences(
        rule.dtstart - dt.timedelta(days=1), rule.dtstart + dt.timedelta(days=1)
    )
    assert first == [rule.dtstart]


@pytest.mark.django_db
def test_sub_second_dtstart_is_truncated_with_update_fields_too(make_rule: MakeRule) -> None:
    rule = make_rule()
    rule.dtstart = dt.datetime(2025, 3, 18, 10, 0, 0, 999_999, tzinfo=VIENNA)
    rule.save(update_fields=["dtstart"])
    rule.refresh_from_db()
    assert rule.dtstart == dt.datetime(2025, 3, 18, 9, 0, tzinfo=UTC)
