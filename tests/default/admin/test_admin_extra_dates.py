"""The series page's extra dates: "Add a date" in the rule's zone, the list with its
*Remove* buttons, and the "extra date" mark of the upcoming list."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone
from django.utils.html import escape

from revel_recurring import rules
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.validators import EXTRA_DATES_MAX
from tests.hosts.testapp.models import Event, Seat
from tests.support.admin import change_url, generated_series, texts
from tests.support.factories import VIENNA, occurrences

pytestmark = pytest.mark.django_db


def wednesday(weeks: int = 1) -> dt.datetime:
    """A Wednesday ``weeks`` ahead at 18:30 in Vienna (the rule's Mondays are 10:00)."""
    today = timezone.now().astimezone(VIENNA).date()
    day = today + dt.timedelta(days=(2 - today.weekday()) % 7 or 7, weeks=weeks - 1)
    return dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA)


def posted(local: dt.datetime) -> dict[str, str]:
    """What "Add a date" posts for ``local``: its wall clock, date and time apart."""
    return {"when_0": f"{local:%Y-%m-%d}", "when_1": f"{local:%H:%M}"}


def label(local: dt.datetime) -> str:
    return f"{local:%a} {local.day} {local:%b %Y %H:%M} (Europe/Vienna)"


def errors(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"] if m.level_tag == "error"]


def form_errors(response: Any) -> list[str]:
    """The errors "Add a date" shows on its own form, where the page opens after it."""
    assert response.redirect_chain[-1][0].endswith("/change/#revel-add-date")
    assert [m for m in response.context["messages"] if m.level_tag == "error"] == []
    form = response.context["add_date_form"]
    page = response.content.decode()
    shown = [str(error) for errors in form.errors.values() for error in errors]
    assert all(escape(error) in page for error in shown)
    assert 'id="revel-add-date-errors"' in page
    return shown


def test_adding_a_date_in_the_window_creates_it_and_marks_it_in_the_upcoming_list(
    admin_client: Any,
) -> None:
    yoga = generated_series(name="Yoga")
    when = wednesday(2)

    response = admin_client.post(change_url(yoga, "add-date"), posted(when), follow=True)

    assert response.redirect_chain[-1][0] == change_url(yoga)
    assert f"{label(when)} added to Yoga; its occurrence was created." in texts(response)
    yoga.refresh_from_db()
    assert yoga.extra_date_instants == {rules.to_utc(when)}
    assert response.context["extra_dates"] == [(rules.format_instant(when), label(when))]
    marked = [row for row in response.context["upcoming"] if row.extra]
    assert [(row.instant, row.label) for row in marked] == [(rules.to_utc(when), label(when))]
    assert marked[0].event_id == Event.objects.get(series=yoga, starts_at=when).pk
    page = response.content.decode()
    assert page.count('class="revel-badge revel-badge-extra"') == 1
    assert page.count('class="button revel-remove-date"') == 1


def test_a_date_beyond_the_window_is_added_and_created_later(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga", window_weeks=2)
    when = wednesday(6)

    response = admin_client.post(change_url(yoga, "add-date"), posted(when), follow=True)

    assert (
        f"{label(when)} added to Yoga; its occurrence will be created when the generation "
        "window reaches it."
    ) in texts(response)
    assert not Event.objects.filter(series=yoga, starts_at=when).exists()
    assert [value for value, _ in response.context["extra_dates"]] == [rules.format_instant(when)]


def test_the_date_is_read_on_the_rules_clock_not_the_sites(
    admin_client: Any, settings: Any
) -> None:
    settings.TIME_ZONE = "America/New_York"
    yoga = generated_series(name="Yoga", window_weeks=2)
    summer = dt.datetime(timezone.now().year + 1, 7, 7, 18, 30, tzinfo=VIENNA)

    admin_client.post(change_url(yoga, "add-date"), posted(summer))

    yoga.refresh_from_db()
    assert yoga.extra_dates == [f"{summer.year}-07-07T16:30:00Z"]


@pytest.mark.parametrize(
    ("case", "fragment"),
    [
        ("past", "is in the past; add a date still to come."),
        ("rule", "is a date of the series' rule already."),
        ("twice", "is an extra date of this series already."),
    ],
)
def test_a_refused_date_is_an_error_on_its_form_keeping_what_was_typed(
    admin_client: Any, case: str, fragment: str
) -> None:
    yoga = generated_series(name="Yoga")
    when = {
        "past": wednesday(1) - dt.timedelta(weeks=2),
        "rule": occurrences(yoga)[2].starts_at.astimezone(VIENNA),
        "twice": wednesday(1),
    }[case]
    if case == "twice":
        add_extra_date(yoga, when)

    response = admin_client.post(change_url(yoga, "add-date"), posted(when), follow=True)

    assert response.status_code == 200
    assert form_errors(response) == [f"{label(when)} {fragment}"]
    page = response.content.decode()
    assert f'value="{when:%Y-%m-%d}"' in page
    assert f'value="{when:%H:%M}"' in page
    yoga.refresh_from_db()
    assert len(yoga.extra_dates) == (1 if case == "twice" else 0)
    # Shown once: the page after it has an empty form again.
    again = admin_client.get(change_url(yoga))
    assert again.context["add_date_form"].is_bound is False
    assert 'id="revel-add-date-errors"' not in again.content.decode()


@pytest.mark.parametrize(
    "data", [{"when_0": "", "when_1": ""}, {"when_0": "next wednesday", "when_1": "18:30"}]
)
def test_a_missing_or_unreadable_date_is_an_error_on_its_form(
    admin_client: Any, data: dict[str, str]
) -> None:
    yoga = generated_series(name="Yoga")

    response = admin_client.post(change_url(yoga, "add-date"), data, follow=True)

    assert response.status_code == 200
    assert len(form_errors(response)) == 1
    page = response.content.decode()
    assert all(f'value="{value}"' in page for value in data.values() if value)
    yoga.refresh_from_db()
    assert yoga.extra_dates == []


def test_removing_an_extra_date_not_generated_yet(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga", window_weeks=2)
    when = wednesday(6)
    add_extra_date(yoga, when)
    page = admin_client.get(change_url(yoga)).content.decode()
    assert f'<input type="hidden" name="instant" value="{rules.format_instant(when)}">' in page

    response = admin_client.post(
        change_url(yoga, "remove-date"), {"instant": rules.format_instant(when)}, follow=True
    )

    assert f"{label(when)} is no longer an extra date of Yoga." in texts(response)
    yoga.refresh_from_db()
    assert yoga.extra_dates == []
    assert response.context["extra_dates"] == []


def test_a_created_extra_date_is_refused_and_a_booked_one_named(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")
    free, booked = wednesday(1), wednesday(2)
    add_extra_date(yoga, free)
    event = add_extra_date(yoga, booked)
    Seat.objects.create(event=event, label="Paid", quantity=5, booked=1)

    unbooked = admin_client.post(
        change_url(yoga, "remove-date"), {"instant": rules.format_instant(free)}, follow=True
    )
    refused = admin_client.post(
        change_url(yoga, "remove-date"), {"instant": rules.format_instant(booked)}, follow=True
    )

    assert errors(unbooked) == [
        f"Yoga: {label(free)} has an occurrence; cancel or delete it before removing the "
        "extra date."
    ]
    assert errors(refused) == [
        f"Yoga: {label(booked)} of series 'Yoga' has bookings; its extra date was not removed."
    ]
    yoga.refresh_from_db()
    assert yoga.extra_date_instants == {rules.to_utc(free), rules.to_utc(booked)}


def test_removing_what_is_no_extra_date_is_an_error_message(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")
    slot = rules.format_instant(occurrences(yoga)[0].starts_at)

    response = admin_client.post(change_url(yoga, "remove-date"), {"instant": slot}, follow=True)

    assert response.status_code == 200
    assert errors(response)[0].endswith("is not an extra date of this series.")


def test_the_buttons_refuse_get_and_view_only_staff(client: Any, django_user_model: Any) -> None:
    yoga = generated_series(name="Yoga")
    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_eventseries"))
    client.force_login(viewer)

    page = client.get(change_url(yoga))
    added = client.post(change_url(yoga, "add-date"), posted(wednesday(1)))
    removed = client.post(
        change_url(yoga, "remove-date"), {"instant": rules.format_instant(wednesday(1))}
    )

    assert page.status_code == 200
    assert 'id="revel-add-date"' not in page.content.decode()
    assert (added.status_code, removed.status_code) == (403, 403)
    assert client.get(change_url(yoga, "add-date")).status_code == 405
    yoga.refresh_from_db()
    assert yoga.extra_dates == []


def test_an_extra_date_moved_by_hand_is_still_marked_by_its_slot(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")
    event = add_extra_date(yoga, wednesday(1))
    event.starts_at += dt.timedelta(hours=1)
    event.ends_at = event.starts_at + dt.timedelta(hours=1)
    event.is_modified = True
    event.save()

    rows = admin_client.get(change_url(yoga)).context["upcoming"]

    assert [(row.event_id, row.modified) for row in rows if row.extra] == [(event.pk, True)]


def test_a_series_at_the_extra_date_limit_refuses_one_more_on_the_form(
    admin_client: Any,
) -> None:
    yoga = generated_series(name="Yoga")
    first = wednesday(1)
    yoga.extra_dates = rules.normalize_exdates(
        [first + dt.timedelta(weeks=week) for week in range(EXTRA_DATES_MAX)]
    )
    yoga.save(update_fields=["extra_dates"])
    when = first + dt.timedelta(days=1)

    response = admin_client.post(change_url(yoga, "add-date"), posted(when), follow=True)

    (message,) = form_errors(response)
    assert f"at most {EXTRA_DATES_MAX} extra dates; this would give it 501" in message
    yoga.refresh_from_db()
    assert len(yoga.extra_dates) == EXTRA_DATES_MAX
    assert rules.to_utc(when) not in yoga.extra_date_instants
