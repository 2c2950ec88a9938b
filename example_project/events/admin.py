from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import (
    DigestRecord,
    Event,
    Follow,
    Membership,
    Notification,
    NotificationPreference,
    Organization,
    SeriesFollow,
    TicketTier,
)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


class FollowInline(admin.TabularInline):
    model = Follow
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "owner")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    autocomplete_fields = ("owner",)
    filter_horizontal = ("staff",)
    inlines = (MembershipInline, FollowInline)


class TicketTierInline(admin.TabularInline):
    model = TicketTier
    extra = 0


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "start",
        "status",
        "visibility",
        "organization",
        "series",
        "is_template",
        "is_modified",
    )
    list_filter = ("status", "visibility", "is_template", "organization")
    list_select_related = ("organization", "series")
    search_fields = ("name", "slug")
    date_hierarchy = "start"
    ordering = ("start", "pk")
    readonly_fields = ("is_template", "occurrence_index", "recurrence_id", "created_at")
    raw_id_fields = ("series",)
    inlines = (TicketTierInline,)

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        # revel-recurring refuses to delete a series' template on its own (it
        # raises from pre_delete); listing templates as protected shows the
        # admin's "cannot delete" page instead of an error.
        deleted, model_count, perms_needed, protected = super().get_deleted_objects(objs, request)
        templates = [obj for obj in objs if obj.is_template and obj.series_id is not None]
        protected = [
            *protected,
            *(f"{obj} (the template of series {obj.series_id})" for obj in templates),
        ]
        return deleted, model_count, perms_needed, protected


@admin.register(TicketTier)
class TicketTierAdmin(admin.ModelAdmin):
    list_display = ("name", "event", "price", "quantity", "quantity_sold", "sales_start")
    list_select_related = ("event",)
    raw_id_fields = ("event",)


@admin.register(NotificationPreference)
class NotificationPreferenceAdmin(admin.ModelAdmin):
    list_display = ("user", "silence_all", "disabled_types")
    autocomplete_fields = ("user",)


class NotificationInline(admin.TabularInline):
    model = Notification
    extra = 0
    fields = ("recipient", "is_read")
    readonly_fields = ("recipient",)
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(DigestRecord)
class DigestRecordAdmin(admin.ModelAdmin):
    list_display = (
        "created_at",
        "notification_type",
        "series",
        "occurrence_count",
        "audience",
        "recipient_count",
        "url",
    )
    list_filter = ("notification_type", "audience")
    list_select_related = ("series",)
    readonly_fields = (
        "series",
        "notification_type",
        "occurrence_count",
        "audience",
        "recipient_count",
        "url",
        "created_at",
    )
    inlines = (NotificationInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("recipient", "title", "is_read", "created_at")
    list_filter = ("is_read", "digest__notification_type")
    list_select_related = ("recipient", "digest__series")
    search_fields = ("recipient__username", "recipient__email")
    readonly_fields = ("recipient", "digest")
    actions = ("mark_read", "mark_unread")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="notification")
    def title(self, notification: Notification) -> str:
        return notification.digest.title

    @admin.display(description="created at", ordering="digest__created_at")
    def created_at(self, notification: Notification) -> object:
        return notification.digest.created_at

    @admin.action(description="Mark selected notifications as read")
    def mark_read(self, request: HttpRequest, queryset: QuerySet[Notification]) -> None:
        queryset.update(is_read=True)

    @admin.action(description="Mark selected notifications as unread")
    def mark_unread(self, request: HttpRequest, queryset: QuerySet[Notification]) -> None:
        queryset.update(is_read=False)


@admin.register(SeriesFollow)
class SeriesFollowAdmin(admin.ModelAdmin):
    list_display = ("user", "series", "notify_new_events", "created_at")
    list_filter = ("notify_new_events",)
    list_select_related = ("user", "series")
    autocomplete_fields = ("user",)
    raw_id_fields = ("series",)
