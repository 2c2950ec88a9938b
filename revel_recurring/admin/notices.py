"""Every operation on series' dates, read-only: what, who, when, through what, which dates.

Each change to a series' dates leaves a
:class:`~revel_recurring.models.SeriesOperation`, with its rows (the dates it
touched) and one :class:`~revel_recurring.models.PersonNotice` per person told.
The list filters by kind, face and whether the series still exists, and searches
by series name: a deleted series' records stay here, named by value. An
operation's page shows its dates a page at a time (``admin/history.py``) and who
was told, whether each message went out (sent when, after how many attempts,
with the last error). Nothing can be added, changed or deleted: the records are
the app's, written with the change and by delivery. A user sees the operations
of the series they may see (``get_visible_series``); a superuser sees every one,
those of deleted series included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

from .. import history
from ..adapter import get_adapter
from ..models import PersonNotice, SeriesOperation
from .history import operation_facts, operation_zone, row_views, rows_page

if TYPE_CHECKING:
    _Base = admin.ModelAdmin[SeriesOperation]
    _Inline = admin.TabularInline[PersonNotice, SeriesOperation]
else:
    _Base = admin.ModelAdmin
    _Inline = admin.TabularInline


class PersonNoticeInline(_Inline):
    """The messages of one operation: to whom, sent or not, attempts, last error."""

    model = PersonNotice
    fields = ("address", "name", "language", "sent_at", "attempts", "last_error")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeriesGoneFilter(admin.SimpleListFilter):
    """Whether the operation's series still exists (records outlive their series)."""

    title = _("series")
    parameter_name = "series_state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("kept", _("still there")), ("deleted", _("deleted"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "kept":
            return queryset.filter(series__isnull=False)
        if self.value() == "deleted":
            return queryset.filter(series__isnull=True)
        return queryset


class SeriesOperationAdmin(_Base):
    """The operations on series' dates, newest first; each with its dates and the people told."""

    change_form_template = "admin/revel_recurring/seriesoperation/change_form.html"
    list_display = (
        "created_at",
        "kind_shown",
        "series_name",
        "actor_name",
        "face",
        "row_count",
        "notify",
        "people",
        "unsent",
    )
    list_filter = ("kind", "face", SeriesGoneFilter, "notify")
    search_fields = ("series_name", "notices__address")
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    fields = (
        "kind",
        "series",
        "series_name",
        "series_ref",
        "created_at",
        "actor",
        "actor_name",
        "face",
        "plan_hash",
        "batch_id",
        "row_count",
        "reverts",
        "notify",
        "before",
        "after",
        "summary",
    )
    readonly_fields = fields
    inlines = (PersonNoticeInline,)
    # Searching by an address joins the notices: counting the whole result again on
    # every page of a long list is what Django advises against for large tables.
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[SeriesOperation]:
        queryset = (
            super()
            .get_queryset(request)
            .annotate(
                revel_people=Count("notices", distinct=True),
                revel_unsent=Count(
                    "notices", filter=Q(notices__sent_at__isnull=True), distinct=True
                ),
            )
        )
        user = request.user
        if getattr(user, "is_superuser", False):
            return queryset
        visible = get_adapter().get_visible_series(user).values("pk")
        return queryset.filter(series_ref__in=visible)

    @admin.display(description=_("kind"), ordering="kind")
    def kind_shown(self, obj: SeriesOperation) -> str:
        return history.kind_label(obj.kind)

    @admin.display(description=_("people told"))
    def people(self, obj: SeriesOperation) -> int:
        return int(getattr(obj, "revel_people", 0))

    @admin.display(description=_("not sent yet"))
    def unsent(self, obj: SeriesOperation) -> int:
        return int(getattr(obj, "revel_unsent", 0))

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        operation = self.get_object(request, object_id)
        if operation is not None:
            series = operation.series
            zone = operation_zone(operation, series)
            page = rows_page(request, operation)
            context.update(
                operation_facts(operation, zone),
                rows=row_views(list(page.object_list), zone),
                rows_page=page,
                rows_page_range=page.paginator.get_elided_page_range(page.number),
                series_history_url=self._series_history_url(operation),
            )
        return super().change_view(request, object_id, form_url, extra_context=context)

    def _series_history_url(self, operation: SeriesOperation) -> str | None:
        if operation.series_id is None:
            return None
        try:
            return reverse(
                "admin:revel_recurring_eventseries_history",
                args=[operation.series_id],
                current_app=self.admin_site.name,
            )
        except NoReverseMatch:  # a site that registers no series admin
            return None

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


__all__ = ["PersonNoticeInline", "SeriesOperationAdmin"]
