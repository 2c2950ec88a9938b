"""A series' History page: each operation on its dates, who, when, through what, which dates.

The admin's own "History" button of a series opens it: the operations recorded
for the series (``history.series_operations``: its own, both halves of a split,
the daily pass's chunks naming it), newest first and paged, each with its first
dates (before and after) read in one query for the whole page, and Django's log
of the series' form edits below. An operation with more dates links to its own
page, which reads them page by page: a 10,000-row record never renders at once.
The read-only list of every operation (``notices.py``) shows the same rows.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from .. import history
from ..instants import describe_instant
from ..models import EventSeries, OperationRow, OperationSeries, SeriesOperation
from ..services.toolbox.bookings import series_zone
from .revert import revert_links

if TYPE_CHECKING:
    _Base = admin.ModelAdmin[EventSeries]
else:
    _Base = admin.ModelAdmin

#: Operations on one page of a series' History.
OPERATIONS_PER_PAGE = 20
#: Dates on one page of an operation.
ROWS_PER_PAGE = 100
#: The query parameter of the History's pages (Django's log below it uses ``p``).
OPERATIONS_PAGE_VAR = "ops"


@dataclass(frozen=True)
class RowView:
    """One date an operation touched, as the page shows it."""

    row: OperationRow
    change: str
    before: str
    after: str
    moved: bool


@dataclass(frozen=True)
class OperationView:
    """One operation on the History page."""

    operation: SeriesOperation
    kind: str
    face: str
    who: str
    when: str
    rows: list[RowView]
    more: int
    url: str
    changes: list[tuple[str, Any, Any]] = field(default_factory=list)
    dates_created: int | None = None
    #: Its revert page (admin/revert.py), "" when it cannot be offered.
    revert_url: str = ""


def valid_zone(zone: str | None) -> str | None:
    """``zone`` if it names an IANA zone, else None (UTC)."""
    if not zone:
        return None
    try:
        zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None
    return zone


def _instant(value: dt.datetime | None, zone: str | None) -> str:
    return describe_instant(value, zone) if value is not None else ""


def row_view(row: OperationRow, zone: str | None) -> RowView:
    """A row with its dates before and after in ``zone`` (its start, else its slot)."""
    before = row.start_before or row.slot_before
    after = row.start_after or row.slot_after
    return RowView(
        row=row,
        change=history.change_label(row.change),
        before=_instant(before, zone),
        after=_instant(after, zone),
        moved=before is not None and after is not None and before != after,
    )


def row_views(rows: list[OperationRow], zone: str | None) -> list[RowView]:
    return [row_view(row, zone) for row in rows]


def operation_zone(operation: SeriesOperation, series: EventSeries | None) -> str | None:
    """The zone to name an operation's dates in: its series' rule's, else the one recorded."""
    return valid_zone(series_zone(series) or history.recorded_zone(operation))


def rows_page(request: HttpRequest, operation: SeriesOperation) -> Page[OperationRow]:
    """One page of an operation's rows (``?page=``): a count and one slice."""
    paginator = Paginator(history.operation_rows(operation.pk), ROWS_PER_PAGE)
    return paginator.get_page(request.GET.get("page"))


def operation_facts(operation: SeriesOperation, zone: str | None) -> dict[str, Any]:
    """What the head of an operation's page says, shared with the list of all operations."""
    return {
        "operation": operation,
        "kind_label": history.kind_label(operation.kind),
        "face_label": history.face_label(operation.face),
        "when": describe_instant(operation.created_at, zone),
        "changes": history.settings_changes(operation.before, operation.after),
        "counts": sorted(
            (history.change_label(change), n)
            for change, n in history.change_counts(operation.pk).items()
        ),
    }


