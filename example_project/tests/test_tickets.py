"""Named tickets: who is booked on each date (``people_booked_among``), and how they count.

Each ``Ticket`` is one of its tier's ``quantity_sold`` places; places sold without
one are counted and name nobody.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.test import Client

from example_project.events.models import Event, Organization, Ticket, TicketTier
from revel_recurring.people import BookedPerson
from revel_recurring.services.editing import update_series
from tests.support.people import BookPerson

from .helpers import tuesday_run

pytestmark = pytest.mark.django_db


def dates(organization: Organization, now: dt.datetime) -> list[Event]:
    series = tuesday_run(organization, "evening-run", Event.Visibility.PUBLIC, now=now)
    return list(series.occurrences().order_by("start"))


def test_people_booked_among_names_each_dates_ticket_holders_in_one_query(
    organization: Organization,
    now: dt.datetime,
    book_person: BookPerson,
    django_assert_num_queries: Any,
) -> None:
    rows = dates(organization, now)
    maria = book_person(rows[1], "maria@example.com", name="Maria", language="de")
    fiona = book_person(rows[1], "fiona@example.com", timezone="Europe/London")
    jonas = book_person(rows[5], "jonas@example.org", language="en", timezone="America/New_York")

    with django_assert_num_queries(1):
        people = Event.people_booked_among(rows)

    assert people == {rows[1].pk: [maria, fiona], rows[5].pk: [jonas]}
    assert maria == BookedPerson("maria@example.com", "Maria", "de", "")


def test_places_sold_without_a_ticket_name_nobody(
    organization: Organization, now: dt.datetime
) -> None:
    rows = dates(organization, now)
    TicketTier.objects.create(event=rows[2], name="Door", quantity=10, quantity_sold=4)

    assert Event.booked_among(rows) == {rows[2].pk}
    assert Event.people_booked_among(rows) == {}


def test_two_tickets_of_one_address_name_the_person_once(
    organization: Organization, now: dt.datetime, book_person: BookPerson
) -> None:
    rows = dates(organization, now)
    maria = book_person(rows[0], "maria@example.com", name="Maria")
    book_person(rows[0], "Maria@Example.com", name="Maria again")

    assert Event.people_booked_among(rows) == {rows[0].pk: [maria]}
    assert Event.count_bookings_among(rows) == {rows[0].pk: 2}


def test_no_events_no_query(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        assert Event.people_booked_among([]) == {}


def test_a_ticket_is_one_of_its_tiers_places_sold(
    organization: Organization, now: dt.datetime
) -> None:
    rows = dates(organization, now)
    tier = TicketTier.objects.create(event=rows[3], name="Runner", quantity=2, quantity_sold=1)

    ticket = Ticket.objects.create(tier=tier, email="maria@example.com")
    tier.refresh_from_db()
    assert tier.quantity_sold == 2
    assert Event.count_bookings_among(rows) == {rows[3].pk: 2}

    with pytest.raises(IntegrityError):  # the tier is sold out: no ticket, no place
        Ticket.objects.create(tier=tier, email="fiona@example.com")
    assert list(Ticket.objects.values_list("email", flat=True)) == ["maria@example.com"]

    ticket.delete()
    tier.refresh_from_db()
    assert tier.quantity_sold == 1


def test_a_ticket_names_a_language_of_the_site_and_a_real_zone() -> None:
    tier = TicketTier(name="Runner", price=Decimal("5.00"), quantity=2)
    ticket = Ticket(tier=tier, email="maria@example.com", language="xx", timezone="Mars/Base")

    with pytest.raises(ValidationError) as invalid:
        ticket.clean()

    assert set(invalid.value.message_dict) == {"language", "timezone"}


def test_the_tier_admin_adds_a_ticket_holder_inline(
    admin_client: Client, organization: Organization, now: dt.datetime
) -> None:
    rows = dates(organization, now)
    tier = TicketTier.objects.create(event=rows[1], name="Runner", quantity=10, quantity_sold=2)
    url = f"/admin/events/tickettier/{tier.pk}/change/"
    page = admin_client.get(url)
    assert page.status_code == 200
    assert b'name="tickets-TOTAL_FORMS"' in page.content

    response = admin_client.post(
        url,
        {
            "event": rows[1].pk,
            "name": "Runner",
            "price": "0.00",
            "quantity": 10,
            "quantity_sold": 2,
            "tickets-TOTAL_FORMS": 1,
            "tickets-INITIAL_FORMS": 0,
            "tickets-0-email": "jonas@example.org",
            "tickets-0-language": "de",
            "tickets-0-timezone": "America/New_York",
        },
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    tier.refresh_from_db()
    assert tier.quantity_sold == 3
    assert Event.people_booked_among([rows[1]]) == {
        rows[1].pk: [BookedPerson("jonas@example.org", "", "de", "America/New_York")]
    }


def test_a_time_change_moves_a_sold_run_and_tells_its_ticket_holder_once(
    organization: Organization,
    now: dt.datetime,
    book_person: BookPerson,
    mailoutbox: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    """With the people told (the default), the sold run moves with its holder, who hears once."""
    rows = dates(organization, now)
    sold = rows[2]
    book_person(sold, "maria@example.com", name="Maria", language="de")
    old_start = sold.start
    rule = sold.series.recurrence_rule
    later = rule.dtstart + dt.timedelta(minutes=30)

    with django_capture_on_commit_callbacks(execute=True):
        update_series(sold.series, rule_changes={"dtstart": later}, now=now)

    sold.refresh_from_db()
    assert sold.start == old_start + dt.timedelta(minutes=30)
    assert [message.to for message in mailoutbox] == [["Maria <maria@example.com>"]]
    assert "verlegt auf" in mailoutbox[0].body
