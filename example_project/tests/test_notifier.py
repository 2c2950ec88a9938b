"""The example notifier's e-mail and in-app notifications, the page and admin showing them."""

from __future__ import annotations

import datetime as dt
import re
from io import StringIO
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client, override_settings
from django.urls import resolve

from example_project.events.models import DigestRecord, Event, Notification, Organization
from revel_recurring.services.generation import generate_series_events

from .conftest import VIENNA, MakeTemplate

pytestmark = pytest.mark.django_db


@pytest.fixture
def member(organization: Organization) -> User:
    user = User.objects.create_user(username="mia", email="mia@example.com", first_name="Mia")
    organization.memberships.create(user=user)
    return user


def generate(template: Event, now: dt.datetime, capture: Any, **options: Any) -> list[Event]:
    assert template.series is not None
    with capture(execute=True):
        return generate_series_events(template.series, now=now, **options)


def message_to(address: str) -> mail.EmailMessage:
    (message,) = [m for m in mail.outbox if m.to == [address]]
    return message


def test_subject_for_one_new_event(
    member: User,
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    template = make_template(name="Yoga")

    created = generate(template, now, django_capture_on_commit_callbacks, until=template.start)

    assert len(created) == 1
    assert message_to("mia@example.com").subject == "1 new event scheduled for Yoga"


def test_subject_for_eight_new_events(
    member: User,
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    template = make_template(name="Yoga")

    generate(template, now, django_capture_on_commit_callbacks)

    assert message_to("mia@example.com").subject == "8 new events scheduled for Yoga"


def test_dates_are_in_the_series_time_zone_across_dst(
    member: User,
    make_template: MakeTemplate,
    django_capture_on_commit_callbacks: Any,
    settings: Any,
) -> None:
    settings.TIME_ZONE = "Asia/Tokyo"  # neither the server's zone nor UTC may leak in
    template = make_template(name="Yoga")
    march = dt.datetime(2027, 3, 1, 9, 0, tzinfo=VIENNA)  # the window crosses 28 March

    generate(template, march, django_capture_on_commit_callbacks)

    body = message_to("mia@example.com").body
    dates = re.findall(r"^  (.+)$", body, flags=re.MULTILINE)
    # Each date names its zone, as the app names a date everywhere (describe_instant).
    assert dates == [
        "Tue 2 Mar 2027 18:30 (Europe/Vienna)",
        "Tue 9 Mar 2027 18:30 (Europe/Vienna)",
        "Tue 16 Mar 2027 18:30 (Europe/Vienna)",
        "Tue 23 Mar 2027 18:30 (Europe/Vienna)",
        "Tue 30 Mar 2027 18:30 (Europe/Vienna)",
        "Tue 6 Apr 2027 18:30 (Europe/Vienna)",
        "Tue 13 Apr 2027 18:30 (Europe/Vienna)",
        "Tue 20 Apr 2027 18:30 (Europe/Vienna)",
    ]
    assert "Your notifications: http://127.0.0.1:8000/notifications/" in body
    assert body.startswith('Hello Mia,\n\n8 new dates of "Yoga" are scheduled:')


def test_link_is_absolute_and_serves_the_series_page(
    member: User,
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
    client: Client,
    settings: Any,
) -> None:
    template = make_template(name="Yoga", visibility=Event.Visibility.PUBLIC)
    assert template.series is not None

    generate(template, now, django_capture_on_commit_callbacks)

    body = message_to("mia@example.com").body
    (link,) = re.findall(r"All dates and tickets: (\S+)", body)
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == settings.EXAMPLE_SITE_URL
    match = resolve(parts.path)
    assert (match.view_name, match.kwargs) == (
        "events:series_detail",
        {"slug": template.series.slug},
    )
    page = client.get(parts.path)
    assert page.status_code == 200
    assert b"Yoga" in page.content
    # One row per date in the table (the rule sentence above it names the time too,
    # and the later dates below it, not scheduled yet, are a list of their own).
    table = page.content.split(b"<table>")[1].split(b"</table>")[0]
    assert table.count(b"18:30") == 8
    assert Notification.objects.get(recipient=member).link == link


def test_one_message_per_recipient_and_nobody_sees_the_others(
    settings: Any,
    member: User,
    organization: Organization,
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    User.objects.filter(pk=organization.owner_id).update(email="owner@example.com")

    generate(make_template(), now, django_capture_on_commit_callbacks)

    assert sorted(m.to[0] for m in mail.outbox) == ["mia@example.com", "owner@example.com"]
    for message in mail.outbox:
        assert len(message.to) == 1
        assert message.cc == message.bcc == []
        assert message.from_email == settings.DEFAULT_FROM_EMAIL
        assert message.extra_headers["Auto-Submitted"] == "auto-generated"


def test_a_recipient_without_address_is_notified_in_app_only(
    member: User,
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    generate(make_template(), now, django_capture_on_commit_callbacks)

    # The fixture's owner has no e-mail address.
    assert sorted(n.recipient.username for n in Notification.objects.all()) == ["mia", "owner"]
    assert [m.to for m in mail.outbox] == [["mia@example.com"]]


def test_in_app_notification_carries_type_series_count_link_and_unread_flag(
    member: User,
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    template = make_template(name="Yoga")

    generate(template, now, django_capture_on_commit_callbacks)

    notification = Notification.objects.get(recipient=member)
    assert notification.notification_type == "SERIES_EVENTS_GENERATED"
    assert notification.series == template.series
    assert notification.occurrence_count == 8
    assert notification.link.endswith(f"/series/{template.series.slug}/")
    assert notification.is_read is False
    assert notification.digest.title == "8 new events scheduled for Yoga"


def test_notifications_page_needs_a_login(client: Client) -> None:
    response = client.get("/notifications/")

    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/notifications/"
    assert client.get("/accounts/login/").status_code == 200


def test_notifications_page_lists_only_the_users_own(
    member: User,
    organization: Organization,
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
    client: Client,
) -> None:
    generate(make_template(name="Yoga"), now, django_capture_on_commit_callbacks)
    other = make_template(name="Pilates", slug="pilates", visibility=Event.Visibility.STAFF_ONLY)
    generate(other, now, django_capture_on_commit_callbacks)
    client.force_login(member)

    page = client.get("/notifications/")

    assert page.status_code == 200
    assert b"8 new events scheduled for Yoga" in page.content
    assert b"Pilates" not in page.content  # a staff-only series: the owner's, not Mia's
    assert b"1 unread." in page.content


def test_mark_all_read_touches_only_the_users_own(
    member: User,
    organization: Organization,
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
    client: Client,
) -> None:
    generate(make_template(), now, django_capture_on_commit_callbacks)
    client.force_login(member)

    response = client.post("/notifications/")

    assert response.status_code == 302
    assert response["Location"] == "/notifications/"
    assert Notification.objects.get(recipient=member).is_read is True
    assert Notification.objects.get(recipient=organization.owner).is_read is False
    assert b"0 unread." in client.get("/notifications/").content


def test_admin_shows_notifications_and_digests(
    member: User,
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
    admin_client: Client,
) -> None:
    generate(make_template(name="Yoga"), now, django_capture_on_commit_callbacks)
    record = DigestRecord.objects.get()
    notification = Notification.objects.get(recipient=member)

    for url in (
        "/admin/events/notification/",
        f"/admin/events/notification/{notification.pk}/change/",
        "/admin/events/digestrecord/",
        f"/admin/events/digestrecord/{record.pk}/change/",
        "/admin/events/seriesfollow/",
        "/admin/events/seriesfollow/add/",
    ):
        assert admin_client.get(url).status_code == 200, url
    listing = admin_client.get("/admin/events/notification/")
    assert b"8 new events scheduled for Yoga" in listing.content
    admin_client.post(
        "/admin/events/notification/",
        {"action": "mark_read", "_selected_action": [notification.pk]},
    )
    notification.refresh_from_db()
    assert notification.is_read is True


@pytest.mark.parametrize(
    ("setting", "path"),
    [
        ("REVEL_RECURRING_ADAPTER", "example_project.events.adapter.NoSuchAdapter"),
        ("REVEL_RECURRING_NOTIFIER", "example_project.events.notifier.no_such_notifier"),
    ],
)
def test_check_reports_a_bad_dotted_path(setting: str, path: str) -> None:
    with override_settings(**{setting: path}), pytest.raises(SystemCheckError) as info:
        call_command("check", stdout=StringIO())

    assert "revel_recurring.E005" in str(info.value)
    assert path in str(info.value)


def test_check_reports_a_visibility_mapping_the_field_cannot_hold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Event, "RECURRING_VISIBILITY_PUBLIC", "everyone")

    with pytest.raises(SystemCheckError) as info:
        call_command("check", stdout=StringIO())

    assert "revel_recurring.E020" in str(info.value)
    assert "RECURRING_VISIBILITY_PUBLIC is 'everyone'" in str(info.value)
