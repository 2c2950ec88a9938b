"""Deleting series from the admin through ``delete_series`` (page and "delete selected").

Both confirmation pages are bounded: they list at most ``LISTED_SERIES`` series
and ``LISTED_DATES`` booked dates of each, and count the rest. A selection within
``REVEL_RECURRING_ADMIN_INLINE_LIMIT`` goes Django's way (its page, its history
entries, then ``delete_queryset``); a larger one gets a summary page of counts and
is deleted by ``delete_series_chunk`` tasks, which keep every series whose dates
hold bookings and name it in their result.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.contrib.admin.actions import delete_selected as django_delete_selected
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, ngettext_lazy

from ..models import EventSeries, QueuedAction, get_event_model
from ..services.lifecycle import delete_series
from ..services.toolbox.bookings import booked_date, booked_ids, series_zone
from ..tasks import delete_series_chunk
from .selection import (
    LISTED_DATES,
    LISTED_SERIES,
    UP_TO_FIELD,
    Selection,
    editable_selection,
    queue_action,
    reposted,
    selected,
)

if TYPE_CHECKING:
    _Base = admin.ModelAdmin[EventSeries]
else:
    _Base = admin.ModelAdmin

QUEUED_DELETION = ngettext_lazy(
    "%(count)d series queued for deletion; a series whose dates hold bookings is kept. "
    "This page shows when it has finished.",
    "%(count)d series queued for deletion; series whose dates hold bookings are kept. "
    "This page shows when it has finished.",
    "count",
)


def _events_text(count: int) -> str:
    return ngettext(
        "%(count)d event (template and occurrences)",
        "%(count)d events (template and occurrences)",
        count,
    ) % {"count": count}


class DeleteThroughServiceMixin(_Base):
    """The confirmation pages list what ``delete_series`` removes; deleting calls it."""

    def _series_lines(
        self, series_list: Sequence[EventSeries], counts: Mapping[Any, int], total: int
    ) -> list[Any]:
        """Each listed series with its events and rule, then how many more (bounded)."""
        lines: list[Any] = []
        for series in series_list[:LISTED_SERIES]:
            lines.append(f"{capfirst(self.opts.verbose_name)}: {series}")
            lines.append(
                [
                    _events_text(counts.get(series.pk, 0)),
                    *([_("Its recurrence rule")] if series.recurrence_rule_id else []),
                ]
            )
        if total > LISTED_SERIES:
            lines.append(
                ngettext(
                    "… and %(count)d more series",
                    "… and %(count)d more series",
                    total - LISTED_SERIES,
                )
                % {"count": total - LISTED_SERIES}
            )
        return lines

    def _booked_lines(self, series_list: Sequence[EventSeries], events: Iterable[Any]) -> list[str]:
        """The booked dates among ``events``: the first of each listed series, then a count."""
        by_id = {series.pk: series for series in series_list}
        booked: dict[int, list[Any]] = {}
        for event in events:
            booked.setdefault(event.series_id, []).append(event)
        lines: list[str] = []
        left = 0
        for number, (series_id, rows) in enumerate(booked.items()):
            shown = rows[:LISTED_DATES] if number < LISTED_SERIES else []
            series = by_id[series_id]
            zone = series_zone(series)
            lines.extend(
                _("%(date)s of %(series)s has bookings")
                % {"date": booked_date(event, zone).display, "series": series}
                for event in shown
            )
            left += len(rows) - len(shown)
        if left:
            lines.append(
                ngettext(
                    "… and %(count)d more booked date",
                    "… and %(count)d more booked dates",
                    left,
                )
                % {"count": left}
            )
        return lines

    def _perms_needed(self, request: HttpRequest, has_events: bool) -> set[str]:
        model = get_event_model()
        label = f"{model._meta.app_label}.delete_{model._meta.model_name}"
        if has_events and not request.user.has_perm(label):
            return {str(model._meta.verbose_name)}
        return set()

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        """What the confirmation page lists: the series with their events and rule, bounded.

        The events' foreign key is PROTECT (paid data is never deleted as a side
        effect), so Django's collector would refuse every series with occurrences;
        ``delete_series`` deletes them on purpose and refuses only booked ones,
        which are listed here as protected (the first dates of each, then a count).
        Three queries whatever the number of events: the series, their events'
        keys, dates and series, and one question to the host (``booked_among``).
        """
        model = get_event_model()
        start = model.RECURRING_START_FIELD
        series_list = list(
            objs.select_related("recurrence_rule") if isinstance(objs, QuerySet) else objs
        )
        # Keys, series and dates only: what the host's booked_among may read and the
        # protected lines show; a long description copied onto every row stays put.
        events = list(
            model._default_manager.filter(series__in=series_list)
            .only("pk", "series", start)
            .order_by("series_id", start, "pk")
        )
        counts = Counter(event.series_id for event in events)
        booked = booked_ids(events)
        protected = self._booked_lines(series_list, (e for e in events if e.pk in booked))
        summary = self._series_lines(series_list, counts, len(series_list))
        counted = {
            self.opts.verbose_name_plural: len(series_list),
            model._meta.verbose_name_plural: len(events),
        }
        return summary, counted, self._perms_needed(request, bool(events)), protected

    def delete_model(self, request: HttpRequest, obj: EventSeries) -> None:
        delete_series(obj)

    @admin.action(
        permissions=["delete"],
        description=gettext_lazy("Delete selected %(verbose_name_plural)s"),
    )
    def delete_selected(
        self, request: HttpRequest, queryset: QuerySet[EventSeries]
    ) -> HttpResponse | None:
        """Django's "delete selected", confirmation page included, on the editable part only.

        The model's delete permission is all Django checks here; without this a user
        who may only view a series could delete it from a mixed selection. The
        confirmation page lists (and resubmits) only what would be deleted, under a
        warning naming what was skipped. Over the inline limit, the summary page
        and the queued deletion of :meth:`_delete_queued`.
        """
        selection = selected(request, queryset)
        if not selection.ids:
            return None
        if selection.queued:
            return self._delete_queued(request, selection)
        return django_delete_selected(self, request, queryset.filter(pk__in=selection.ids))

    def _delete_queued(self, request: HttpRequest, selection: Selection) -> HttpResponse | None:
        """A summary page of counts; once confirmed, ``delete_series_chunk`` tasks.

        Whether a series' dates hold bookings is asked of the host for the listed
        series only (the tasks ask for each series as they delete it, and keep the
        booked ones), so the page costs the same for 300 series as for 100,000.
        """
        model = get_event_model()
        start = model.RECURRING_START_FIELD
        rows = model._default_manager.filter(series__in=selection.rows()).order_by()
        if request.POST.get("post"):
            if self._perms_needed(request, rows.exists()):
                raise PermissionDenied
            queue_action(
                request,
                selection,
                delete_series_chunk,
                QUEUED_DELETION,
                label=_("Delete selected %(verbose_name_plural)s")
                % {"verbose_name_plural": self.opts.verbose_name_plural},
                action=QueuedAction.Action.DELETE,
                user_id=str(request.user.pk),
            )
            return None
        total_events = rows.count()
        perms_needed = self._perms_needed(request, bool(total_events))
        listed = selection.series(selection.ids[:LISTED_SERIES])
        counts = dict(
            rows.filter(series__in=listed)
            .values("series_id")
            .annotate(events=Count("pk"))
            .values_list("series_id", "events")
        )
        events = list(
            model._default_manager.filter(series__in=listed)
            .only("pk", "series", start)
            .order_by("series_id", start, "pk")
        )
        booked = booked_ids(events)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Delete multiple objects"),
            "subtitle": None,
            "objects_name": str(self.opts.verbose_name_plural),
            "deletable_objects": [self._series_lines(listed, counts, len(selection))],
            "model_count": {
                self.opts.verbose_name_plural: len(selection),
                model._meta.verbose_name_plural: total_events,
            }.items(),
            "booked": self._booked_lines(listed, (e for e in events if e.pk in booked)),
            "perms_lacking": perms_needed,
            "reposted": reposted(selection),
            "up_to_field": UP_TO_FIELD,
            "opts": self.opts,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
            "media": self.media,
        }
        return TemplateResponse(
            request, "admin/revel_recurring/eventseries/delete_queued.html", context
        )

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[EventSeries]) -> None:
        for series in editable_selection(request, queryset):
            delete_series(series)
