"""A message's Message-ID is fixed when its notice is written, so every attempt repeats it."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.db import transaction

from revel_recurring.models import PersonNotice
from revel_recurring.notices.compose import compose, message_id, new_message_id
from revel_recurring.notices.delivery import send_notice
from revel_recurring.services.cancellation import cancel_occurrence
from tests.support.factories import NOW, occurrences, weekly_series
from tests.support.people import BookPerson

pytestmark = pytest.mark.django_db


def test_the_message_id_written_with_the_notice_survives_a_changed_uid_domain(
    book_person: BookPerson, settings: Any
) -> None:
    # A worker whose settings answer another UID domain than the process that wrote the
    # notice (the real-worker test found it: "testserver" here, "localhost" there).
    settings.ALLOWED_HOSTS = ["kurse.example"]
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    book_person(rows[2], "Alice@Example.com")
    with transaction.atomic():
        cancel_occurrence(series, rows[2].starts_at, include_booked=True, notify="all", now=NOW)
    notice = PersonNotice.objects.get()
    written = notice.payload["message_id"]
    assert written == new_message_id(notice.operation_id, "alice@example.com")
    assert written.endswith("@kurse.example>")

    settings.ALLOWED_HOSTS = ["elsewhere.example"]

    assert message_id(notice) == compose(notice).message_id == written
    assert send_notice(notice.pk) is True
    assert [m.extra_headers["Message-ID"] for m in mail.outbox] == [written]
