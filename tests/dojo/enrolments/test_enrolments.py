"""Enrolments on the dojo host: the checks of tests/support/enrolments.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.enrolments import (
    EnrolmentHost,
    check_cancelled_and_restored_date_booked_once,
    check_daily_pass_on_worker,
    check_enrol_skip_take_back_and_end,
    check_full_date_refused_and_reported,
    on_a_worker,
)


@pytest.mark.django_db
def test_enrol_skip_take_back_and_end(enrolment_host: EnrolmentHost) -> None:
    check_enrol_skip_take_back_and_end(enrolment_host)


@pytest.mark.django_db
def test_a_full_date_is_refused_and_reported(
    enrolment_host: EnrolmentHost, django_capture_on_commit_callbacks: Any
) -> None:
    check_full_date_refused_and_reported(enrolment_host, django_capture_on_commit_callbacks)


@pytest.mark.django_db
def test_a_cancelled_and_restored_date_is_booked_once(enrolment_host: EnrolmentHost) -> None:
    check_cancelled_and_restored_date_booked_once(enrolment_host)


@on_a_worker
def test_the_daily_pass_on_a_worker_books_the_new_dates(
    enrolment_host: EnrolmentHost, tmp_path: Path, monkeypatch: Any
) -> None:
    check_daily_pass_on_worker(enrolment_host, tmp_path, monkeypatch)