class SeriesHistoryMixin(_Base):
    """The series' History (Django's ``history_view``, with the operations) and an
    operation's page of dates, ``<id>/history/<operation id>/``."""

    object_history_template = "admin/revel_recurring/eventseries/object_history.html"

    def get_urls(self) -> list[URLPattern]:
        name = f"{self.opts.app_label}_{self.opts.model_name}_operation"
        own = [
            path(
                "<path:object_id>/history/<uuid:operation_id>/",
                self.admin_site.admin_view(self.operation_view),
                name=name,
            )
        ]
        return own + super().get_urls()

    def _operation_url(self, series_pk: Any, operation_id: Any) -> str:
        return reverse(
            f"admin:{self.opts.app_label}_{self.opts.model_name}_operation",
            args=[series_pk, operation_id],
            current_app=self.admin_site.name,
        )

    def _reverts(
        self, request: HttpRequest, series: EventSeries, operations: list[SeriesOperation]
    ) -> dict[Any, str]:
        """The revert pages to offer (admin/revert.py), for a user who may change the series."""
        if not self.has_change_permission(request, series):
            return {}
        return revert_links(self.admin_site.name, self.opts, series, operations)

    def _visible_series(self, request: HttpRequest, object_id: str) -> EventSeries:
        series = self.get_object(request, unquote(object_id))
        if series is None:
            raise Http404
        if not self.has_view_or_change_permission(request, series):
            raise PermissionDenied
        return series

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        context = dict(extra_context or {})
        series = self.get_object(request, unquote(object_id))
        if series is not None and self.has_view_or_change_permission(request, series):
            context.update(self._history_context(request, series))
        return super().history_view(request, object_id, extra_context=context)

    def _history_context(self, request: HttpRequest, series: EventSeries) -> dict[str, Any]:
        paginator = Paginator(history.series_operations(series.pk), OPERATIONS_PER_PAGE)
        page = paginator.get_page(request.GET.get(OPERATIONS_PAGE_VAR))
        operations = list(page.object_list)
        ids = [operation.pk for operation in operations]
        first = history.first_rows(ids)
        created = dict(
            OperationSeries.objects.filter(operation_id__in=ids, series_ref=series.pk)
            .order_by()
            .values_list("operation_id", "created")
        )
        zone = valid_zone(series_zone(series))
        reverts = self._reverts(request, series, operations)
        entries = [
            OperationView(
                operation=operation,
                kind=history.kind_label(operation.kind),
                face=history.face_label(operation.face),
                who=operation.actor_name,
                when=describe_instant(operation.created_at, zone),
                rows=row_views(first.get(operation.pk, []), zone),
                more=max(operation.row_count - len(first.get(operation.pk, [])), 0),
                url=self._operation_url(series.pk, operation.pk),
                changes=history.settings_changes(operation.before, operation.after),
                dates_created=created.get(operation.pk) or None,
                revert_url=reverts.get(operation.pk, ""),
            )
            for operation in operations
        ]
        return {
            "operations": entries,
            "operations_page": page,
            "operations_page_var": OPERATIONS_PAGE_VAR,
            "operations_page_range": paginator.get_elided_page_range(page.number),
            "series": series,
        }

    def operation_view(
        self, request: HttpRequest, object_id: str, operation_id: Any
    ) -> HttpResponse:
        """One operation of the series with its dates, a page at a time."""
        series = self._visible_series(request, object_id)
        operation = history.series_operations(series.pk).filter(pk=operation_id).first()
        if operation is None:
            raise Http404
        zone = operation_zone(operation, series)
        page = rows_page(request, operation)
        context = {
            **self.admin_site.each_context(request),
            **operation_facts(operation, zone),
            "opts": self.opts,
            "series": series,
            "title": f"{history.kind_label(operation.kind)}: {series.name}",
            "rows": row_views(list(page.object_list), zone),
            "rows_page": page,
            "rows_page_range": page.paginator.get_elided_page_range(page.number),
            "revert_url": self._reverts(request, series, [operation]).get(operation.pk, ""),
            "history_url": reverse(
                f"admin:{self.opts.app_label}_{self.opts.model_name}_history",
                args=[series.pk],
                current_app=self.admin_site.name,
            ),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(
            request, "admin/revel_recurring/eventseries/history_operation.html", context
        )


__all__ = [
    "OPERATIONS_PER_PAGE",
    "ROWS_PER_PAGE",
    "OperationView",
    "RowView",
    "SeriesHistoryMixin",
    "operation_facts",
    "operation_zone",
    "row_views",
    "rows_page",
]
