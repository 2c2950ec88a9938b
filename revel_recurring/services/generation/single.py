"""One series, on demand: the entry point the task, the API, the admin and the services call."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils.translation import gettext

from ...context import routine_summary, suppress_event_notifications
from ...exceptions import InvalidArgumentError, SeriesNotFoundError
from ...mixins import RecurringEventMixin
from ...models import EventSeries
from ..toolbox.history import note_generated
from ..toolbox.locking import lock_series
from ..toolbox.operation import dates_operation
from ..toolbox.plumbing import mirror_columns, now_utc
from .floor import CURSOR_COLUMNS, generate_locked
from .plan import check_until


def generate_series_events(
    series: EventSeries | int,
    *,
    until: dt.datetime | None = None,
    now: dt.datetime | None = None,
    backfill: bool = False,
) -> list[RecurringEventMixin]:
    """Materialize every occurrence of ``series`` inside its rolling window.

    ``series`` is an EventSeries or its primary key (the Celery task passes the
    key and saves a query; a missing series then generates nothing). Returns the
    created host events, in start order (empty when there was nothing to do).
    ``until`` replaces the horizon ``now + generation_window_weeks`` and may reach
    at most ``REVEL_RECURRING_MAX_WINDOW_WEEKS`` ahead; an ``until`` at or before the
    cursor (``last_generated_until``) asks for dates already generated: nothing is
    created (a backfill still fills missing past slots up to it) and the cursor stays
    where it is, as no run ever moves it backwards. Occurrences that start
    before ``now`` are skipped unless ``backfill`` (for imports), which walks from
    dtstart and fills every past slot not yet materialized or excluded.

    Runs in one transaction under the series row lock: all occurrences, their
    related rows and the cursor commit together or not at all. After commit, one
    digest is sent for the batch (``notifications.send_series_digest``); a failing
    notifier is logged, never raised.
    """
    moment = now_utc(now)
    check_until(until, moment)
    if isinstance(series, EventSeries):
        if not series.is_active or series.recurrence_rule_id is None:
            return []
        series_id = series.pk
    elif isinstance(series, int) and not isinstance(series, bool):
        series_id = series
    else:
        raise InvalidArgumentError(
            gettext("'series' must be an EventSeries or its primary key, got %(series)s.")
            % {"series": repr(series)}
        )
    created: list[RecurringEventMixin] = []
    with transaction.atomic(), suppress_event_notifications():
        try:
            # The rule is read in its own query after the lock (never joined into
            # the locking statement): after a wait, PostgreSQL re-reads only the
            # locked row, so a joined rule would be the one from before the wait.
            locked = lock_series(series_id, with_rule=True)
        except SeriesNotFoundError:
            return []
        # The locked row is the truth: another caller may have paused the series,
        # moved the cursor or changed the rule while we waited for the lock.
        if not locked.is_active or locked.recurrence_rule_id is None:
            return []
        routine = routine_summary()
        if routine is not None:
            # The daily pass: the dates go into its chunk's summary record.
            run = generate_locked([locked], now=moment, until=until, backfill=backfill)
            if run.batches:
                created = run.batches[0].occurrences
            note_generated(routine, {locked.pk: (locked.name, len(created))}, now=moment)
        else:
            with dates_operation(
                "generate", locked, notify="none", now=moment, reads_rows=False
            ) as operation:
                run = generate_locked([locked], now=moment, until=until, backfill=backfill)
                if run.batches:
                    created = run.batches[0].occurrences
                operation.add_created(created)
    if isinstance(series, EventSeries):
        # Mirror every column written: a later save() of the caller's instance
        # must not rewind the cursor or the index counter.
        mirror_columns(series, locked, *CURSOR_COLUMNS, "exdates")
    return created
