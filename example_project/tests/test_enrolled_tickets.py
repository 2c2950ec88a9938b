"""The example's enrolment hooks: a ticket of each date's cheapest tier, in a handful of queries.

``Event.book_enrolled`` answers a whole batch with five queries, counts its tickets in
``quantity_sold`` and leaves a ticket the user holds already; ``release_enrolled``
takes back only the tickets it made.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from example_project.events.models import Event, Organization, Ticket, TicketTier
from revel_recurring.enrolled import BookingAnswer

from .helpers import tuesday_run

pytestmark = pytest.mark.django_db


def _dates(organization: Organization, now: dt.datetime) -> list[Event]:
    series = tuesday_run(organization, "evening-run", Event.Visibility.PUBLIC, now=now)
    return list(series.occurrences().order_by("start"))


def _sold(event: Event) -> list[int]:
    return list(
        TicketTier.objects.filter(event=event)
        .order_by("price")
        .values_list("quantity_sold", flat=True)
    )


def test_a_batch_is_booked_on_the_cheapest_tier_in_five_queries(
    organization: Organization, now: dt.datetime, django_assert_num_queries: Any
) -> None:
    rows = _dates(organization, now)[:4]
    for row in rows[:3]:
        TicketTier.objects.create(event=row, name="Late", price=Decimal(9), quantity=9)
        TicketTier.objects.create(event=row, name="Early", price=Decimal(5), quantity=2)
    TicketTier.objects.filter(event=rows[2], name="Early").update(quantity_sold=2)
    anna, ben = (
        get_user_model().objects.create_user(name, f"{name}@example.com", first_name=name.title())
        for name in ("anna", "ben")
    )
    Ticket.objects.create(
        tier=TicketTier.objects.get(event=rows[1], name="Late"), email="a@x.org", user=ben
    )
    pairs = [(row, str(user.pk)) for row in rows for user in (anna, ben)]

    with django_assert_num_queries(5):
        answers = Event.book_enrolled(pairs)

    booked, held = BookingAnswer.booked(), BookingAnswer.held()
    sold_out, no_sale = (
        BookingAnswer.refused("sold out"),
        BookingAnswer.refused("no tickets on sale"),
    )
    assert [answers[(row.pk, str(user.pk))] for row in rows for user in (anna, ben)] == [
        *(booked, booked),
        *(booked, held),
        *(sold_out, sold_out),
        *(no_sale, no_sale),
    ]
    assert [_sold(row) for row in rows] == [[2, 0], [1, 1], [2, 0], []]
    ticket = Ticket.objects.get(tier__event=rows[0], user=anna)
    assert (ticket.tier.name, ticket.email, ticket.name, ticket.enrolled) == (
        "Early",
        "anna@example.com",
        "Anna",
        True,
    )

    # Releasing takes back the enrolment's tickets only: ben keeps the one he bought.
    with django_assert_num_queries(3):
        Event.release_enrolled(
            [(rows[0], str(anna.pk)), (rows[1], str(ben.pk)), (rows[1], str(anna.pk))]
        )
    assert [_sold(row) for row in rows[:2]] == [[1, 0], [0, 1]]
    assert list(
        Ticket.objects.filter(tier__event__in=rows[:2]).values_list("tier__event", "user")
    ) == [
        (rows[0].pk, ben.pk),
        (rows[1].pk, ben.pk),
    ]
