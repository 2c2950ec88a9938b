"""Signals sent by revel-recurring.

All are sent with ``sender=EventSeries`` after the transaction commits
(``transaction.on_commit``) through ``send_robust``: a failing receiver is logged,
never raised into the caller whose write already committed. docs/lifecycle.md
lists them.
"""

from __future__ import annotations

from django.dispatch import Signal

#: A generation batch materialized at least one occurrence.
#: sender: the EventSeries class; kwargs: ``series`` (EventSeries),
#: ``occurrences`` (list of host events, in start order), ``digest`` (SeriesDigest).
series_events_generated = Signal()

#: One occurrence slot was cancelled (``cancel_occurrence`` when it changed
#: something; ``cancel_stale_occurrences`` once per cancelled row).
#: sender: the EventSeries class; kwargs: ``series``, ``instant`` (UTC datetime:
#: the instant asked for, or the row's original slot for stale rows),
#: ``occurrence`` (the host event set to cancelled, or None if not materialized).
occurrence_cancelled = Signal()

#: A cancelled slot was restored by ``restore_occurrence``.
#: sender: the EventSeries class; kwargs: ``series``, ``instant`` (UTC datetime),
#: ``occurrence`` (the host event back in draft/open status, or None when the slot
#: is left to the next generation run).
occurrence_restored = Signal()

#: ``pause_series`` (or ``update_series(is_active=False)``) deactivated a series
#: (not sent when it was already paused).
#: sender: the EventSeries class; kwargs: ``series``.
series_paused = Signal()

#: ``resume_series`` (or ``update_series(is_active=True)``) reactivated or unparked a
#: series (not sent when it was already active and not parked).
#: sender: the EventSeries class; kwargs: ``series``.
series_resumed = Signal()

#: ``update_series`` (or ``update_series_recurrence``) changed the rule, window or
#: auto_publish, or ``apply_recurrence_plan`` changed the rule, window or extra
#: dates; sent before ``series_paused`` / ``series_resumed`` of the same call.
#: sender: the EventSeries class; kwargs: ``series``, ``changed_fields`` (frozenset
#: of rule field names plus "generation_window_weeks" / "auto_publish" /
#: "extra_dates"), ``cursor_reset`` (bool: a generated cursor was reset to None).
series_recurrence_changed = Signal()

#: ``update_template`` ran with a propagation scope (sent even if no row changed).
#: sender: the EventSeries class; kwargs: ``series``, ``fields`` (sorted list of the
#: names written, coupled fields included), ``scope`` ("future_unmodified" or
#: "all_future"), ``updated`` (int, occurrences changed), ``occurrence_ids``
#: (list of the changed occurrences' primary keys, in start order: the rows were
#: written in bulk, without a ``post_save`` each, unless the host model sets
#: ``RECURRING_PROPAGATE_WITH_SAVE``).
template_propagated = Signal()

#: ``split_series`` split a series at a date ("this and following"), after commit.
#: sender: the EventSeries class; kwargs: ``original`` (the series that now ends
#: before ``at``), ``continuation`` (the new series starting at ``at``), ``at``
#: (UTC instant), ``moved`` (list of the ids of the occurrences that changed series).
series_split = Signal()

#: ``add_extra_date`` or ``remove_extra_date`` changed a series' extra dates (RDATE).
#: Not sent by ``apply_recurrence_plan``, whose one ``series_recurrence_changed``
#: names "extra_dates" instead.
#: sender: the EventSeries class; kwargs: ``series``, ``instant`` (UTC datetime),
#: ``added`` (bool: True when added, False when removed), ``occurrence`` (the host
#: event generated for an added date, the cancelled one left at a removed date,
#: or None).
extra_date_changed = Signal()

#: One operation moved, cancelled, restored or re-identified dates of a series (a
#: cancellation, cancel-stale, an applied plan or split, a rule move, a holiday
#: change), once per operation after commit, never once per row. The hook for
#: SMS, push or webhooks; the per-row signals above are still sent as before.
#: sender: the EventSeries class; kwargs: ``kind`` (str: "cancel", "restore",
#: "cancel_stale", "plan", "split", "move", "holidays", "holiday_data",
#: "extra_date"), ``series`` (EventSeries), ``plan_hash`` (str, "" without a plan),
#: ``changes`` (list of dicts, one per changed row: ``pk``, ``kind`` ("moved",
#: "cancelled", "restored", "renamed"), ``series_before``/``series_after``,
#: ``slot_before``/``slot_after``, ``start_before``/``start_after``,
#: ``status_before``/``status_after`` ("live", "cancelled", "draft")),
#: ``operation_id`` (UUID of the operation's SeriesOperation, its history record;
#: None only when the site keeps no history, ``REVEL_RECURRING_HISTORY``, and
#: nobody booked is told), ``people_told`` (bool: the record holds messages to
#: people booked on its dates).
series_dates_changed = Signal()

#: Dates were booked for enrolled users (or could not be), once per series and
#: batch after commit: a run of the daily pass, a split's continuation, an enrolment
#: made, a date restored (a date taken back is answered to its caller: no signal).
#: sender: the EventSeries class; kwargs: ``series`` (EventSeries), ``booked`` and
#: ``refused`` (dicts: user key -> list of host event primary keys),
#: ``operation_id`` (UUID of the SeriesOperation holding the users' messages, or
#: None when the adapter named none of them).
enrolled_dates_booked = Signal()

#: Webhook deliveries are owed (an operation was written, or a delivery resent),
#: once per transaction after commit. The app's receiver queues one Celery task per
#: delivery. sender: the ``WebhookDelivery`` class; kwargs: ``delivery_ids`` (list
#: of ``WebhookDelivery`` primary keys).
webhook_deliveries_due = Signal()
