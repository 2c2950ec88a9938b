"""On MariaDB, Django's W036/W037 about the app's own partial constraint and index are answered.

Django warns on every ``migrate`` that MariaDB creates neither the conditional
unique constraint "one template per series" (W036) nor the condition of the
due-series index (W037). The app answers both (the series lock; a plain index) and
leaves them out of its models' checks; the same warning about a host's own
conditional constraint stays. Runs in the MariaDB pass of ``make test``.
"""

from __future__ import annotations

import pytest
from django.core import checks
from django.db import connection, models
from django.test.utils import isolate_apps

from revel_recurring.models import EventSeries, RecurringEventMixin
from tests.hosts.testapp.models import Event

pytestmark = pytest.mark.skipif(
    connection.vendor != "mysql", reason="a backend without partial indexes (MariaDB)"
)


def _ids(messages: list[checks.CheckMessage]) -> list[str]:
    return [message.id for message in messages if message.id]


@pytest.mark.django_db
def test_checks_with_the_database_say_nothing_of_the_apps_partial_constraint_and_index() -> None:
    # What `migrate` and `check --database default` run.
    messages = checks.run_checks(databases=["default"])

    assert not {"models.W036", "models.W037"} & set(_ids(messages))
    # Nothing else was silenced on the way: the backend lacks the feature indeed.
    assert not connection.features.supports_partial_indexes


def test_the_models_own_checks_leave_out_only_the_answered_warnings() -> None:
    assert "models.W036" not in _ids(Event.check(databases=["default"]))
    assert "models.W037" not in _ids(EventSeries.check(databases=["default"]))


@isolate_apps("tests.hosts.testapp")
def test_a_hosts_own_conditional_constraint_still_warns() -> None:
    class Gig(RecurringEventMixin, models.Model):
        title = models.CharField(max_length=50)
        start = models.DateTimeField()
        end = models.DateTimeField(null=True)  # type: ignore[misc]
        status = models.CharField(max_length=20)

        class Meta(RecurringEventMixin.Meta):
            app_label = "testapp"
            constraints = [
                *RecurringEventMixin.Meta.constraints,
                models.UniqueConstraint(
                    fields=["title"], condition=models.Q(is_template=False), name="gig_title"
                ),
            ]

        def __str__(self) -> str:
            return self.title

    warnings = [m for m in Gig.check(databases=["default"]) if m.id == "models.W036"]

    # Two conditional constraints, one of them the app's: one warning is left.
    assert len(warnings) == 1
