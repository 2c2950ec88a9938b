"""Enrolments on the dojo (text keys, German members): tests/support/enrolments.py's tests."""

from __future__ import annotations

from tests.support.enrolments import EnrolmentTests


class TestEnrolments(EnrolmentTests):
    """With this folder's ``enrolment_host`` (conftest.py)."""
