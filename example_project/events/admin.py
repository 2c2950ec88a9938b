"""The example site's admin, every list scoped to what the signed-in staff member runs.

Staff of organisation A see and change A's organisation, events, ticket tiers,
digests and series follows only (superusers see everything); foreign rows are
"does not exist" (the admin's redirect), and the foreign keys of the forms offer
only A's rows, so nothing can be moved into another organisation either.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import ForeignKey, QuerySet
from django.http import HttpRequest

from revel_recurring.adapter import get_adapter
from revel_recurring.models import EventSeries

from .models import (
    DigestRecord,
    Event,
    Follow,
    Membership,
    Notification,
    NotificationPreference,
    Organization,
    SeriesFollow,
    Ticket,
    TicketTier,
)
from .scoping import organizations_run_by


def _runs(request: HttpRequest) -> QuerySet[Organization]:
    return organizations_run_by(request.user)


def _scoped_choices(db_field: ForeignKey[Any, Any], request: HttpRequest) -> QuerySet[Any] | None:
    """The rows a foreign key of a scoped admin may point at, or None for no limit."""
    if request.user.is_superuser:
        return None
    target = db_field.related_model
    if target is Organization:
        return _runs(request)
    if target is Event:
        return Event.objects.filter(organization__in=_runs(request))
    if target is EventSeries:
        return get_adapter().get_editable_series(request.user)
    return None


class ScopedAdmin(admin.ModelAdmin):
    """Rows reachable through ``scope_lookup`` from an organisation the user runs.

    ``scope_lookup`` leads from the model to ``Organization``; ``"pk"`` on the
    organisation itself. Superusers are not limited.
    """

    scope_lookup = "organization"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        # A subquery, not a join: one row per object however many paths lead to it
        # (a digest reaches its organisation through every event of its series).
        reachable = self.model._default_manager.filter(
            **{f"{self.scope_lookup}__in": _runs(request).values("pk")}
        )
        return queryset.filter(pk__in=reachable.values("pk"))

    def formfield_for_foreignkey(
        self, db_field: ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> Any:
        choices = _scoped_choices(db_field, request)
        if choices is not None:
            kwargs["queryset"] = choices
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class ScopedInline(admin.TabularInline):
    """An inline whose foreign keys offer only the user's own rows (its parent is scoped)."""

    def formfield_for_foreignkey(
        self, db_field: ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> Any:
        choices = _scoped_choices(db_field, request)
        if choices is not None:
            kwargs["queryset"] = choices
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class MembershipInline(ScopedInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


class FollowInline(ScopedInline):
    model = Follow
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Organization)
class OrganizationAdmin(ScopedAdmin):
    scope_lookup = "pk"
    list_display = ("name", "slug", "owner")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    autocomplete_fields = ("owner",)
    filter_horizontal = ("staff",)
    inlines = (MembershipInline, FollowInline)


class TicketTierInline(ScopedInline):
    model = TicketTier
    extra = 0


@admin.register(Event)
class EventAdmin(ScopedAdmin):
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


class TicketInline(admin.TabularInline):
    """The tier's named ticket holders, each one of its ``quantity_sold`` places.

    The tier's form is saved before its inlines: a ticket added here adds one to the
    count the form saved, a ticket deleted here takes one away (Ticket.save/delete).
    """

    model = Ticket
    extra = 0
    fields = ("email", "name", "language", "timezone", "user", "enrolled", "created_at")
    readonly_fields = ("enrolled", "created_at")
    raw_id_fields = ("user",)


@admin.register(TicketTier)
class TicketTierAdmin(ScopedAdmin):
    scope_lookup = "event__organization"
    list_display = ("name", "event", "price", "quantity", "quantity_sold", "sales_start")
    list_select_related = ("event",)
    raw_id_fields = ("event",)
    inlines = (TicketInline,)


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
class DigestRecordAdmin(ScopedAdmin):
    scope_lookup = "series__events__organization"
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
class NotificationAdmin(ScopedAdmin):
    scope_lookup = "digest__series__events__organization"
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
class SeriesFollowAdmin(ScopedAdmin):
    scope_lookup = "series__events__organization"
    list_display = ("user", "series", "notify_new_events", "created_at")
    list_filter = ("notify_new_events",)
    list_select_related = ("user", "series")
    autocomplete_fields = ("user",)
    raw_id_fields = ("series",)
