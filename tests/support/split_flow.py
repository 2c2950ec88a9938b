"""What a split looks like from the outside, on whichever test host runs it.

The names the dates and feeds carry after a split that renames the series, the
public pages of the two halves (``tests/hosts/series_page.py``) and what the
original's last date says in the feeds, read with ``icalendar`` and with the three
consumers of ``tests/support/feed_consumers.py``. Everything is read through
``get_event_model()`` and the configured adapter, so the hosts share it.
"""

from __future__ import annotations

import datetime as dt
import re
from html import unescape
from typing import Any

import icalendar

from revel_recurring.adapter import DefaultRecurringAdapter
from revel_recurring.host_model import title_field
from revel_recurring.ical import series_feed
from revel_recurring.models import EventSeries, get_event_model
from tests.support.feed_consumers import Note, expand_many, expand_notes_many, window


class SiteAdapter(DefaultRecurringAdapter):
    """The default hooks on a site with absolute addresses: a page and a feed per series."""

    def get_series_url(self, series: Any) -> str:
        return f"https://yoga.example/series/{series.slug}/"

    def get_series_feed_url(self, series: Any) -> str:
        return f"https://yoga.example/series/{series.slug}/calendar.ics"


#: ``REVEL_RECURRING_ADAPTER`` for :class:`SiteAdapter` (the testapp host's tests).
SITE_ADAPTER = "tests.support.split_flow.SiteAdapter"


def note_at(notes: list[Note], instant: dt.datetime) -> Note:
    """The one expanded date of ``notes`` starting at ``instant``."""
    found = [note for note in notes if note[0] == instant]
    assert len(found) == 1, f"{len(found)} dates at {instant} in {notes}"
    return found[0]


def titles(series: EventSeries) -> list[str]:
    """The title of the series' template, then of each occurrence, in start order."""
    model = get_event_model()
    field = title_field(model)
    assert field is not None, f"{model.__name__} has no title field among its propagatable ones"
    rows = model._default_manager.filter(series=series).order_by(
        "-is_template", model.RECURRING_START_FIELD
    )
    return [getattr(row, field) for row in rows]


def feed_events(series: EventSeries) -> list[Any]:
    """The VEVENTs of the series' own feed, as ``icalendar`` parses them."""
    calendar = icalendar.Calendar.from_ical(series_feed(series).body)
    return list(calendar.walk("VEVENT"))


def feed_summaries(series: EventSeries) -> set[str]:
    """Every SUMMARY the series' feed carries (master, overrides, single events)."""
    return {str(event["SUMMARY"]) for event in feed_events(series)}


def consumer_summaries(consumer: str, series: EventSeries) -> set[str]:
    """The titles ``consumer`` shows for the series' dates when it expands the feed."""
    (found,) = expand_many(consumer, [(series_feed(series).body, *window(series))])
    assert found, f"{consumer} expanded no date of {series.name}"
    return {summary for _, summary in found}


def last_start(series: EventSeries) -> dt.datetime:
    """The start (UTC) of the series' last occurrence shown in a feed."""
    model = get_event_model()
    hidden = (model.RECURRING_STATUS_DRAFT, model.RECURRING_STATUS_CANCELLED)
    starts = [
        row.occurrence_start.astimezone(dt.UTC)
        for row in model._default_manager.filter(series=series, is_template=False)
        if not model.is_status(getattr(row, model.RECURRING_STATUS_FIELD), *hidden)
    ]
    return max(starts)


def parsed_last_date(series: EventSeries) -> Any:
    """The VEVENT of ``series``' feed that stands for its last date (an override or a
    single event), as ``icalendar`` parses it."""
    last = last_start(series)
    found = [
        event
        for event in feed_events(series)
        if "RRULE" not in event and event["DTSTART"].dt.astimezone(dt.UTC) == last
    ]
    assert len(found) == 1, f"{len(found)} VEVENTs of their own for the last date {last}"
    return found[0]


def consumer_notes(consumer: str, series: EventSeries) -> list[Note]:
    """Each date of ``series``' feed as ``consumer`` expands it, with DESCRIPTION and URL."""
    (found,) = expand_notes_many(consumer, [(series_feed(series).body, *window(series))])
    return found


def page_links(client: Any, series: EventSeries) -> dict[str, tuple[str, str]]:
    """The public page's links to the other half: {"continues" | "continued-by": (href, text)}."""
    response = client.get(f"/series/{series.slug}/")
    assert response.status_code == 200, response.status_code
    html = response.content.decode()
    found = {}
    for kind in ("continues", "continued-by"):
        paragraph = re.search(rf'<p [^>]*id="revel-{kind}">(.*?)</p>', html, re.S)
        if paragraph is None:
            continue
        link = re.search(r'<a href="([^"]*)">(.*?)</a>', paragraph.group(1), re.S)
        assert link is not None, paragraph.group(0)
        found[kind] = (unescape(link.group(1)), unescape(link.group(2)))
    return found


__all__ = [
    "SITE_ADAPTER",
    "SiteAdapter",
    "consumer_notes",
    "consumer_summaries",
    "feed_events",
    "feed_summaries",
    "last_start",
    "note_at",
    "page_links",
    "parsed_last_date",
    "titles",
]
