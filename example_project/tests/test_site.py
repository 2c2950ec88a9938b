from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from example_project.events.models import Event

pytestmark = pytest.mark.django_db


def test_models_match_migrations() -> None:
    call_command("makemigrations", "events", "--check", "--dry-run", verbosity=0)


def test_series_pages_list_the_materialized_dates(client: Client) -> None:
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=StringIO())

    listing = client.get("/")
    page = client.get("/series/tuesday-evening-run/")

    assert listing.status_code == 200
    assert b"Tuesday Evening Run" in listing.content
    assert page.status_code == 200
    assert page.content.count(b"18:30") == 8


def test_admin_pages_render(admin_client: Client) -> None:
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=StringIO())

    template = Event.objects.get(is_template=True)
    urls = [
        "/admin/events/event/",
        "/admin/events/event/add/",
        f"/admin/events/event/{template.pk}/change/",
        f"/admin/events/organization/{template.organization_id}/change/",
        "/admin/events/tickettier/",
        "/admin/events/notificationpreference/add/",
        "/admin/events/digestrecord/",
    ]
    for url in urls:
        assert admin_client.get(url).status_code == 200, url
