"""The people's messages through a real SMTP server (aiosmtpd, tests/support/smtp.py).

What a mail client receives, parsed with the standard ``email`` package; a server
that refuses (451) and the task's retries; what stays unsent after the last retry
and the daily pass that queues it again.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import icalendar
import pytest
from django.db import transaction

from revel_recurring.models import PersonNotice
from revel_recurring.notices.compose import message_id
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.tasks import queue_unsent_people_notices
from tests.support.factories import NOW, occurrences, weekly_series
from tests.support.people import BookPerson
from tests.support.smtp import MailServer, mail_server

pytestmark = pytest.mark.django_db

SUBJECT = "Yoga für Anfänger: 1 Ihrer Termine hat sich geändert"
ORGANIZER = "Studio Süd <kurse@studio.example>"


@pytest.fixture
def smtp(settings: Any) -> Iterator[MailServer]:
    """A real SMTP server, and Django's SMTP backend pointed at it."""
    with mail_server() as server:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST = "127.0.0.1"
        settings.EMAIL_PORT = server.port
        settings.EMAIL_TIMEOUT = 10
        settings.REVEL_RECURRING_ORGANIZER = ORGANIZER
        settings.REVEL_RECURRING_SITE_URL = "https://kurse.example"
        yield server


def _parts(message: EmailMessage) -> list[EmailMessage]:
    return [part for part in message.walk() if not part.is_multipart()]


def _calendar_part(message: EmailMessage) -> EmailMessage:
    (part,) = [p for p in _parts(message) if p.get_content_type() == "text/calendar"]
    return part


def test_a_cancel_and_a_restore_arrive_as_a_mail_client_reads_them(
    smtp: MailServer, book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    series = weekly_series(name="Yoga für Anfänger", auto_publish=True)
    rows = occurrences(series)
    book_person(rows[2], "alice@example.com", name="Alice Müller", language="de")

    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        cancel_occurrence(series, rows[2].starts_at, include_booked=True, now=NOW)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        restore_occurrence(series, rows[2].starts_at, now=NOW)

    assert len(smtp.received) == 2
    notices = list(PersonNotice.objects.order_by("operation__created_at", "pk"))
    for received, notice, method, filename in zip(
        smtp.received,
        notices,
        ["CANCEL", "REQUEST"],
        ["cancel.ics", "invite.ics"],
        strict=True,
    ):
        assert received.recipients == ["alice@example.com"]
        assert received.sender == "kurse@studio.example"
        message = received.parsed()
        # Django 5.2 folds an encoded subject onto a line of its own (FWS first).
        assert message["Subject"].strip() == SUBJECT
        assert message["From"].addresses[0].addr_spec == "kurse@studio.example"
        assert message["From"].addresses[0].display_name == "Studio Süd"
        assert message["To"].addresses[0].addr_spec == "alice@example.com"
        assert message["To"].addresses[0].display_name == "Alice Müller"
        # Folded onto a line of its own when long (CFWS before the id, RFC 5322 3.6.4).
        assert message["Message-ID"].strip() == message_id(notice)
        assert message.get_content_type() == "multipart/mixed"
        assert [p.get_content_type() for p in _parts(message)] == ["text/plain", "text/calendar"]
        text = next(p for p in _parts(message) if p.get_content_type() == "text/plain")
        assert "Alice Müller" in text.get_content()
        assert "https://kurse.example/" in text.get_content()
        part = _calendar_part(message)
        assert part.get_param("method") == method
        assert part.get_content_charset() == "utf-8"
        assert part.get_filename() == filename
        assert part.get_content_disposition() == "attachment"
        calendar = icalendar.Calendar.from_ical(part.get_content())
        assert str(calendar["METHOD"]) == method
        (event,) = calendar.walk("VEVENT")
        assert str(event["SUMMARY"]) == "Yoga für Anfänger"
        assert str(event["ORGANIZER"]) == "mailto:kurse@studio.example"
        assert str(event["ATTENDEE"]) == "mailto:alice@example.com"
        assert event["ATTENDEE"].params["CN"] == "Alice Müller"
        assert event["DTSTART"].dt == rows[2].starts_at
        assert event["STATUS"] == ("CANCELLED" if method == "CANCEL" else "CONFIRMED")
    assert len(set(smtp.message_ids())) == 2


def _cancel_with_people(book_person: BookPerson, on_commit: Any, *addresses: str) -> Any:
    """A booked date cancelled (committed, its messages queued), with ``addresses`` on it."""
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    for address in addresses:
        book_person(rows[2], address)
    with on_commit(execute=True), transaction.atomic():
        cancel_occurrence(series, rows[2].starts_at, include_booked=True, now=NOW)
    return rows[2]


def test_a_refusing_server_is_retried_by_the_task_until_it_accepts(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    # 451 to the first three messages: both on the first run, alice again on the first retry.
    with mail_server(refuse=3) as server:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_PORT = server.port
        settings.EMAIL_HOST = "127.0.0.1"
        _cancel_with_people(
            book_person, django_capture_on_commit_callbacks, "alice@example.com", "bob@example.com"
        )

    assert server.refused == 3
    assert sorted(one.recipients[0] for one in server.received) == [
        "alice@example.com",
        "bob@example.com",
    ]
    notices = {n.address: n for n in PersonNotice.objects.all()}
    assert all(n.sent_at is not None for n in notices.values())
    # Each notice counts its attempts: alice's third and bob's second went through.
    assert (notices["alice@example.com"].attempts, notices["bob@example.com"].attempts) == (3, 2)
    assert len(set(server.message_ids())) == 2


def test_after_the_last_retry_the_message_stays_unsent_and_the_daily_pass_queues_it_again(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.REVEL_RECURRING_PEOPLE_MAX_RETRIES = 2
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    with mail_server(refuse=100) as server:
        settings.EMAIL_PORT = server.port
        _cancel_with_people(book_person, django_capture_on_commit_callbacks, "alice@example.com")

    notice = PersonNotice.objects.get()
    assert (server.refused, server.received) == (3, [])  # the first attempt and two retries
    assert notice.sent_at is None
    assert notice.attempts == 3
    assert notice.last_error.startswith("SMTPDataError")
    assert "451" in notice.last_error
    assert "Try again later" in notice.last_error

    # Within the hour the daily pass leaves it to the task; after it, it queues it again.
    with mail_server() as server:
        settings.EMAIL_PORT = server.port
        assert queue_unsent_people_notices(now=NOW + dt.timedelta(minutes=30)) == 0
        assert queue_unsent_people_notices(now=NOW + dt.timedelta(hours=2)) == 1

    notice.refresh_from_db()
    assert [one.recipients for one in server.received] == [["alice@example.com"]]
    assert notice.sent_at is not None
    assert (notice.attempts, notice.last_error) == (4, "")
    assert server.message_ids() == [message_id(notice)]
    # Sent: the next pass has nothing left to queue.
    assert queue_unsent_people_notices(now=NOW + dt.timedelta(days=1)) == 0
