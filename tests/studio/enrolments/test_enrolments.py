"""Enrolments on the studio (UUID keys): tests/support/enrolments.py's tests."""

from __future__ import annotations

from tests.support.enrolments import EnrolmentTests


class TestEnrolments(EnrolmentTests):
    """With this folder's ``enrolment_host`` (conftest.py)."""
