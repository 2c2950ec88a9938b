"""The notifier ``REVEL_RECURRING_NOTIFIER`` points at: in-app rows and one e-mail each.

For one digest: a ``DigestRecord`` (what it is about), one ``Notification`` per
recipient in a single bulk INSERT, and one e-mail per recipient (nobody sees who
else was told) sent over one connection of Django's e-mail backend: the console
in the demo, locmem in the tests, SMTP on a real site. The number of queries does
not depend on the number of recipients.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse

from revel_recurring.instants import describe_instant
from revel_recurring.notifications import SeriesDigest

from .adapter import absolute_url
from .models import DigestRecord, Notification, events_scheduled_title

logger = logging.getLogger(__name__)


def digest_subject(digest: SeriesDigest) -> str:
    """ "1 new event scheduled for Yoga" / "8 new events scheduled for Yoga"."""
    return events_scheduled_title(digest.count, digest.series.name)


def digest_body(digest: SeriesDigest) -> str:
    """The e-mail text shared by every recipient: the dates in the series' zone, the link."""
    return render_to_string(
        "events/email/series_events_generated.txt",
        {
            "series": digest.series,
            "count": digest.count,
            "starts": [
                describe_instant(o.occurrence_start, digest.timezone) for o in digest.occurrences
            ],
            "url": digest.url,
            "notifications_url": absolute_url(reverse("events:notifications")),
        },
    )


def deliver_digest(digest: SeriesDigest) -> None:
    """Record the digest, notify each recipient in-app, then e-mail them."""
    recipients = list(digest.recipients)
    with transaction.atomic():
        record = DigestRecord.objects.create(
            series=digest.series,
            notification_type=digest.notification_type,
            occurrence_count=digest.count,
            audience=digest.audience.value,
            recipient_count=len(recipients),
            url=digest.url,
        )
        Notification.objects.bulk_create(
            [Notification(recipient=person, digest=record) for person in recipients]
        )
    logger.info(
        "%s: %d new occurrence(s) of series %s for %d recipient(s) (%s audience) %s",
        digest.notification_type,
        digest.count,
        digest.series.pk,
        len(recipients),
        digest.audience.value,
        digest.url,
    )
    send_digest_emails(digest, recipients)


def send_digest_emails(digest: SeriesDigest, recipients: list[Any]) -> int:
    """One message per recipient with an address, over one connection; returns the count."""
    subject = digest_subject(digest)
    body = digest_body(digest)
    messages = [
        EmailMessage(
            subject=subject,
            body=f"Hello {person.get_full_name() or person.get_username()},\n\n{body}",
            to=[person.email],
            # RFC 3834: an automatic message; well-behaved auto-responders stay quiet.
            headers={"Auto-Submitted": "auto-generated"},
        )
        for person in recipients
        if getattr(person, "email", "")
    ]
    if not messages:
        return 0
    with get_connection() as connection:
        return connection.send_messages(messages) or 0
