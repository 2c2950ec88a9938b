"""The series list's actions: generate now, pause, resume and cancel stale dates.

A selection too large to work through in the request goes to the daily pass's
chunk tasks (``selection.queue_action``); a smaller one is worked through with one
service call per series, told in one message per kind of outcome
(``operations.pause_each`` and its siblings, ``summaries.py``).
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext_lazy

from ..models import EventSeries, QueuedAction
from ..tasks import generate_series_chunk, pause_series_chunk, resume_series_chunk
from .clock import current_time as _now
from .operations import generate_each, pause_each, resume_each
from .selection import queue_action, selected
from .stale import CancelStaleMixin

# What a queued action says (``%(count)d``: the series queued). The list shows its
# record ("Recent bulk actions") until it has finished, and after.
QUEUED_GENERATION = ngettext_lazy(
    "%(count)d series queued for generation; this page shows when it has finished. A "
    "paused or parked series is left as it is.",
    "%(count)d series queued for generation; this page shows when it has finished. "
    "Paused and parked series are left as they are.",
    "count",
)
QUEUED_PAUSE = ngettext_lazy(
    "%(count)d series queued to be paused; this page shows when it has finished.",
    "%(count)d series queued to be paused; this page shows when it has finished.",
    "count",
)
QUEUED_RESUME = ngettext_lazy(
    "%(count)d series queued to be resumed; this page shows when it has finished.",
    "%(count)d series queued to be resumed; this page shows when it has finished.",
    "count",
)


class SeriesActionsMixin(CancelStaleMixin):
    """The actions ``EventSeriesAdmin.actions`` lists (with Django's ``delete_selected``)."""

    @admin.action(description=gettext_lazy("Generate now"), permissions=["change"])
    def generate_now_action(self, request: HttpRequest, queryset: QuerySet[EventSeries]) -> None:
        selection = selected(request, queryset)
        # A large selection goes to the daily pass's own chunk task.
        if not queue_action(
            request,
            selection,
            generate_series_chunk,
            QUEUED_GENERATION,
            label=_("Generate now"),
            action=QueuedAction.Action.GENERATE,
        ):
            generate_each(request, selection.series(), now=_now())

    @admin.action(description=gettext_lazy("Pause"), permissions=["change"])
    def pause_action(self, request: HttpRequest, queryset: QuerySet[EventSeries]) -> None:
        selection = selected(request, queryset)
        if not queue_action(
            request,
            selection,
            pause_series_chunk,
            QUEUED_PAUSE,
            label=_("Pause"),
            action=QueuedAction.Action.PAUSE,
        ):
            pause_each(request, selection.series(), now=_now())

    @admin.action(description=gettext_lazy("Resume"), permissions=["change"])
    def resume_action(self, request: HttpRequest, queryset: QuerySet[EventSeries]) -> None:
        selection = selected(request, queryset)
        if not queue_action(
            request,
            selection,
            resume_series_chunk,
            QUEUED_RESUME,
            label=_("Resume"),
            action=QueuedAction.Action.RESUME,
        ):
            resume_each(request, selection.series(), now=_now())

    @admin.action(description=gettext_lazy("Cancel stale dates…"), permissions=["change"])
    def cancel_stale_action(
        self, request: HttpRequest, queryset: QuerySet[EventSeries]
    ) -> HttpResponse | None:
        return self._cancel_stale(request, selected(request, queryset), from_action=True)
