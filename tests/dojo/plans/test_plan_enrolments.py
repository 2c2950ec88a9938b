"""Plans count enrolled users beside bookings on the third host (tests/support/plan_enrolments)."""

from __future__ import annotations

import pytest

from tests.dojo.conftest import MakeSeries
from tests.support.plan_enrolments import check_plans_count_enrolled_users

pytestmark = pytest.mark.django_db


def test_cadence_and_split_plans_count_the_enrolled_users(make_series: MakeSeries) -> None:
    check_plans_count_enrolled_users(make_series(), make_series(name="Tango"))
