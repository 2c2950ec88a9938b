"""HTTP answers for calendar feeds: ``text/calendar``, ETag, Last-Modified and 304.

Shared by the API's ``series/{id}/ical/`` action and by the feed views a site
mounts itself (the example project's per-series and per-organisation feeds).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from .ical import CalendarFeed

CONTENT_TYPE = "text/calendar; charset=utf-8"


def calendar_response(
    request: HttpRequest, feed: CalendarFeed, *, filename: str
) -> HttpResponseBase:
    """``feed`` as a response, or a 304 when the client's copy is current.

    Calendar apps poll subscriptions; with ``If-None-Match`` (the strong ETag of the
    body) or ``If-Modified-Since`` (the feed's last change) an unchanged feed costs
    them an empty 304. ``Cache-Control: no-cache`` lets caches keep it but makes
    them ask again each time, so a change is seen at the next poll.
    """
    response = HttpResponse(feed.body, content_type=CONTENT_TYPE)
    response["ETag"] = feed.etag
    last_modified = None
    if feed.last_modified is not None:
        last_modified = int(feed.last_modified.timestamp())
        response["Last-Modified"] = http_date(last_modified)
    response["Cache-Control"] = "no-cache"
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    conditional = get_conditional_response(
        request, etag=feed.etag, last_modified=last_modified, response=response
    )
    return conditional if conditional is not None else response
