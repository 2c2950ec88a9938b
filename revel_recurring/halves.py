"""The two halves of a split series, as their public pages and feeds name each other.

After a split ("this and following", :mod:`revel_recurring.services.splits`) the
original ends before the split date and its continuation goes on as another
series, with its own page and feed. Someone who follows the original must not
just stop getting dates: the original's page says "Continues as <name> from
<date>", the continuation's page "Continues <name> from <date>", and the
original's last date in the feeds carries the same, with the continuation's
feed address (:func:`continuation_note`, written by ``ical/series.py``).

The addresses come from the site's adapter: ``get_series_url`` (the public
page) and ``get_series_feed_url`` (the series' own feed); either may be empty.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.utils.translation import gettext

from .adapter import DefaultRecurringAdapter, get_adapter
from .instants import describe_instant
from .models import EventSeries


@dataclass(frozen=True)
class HalfLink:
    """The other half of a split, as a page or a feed names it."""

    series: EventSeries
    #: Where the continuation starts (its rule's first date, UTC), and the same for a
    #: person, on the continuation's clock.
    starts: dt.datetime
    starts_label: str
    #: The other half's public page (``get_series_url``) and its own calendar feed
    #: (``get_series_feed_url``); empty when the site has none.
    url: str
    feed_url: str


@dataclass(frozen=True)
class SeriesHalves:
    """A series' neighbours in a split: the series it continues, the one continuing it."""

    #: The original this series continues (it was split off that one), or None.
    continues: HalfLink | None
    #: The continuation that takes over after this series' last date, or None.
    continued_by: HalfLink | None

    def __bool__(self) -> bool:
        return self.continues is not None or self.continued_by is not None


def half_link(
    other: EventSeries, continuation: EventSeries, adapter: DefaultRecurringAdapter
) -> HalfLink | None:
    """``other`` as a page names it; the date is where ``continuation`` starts (None
    when it has no rule, so no start to name)."""
    rule = continuation.recurrence_rule
    if rule is None:
        return None
    return HalfLink(
        series=other,
        starts=rule.dtstart,
        starts_label=describe_instant(rule.dtstart, rule.timezone),
        url=adapter.get_series_url(other),
        feed_url=adapter.get_series_feed_url(other),
    )


def series_halves(
    series: EventSeries, *, adapter: DefaultRecurringAdapter | None = None
) -> SeriesHalves:
    """The halves ``series`` links to: two queries, whatever the series."""
    adapter = adapter or get_adapter()
    before = (
        EventSeries.objects.select_related("recurrence_rule")
        .filter(pk=series.split_from_id)
        .first()
        if series.split_from_id is not None
        else None
    )
    after = EventSeries.objects.select_related("recurrence_rule").filter(split_from=series).first()
    return SeriesHalves(
        continues=half_link(before, series, adapter) if before is not None else None,
        continued_by=half_link(after, after, adapter) if after is not None else None,
    )


def is_absolute(url: str) -> bool:
    """Whether ``url`` is one a calendar app can open (``https://...``)."""
    return url.startswith(("https://", "http://"))


def continuation_note(link: HalfLink) -> str:
    """What the original's last date says in the feeds: where the series goes on.

    "This series continues as Yoga 19:00 from Thu 7 Jan 2027 19:00 (Europe/Vienna):
    <page>" and, when the site names one, "Subscribe to its calendar to keep getting
    its dates: <feed>". Addresses that are not absolute are left out: a calendar
    app cannot open them.
    """
    sentence = gettext("This series continues as %(name)s from %(date)s.") % {
        "name": link.series.name,
        "date": link.starts_label,
    }
    lines = [f"{sentence} {link.url}" if is_absolute(link.url) else sentence]
    if is_absolute(link.feed_url):
        lines.append(
            gettext("Subscribe to its calendar to keep getting its dates: %(url)s")
            % {"url": link.feed_url}
        )
    return "\n".join(lines)


def continuation_url(link: HalfLink) -> str:
    """The URL the original's last date carries: the continuation's page, else its feed;
    empty when neither is absolute."""
    return next((url for url in (link.url, link.feed_url) if is_absolute(url)), "")


__all__ = [
    "HalfLink",
    "SeriesHalves",
    "continuation_note",
    "continuation_url",
    "half_link",
    "is_absolute",
    "series_halves",
]
