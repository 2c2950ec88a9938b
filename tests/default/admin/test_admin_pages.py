"""The series admin's pages: changelist, change page, add page and saving them."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from revel_recurring.adapter import get_adapter
from revel_recurring.describe import describe_spec
from revel_recurring.instants import describe_instant
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.drift import detect_cadence_drift
from tests.hosts.testapp.models import Event
from tests.support.admin import (
    ADD,
    CHANGELIST,
    change_url,
    form_data,
    form_errors,
    generated_series,
    mixed_series,
    save_confirmed,
    texts,
)
from tests.support.factories import UTC, VIENNA, make_series, occurrences

pytestmark = pytest.mark.django_db


def test_changelist_shows_rule_counts_and_the_beat_task(admin_client: Any) -> None:
    series = mixed_series(name="Yoga")

    response = admin_client.get(CHANGELIST)

    assert response.status_code == 200
    row = response.context["cl"].result_list[0]
    assert row.revel_upcoming == 7  # eight Mondays, one cancelled
    assert row.revel_drifted_count == 6
    page = response.content.decode()
    rule = series.recurrence_rule
    assert rule is not None
    assert describe_spec(rule.to_spec()) in page  # the rule that ended
    assert "Every week on Monday at 10:00 (Europe/Vienna)" in page
    assert "revel_recurring: generate all series" in page
    assert "/admin/django_celery_beat/periodictask/" in page
    assert "revel-beat-enabled" in page
    assert series.name in page


def test_changelist_filters_by_frequency_and_searches(admin_client: Any) -> None:
    make_series(name="Daily stretch", frequency="DAILY")
    make_series(name="Weekly yoga", weekdays=[0])

    daily = admin_client.get(CHANGELIST, {"recurrence_rule__frequency": "DAILY"})
    found = admin_client.get(CHANGELIST, {"q": "yoga"})

    assert [s.name for s in daily.context["cl"].result_list] == ["Daily stretch"]
    assert [s.name for s in found.context["cl"].result_list] == ["Weekly yoga"]


def test_changelist_queries_do_not_grow_with_the_number_of_series(admin_client: Any) -> None:
    def count_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert admin_client.get(CHANGELIST).status_code == 200
        return len(queries)

    mixed_series(name="A")
    few = count_queries()
    for name in ("B", "C", "D"):
        mixed_series(name=name)
    many = count_queries()

    assert few == many


def test_change_page_lists_upcoming_dates_with_badges_and_links(admin_client: Any) -> None:
    series = mixed_series()
    drifted = detect_cadence_drift(series)

    response = admin_client.get(change_url(series))

    assert response.status_code == 200
    rows = response.context["upcoming"]
    assert [row.cancelled for row in rows].count(True) == 1
    assert [row.modified for row in rows].count(True) == 1
    assert {row.event_id for row in rows if row.drifted} == set(drifted)
    page = response.content.decode()
    for badge in ("revel-badge-modified", "revel-badge-drifted", "revel-badge-cancelled"):
        assert badge in page
    first = rows[0]
    assert first.label == describe_instant(first.instant, "Europe/Vienna")
    assert first.label.startswith("Mon")
    assert first.label.endswith(" (Europe/Vienna)")
    assert f'href="/admin/testapp/event/{first.event_id}/change/"' in page
    rule = series.recurrence_rule
    assert rule is not None
    assert "RRULE:FREQ=WEEKLY;UNTIL=" in page
    assert rule.rrule_string.splitlines()[-1] in page
    (exdate,) = series.exdate_instants
    assert f"<span>{describe_instant(exdate, 'Europe/Vienna')}</span>" in page


def test_change_page_names_each_instant_one_way(admin_client: Any) -> None:
    # The state fields, the upcoming list and the slot picker once showed the same
    # instant as "2026-03-02 10:00 (Europe/Vienna)", "Mon 2 Mar 2026 10:00 CET" and
    # (in messages) "Mon 2 Mar 2026 10:00 (Europe/Vienna)".
    series = generated_series()
    cancel_occurrence(series, occurrences(series)[2].starts_at)
    series.refresh_from_db()
    (exdate,) = series.exdate_instants
    assert series.last_generated_until is not None
    assert series.next_due_at is not None

    response = admin_client.get(change_url(series))

    page = response.content.decode()
    for instant in (series.last_generated_until, series.next_due_at, exdate):
        assert describe_instant(instant, "Europe/Vienna") in page
    rows = response.context["upcoming"]
    assert [row.label for row in rows] == [
        describe_instant(row.instant, "Europe/Vienna") for row in rows
    ]
    slots = response.context["free_slots"]
    assert slots
    assert all(label.endswith(" (Europe/Vienna)") for _, label in slots)
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", page) is None
    assert re.search(r"\d\d:\d\d CES?T\b", page) is None


def test_change_page_queries_do_not_grow_with_the_number_of_occurrences(
    admin_client: Any,
) -> None:
    def count_queries(series: EventSeries) -> int:
        with CaptureQueriesContext(connection) as queries:
            assert admin_client.get(change_url(series)).status_code == 200
        return len(queries)

    small = mixed_series(name="Small", window_weeks=3)
    large = mixed_series(name="Large", window_weeks=20)
    assert len(occurrences(large)) > 3 * len(occurrences(small))

    assert count_queries(small) == count_queries(large)


def test_add_page_renders_with_the_rule_fields(admin_client: Any) -> None:
    response = admin_client.get(ADD)

    assert response.status_code == 200
    for field in ("frequency", "weekdays", "dtstart_0", "timezone", "template_source"):
        assert f'name="{field}"' in response.content.decode()


def test_add_creates_the_series_from_an_event_and_generates(admin_client: Any) -> None:
    source = Event.objects.create(
        title="Salsa", venue="Hall", starts_at=dt.datetime(2026, 1, 5, 19, tzinfo=UTC)
    )
    data = {
        "name": "Salsa",
        "is_active": "on",
        "generation_window_weeks": 4,
        "template_source": source.pk,
        "frequency": "WEEKLY",
        "interval": 1,
        "weekdays": ["2"],
        "dtstart_0": "2026-01-07",
        "dtstart_1": "19:30",
        "timezone": "America/New_York",
    }

    response = admin_client.post(ADD, data, follow=True)

    series = EventSeries.objects.get(name="Salsa")
    assert response.status_code == 200
    assert "4 occurrences generated for Salsa." in texts(response)
    template = series.get_template()
    assert (template.title, template.venue, template.state) == ("Salsa", "Hall", "planned")
    rule = series.recurrence_rule
    assert rule is not None
    assert rule.dtstart == dt.datetime(2026, 1, 8, 0, 30, tzinfo=UTC)  # 19:30 in New York
    assert len(occurrences(series)) == 4
    source.refresh_from_db()
    assert source.series_id is None


def test_add_from_an_event_on_a_slot_adopts_it_and_says_so(admin_client: Any) -> None:
    local = (timezone.now() + dt.timedelta(days=7)).astimezone(VIENNA)
    first = local.replace(hour=9, minute=0, second=0, microsecond=0)
    source = Event.objects.create(
        title="Park run", venue="Park", starts_at=first, state=Event.RECURRING_STATUS_OPEN
    )
    data = {
        "name": "Park run",
        "is_active": "on",
        "generation_window_weeks": 3,
        "template_source": source.pk,
        "frequency": "WEEKLY",
        "interval": 1,
        "weekdays": [str(first.weekday())],
        "dtstart_0": first.date().isoformat(),
        "dtstart_1": "09:00",
        "timezone": "Europe/Vienna",
    }

    response = admin_client.post(ADD, data, follow=True)

    series = EventSeries.objects.get(name="Park run")
    shown = texts(response)
    assert any("is now the first occurrence of Park run" in text for text in shown), shown
    rows = occurrences(series)
    assert rows[0].pk == source.pk
    assert len({e.starts_at for e in rows}) == len(rows)
    # One or two more dates fit the three weeks, depending on the time of day
    # the test runs: the message is singular for one.
    generated = len(rows) - 1
    noun = "occurrence" if generated == 1 else "occurrences"
    assert f"{generated} {noun} generated for Park run." in shown


def test_saving_a_new_cadence_moves_the_dates_with_their_exdates(admin_client: Any) -> None:
    series = generated_series()
    url = change_url(series)
    admin_client.get(url)
    # A cancellation lands between the organiser opening the form and saving it.
    called_off = occurrences(series)[2].starts_at
    cancel_occurrence(series, called_off)
    exdates = EventSeries.objects.get(pk=series.pk).exdates
    # On Thursdays the cancelled Monday stays where it is, cancelled (a cancellation
    # says nothing of another weekday): its week's Thursday is a new date.
    wall = called_off.astimezone(VIENNA).replace(tzinfo=None) + dt.timedelta(days=3)
    its_thursday = wall.replace(tzinfo=VIENNA).astimezone(UTC)

    mondays = [event.pk for event in occurrences(series)]

    # The plan page comes between; the organiser confirms it as shown.
    response = save_confirmed(
        admin_client, url, form_data(series, weekdays=["3"], name="Thursday yoga")
    )

    assert response.status_code == 302, response.context["adminform"].form.errors
    series.refresh_from_db()
    assert series.name == "Thursday yoga"
    assert series.exdates == exdates
    # Each open Monday moved to its week's Thursday: the same rows, nothing doubled.
    after = {e.pk: e for e in occurrences(series)}
    open_mondays = [pk for pk in mondays if after[pk].starts_at != called_off]
    assert {after[pk].starts_at.astimezone(VIENNA).weekday() for pk in open_mondays} == {3}
    (new,) = [e for e in after.values() if e.pk not in mondays]
    assert new.starts_at == its_thursday
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.weekdays == [3]
    assert "BYDAY=TH" in series.recurrence_rule.rrule_string


def test_saving_only_the_name_keeps_the_cursor(admin_client: Any) -> None:
    series = generated_series()
    cursor = series.last_generated_until

    admin_client.post(change_url(series), form_data(series, name="Renamed"))

    series.refresh_from_db()
    assert (series.name, series.last_generated_until) == ("Renamed", cursor)


def test_unticking_active_pauses_through_the_service(admin_client: Any) -> None:
    series = generated_series()

    admin_client.post(change_url(series), form_data(series, is_active=""))

    series.refresh_from_db()
    assert not series.is_active


@pytest.mark.parametrize(
    ("changes", "field", "fragment"),
    [
        ({"frequency": "DAILY", "weekdays": ["0"]}, "weekdays", "A daily rule does not use"),
        (
            {"frequency": "MONTHLY", "weekdays": []},
            "monthly_type",
            "Choose whether the monthly rule is by day of month or by weekday.",
        ),
        (
            {"count": 5, "until_0": "2027-01-01", "until_1": "10:00"},
            "until",
            "Give an end or a number of dates, not both.",
        ),
        ({"interval": 0}, "interval", "whole number from 1"),
        ({"timezone": "Mars/Olympus"}, "timezone", "Unknown time zone"),
        ({"generation_window_weeks": 99}, "generation_window_weeks", "52"),
    ],
)
def test_invalid_rule_input_is_reported_on_its_field(
    admin_client: Any, changes: dict[str, Any], field: str, fragment: str
) -> None:
    series = generated_series()
    rule_before = series.recurrence_rule.rrule_string if series.recurrence_rule else ""

    response = admin_client.post(change_url(series), form_data(series, **changes))

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert fragment in " ".join(errors.get(field, [])), errors
    shown = " ".join(message for messages in errors.values() for message in messages)
    assert not CODE_SPEAK.findall(shown), shown
    series.refresh_from_db()
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.rrule_string == rule_before


# Field names and API values an organiser never sees on the page.
CODE_SPEAK = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[A-Z]{2,}_[A-Z_]+\b|dtstart|'until'|'count'")


def test_the_forms_speak_of_the_rule_not_of_its_fields(admin_client: Any) -> None:
    series = generated_series()
    for url in (ADD, change_url(series)):
        form = admin_client.get(url).context["adminform"].form
        words = [
            str(text)
            for field in form.fields.values()
            for text in (field.label, field.help_text)
            if text
        ]
        words += [str(label) for _value, label in form.fields["monthly_type"].choices]
        assert not CODE_SPEAK.findall(" ".join(words)), words
        assert "Nth" not in " ".join(words)


def test_a_change_the_service_refuses_is_an_error_on_the_form_not_a_500(
    admin_client: Any, settings: Any
) -> None:
    # The refusal rolls back to the form's savepoint: the admin's transaction stays
    # usable, and nothing (no log entry either) is written.
    from django.contrib.admin.models import LogEntry

    series = generated_series(name="Lecture")
    before = (series.generation_window_weeks, len(occurrences(series)))
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 1  # any new occurrence is too large

    response = save_confirmed(
        admin_client,
        change_url(series),
        form_data(series, generation_window_weeks=20, name="Renamed"),
    )

    assert response.status_code == 200
    errors = form_errors(response)
    assert list(errors) == ["__all__"]
    assert "REVEL_RECURRING_MAX_GENERATION_BYTES" in errors["__all__"][0]
    series.refresh_from_db()
    assert (series.generation_window_weeks, len(occurrences(series))) == before
    assert series.name == "Lecture"
    assert not LogEntry.objects.exists()


def test_saving_never_writes_exdates_or_a_cursor_it_did_not_reset(admin_client: Any) -> None:
    # A bare save() would write every column, undoing a cancellation or generation
    # run that committed while the organiser's request was between read and write.
    series = generated_series()
    cancel_occurrence(series, occurrences(series)[0].starts_at)

    with CaptureQueriesContext(connection) as queries:
        response = admin_client.post(change_url(series), form_data(series, name="Renamed"))

    assert response.status_code == 302
    table = EventSeries._meta.db_table
    writes = [q["sql"] for q in queries if q["sql"].startswith("UPDATE") and table in q["sql"]]
    assert writes
    assert not [sql for sql in writes if "exdates" in sql or "last_generated_until" in sql]


def test_add_page_offers_no_template_source_without_the_add_permission(
    client: Any, django_user_model: Any
) -> None:
    from django.contrib.auth.models import Permission

    Event.objects.create(title="Salsa", starts_at=dt.datetime(2026, 1, 5, 19, tzinfo=UTC))
    viewer = django_user_model.objects.create_user("viewer", is_staff=True)
    viewer.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_eventseries", "view_eventseries"])
    )
    client.force_login(viewer)
    allowed = list(client.get(ADD).context["adminform"].form.fields["template_source"].queryset)
    viewer.user_permissions.remove(*Permission.objects.filter(codename="add_eventseries"))

    assert [e.title for e in allowed] == ["Salsa"]
    assert get_adapter().get_template_sources(viewer).count() == 0
