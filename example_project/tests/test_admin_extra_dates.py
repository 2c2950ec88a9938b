"""The admin's extra dates on the example site: organisation scopes and sold tickets.

Staff of the organisation add a date to a Tuesday run and cannot remove it once
tickets are sold for it. Staff of another organisation get a 404 (the series is
not theirs to see), a member of the organisation a 403 (seen, not changed).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from example_project.events.models import Event, Organization, TicketTier
from example_project.tests.conftest import MakeTemplate
from example_project.tests.helpers import generated_from_now, member_of, staff_of
from revel_recurring import rules
from revel_recurring.models import EventSeries

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


def url(series: EventSeries, suffix: str) -> str:
    return f"{CHANGELIST}{series.pk}/{suffix}/"


@pytest.fixture
def run(make_template: MakeTemplate) -> EventSeries:
    """A Tuesday run generated from the admin's clock (16 weeks ahead)."""
    series = generated_from_now(make_template().series)
    return series


def next_wednesday(series: EventSeries) -> dt.datetime:
    """The day after the run's second Tuesday, at 19:00 on the rule's clock."""
    zone = zoneinfo.ZoneInfo(series.recurrence_rule.timezone)
    second = Event.objects.filter(series=series, is_template=False).order_by("start")[1]
    day = second.start.astimezone(zone).date() + dt.timedelta(days=1)
    return dt.datetime.combine(day, dt.time(19, 0), tzinfo=zone)


def posted(local: dt.datetime) -> dict[str, str]:
    return {"when_0": f"{local:%Y-%m-%d}", "when_1": f"{local:%H:%M}"}


def texts(response: Any) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_staff_add_a_date_and_cannot_remove_it_once_tickets_are_sold(
    client: Client, django_user_model: Any, organization: Organization, run: EventSeries
) -> None:
    client.force_login(staff_of(django_user_model, organization, "staff"))
    when = next_wednesday(run)

    added = client.post(url(run, "add-date"), posted(when), follow=True)

    assert any(text.endswith("its occurrence was created.") for text in texts(added)), texts(added)
    extra = Event.objects.get(series=run, start=when)
    assert [row.event_id for row in added.context["upcoming"] if row.extra] == [extra.pk]
    TicketTier.objects.filter(event=extra).update(quantity_sold=2)
    refused = client.post(
        url(run, "remove-date"), {"instant": rules.format_instant(when)}, follow=True
    )
    assert any("has bookings; its extra date was not removed." in t for t in texts(refused))
    run.refresh_from_db()
    assert run.extra_date_instants == {rules.to_utc(when)}


def test_staff_of_another_organisation_get_404_and_members_403(
    client: Client, django_user_model: Any, organization: Organization, run: EventSeries
) -> None:
    when = next_wednesday(run)
    other = Organization.objects.create(
        name="Swimmers", slug="swimmers", owner=django_user_model.objects.create_user("o2")
    )
    client.force_login(staff_of(django_user_model, other, "swim-staff"))

    assert client.post(url(run, "add-date"), posted(when)).status_code == 404
    assert (
        client.post(url(run, "remove-date"), {"instant": rules.format_instant(when)}).status_code
        == 404
    )

    member = member_of(django_user_model, organization, "member")
    client.force_login(member)
    page = client.get(url(run, "change"))
    assert page.status_code == 200
    assert 'id="revel-add-date"' not in page.content.decode()
    assert client.post(url(run, "add-date"), posted(when)).status_code == 403
    run.refresh_from_db()
    assert run.extra_dates == []
