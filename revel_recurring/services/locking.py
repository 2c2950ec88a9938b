"""The series row lock every multi-row write takes first."""

from __future__ import annotations

from django.db import connections, router
from django.db.models import F

from ..models import EventSeries


def lock_series(series_id: int, *, with_rule: bool = False) -> EventSeries:
    """Lock the series row for the current transaction and return its fresh state.

    PostgreSQL: ``SELECT ... FOR UPDATE OF`` the series table only. No join is
    ever added (a nullable ``select_related`` would become a LEFT JOIN, which
    PostgreSQL refuses to lock). Backends without ``FOR UPDATE OF`` (MariaDB) take
    a plain row lock. Backends without row locks (SQLite) get a no-op UPDATE as
    the first statement: it takes SQLite's database write lock at once, so a
    second writer waits instead of reading a snapshot that goes stale.
    Must be called inside ``transaction.atomic()``.

    ``with_rule=True`` loads the recurrence rule in the same query through an
    INNER join (the filter on a rule column makes Django join it as INNER, which
    may sit under ``FOR UPDATE OF``; only the series row is locked). A series
    without a rule then raises ``DoesNotExist`` like a missing one.
    """
    alias = router.db_for_write(EventSeries)
    features = connections[alias].features
    queryset = EventSeries.objects.using(alias).filter(pk=series_id)
    if with_rule:
        queryset = queryset.filter(recurrence_rule__interval__gte=1).select_related(
            "recurrence_rule"
        )
    if features.has_select_for_update_of:
        return queryset.select_for_update(of=("self",)).get()
    if features.has_select_for_update:
        return queryset.select_for_update().get()
    queryset.update(is_active=F("is_active"))
    return queryset.get()
