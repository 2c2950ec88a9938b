"""Webhooks on the dojo (text keys, integer-choice statuses): one delivery with the rows."""

from __future__ import annotations

from typing import Any

from tests.support.people import BookPerson, MakeSeries
from tests.support.webhooks import check_delivered_once


def test_a_cancel_stale_of_many_rows_is_one_signed_delivery_naming_them(
    make_series: MakeSeries, book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    check_delivered_once(make_series, book_person, django_capture_on_commit_callbacks)
