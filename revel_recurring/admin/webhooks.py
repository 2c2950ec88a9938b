"""Webhook endpoints and their delivery log in the admin.

An endpoint's page registers or changes it (kinds as boxes, none ticked: every
kind) and shows its latest deliveries with a link to the whole log; a new
endpoint's secret is shown once, in the message after it was added, and again
only when the "New secret" action gives it another. The log
(``WebhookDeliveryAdmin``) is read-only but for the "Send again" action: the
same payload and ``webhook-id``, a fresh run of attempts. Who sees which
endpoints is the adapter's ``get_webhook_scope(user)``, as in the API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from ..adapter import get_adapter
from ..history import kind_label
from ..models import WebhookDelivery, WebhookEndpoint
from ..records.kinds import KINDS
from ..services.webhooks import resend_webhook_deliveries, rotate_webhook_secret

if TYPE_CHECKING:
    _EndpointBase = admin.ModelAdmin[WebhookEndpoint]
    _DeliveryBase = admin.ModelAdmin[WebhookDelivery]
else:
    _EndpointBase = admin.ModelAdmin
    _DeliveryBase = admin.ModelAdmin

#: How many of an endpoint's latest deliveries its page lists.
LATEST_DELIVERIES = 20


def _scope(request: HttpRequest) -> str | None:
    user = request.user
    if not user.is_authenticated:
        return None
    return get_adapter().get_webhook_scope(user)


def _endpoints(request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> QuerySet[Any]:
    scope = _scope(request)
    if scope is None:
        return queryset.none()
    return queryset if scope == "" else queryset.filter(scope=scope)


class WebhookEndpointForm(forms.ModelForm):  # type: ignore[type-arg]
    kinds = forms.MultipleChoiceField(
        label=_("kinds"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("The operations delivered here; none ticked: every kind."),
    )

    class Meta:
        model = WebhookEndpoint
        fields = ("url", "description", "kinds", "active")
        # The address as typed: no scheme guessed (Django 5.2 warns of its default).
        field_classes = {"url": forms.CharField}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field: Any = self.fields["kinds"]
        field.choices = [(kind, kind_label(kind)) for kind in KINDS]

    def clean_kinds(self) -> list[str]:
        return sorted(set(self.cleaned_data.get("kinds") or []))


class WebhookEndpointAdmin(_EndpointBase):
    """The endpoints of the user's scope; each page lists its latest deliveries."""

    form = WebhookEndpointForm
    list_display = ("url", "description", "kinds_text", "scope", "active", "created_at")
    list_filter = ("active",)
    search_fields = ("url", "description")
    readonly_fields = ("scope", "created_by", "created_at", "latest_deliveries")
    actions = ("new_secret",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[WebhookEndpoint]:
        return _endpoints(request, super().get_queryset(request))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and _scope(request) is not None

    @admin.display(description=_("kinds"))
    def kinds_text(self, obj: WebhookEndpoint) -> str:
        if not obj.kinds:
            return gettext("every kind")
        return ", ".join(kind_label(kind) for kind in obj.kinds)

    @admin.display(description=_("latest deliveries"))
    def latest_deliveries(self, obj: WebhookEndpoint) -> str:
        if obj.pk is None:
            return "-"
        rows = WebhookDelivery.objects.filter(endpoint=obj).order_by("-created_at", "-pk")[
            :LATEST_DELIVERIES
        ]
        log = reverse("admin:revel_recurring_webhookdelivery_changelist")
        table = format_html_join(
            "",
            "<tr><td><a href='{}'>{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    reverse("admin:revel_recurring_webhookdelivery_change", args=[row.pk]),
                    kind_label(row.kind),
                    row.get_status_display(),
                    row.attempts,
                    row.last_status_code or "",
                    row.last_error[:200],
                )
                for row in rows
            ),
        )
        return format_html(
            "<table><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>{}</table>"
            "<p><a href='{}?endpoint__id__exact={}'>{}</a></p>",
            gettext("kind"),
            gettext("status"),
            gettext("attempts"),
            gettext("last status code"),
            gettext("last error"),
            table,
            log,
            obj.pk,
            gettext("The whole delivery log"),
        )

    def save_model(
        self, request: HttpRequest, obj: WebhookEndpoint, form: Any, change: bool
    ) -> None:
        if not change:
            obj.scope = _scope(request) or ""
            obj.created_by = str(request.user.pk)
        super().save_model(request, obj, form, change)
        if not change:
            self.message_user(
                request,
                gettext("The endpoint's signing secret, shown only now: %(secret)s")
                % {"secret": obj.secret},
                messages.WARNING,
            )

    @admin.action(description=_("New secret for the selected endpoints"))
    def new_secret(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        for endpoint in queryset.order_by("pk"):
            rotate_webhook_secret(endpoint)
            self.message_user(
                request,
                gettext("New signing secret of %(endpoint)s, shown only now: %(secret)s")
                % {"endpoint": endpoint, "secret": endpoint.secret},
                messages.WARNING,
            )


class WebhookDeliveryAdmin(_DeliveryBase):
    """The delivery log of the user's endpoints, read-only; deliveries can be sent again."""

    list_display = (
        "created_at",
        "endpoint",
        "kind",
        "operation_ref",
        "status",
        "attempts",
        "last_status_code",
        "delivered_at",
    )
    list_filter = ("status", "kind")
    list_select_related = ("endpoint",)
    search_fields = ("operation_ref",)
    readonly_fields = (
        "endpoint",
        "operation_ref",
        "kind",
        "status",
        "attempts",
        "last_status_code",
        "last_error",
        "next_attempt_at",
        "delivered_at",
        "created_at",
        "payload",
    )
    fields = readonly_fields
    actions = ("send_again",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[WebhookDelivery]:
        endpoints = _endpoints(request, WebhookEndpoint.objects.all()).values("pk")
        return super().get_queryset(request).filter(endpoint__in=endpoints)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(
        description=_("Send the selected deliveries again"),
        permissions=["view"],
    )
    def send_again(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        count = resend_webhook_deliveries(queryset.values_list("pk", flat=True))
        self.message_user(
            request,
            ngettext(
                "%(count)d delivery queued again, with its payload and webhook-id.",
                "%(count)d deliveries queued again, each with its payload and webhook-id.",
                count,
            )
            % {"count": count},
            messages.SUCCESS,
        )
