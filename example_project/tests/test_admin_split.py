"""The admin's split on the example site: organisation scopes and sold tickets.

Staff of the organisation split a Tuesday run at its third date and move it to
Thursdays; the run with tickets sold moves with its tiers and stays as drift.
Staff of another organisation get a 404 (the series is not theirs to see), a
member of the organisation a 403 (seen, not changed).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from example_project.events.models import Event, Organization, TicketTier
from example_project.tests.conftest import MakeTemplate
from example_project.tests.helpers import generated_from_now, member_of, staff_of
from revel_recurring import rules
from revel_recurring.models import EventSeries
from tests.support.forms import confirm_split, split_data, split_url

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


@pytest.fixture
def runs(make_template: MakeTemplate) -> tuple[EventSeries, list[Event]]:
    """Tuesday runs generated from the admin's clock (16 weeks ahead); the fourth sold."""
    series = generated_from_now(make_template().series)
    rows = list(Event.objects.filter(series=series, is_template=False).order_by("start"))
    assert len(rows) >= 5
    TicketTier.objects.filter(event=rows[3]).update(quantity_sold=3)
    return series, rows


def test_staff_split_the_run_and_the_sold_date_moves_with_its_tickets(
    client: Client,
    django_user_model: Any,
    organization: Organization,
    runs: tuple[EventSeries, list[Event]],
) -> None:
    series, rows = runs
    client.force_login(staff_of(django_user_model, organization, "staff"))
    at = rules.to_utc(rows[2].start)

    form = client.get(split_url(series, at))
    assert form.context["template_form"]["address"].value() == "Freudenau 254, 1020 Wien"
    shown = client.post(
        split_url(series),
        split_data(series, at, template={"capacity": 40}, weekdays=["3"], name="Thursday run"),
    )
    assert [row.id for row in shown.context["plan"].booked_drift] == [rows[3].pk]
    assert "booked (3 bookings)" in shown.content.decode()

    response = confirm_split(client, shown, follow=True)

    continuation = EventSeries.objects.get(split_from=series)
    assert response.redirect_chain[-1][0] == f"{CHANGELIST}{continuation.pk}/change/"
    sold = Event.objects.get(pk=rows[3].pk)
    assert (sold.series_id, sold.status) == (continuation.pk, rows[3].status)
    assert TicketTier.objects.get(event=sold).quantity_sold == 3
    template = continuation.get_template()
    assert template is not None
    assert template.capacity == 40
    messages = [str(message) for message in get_messages(response.wsgi_request)]
    # The sold Tuesday went across with its tickets and stays where it is (unticked).
    assert sold.start == rows[3].start
    assert any("1 booked date kept where it was (left unticked)" in text for text in messages), (
        messages
    )


def test_staff_of_another_organisation_get_404_and_members_403(
    client: Client,
    django_user_model: Any,
    organization: Organization,
    runs: tuple[EventSeries, list[Event]],
) -> None:
    series, rows = runs
    at = rules.to_utc(rows[2].start)
    other = Organization.objects.create(
        name="Swimmers", slug="swimmers", owner=django_user_model.objects.create_user("o2")
    )
    client.force_login(staff_of(django_user_model, other, "swim-staff"))

    assert client.get(split_url(series, at)).status_code == 404
    assert client.post(split_url(series), split_data(series, at)).status_code == 404

    member = member_of(django_user_model, organization, "member")
    client.force_login(member)
    page = client.get(f"{CHANGELIST}{series.pk}/change/")
    assert page.status_code == 200
    assert "Change this and following…" not in page.content.decode()
    assert client.get(split_url(series, at)).status_code == 403
    assert client.post(split_url(series), split_data(series, at)).status_code == 403
    assert not EventSeries.objects.filter(split_from=series).exists()
