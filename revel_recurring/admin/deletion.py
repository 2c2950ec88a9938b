"""Deleting series from the admin through ``delete_series`` (page and "delete selected")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.contrib.admin.actions import delete_selected as django_delete_selected
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from ..host_model import bulky_fields
from ..models import EventSeries, get_event_model
from ..services.bookings import booked_date, booked_ids, series_zone
from ..services.lifecycle import delete_series
from .selection import editable_selection

if TYPE_CHECKING:
    _Base = admin.ModelAdmin[EventSeries]
else:
    _Base = admin.ModelAdmin


class DeleteThroughServiceMixin(_Base):
    """The confirmation page lists what ``delete_series`` removes; deleting calls it."""

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        """What the confirmation page lists: each series with its events and its rule.

        The events' foreign key is PROTECT (paid data is never deleted as a side
        effect), so Django's collector would refuse every series with occurrences;
        ``delete_series`` deletes them on purpose and refuses only booked ones,
        which are listed here as protected.
        """
        model = get_event_model()
        series_list = list(objs)
        # Dates and keys only: a long description copied onto every row is not listed.
        events = list(
            model._default_manager.filter(series__in=series_list)
            .defer(*bulky_fields(model))
            .select_related("series__recurrence_rule")
            .order_by("series_id", model.RECURRING_START_FIELD, "pk")
        )
        by_series: dict[int, list[Any]] = {}
        for event in events:
            if event.series_id is not None:
                by_series.setdefault(event.series_id, []).append(event)
        summary: list[Any] = []
        for series in series_list:
            own = by_series.get(series.pk, [])
            summary.append(f"{capfirst(self.opts.verbose_name)}: {series}")
            summary.append(
                [
                    ngettext(
                        "%(count)d event (template and occurrences)",
                        "%(count)d events (template and occurrences)",
                        len(own),
                    )
                    % {"count": len(own)},
                    *([_("Its recurrence rule")] if series.recurrence_rule_id else []),
                ]
            )
        # One question to the host for every listed event (booked_among), not one each.
        booked = booked_ids(events)
        protected = [
            _("%(date)s of %(series)s has bookings")
            % {
                "date": booked_date(event, series_zone(event.series)).display,
                "series": event.series,
            }
            for event in events
            if event.pk in booked
        ]
        perms_needed: set[str] = set()
        if events and not request.user.has_perm(
            f"{model._meta.app_label}.delete_{model._meta.model_name}"
        ):
            perms_needed.add(str(model._meta.verbose_name))
        counts = {
            self.opts.verbose_name_plural: len(series_list),
            model._meta.verbose_name_plural: len(events),
        }
        return summary, counts, perms_needed, protected

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
        warning naming what was skipped.
        """
        editable = editable_selection(request, queryset)
        if not editable:
            return None
        return django_delete_selected(
            self, request, queryset.filter(pk__in=[series.pk for series in editable])
        )

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[EventSeries]) -> None:
        for series in editable_selection(request, queryset):
            delete_series(series)
