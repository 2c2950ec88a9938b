"""The digest audience policy and recipient collection (revel_recurring.notifications)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from revel_recurring.adapter import DefaultRecurringAdapter, get_adapter
from revel_recurring.mixins import VISIBILITY_ATTRIBUTES
from revel_recurring.notifications import (
    SERIES_EVENTS_GENERATED,
    VISIBILITY_AUDIENCES,
    Audience,
    build_series_digest,
    collect_recipients,
    digest_audience,
    send_series_digest,
)
from revel_recurring.services.generation import generate_series_events
from revel_recurring.signals import series_events_generated
from tests.hosts.testapp import notifier
from tests.hosts.testapp.models import Event
from tests.support.factories import NOW, make_series, yoga_digests


@pytest.fixture
def team_event(monkeypatch: pytest.MonkeyPatch) -> type[Event]:
    """The test host with "everyone" / "team" visibility values in its ``venue`` field.

    Only the model's mapping changes: no adapter subclass knows about the values.
    """
    for attribute, value in {
        "RECURRING_VISIBILITY_FIELD": "venue",
        "RECURRING_VISIBILITY_PUBLIC": "everyone",
        "RECURRING_VISIBILITY_MEMBERS_ONLY": "team",
        "RECURRING_VISIBILITY_STAFF_ONLY": None,
        "RECURRING_VISIBILITY_PRIVATE": None,
        "RECURRING_VISIBILITY_UNLISTED": None,
    }.items():
        monkeypatch.setattr(Event, attribute, value)
    return Event


def batch(*statuses: str) -> list[Event]:
    state = {"draft": Event.RECURRING_STATUS_DRAFT, "open": Event.RECURRING_STATUS_OPEN}
    return [Event(state=state[status]) for status in statuses]


def test_every_visibility_attribute_has_an_audience() -> None:
    assert set(VISIBILITY_AUDIENCES) == set(VISIBILITY_ATTRIBUTES)


@pytest.mark.parametrize(
    ("audience", "expected"),
    [("everyone", Audience.PUBLIC), ("team", Audience.MEMBERS)],
)
def test_a_site_with_its_own_visibility_values_needs_no_subclass(
    team_event: Any, audience: str, expected: Audience
) -> None:
    template = team_event(venue=audience)

    assert digest_audience(template, batch("open", "open")) is expected


def test_default_visibility_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Event, "RECURRING_VISIBILITY_FIELD", "venue")

    found = {
        value: digest_audience(Event(venue=value), batch("open"))
        for value in ("public", "members_only", "staff_only", "private", "unlisted")
    }

    assert found == {
        "public": Audience.PUBLIC,
        "members_only": Audience.MEMBERS,
        "staff_only": Audience.STAFF,
        "private": Audience.STAFF,
        "unlisted": Audience.STAFF,
    }


@pytest.mark.parametrize("statuses", [("draft",), ("open", "draft"), ("draft", "open")])
def test_a_batch_with_drafts_reaches_staff_only(team_event: Any, statuses: tuple[str]) -> None:
    template = team_event(venue="everyone")

    assert digest_audience(template, batch(*statuses)) is Audience.STAFF


def test_unknown_visibility_reaches_staff_only_and_is_logged(
    team_event: Any, caplog: pytest.LogCaptureFixture
) -> None:
    template = team_event(venue="members_only", series_id=41)

    assert digest_audience(template, batch("open")) is Audience.STAFF
    assert "series 41 has template visibility 'members_only'" in caplog.text
    assert caplog.records[0].levelname == "WARNING"


def test_a_value_mapped_twice_takes_the_narrower_audience(
    team_event: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(team_event, "RECURRING_VISIBILITY_PRIVATE", "everyone")

    template = team_event(venue="everyone")

    assert digest_audience(template, batch("open")) is Audience.STAFF


def test_a_model_without_visibility_field_reaches_staff_only() -> None:
    template = Event(title="t", starts_at=NOW, venue="public")

    assert Event.RECURRING_VISIBILITY_FIELD is None
    assert digest_audience(template, batch("open")) is Audience.STAFF


class ListAdapter(DefaultRecurringAdapter):
    """Hooks returning plain lists; records what it was asked."""

    def __init__(self, *, staff: Iterable[Any] = (), members: Iterable[Any] = ()) -> None:
        self.staff, self.members = list(staff), list(members)
        self.followers: list[Any] = []
        self.asked: list[str] = []
        self.refused: set[Any] = set()

    def get_staff_and_owners(self, series: Any, template: Any) -> list[Any]:
        self.asked.append("staff")
        return self.staff

    def get_members(self, series: Any, template: Any) -> list[Any]:
        self.asked.append("members")
        return self.members

    def get_followers(self, series: Any, template: Any) -> list[Any]:
        self.asked.append("followers")
        return self.followers

    def wants_notification(self, recipient: Any, notification_type: str) -> bool:
        self.asked.append(f"wants {recipient}")
        return recipient not in self.refused


@pytest.mark.parametrize(
    ("audience", "asked"),
    [
        (Audience.STAFF, ["staff"]),
        (Audience.MEMBERS, ["staff", "members"]),
        (Audience.PUBLIC, ["staff", "members", "followers"]),
    ],
)
def test_only_the_hooks_the_audience_needs_are_asked(audience: Audience, asked: list[str]) -> None:
    adapter = ListAdapter()

    assert collect_recipients(adapter, None, None, audience) == []
    assert adapter.asked == asked


def test_recipients_are_deduplicated_in_first_seen_order() -> None:
    adapter = ListAdapter(staff=["olga", "sven"], members=["mia", "olga"])
    adapter.followers = ["fred", "mia", "sven"]

    found = collect_recipients(adapter, None, None, Audience.PUBLIC)

    assert found == ["olga", "sven", "mia", "fred"]


def test_default_preference_filter_asks_each_candidate_once() -> None:
    adapter = ListAdapter(staff=["olga", "sven"], members=["sven", "mia"])
    adapter.refused = {"sven"}

    found = collect_recipients(adapter, None, None, Audience.MEMBERS)

    assert found == ["olga", "mia"]
    assert [a for a in adapter.asked if a.startswith("wants")] == [
        "wants olga",
        "wants sven",
        "wants mia",
    ]


class BatchedAdapter(DefaultRecurringAdapter):
    """QuerySet hooks and one batched preference call, as a site should write them."""

    calls: list[tuple[list[str], str]] = []

    def get_staff_and_owners(self, series: Any, template: Any) -> Any:
        return User.objects.filter(username__startswith="staff").order_by("pk")

    def get_members(self, series: Any, template: Any) -> Any:
        return User.objects.filter(username__startswith="m").order_by("pk")

    def filter_by_preferences(self, candidates: Sequence[Any], notification_type: str) -> Any:
        BatchedAdapter.calls.append(([c.username for c in candidates], notification_type))
        return [c for c in candidates if c.username != "muted"]

    def wants_notification(self, recipient: Any, notification_type: str) -> bool:
        raise AssertionError("the batched filter replaces per-person checks")


@pytest.mark.django_db
def test_queryset_hooks_cost_one_query_each_and_preferences_are_batched(
    django_assert_num_queries: Any,
) -> None:
    BatchedAdapter.calls.clear()
    for name in ("staff1", "staff2", "m1", "muted", "m2", "stranger"):
        User.objects.create(username=name)

    with django_assert_num_queries(2):
        found = collect_recipients(BatchedAdapter(), None, None, Audience.PUBLIC)

    assert [u.username for u in found] == ["staff1", "staff2", "m1", "m2"]
    assert BatchedAdapter.calls == [
        (["staff1", "staff2", "m1", "muted", "m2"], SERIES_EVENTS_GENERATED)
    ]


def test_no_candidates_skips_the_preference_filter() -> None:
    BatchedAdapter.calls.clear()

    class Nobody(BatchedAdapter):
        def get_staff_and_owners(self, series: Any, template: Any) -> list[Any]:
            return []

    assert collect_recipients(Nobody(), None, None, Audience.STAFF) == []
    assert BatchedAdapter.calls == []


class TestSiteAdapter(DefaultRecurringAdapter):
    """Staff are the users named "staff*"; the link is absolute."""

    def get_staff_and_owners(self, series: Any, template: Any) -> Any:
        return User.objects.filter(username__startswith="staff").order_by("pk")

    def get_series_url(self, series: Any) -> str:
        return f"https://site.example/s/{series.slug}/"


ADAPTER_PATH = "tests.default.generation.test_notifications.TestSiteAdapter"


@pytest.mark.django_db
def test_the_adapter_setting_is_honoured(django_capture_on_commit_callbacks: Any) -> None:
    notifier.digests.clear()
    User.objects.create(username="staff1")
    series = make_series(auto_publish=True)

    with override_settings(REVEL_RECURRING_ADAPTER=ADAPTER_PATH):
        assert type(get_adapter()) is TestSiteAdapter
        with django_capture_on_commit_callbacks(execute=True):
            created = generate_series_events(series, now=NOW)

    (digest,) = notifier.digests
    assert [u.username for u in digest.recipients] == ["staff1"]
    assert digest.url == f"https://site.example/s/{series.slug}/"
    assert digest.count == len(created) == 8
    assert digest.timezone == "Europe/Vienna"
    assert digest.audience is Audience.STAFF  # the test host has no visibility field


@pytest.mark.django_db
def test_the_digest_names_the_new_dates_in_its_subject_and_body() -> None:
    two, one = yoga_digests()

    assert two.subject == "2 new events scheduled for Yoga"
    assert one.subject == "1 new event scheduled for Yoga"
    assert two.body == (
        "Yoga has 2 new dates:\n"
        "- Mon 2 Mar 2026 10:00 (Europe/Vienna)\n"
        "- Mon 9 Mar 2026 10:00 (Europe/Vienna)\n"
        "\n"
        "All dates: https://site.example/s/yoga/"
    )
    assert one.body == "Yoga has 1 new date:\n- Mon 2 Mar 2026 10:00 (Europe/Vienna)"


@pytest.mark.django_db
def test_the_default_adapter_knows_nobody() -> None:
    User.objects.create(username="staff1")
    series = make_series(auto_publish=True)
    created = generate_series_events(series, now=NOW)

    digest = build_series_digest(series, created)

    assert digest.recipients == ()
    assert digest.url == f"/series/{series.slug}/"


class BrokenAdapter(DefaultRecurringAdapter):
    def get_staff_and_owners(self, series: Any, template: Any) -> list[Any]:
        raise LookupError("directory service down")


@pytest.mark.django_db
def test_a_failing_hook_is_logged_and_nothing_is_sent(caplog: pytest.LogCaptureFixture) -> None:
    notifier.digests.clear()
    series = make_series(auto_publish=True)
    created = generate_series_events(series, now=NOW)

    with override_settings(
        REVEL_RECURRING_ADAPTER="tests.default.generation.test_notifications.BrokenAdapter"
    ):
        assert send_series_digest(series, created) is None

    assert notifier.digests == []
    assert f"could not build the digest for series {series.pk}" in caplog.text
    assert "directory service down" in caplog.text


class RaisingAdapter(DefaultRecurringAdapter):
    def get_staff_and_owners(self, series: Any, template: Any) -> list[Any]:
        raise AssertionError("the adapter must not be asked")


@pytest.mark.django_db
def test_no_notifier_and_no_receiver_builds_no_digest(settings: Any) -> None:
    series = make_series(auto_publish=True)
    created = generate_series_events(series, now=NOW)
    settings.REVEL_RECURRING_NOTIFIER = None
    settings.REVEL_RECURRING_ADAPTER = "tests.default.generation.test_notifications.RaisingAdapter"

    assert send_series_digest(series, created) is None


@pytest.mark.django_db
def test_a_receiver_alone_still_gets_the_digest(settings: Any) -> None:
    series = make_series(auto_publish=True)
    created = generate_series_events(series, now=NOW)
    settings.REVEL_RECURRING_NOTIFIER = None
    received: list[Any] = []

    def receiver(sender: Any, digest: Any, **kwargs: Any) -> None:
        received.append(digest)

    series_events_generated.connect(receiver)
    try:
        digest = send_series_digest(series, created)
    finally:
        series_events_generated.disconnect(receiver)

    assert digest is not None
    assert received == [digest]
