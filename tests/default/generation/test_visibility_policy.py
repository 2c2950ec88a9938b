"""The visibility policy a host's read scope shares with the digest's audience."""

from __future__ import annotations

from typing import Any

import pytest

from revel_recurring.notifications import (
    Audience,
    digest_audience,
    visibilities_reaching,
    visibility_audience,
)
from tests.hosts.testapp.models import Event


def test_without_a_visibility_field_nothing_reaches_beyond_staff() -> None:
    assert Event.RECURRING_VISIBILITY_FIELD is None
    for audience in Audience:
        assert visibilities_reaching(Event, audience) == []
    assert visibility_audience(Event, "public") is None


def test_a_site_mapping_reaches_the_same_groups_in_both(monkeypatch: pytest.MonkeyPatch) -> None:
    # A site whose field holds "everyone" / "team" and has no other levels.
    for attribute, value in {
        "RECURRING_VISIBILITY_FIELD": "venue",
        "RECURRING_VISIBILITY_PUBLIC": "everyone",
        "RECURRING_VISIBILITY_MEMBERS_ONLY": "team",
        "RECURRING_VISIBILITY_STAFF_ONLY": "office",
        "RECURRING_VISIBILITY_PRIVATE": None,
        "RECURRING_VISIBILITY_UNLISTED": None,
    }.items():
        monkeypatch.setattr(Event, attribute, value)
    opened = [Event(state=Event.RECURRING_STATUS_OPEN)]

    assert visibilities_reaching(Event, Audience.PUBLIC) == ["everyone"]
    assert visibilities_reaching(Event, Audience.MEMBERS) == ["everyone", "team"]
    assert visibilities_reaching(Event, Audience.STAFF) == ["everyone", "team", "office"]
    reached: dict[str, Any] = {
        value: digest_audience(Event(venue=value), opened)
        for value in ("everyone", "team", "office")
    }
    assert reached == {
        value: visibility_audience(Event, value) for value in ("everyone", "team", "office")
    }
