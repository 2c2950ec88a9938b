"""HTTP answers for calendar feeds: ``text/calendar``, ETag, Last-Modified and 304.

Shared by the API's ``series/{id}/ical/`` action and by the feed views a site
mounts itself (the example project's per-series and per-organisation feeds).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseGone
from django.utils import timezone, translation
from django.utils.cache import get_conditional_response
from django.utils.http import content_disposition_header, http_date
from django.utils.translation import gettext

from ..conf import recurring_settings
from ..models import DeletedSeries
from .feeds import CalendarFeed, FeedRevision, deleted_series_feed

CONTENT_TYPE = "text/calendar; charset=utf-8"


def calendar_response(
    request: HttpRequest, feed: CalendarFeed, *, filename: str
) -> HttpResponseBase:
    """``feed`` as a response, or a 304 when the client's copy is current.

    Calendar apps poll subscriptions; with ``If-None-Match`` (the feed's ETag) or
    ``If-Modified-Since`` (the feed's last change) an unchanged feed costs them an
    empty 304. ``Cache-Control: no-cache`` lets caches keep it but makes them ask
    again each time, so a change is seen at the next poll. This builds the body
    first; :func:`revision_response` answers a 304 without building it.
    """
    revision = FeedRevision(etag=feed.etag, last_modified=feed.last_modified)
    return revision_response(request, revision, lambda: feed, filename=filename)


def revision_response(
    request: HttpRequest,
    revision: FeedRevision,
    build: Callable[[], CalendarFeed],
    *,
    filename: str,
) -> HttpResponseBase:
    """A 304 from ``revision`` alone when the client's copy is current, else ``build()``.

    ``revision`` comes from :func:`~revel_recurring.ical.feed_revision` (one
    query); the body, the expensive part, is built only for a client that needs
    it. The 200's validators are the built feed's, which equal ``revision``'s
    unless something changed in between.
    """
    headers = _with_validators(
        HttpResponse(content_type=CONTENT_TYPE), revision.etag, revision.last_modified, filename
    )
    # Django hands back the response it was given when no condition applies, and
    # a 304 (or 412) carrying its validators when one does.
    conditional = get_conditional_response(
        request,
        etag=revision.etag,
        last_modified=_seconds(revision.last_modified),
        response=headers,
    )
    if conditional is not None and conditional is not headers:
        return conditional
    feed = _built_once(revision, build)
    response = HttpResponse(feed.body, content_type=CONTENT_TYPE)
    return _with_validators(response, feed.etag, feed.last_modified, filename)


#: How long a cached feed body is kept: its ETag holds the day of the past cutoff,
#: so a body older than a day is never asked for again.
FEED_CACHE_SECONDS = 24 * 60 * 60


def _built_once(revision: FeedRevision, build: Callable[[], CalendarFeed]) -> CalendarFeed:
    """``build()``, or the body built earlier for the same ETag from ``REVEL_RECURRING_FEED_CACHE``.

    The ETag hashes everything the body depends on (the listed series and their
    last changes, the name, the version, the day of the past cutoff), so two
    requests with one ETag get one body: a large feed is built once per change
    and language, not once per subscriber.
    """
    alias = recurring_settings.FEED_CACHE
    if alias is None:
        return build()
    cache = caches[alias]
    # The body speaks the active language (a moved date's note): the key names
    # it beside the ETag, so a German body never answers an English request.
    language = translation.get_language() or "-"
    key = f"revel_recurring:feed:{language}:{revision.etag.strip(chr(34))}"
    found = cache.get(key)
    if found is not None:
        body, last_modified = found
        return CalendarFeed(body=body, last_modified=last_modified, etag=revision.etag)
    feed = build()
    if feed.etag == revision.etag:  # nothing changed while it was built
        cache.set(key, (feed.body, feed.last_modified), FEED_CACHE_SECONDS)
    return feed


def deleted_series_response(
    request: HttpRequest, deleted: DeletedSeries, *, filename: str, now: dt.datetime | None = None
) -> HttpResponseBase:
    """What the feed of a deleted series answers: an empty calendar, later 410 Gone.

    For ``REVEL_RECURRING_DELETED_FEED_DAYS`` after the deletion the feed is an
    empty calendar (with validators, so polls are 304), which makes calendar apps
    remove the series' dates; after that, 410 Gone tells them to stop polling.
    The caller decides who may see it (``deleted.feed_was_open`` for open URLs).
    """
    now = now or timezone.now()
    kept = dt.timedelta(days=recurring_settings.DELETED_FEED_DAYS)
    if now - deleted.deleted_at >= kept:
        gone = HttpResponseGone(
            gettext("This series was deleted.") + "\n", content_type="text/plain; charset=utf-8"
        )
        gone["Cache-Control"] = "no-cache"
        return gone
    return calendar_response(request, deleted_series_feed(deleted), filename=filename)


def _seconds(moment: dt.datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp())


def last_modified_header(last_modified: dt.datetime | None, *, now: dt.datetime) -> str | None:
    """The ``Last-Modified`` to send at ``now`` for a feed last changed at ``last_modified``.

    An HTTP date counts whole seconds. A feed sent within the second of its last
    change could change again later in that second without its date moving, and
    a client polling by date alone (``If-Modified-Since``) would then be answered
    304 for the stale copy forever. So a second that has not ended yet is never
    sent: the date is then the second before ``now``, which every later change
    passes, and the next date-only poll gets a 200 with a date that holds. A
    change in the future of ``now`` (another server's clock) is handled the
    same way, so the date is never later than the response (RFC 9110, 8.8.2.1).
    """
    seconds = _seconds(last_modified)
    if seconds is None:
        return None
    return http_date(min(seconds, int(now.timestamp()) - 1))


def _with_validators(
    response: HttpResponse, etag: str, last_modified: dt.datetime | None, filename: str
) -> HttpResponse:
    response["ETag"] = etag
    date = last_modified_header(last_modified, now=timezone.now())
    if date is not None:
        response["Last-Modified"] = date
    response["Cache-Control"] = "no-cache"
    # A host's slug may hold any character (SlugField(allow_unicode=True)):
    # Django's helper quotes it, or gives RFC 6266's filename*, so the header
    # stays plain ASCII text that every WSGI server takes.
    response["Content-Disposition"] = content_disposition_header(False, filename) or "inline"
    return response
