"""Signals sent by revel-recurring. All are sent after the transaction commits."""

from __future__ import annotations

from django.dispatch import Signal

#: A generation batch materialized at least one occurrence.
#: sender: the EventSeries class; kwargs: ``series`` (EventSeries),
#: ``occurrences`` (list of host events, in start order), ``digest`` (SeriesDigest).
series_events_generated = Signal()

#: One occurrence slot was cancelled.
#: sender: the EventSeries class; kwargs: ``series``, ``instant`` (UTC datetime),
#: ``occurrence`` (the host event set to cancelled, or None if not materialized).
occurrence_cancelled = Signal()

#: A cancelled slot was restored.
#: sender: the EventSeries class; kwargs: ``series``, ``instant``, ``occurrence`` (or None).
occurrence_restored = Signal()

#: sender: the EventSeries class; kwargs: ``series``.
series_paused = Signal()

#: sender: the EventSeries class; kwargs: ``series``.
series_resumed = Signal()

#: The rule or window of a series changed.
#: sender: the EventSeries class; kwargs: ``series``, ``changed_fields`` (set of names),
#: ``cursor_reset`` (bool).
series_recurrence_changed = Signal()

#: A template edit was pushed onto occurrences.
#: sender: the EventSeries class; kwargs: ``series``, ``fields`` (list of names),
#: ``scope`` (str), ``updated`` (int, occurrences changed).
template_propagated = Signal()
