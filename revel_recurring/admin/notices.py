"""Who was told: the operations on series' dates, each with its messages, read-only.

Every operation that moved, cancelled or restored booked dates left a
:class:`~revel_recurring.models.SeriesOperation` with one
:class:`~revel_recurring.models.PersonNotice` per person told. An organiser
reads here who was told of what, and whether each message went out (sent when,
after how many attempts, with the last error). Nothing can be added, changed or
deleted: the records are the app's, written with the change and by delivery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from ..models import PersonNotice, SeriesOperation

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


class SeriesOperationAdmin(_Base):
    """The operations on series' dates, newest first; each with the people told."""

    list_display = ("created_at", "kind", "series_name", "notify", "people", "unsent")
    list_filter = ("kind", "notify")
    search_fields = ("series_name", "notices__address")
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    fields = ("kind", "series", "series_name", "plan_hash", "notify", "created_at")
    readonly_fields = fields
    inlines = (PersonNoticeInline,)

    @admin.display(description=_("people told"))
    def people(self, obj: SeriesOperation) -> int:
        return obj.notices.count()

    @admin.display(description=_("not sent yet"))
    def unsent(self, obj: SeriesOperation) -> int:
        return obj.notices.filter(sent_at__isnull=True).count()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


__all__ = ["PersonNoticeInline", "SeriesOperationAdmin"]
