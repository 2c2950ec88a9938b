"""Who the SERIES_EVENTS_GENERATED digest reaches on the example site, and how often."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.mail.backends import locmem
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from example_project.events.models import (
    DigestRecord,
    Event,
    Follow,
    Membership,
    Notification,
    NotificationPreference,
    Organization,
    SeriesFollow,
)
from revel_recurring.models import EventSeries
from revel_recurring.services.generation import generate_series_events

from .conftest import MakeTemplate

STAFF = {"owner", "staff"}
MEMBERS = STAFF | {"active_member", "paused_member", "member_who_follows"}
PUBLIC = MEMBERS | {"follower_opted_in", "series_follower_opted_in"}
NEVER = {
    "cancelled_member",
    "follower_not_opted_in",
    "series_follower_not_opted_in",
    "stranger",
    "other_org_staff",
    "other_org_owner",
}
EXPECTED = {
    Event.Visibility.PUBLIC: PUBLIC,
    Event.Visibility.MEMBERS_ONLY: MEMBERS,
    Event.Visibility.STAFF_ONLY: STAFF,
    Event.Visibility.PRIVATE: STAFF,
    Event.Visibility.UNLISTED: STAFF,
}


def _user(name: str) -> User:
    return User.objects.create_user(username=name, email=f"{name}@example.com")


@pytest.fixture
def people(organization: Organization) -> dict[str, User]:
    """One person in each relation to ``organization`` (series follows come per series)."""
    found = {"owner": organization.owner}
    User.objects.filter(pk=organization.owner_id).update(email="owner@example.com")
    found["staff"] = _user("staff")
    organization.staff.add(found["staff"])
    for name, status in (
        ("active_member", Membership.Status.ACTIVE),
        ("paused_member", Membership.Status.PAUSED),
        ("cancelled_member", Membership.Status.CANCELLED),
        ("member_who_follows", Membership.Status.ACTIVE),
    ):
        found[name] = _user(name)
        Membership.objects.create(organization=organization, user=found[name], status=status)
    for name, opted_in in (
        ("follower_opted_in", True),
        ("follower_not_opted_in", False),
        ("member_who_follows", True),
    ):
        if name not in found:
            found[name] = _user(name)
        Follow.objects.create(
            organization=organization, user=found[name], notify_new_events=opted_in
        )
    for name in ("stranger", "series_follower_opted_in", "series_follower_not_opted_in"):
        found[name] = _user(name)
    found["other_org_owner"] = _user("other_org_owner")
    found["other_org_staff"] = _user("other_org_staff")
    other = Organization.objects.create(name="Other", slug="other", owner=found["other_org_owner"])
    other.staff.add(found["other_org_staff"])
    Membership.objects.create(organization=other, user=found["other_org_staff"])
    Follow.objects.create(organization=other, user=found["stranger"], notify_new_events=True)
    return found


def follow_series(series: EventSeries | None, people: dict[str, User]) -> EventSeries:
    assert series is not None
    for name, opted_in in (
        ("series_follower_opted_in", True),
        ("series_follower_not_opted_in", False),
    ):
        SeriesFollow.objects.create(series=series, user=people[name], notify_new_events=opted_in)
    return series


def generate(series: EventSeries, now: dt.datetime, capture: Any) -> list[Event]:
    with capture(execute=True):
        return generate_series_events(series, now=now)


def told() -> list[str]:
    return sorted(n.recipient.username for n in Notification.objects.select_related("recipient"))


@pytest.mark.parametrize("published", [True, False], ids=["published", "draft"])
@pytest.mark.parametrize("visibility", Event.Visibility.values)
def test_digest_reaches_exactly_the_audience_of_the_visibility(
    visibility: str,
    published: bool,
    people: dict[str, User],
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    template = make_template(visibility=visibility, auto_publish=published)
    series = follow_series(template.series, people)

    created = generate(series, now, django_capture_on_commit_callbacks)

    expected = EXPECTED[visibility] if published else STAFF
    assert len(created) == 8
    assert told() == sorted(expected)  # sorted list: anyone told twice would show twice
    assert not NEVER & set(told())
    assert sorted(m.to[0] for m in mail.outbox) == sorted(f"{n}@example.com" for n in expected)
    (record,) = DigestRecord.objects.all()
    assert record.recipient_count == len(expected)
    assert record.audience == (
        {"public": "public", "members_only": "members"}.get(visibility, "staff")
        if published
        else "staff"
    )


def test_unknown_visibility_reaches_staff_and_owners_and_is_logged(
    people: dict[str, User],
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    template = make_template(visibility=Event.Visibility.PUBLIC)
    Event.objects.filter(pk=template.pk).update(visibility="secret")
    series = follow_series(template.series, people)

    generate(series, now, django_capture_on_commit_callbacks)

    assert told() == sorted(STAFF)
    assert f"series {series.pk} has template visibility 'secret'" in caplog.text


def test_deactivated_accounts_are_not_told(
    people: dict[str, User],
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    User.objects.filter(username__in=["staff", "active_member"]).update(is_active=False)
    template = make_template(visibility=Event.Visibility.PUBLIC)
    series = follow_series(template.series, people)

    generate(series, now, django_capture_on_commit_callbacks)

    assert told() == sorted(PUBLIC - {"staff", "active_member"})


@pytest.mark.parametrize(
    ("preference", "is_told"),
    [
        ({"silence_all": True}, False),
        ({"disabled_types": ["SERIES_EVENTS_GENERATED"]}, False),
        ({"disabled_types": ["EVENT_CANCELLED", "TICKET_SOLD"]}, True),
        ({"silence_all": False, "disabled_types": []}, True),
    ],
    ids=["silence-all", "this-type-disabled", "other-types-disabled", "nothing-disabled"],
)
@pytest.mark.parametrize("person", ["owner", "active_member", "follower_opted_in"])
def test_preferences_are_honoured(
    person: str,
    preference: dict[str, Any],
    is_told: bool,
    people: dict[str, User],
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    NotificationPreference.objects.create(user=people[person], **preference)
    template = make_template(visibility=Event.Visibility.PUBLIC)
    series = follow_series(template.series, people)

    generate(series, now, django_capture_on_commit_callbacks)

    expected = PUBLIC if is_told else PUBLIC - {person}
    assert told() == sorted(expected)
    assert (f"{person}@example.com" in {m.to[0] for m in mail.outbox}) is is_told


def test_one_digest_for_a_batch_of_eight(
    people: dict[str, User],
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    template = make_template(visibility=Event.Visibility.PUBLIC)
    series = follow_series(template.series, people)

    created = generate(series, now, django_capture_on_commit_callbacks)

    assert len(created) == 8
    (record,) = DigestRecord.objects.all()
    assert record.occurrence_count == 8
    assert record.series_id == series.pk
    assert Notification.objects.count() == len(PUBLIC)
    assert len(mail.outbox) == len(PUBLIC)
    assert {m.subject for m in mail.outbox} == {"8 new events scheduled for Evening Run"}


def test_no_digest_when_nothing_was_created(
    people: dict[str, User],
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    template = make_template(visibility=Event.Visibility.PUBLIC)
    assert template.series is not None
    generate(template.series, now, django_capture_on_commit_callbacks)
    mail.outbox.clear()

    assert generate(template.series, now, django_capture_on_commit_callbacks) == []

    assert DigestRecord.objects.count() == 1
    assert mail.outbox == []


@pytest.mark.django_db(transaction=True)
def test_no_digest_when_the_surrounding_transaction_rolls_back(
    people: dict[str, User], make_template: MakeTemplate, now: dt.datetime
) -> None:
    template = make_template(visibility=Event.Visibility.PUBLIC)
    assert template.series is not None

    def caller() -> None:
        with transaction.atomic():
            assert len(generate_series_events(template.series, now=now)) == 8
            raise RuntimeError("caller failed")

    with pytest.raises(RuntimeError, match="caller failed"):
        caller()

    assert not Event.objects.filter(series=template.series, is_template=False).exists()
    assert DigestRecord.objects.count() == 0
    assert Notification.objects.count() == 0
    assert mail.outbox == []
    # Nothing was lost either: the next run generates the batch and tells everyone once.
    assert len(generate_series_events(template.series, now=now)) == 8
    assert DigestRecord.objects.count() == 1
    assert len(mail.outbox) == len(PUBLIC - {"series_follower_opted_in"})


def exploding_notifier(digest: Any) -> None:
    raise ConnectionError("notification service down")


@pytest.mark.django_db(transaction=True)
def test_a_raising_notifier_leaves_the_occurrences_committed(
    make_template: MakeTemplate, now: dt.datetime, caplog: pytest.LogCaptureFixture
) -> None:
    template = make_template(visibility=Event.Visibility.PUBLIC)
    assert template.series is not None

    with override_settings(
        REVEL_RECURRING_NOTIFIER="example_project.tests.test_digest.exploding_notifier"
    ):
        created = generate_series_events(template.series, now=now)

    assert len(created) == 8
    assert Event.objects.filter(series=template.series, is_template=False).count() == 8
    assert f"failed for series {template.series.pk} (8 occurrences)" in caplog.text
    assert "notification service down" in caplog.text


class DownEmailBackend(locmem.EmailBackend):
    def send_messages(self, messages: Any) -> int:
        raise ConnectionRefusedError("SMTP server down")


@pytest.mark.django_db(transaction=True)
def test_mail_server_down_keeps_occurrences_and_in_app_notifications(
    organization: Organization,
    make_template: MakeTemplate,
    now: dt.datetime,
    caplog: pytest.LogCaptureFixture,
) -> None:
    User.objects.filter(pk=organization.owner_id).update(email="owner@example.com")
    template = make_template(visibility=Event.Visibility.STAFF_ONLY)
    assert template.series is not None

    with override_settings(EMAIL_BACKEND="example_project.tests.test_digest.DownEmailBackend"):
        generate_series_events(template.series, now=now)

    assert Event.objects.filter(series=template.series, is_template=False).count() == 8
    assert told() == ["owner"]
    assert f"failed for series {template.series.pk}" in caplog.text
    assert "SMTP server down" in caplog.text


def test_the_adapter_setting_is_honoured(
    people: dict[str, User],
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    template = make_template(visibility=Event.Visibility.PUBLIC)
    assert template.series is not None

    with override_settings(
        REVEL_RECURRING_ADAPTER="revel_recurring.adapter.DefaultRecurringAdapter"
    ):
        generate(template.series, now, django_capture_on_commit_callbacks)

    (record,) = DigestRecord.objects.all()
    assert record.recipient_count == 0
    assert record.url == f"/series/{template.series.slug}/"  # the default adapter's link
    assert Notification.objects.count() == 0
    assert mail.outbox == []


def _queries_for_a_batch(
    slug: str,
    members: int,
    owner: User,
    make_template: MakeTemplate,
    now: dt.datetime,
    capture: Any,
) -> list[str]:
    organization = Organization.objects.create(name=slug, slug=slug, owner=owner)
    users = User.objects.bulk_create(
        [User(username=f"{slug}-{n}", email=f"{slug}-{n}@example.com") for n in range(members)]
    )
    Membership.objects.bulk_create(
        [Membership(organization=organization, user=user) for user in users]
    )
    template = make_template(
        organization=organization, slug=slug, visibility=Event.Visibility.MEMBERS_ONLY, tiers=2
    )
    assert template.series is not None
    mail.outbox.clear()
    with CaptureQueriesContext(connection) as queries, capture(execute=True):
        created = generate_series_events(template.series, now=now)
    assert len(created) == 8
    assert Notification.objects.filter(digest__series=template.series).count() == members + 1
    assert len(mail.outbox) == members + 1
    return [query["sql"] for query in queries.captured_queries]


def test_query_count_of_a_batch_does_not_grow_with_the_audience(
    django_user_model: Any,
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner = django_user_model.objects.create_user(username="boss", email="boss@example.com")

    small = _queries_for_a_batch(
        "ten", 10, owner, make_template, now, django_capture_on_commit_callbacks
    )
    large = _queries_for_a_batch(
        "three-hundred", 300, owner, make_template, now, django_capture_on_commit_callbacks
    )

    assert len(small) == len(large), "\n".join(large)
    # 20 before the history; its record of the generation by hand adds up to five
    # (the record, its series, its rows, the bookings asked, the record filled in).
    assert len(small) <= 25
