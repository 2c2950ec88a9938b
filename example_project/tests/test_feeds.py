"""The example site's calendar feeds: visibility, secret keys, drafts, conditional GET."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils.timezone import now as django_now

from example_project.events.models import CalendarToken, Event, Membership, Organization
from example_project.tests.helpers import tuesday_run
from revel_recurring.models import EventSeries, OccurrenceChange, RecurrenceRule
from revel_recurring.services.cancellation import cancel_occurrence
from tests.support.http_dates import after_this_second, within_one_second

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")
NOW = dt.datetime(2027, 2, 1, 9, 0, tzinfo=VIENNA)
WINDOW = (dt.datetime(2027, 1, 1, tzinfo=dt.UTC), dt.datetime(2027, 4, 1, tzinfo=dt.UTC))


def _series(organization: Organization, slug: str, visibility: str, **options: Any) -> EventSeries:
    return tuesday_run(organization, slug, visibility, now=NOW, **options)


@pytest.fixture
def member(django_user_model: Any, organization: Organization) -> Any:
    user = django_user_model.objects.create_user(username="member")
    Membership.objects.create(organization=organization, user=user)
    return user


@pytest.fixture
def stranger(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(username="stranger")


def _key(user: Any) -> str:
    return CalendarToken.for_user(user).key


def _summaries(body: bytes) -> set[str]:
    calendar = icalendar.Calendar.from_ical(body)
    return {str(e["SUMMARY"]) for e in recurring_ical_events.of(calendar).between(*WINDOW)}


def test_public_series_feed_is_open_and_a_calendar(organization: Organization) -> None:
    _series(organization, "open-run", Event.Visibility.PUBLIC)

    response = Client().get("/series/open-run/calendar.ics")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert response["ETag"].startswith('"')
    assert response["Last-Modified"].endswith("GMT")
    assert _summaries(response.content) == {"Open Run"}


def test_members_only_series_needs_the_members_key(
    organization: Organization, member: Any, stranger: Any
) -> None:
    _series(organization, "club-run", Event.Visibility.MEMBERS_ONLY)
    client = Client()

    assert client.get("/series/club-run/calendar.ics").status_code == 404
    assert client.get("/calendar/not-a-key/series/club-run.ics").status_code == 404
    assert client.get(f"/calendar/{_key(stranger)}/series/club-run.ics").status_code == 404
    with_key = client.get(f"/calendar/{_key(member)}/series/club-run.ics")
    assert with_key.status_code == 200
    assert _summaries(with_key.content) == {"Club Run"}


def test_a_rotated_key_stops_working(organization: Organization, member: Any) -> None:
    _series(organization, "club-run", Event.Visibility.MEMBERS_ONLY)
    client = Client()
    old = _key(member)
    assert client.get(f"/calendar/{old}/series/club-run.ics").status_code == 200

    client.force_login(member)
    assert client.post("/calendar/").status_code == 302
    new = _key(member)

    assert new != old
    assert client.get(f"/calendar/{old}/series/club-run.ics").status_code == 404
    assert client.get(f"/calendar/{new}/series/club-run.ics").status_code == 200


def test_a_deactivated_users_key_stops_working(organization: Organization, member: Any) -> None:
    _series(organization, "club-run", Event.Visibility.MEMBERS_ONLY)
    key = _key(member)
    member.is_active = False
    member.save()

    assert Client().get(f"/calendar/{key}/series/club-run.ics").status_code == 404


def test_drafts_are_never_in_a_feed(organization: Organization, member: Any) -> None:
    series = _series(organization, "draft-run", Event.Visibility.PUBLIC, auto_publish=False)
    _series(organization, "open-run", Event.Visibility.PUBLIC)
    assert series.occurrences().filter(status=Event.Status.DRAFT).count() > 0

    feeds = [
        Client().get("/series/draft-run/calendar.ics"),
        Client().get(f"/calendar/{_key(member)}/series/draft-run.ics"),
        Client().get(f"/organizations/{organization.slug}/calendar.ics"),
        Client().get(f"/calendar/{_key(member)}/organizations/{organization.slug}.ics"),
    ]

    assert [f.status_code for f in feeds] == [200, 200, 200, 200]
    assert [_summaries(f.content) for f in feeds] == [set(), set(), {"Open Run"}, {"Open Run"}]


def test_organization_feed_shows_public_series_openly_and_more_with_a_key(
    organization: Organization, member: Any, stranger: Any
) -> None:
    _series(organization, "open-run", Event.Visibility.PUBLIC)
    _series(organization, "club-run", Event.Visibility.MEMBERS_ONLY)
    _series(organization, "hidden-run", Event.Visibility.UNLISTED)
    path = f"/organizations/{organization.slug}/calendar.ics"

    anonymous = Client().get(path)
    outsider = Client().get(f"/calendar/{_key(stranger)}/organizations/{organization.slug}.ics")
    inside = Client().get(f"/calendar/{_key(member)}/organizations/{organization.slug}.ics")

    assert _summaries(anonymous.content) == {"Open Run"}
    assert _summaries(outsider.content) == {"Open Run"}
    # Unlisted is the digest's staff-only level: reachable by its link, listed to staff.
    assert _summaries(inside.content) == {"Open Run", "Club Run"}
    assert str(icalendar.Calendar.from_ical(inside.content)["X-WR-CALNAME"]) == "Runners"
    assert Client().get("/organizations/nobody/calendar.ics").status_code == 404


def test_unchanged_feed_answers_304_and_a_change_answers_200(organization: Organization) -> None:
    series = _series(organization, "open-run", Event.Visibility.PUBLIC)
    _age_everything()  # a date is a validator once its second has ended
    client = Client()
    first = client.get("/series/open-run/calendar.ics")

    by_etag = client.get("/series/open-run/calendar.ics", HTTP_IF_NONE_MATCH=first["ETag"])
    by_date = client.get(
        "/series/open-run/calendar.ics", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]
    )
    occurrence = series.occurrences().order_by("start").first()
    occurrence.name = "Hill Run"
    occurrence.save()
    changed = client.get("/series/open-run/calendar.ics", HTTP_IF_NONE_MATCH=first["ETag"])

    assert (by_etag.status_code, by_etag.content) == (304, b"")
    assert by_date.status_code == 304
    assert changed.status_code == 200
    assert changed["ETag"] != first["ETag"]
    assert "Hill Run" in _summaries(changed.content)


def test_series_page_links_to_the_feed_it_may_subscribe_to(
    organization: Organization, member: Any
) -> None:
    _series(organization, "open-run", Event.Visibility.PUBLIC)
    _series(organization, "club-run", Event.Visibility.MEMBERS_ONLY)
    client = Client()

    public_page = client.get("/series/open-run/").content.decode()
    club_anonymous = client.get("/series/club-run/").content.decode()
    client.force_login(member)
    club_member = client.get("/series/club-run/").content.decode()

    assert 'href="webcal://testserver/series/open-run/calendar.ics">Add to calendar' in public_page
    assert "Add to calendar" not in club_anonymous
    assert f"webcal://testserver/calendar/{_key(member)}/series/club-run.ics" in club_member


def test_calendar_page_lists_the_users_feed_urls(organization: Organization, member: Any) -> None:
    _series(organization, "club-run", Event.Visibility.MEMBERS_ONLY)
    client = Client()
    assert client.get("/calendar/").status_code == 302  # sign in first
    client.force_login(member)

    page = client.get("/calendar/").content.decode()

    assert f"http://testserver/calendar/{_key(member)}/series/club-run.ics" in page
    assert f"http://testserver/calendar/{_key(member)}/organizations/runners.ics" in page


def _validators(organization: Organization) -> tuple[str, str]:
    response = Client().get(f"/organizations/{organization.slug}/calendar.ics")
    assert response.status_code == 200
    return response["ETag"], response["Last-Modified"]


def _revalidated(organization: Organization, last_modified: str) -> int:
    return (
        Client()
        .get(
            f"/organizations/{organization.slug}/calendar.ics",
            HTTP_IF_MODIFIED_SINCE=last_modified,
        )
        .status_code
    )


def _age_everything() -> None:
    """Date every stamp an hour back, so the change below lands in a later second."""
    past = django_now() - dt.timedelta(hours=1)
    EventSeries.objects.update(created_at=past, updated_at=past)
    RecurrenceRule.objects.update(created_at=past, updated_at=past)
    Event.objects.update(updated_at=past)
    OccurrenceChange.objects.update(at=past)
    Organization.objects.update(feed_changed_at=past)


def _leave_by_visibility(series: EventSeries) -> None:
    template = Event.objects.get(series=series, is_template=True)
    template.visibility = Event.Visibility.MEMBERS_ONLY
    template.save()


def _leave_by_pause(series: EventSeries) -> None:
    from revel_recurring.services.lifecycle import pause_series

    pause_series(series, now=NOW)


def _leave_by_deletion(series: EventSeries) -> None:
    from revel_recurring.services.lifecycle import delete_series

    delete_series(series)


def _join(organization: Organization) -> None:
    _series(organization, "late-run", Event.Visibility.PUBLIC)


@pytest.mark.parametrize(
    "change",
    ["join", "visibility", "pause", "deletion"],
)
def test_organization_feed_validators_move_when_its_series_change(
    organization: Organization, change: str
) -> None:
    """Both ETag and Last-Modified move when a series joins or leaves the feed.

    A client polling with If-Modified-Since alone must not get a 304 for a feed
    that lost a series: Last-Modified has to move past what it saw, even when
    no listed series changed.
    """
    _series(organization, "open-run", Event.Visibility.PUBLIC)
    leaving = _series(organization, "leaving-run", Event.Visibility.PUBLIC)
    _age_everything()
    etag, last_modified = _validators(organization)
    assert _revalidated(organization, last_modified) == 304

    if change == "join":
        _join(organization)
    elif change == "visibility":
        _leave_by_visibility(leaving)
    elif change == "pause":
        _leave_by_pause(leaving)
    else:
        _leave_by_deletion(leaving)
    after_this_second()
    new_etag, new_last_modified = _validators(organization)

    assert new_etag != etag
    assert new_last_modified != last_modified
    assert _revalidated(organization, last_modified) == 200
    assert _revalidated(organization, new_last_modified) == 304


@pytest.mark.parametrize("change", ["visibility", "pause", "deletion"])
def test_a_series_leaving_the_feed_within_the_second_of_a_poll_is_seen_by_date(
    organization: Organization, change: str
) -> None:
    """The feed changed, was polled, and lost a series, all within one second.

    The poll's date cannot tell the copy before the departure from the one after:
    a date-only poll with it must get 200 and the feed without the series, never
    a 304 that keeps the departed dates.
    """
    staying = _series(organization, "open-run", Event.Visibility.PUBLIC)
    leaving = _series(organization, "leaving-run", Event.Visibility.PUBLIC)
    _age_everything()

    def poll_between_two_changes() -> str:
        Event.objects.get(series=staying, is_template=True).save()  # stamps the organisation
        polled = _validators(organization)[1]
        {"visibility": _leave_by_visibility, "pause": _leave_by_pause}.get(
            change, _leave_by_deletion
        )(leaving)
        return polled

    polled = within_one_second(poll_between_two_changes)
    again = Client().get(
        f"/organizations/{organization.slug}/calendar.ics", HTTP_IF_MODIFIED_SINCE=polled
    )

    assert again.status_code == 200
    if change != "pause":  # a paused series keeps its dates, its feed says it stopped
        assert _summaries(again.content) == {"Open Run"}


def test_a_series_feed_changed_within_the_second_of_a_poll_is_seen_by_date(
    organization: Organization,
) -> None:
    series = _series(organization, "open-run", Event.Visibility.PUBLIC)
    first, second = series.occurrences().order_by("start")[:2]
    _age_everything()

    def poll_between_two_changes() -> str:
        first.name = "Hill Run"
        first.save()
        polled = Client().get("/series/open-run/calendar.ics")["Last-Modified"]
        cancel_occurrence(series, second.start)
        return polled

    polled = within_one_second(poll_between_two_changes)
    again = Client().get("/series/open-run/calendar.ics", HTTP_IF_MODIFIED_SINCE=polled)

    assert again.status_code == 200
    calendar = icalendar.Calendar.from_ical(again.content)
    shown = {event["DTSTART"].dt for event in recurring_ical_events.of(calendar).between(*WINDOW)}
    assert first.start in shown
    assert second.start not in shown
    after_this_second()
    settled = Client().get("/series/open-run/calendar.ics")["Last-Modified"]
    assert (
        Client().get("/series/open-run/calendar.ics", HTTP_IF_MODIFIED_SINCE=settled).status_code
        == 304
    )


@pytest.mark.parametrize(
    "path",
    [
        "/organizations/runners/calendar.ics",
        "/series/open-run/calendar.ics",
        "member:/calendar/{key}/organizations/runners.ics",
        "member:/calendar/{key}/series/club-run.ics",
    ],
)
@pytest.mark.parametrize("validator", ["ETag", "Last-Modified"])
def test_a_304_is_answered_from_the_revision_in_at_most_3_queries(
    organization: Organization, member: Any, path: str, validator: str
) -> None:
    """A poll of an unchanged feed reads its revision stamp, never the events."""
    assert organization.slug == "runners"
    for slug in ("open-run", "second-run", "third-run"):
        _series(organization, slug, Event.Visibility.PUBLIC)
    _series(organization, "club-run", Event.Visibility.MEMBERS_ONLY)
    if path.startswith("member:"):
        path = path.removeprefix("member:").format(key=_key(member))
    after_this_second()
    first = Client().get(path)
    assert first.status_code == 200
    header = "HTTP_IF_NONE_MATCH" if validator == "ETag" else "HTTP_IF_MODIFIED_SINCE"

    with CaptureQueriesContext(connection) as queries:
        again = Client().get(path, **{header: first[validator]})

    assert (again.status_code, again.content) == (304, b"")
    assert again["ETag"] == first["ETag"]
    assert len(queries) <= 3, [q["sql"] for q in queries]


def _queries_of_organization_feed(organization: Organization, count: int) -> int:
    have = EventSeries.objects.count()
    for index in range(have, count):
        _series(organization, f"run-{index}", Event.Visibility.PUBLIC)
    # Every series has an occurrence edited on its own (its texts are read
    # separately, in batches) and a cancelled date (an OccurrenceChange).
    for series in EventSeries.objects.filter(occurrence_changes__isnull=True):
        occurrences = list(series.occurrences().order_by("start"))
        occurrences[-1].name = f"{series.name} (moved)"
        occurrences[-1].description = "Meet at the north gate."
        occurrences[-1].save()
        cancel_occurrence(series, occurrences[0].start, now=NOW)
    assert OccurrenceChange.objects.values("series").distinct().count() == count
    with CaptureQueriesContext(connection) as queries:
        response = Client().get(f"/organizations/{organization.slug}/calendar.ics")
    assert response.status_code == 200
    assert len(_summaries(response.content)) == count * 2
    return len(queries)


def test_organization_feed_costs_the_same_queries_for_3_and_30_series(
    organization: Organization,
) -> None:
    """Rows of all listed series in one query, last changes in one aggregate."""
    at_3 = _queries_of_organization_feed(organization, 3)
    at_30 = _queries_of_organization_feed(organization, 30)

    assert at_3 == at_30
