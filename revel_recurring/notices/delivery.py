"""Sending an operation's notices, after commit: once each, retried, never dropped.

Each notice is sent under its row lock and marked sent in the same transaction,
so two workers never send one notice and a sent one is never sent again. A worker
that dies after the mail server accepted a message and before the mark repeats
that message once, with the same Message-ID. A refused message keeps its notice
unsent; the task retries it, and the daily pass picks up whatever is left.
"""

from __future__ import annotations

import datetime as dt
import logging
from email.message import MIMEPart
from email.mime.text import MIMEText
from email.utils import formataddr
from typing import Any

import django
from django.core.mail import EmailMessage
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from ..conf import recurring_settings
from ..models import PersonNotice
from .compose import PersonMessage, compose

logger = logging.getLogger(__name__)


def _calendar_part(text: str, method: str, filename: str) -> MIMEPart | MIMEText:
    """One text/calendar attachment with its METHOD as a parameter (RFC 6047).

    Django 6.0 takes the modern ``MIMEPart`` and deprecates the legacy ``MIMEBase``
    classes that Django 5.2 alone accepts, so the part is built for the running version.
    Both carry the text in base64, so its CRLF line ends and folds (RFC 5545 3.1) reach
    the calendar byte for byte: the modern API would rewrite a text's line ends.
    """
    if django.VERSION >= (6, 0):
        modern = MIMEPart()
        modern.set_content(
            text.encode(),
            maintype="text",
            subtype="calendar",
            cte="base64",
            params={"method": method, "charset": "utf-8"},
            disposition="attachment",
            filename=filename,
        )
        return modern
    legacy = MIMEText(text, "calendar", "utf-8")
    legacy.set_param("method", method)
    legacy.add_header("Content-Disposition", "attachment", filename=filename)
    return legacy


def send_email(message: PersonMessage) -> None:
    """Send ``message`` through Django's mail, the calendar objects as text/calendar parts."""
    sender = formataddr((message.from_name, message.from_address)) if message.from_address else None
    email = EmailMessage(
        subject=message.subject,
        body=message.body,
        from_email=sender,
        to=[formataddr((message.name, message.address)) if message.name else message.address],
        headers={"Message-ID": message.message_id},
    )
    for filename, text, method in message.attachments:
        email.attach(_calendar_part(text, method, filename))
    email.send(fail_silently=False)


def deliver(message: PersonMessage) -> None:
    """Hand ``message`` to ``REVEL_RECURRING_PEOPLE_DELIVERY``, or to e-mail without one."""
    path = recurring_settings.PEOPLE_DELIVERY
    if path:
        import_string(path)(message)
    else:
        send_email(message)


def send_notice(notice_id: int) -> bool | None:
    """Send one notice unless it was sent: True sent now, None already sent, False refused.

    The notice stays locked while it is sent; a failure is counted on it and left
    for a retry, never raised.
    """
    with transaction.atomic():
        notice = (
            PersonNotice.objects.select_for_update()
            .select_related("operation")
            .filter(pk=notice_id, sent_at__isnull=True)
            .first()
        )
        if notice is None:
            return None
        try:
            deliver(compose(notice))
        # Everything: the mail server's or the host's error, kept on the notice.
        except Exception as exc:
            logger.warning("revel_recurring could not send notice %s: %s", notice_id, exc)
            PersonNotice.objects.filter(pk=notice_id).update(
                attempts=notice.attempts + 1, last_error=f"{type(exc).__name__}: {exc}"[:2000]
            )
            return False
        PersonNotice.objects.filter(pk=notice_id).update(
            sent_at=timezone.now(), attempts=notice.attempts + 1, last_error=""
        )
        return True


def send_operation_notices(operation_id: Any) -> dict[str, int]:
    """Send every unsent notice of one operation; how many were sent, already sent, refused."""
    counts = {"sent": 0, "already": 0, "refused": 0}
    ids = list(
        PersonNotice.objects.filter(operation_id=operation_id, sent_at__isnull=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    for notice_id in ids:
        outcome = send_notice(notice_id)
        counts["sent" if outcome else "already" if outcome is None else "refused"] += 1
    return counts


def operations_with_unsent(
    *, older_than: dt.timedelta, now: dt.datetime | None = None
) -> list[Any]:
    """Operations with a notice still unsent ``older_than`` after the operation (for the sweep)."""
    cutoff = (now or timezone.now()) - older_than
    return list(
        PersonNotice.objects.filter(sent_at__isnull=True, operation__created_at__lte=cutoff)
        .order_by()
        .values_list("operation_id", flat=True)
        .distinct()
    )
