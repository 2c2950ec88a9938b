"""``EventSeriesAdmin``: series, their rule, their upcoming dates and the operator's buttons.

Nothing here writes series state itself: the form saves through one service when
it validates (``update_series`` on the change page, ``create_series_from_event``
on the add page; see ``forms.py``), each action and button through one service,
so the series lock, the cursor reset and the exdates are handled as they are for
the API, and a refusal shows on the form beside what the organiser typed.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.views.main import ChangeList
from django.db import router, transaction
from django.db.models import Count, IntegerField, Min, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext_lazy

from ..adapter import get_adapter
from ..describe import describe_spec
from ..exclusions import excluded_between
from ..models import EventSeries, get_event_model
from ..querysets import upcoming_q
from ..services.drift import detect_cadence_drift, drifted_ids_by_series
from ..services.from_event import SeriesFromEvent
from ..services.toolbox.bookings import series_zone
from ..tasks import generate_series_chunk, pause_series_chunk, resume_series_chunk
from .beat import beat_status
from .clock import current_time as _now
from .deletion import DeleteThroughServiceMixin
from .forms import AddDateForm, EventSeriesAddForm, EventSeriesForm
from .holidays import HOLIDAY_FIELDSET
from .operations import (
    adopted_text,
    generate_now,
    generated_text,
    local_label,
    pause,
    report_each,
    resume,
)
from .plans import PlannedSave, plan_page, report_applied
from .selection import queue_action, selected
from .splits import SeriesSplitMixin, split_links
from .upcoming import extra_date_rows, free_slots, upcoming_rows

RULE_FIELDSET = (
    "frequency",
    "interval",
    "weekdays",
    ("monthly_type", "day_of_month"),
    ("nth_weekday", "weekday"),
    "dtstart",
    ("until", "count"),
    "timezone",
)
STATE_FIELDS = (
    "rrule_string",
    "rule_description",
    "cursor",
    "next_due_local",
    "last_occurrence_index",
    "exdates_local",
    "parked_at",
    "parked_reason",
)

# What a queued action says (``%(count)d``: the series queued).
QUEUED_GENERATION = ngettext_lazy(
    "%(count)d series queued for generation: its new dates appear as the Celery worker "
    "gets to it. A paused or parked series is left as it is.",
    "%(count)d series queued for generation: their new dates appear as the Celery worker "
    "gets to them. Paused and parked series are left as they are.",
    "count",
)
QUEUED_PAUSE = ngettext_lazy(
    "%(count)d series queued to be paused.", "%(count)d series queued to be paused.", "count"
)
QUEUED_RESUME = ngettext_lazy(
    "%(count)d series queued to be resumed.", "%(count)d series queued to be resumed.", "count"
)


def answers_an_action(request: HttpRequest) -> bool:
    """Whether Django's changelist view hands this request to an action.

    Such a request is answered by the action (its page, or a redirect back to the
    list), never by the list itself.
    """
    data = request.POST
    return (
        request.method == "POST"
        and "_save" not in data
        and ("index" in data or ACTION_CHECKBOX_NAME in data)
    )


class SeriesChangeList(ChangeList):
    """Adds each listed series' drifted count, computed for the whole page in one query."""

    def get_results(self, request: HttpRequest) -> None:
        if answers_an_action(request) and self.model_admin.get_actions(request):
            # Django would count the series and read a page of them only to drop
            # both: at 10,000 series that is most of an action request's time.
            self.result_count = 0
            self.full_result_count = None
            self.show_full_result_count = self.model_admin.show_full_result_count
            self.show_admin_actions = True
            self.result_list = []
            self.can_show_all = self.multi_page = False
            self.paginator = self.model_admin.get_paginator(
                request, self.queryset, self.list_per_page
            )
            return
        super().get_results(request)
        page = list(self.result_list)
        drifted = drifted_ids_by_series(page, now=timezone.now())
        for series in page:
            series.revel_drifted_count = len(drifted.get(series.pk, ()))
        self.result_list = page


class ParkedFilter(admin.SimpleListFilter):
    """Series the daily pass parked after a failure, and the others."""

    title = gettext_lazy("parked")
    parameter_name = "parked"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", gettext_lazy("Parked")), ("no", gettext_lazy("Generating"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(parked_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(parked_at__isnull=True)
        return queryset


class EventSeriesAdmin(SeriesSplitMixin, DeleteThroughServiceMixin):
    form = EventSeriesForm
    add_form = EventSeriesAddForm
    change_form_template = "admin/revel_recurring/eventseries/change_form.html"
    change_list_template = "admin/revel_recurring/eventseries/change_list.html"
    list_display = (
        "name",
        "is_active",
        "auto_publish",
        "rule_description",
        "next_occurrence",
        "next_due_at",
        "upcoming_count",
        "drifted_count",
        "parked",
    )
    list_filter = ("is_active", "auto_publish", ParkedFilter, "recurrence_rule__frequency")
    list_select_related = ("recurrence_rule",)
    # "12 results (10,000 total)" would count every visible series once more on
    # each page of the list; Django's own advice for large tables.
    show_full_result_count = False
    search_fields = ("name", "slug", "description")
    readonly_fields = STATE_FIELDS
    actions = (
        "delete_selected",
        "generate_now_action",
        "pause_action",
        "resume_action",
        "cancel_stale_action",
    )

    def get_fieldsets(self, request: HttpRequest, obj: EventSeries | None = None) -> Any:
        series = (
            "name",
            "slug",
            "description",
            "is_active",
            "auto_publish",
            "generation_window_weeks",
        )
        if obj is None:
            # A new series' slug is made from its name; it can be changed afterwards.
            added = tuple(field for field in series if field != "slug")
            return [
                (None, {"fields": (*added, "template_source")}),
                (_("Recurrence rule"), {"fields": RULE_FIELDSET}),
                (_("Holidays"), {"fields": HOLIDAY_FIELDSET}),
            ]
        return [
            (None, {"fields": series}),
            (_("Recurrence rule"), {"fields": RULE_FIELDSET}),
            (_("Holidays"), {"fields": HOLIDAY_FIELDSET}),
            (_("Generation state (read-only)"), {"fields": STATE_FIELDS}),
        ]

    def get_exclude(self, request: HttpRequest, obj: EventSeries | None = None) -> Any:
        # The holiday fields are the form's own (HolidayFieldsForm), written by the
        # services: listed in the fieldsets, they would otherwise become model
        # fields of the form, copied onto the series before the plan was confirmed.
        return (*(super().get_exclude(request, obj) or ()), *HOLIDAY_FIELDSET)

    def get_readonly_fields(self, request: HttpRequest, obj: EventSeries | None = None) -> Any:
        return STATE_FIELDS if obj is not None else ()

    def get_form(
        self, request: Any, obj: EventSeries | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        # The add form offers the adapter's template sources for this user only.
        form = self.add_form if obj is None else self.form
        kwargs["form"] = type(form.__name__, (form,), {"user": request.user})
        return super().get_form(request, obj, change=change, **kwargs)

    def get_queryset(self, request: HttpRequest) -> QuerySet[EventSeries]:
        model = get_event_model()
        start = model.RECURRING_START_FIELD
        upcoming = (
            model._default_manager.filter(upcoming_q(model, now=timezone.now()))
            .filter(series=OuterRef("pk"))
            .order_by()
            .values("series")
        )
        # Correlated subqueries, not a join with GROUP BY: the database computes them
        # for the rows of a page (or, to sort by them, for every row), while counts,
        # "select all" and the actions' id reads leave them out. A join would group
        # every series' events in each of those (seconds at 10,000 series).
        queryset = (
            super()
            .get_queryset(request)
            .annotate(
                revel_upcoming=Coalesce(
                    Subquery(upcoming.annotate(n=Count("pk")).values("n")),
                    0,
                    output_field=IntegerField(),
                ),
                revel_next=Subquery(upcoming.annotate(first=Min(start)).values("first")),
            )
        )
        # Superusers too: the adapter decides in the admin as in the API (its
        # default lets every user with the model permissions see everything).
        visible = get_adapter().get_visible_series(request.user)
        return queryset.filter(pk__in=visible.values("pk"))

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return SeriesChangeList

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        context = {"beat": beat_status(self.admin_site), **(extra_context or {})}
        return super().changelist_view(request, extra_context=context)

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        series = self.get_object(request, object_id)
        if series is not None:
            now = _now()
            # Read once for both lists below.
            excluded = excluded_between(series, now)
            rows, truncated = upcoming_rows(
                series, admin_site=self.admin_site, now=now, excluded=excluded
            )
            context.update(
                upcoming=rows,
                upcoming_truncated=truncated,
                free_slots=free_slots(series, now=now, excluded=excluded),
                extra_dates=extra_date_rows(series),
                add_date_form=AddDateForm(auto_id="revel-add-date-%s"),
                rule_zone=series_zone(series) or "UTC",
                has_template=series.get_template() is not None,
                can_operate=self.has_change_permission(request, series),
                **split_links(series, admin_site_name=self.admin_site.name),
            )
        return super().change_view(request, object_id, form_url, extra_context=context)

    def _editable(self, request: HttpRequest, obj: EventSeries) -> bool:
        # Asked several times per page (form, buttons, links): one query per series.
        known: dict[Any, bool] = request.__dict__.setdefault("_revel_editable", {})
        if obj.pk not in known:
            editable = get_adapter().get_editable_series(request.user)
            known[obj.pk] = editable.filter(pk=obj.pk).exists()
        return known[obj.pk]

    def has_add_permission(self, request: HttpRequest) -> bool:
        allowed = super().has_add_permission(request)
        return allowed and get_adapter().can_create_series(request.user)

    def has_change_permission(self, request: HttpRequest, obj: EventSeries | None = None) -> bool:
        allowed = super().has_change_permission(request, obj)
        return allowed and (obj is None or self._editable(request, obj))

    def has_delete_permission(self, request: HttpRequest, obj: EventSeries | None = None) -> bool:
        allowed = super().has_delete_permission(request, obj)
        return allowed and (obj is None or self._editable(request, obj))

    def save_model(self, request: HttpRequest, obj: EventSeries, form: Any, change: bool) -> None:
        """Nothing left to write: the form saved through its service when it validated."""
        outcome = form.outcome
        if isinstance(outcome, PlannedSave):
            report_applied(request, obj, outcome)
        if isinstance(outcome, SeriesFromEvent):
            if outcome.adopted is not None:
                messages.info(request, adopted_text(outcome.series, outcome.adopted))
            messages.info(request, generated_text(outcome.series, len(outcome.created)))

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: EventSeries | None = None,
    ) -> HttpResponse:
        form = context["adminform"].form
        plan = getattr(form, "plan", None)
        if plan is not None and obj is not None:
            # A change of the rule or the window, not saved: its plan to confirm.
            return plan_page(
                request,
                {**context, "opts": self.opts},
                series=obj,
                plan=plan,
                outdated=form.plan_outdated,
                holidays=form.holiday_values,
            )
        response = super().render_change_form(request, context, add, change, form_url, obj)
        if getattr(context["adminform"].form, "outcome", None) is not None:
            # The form saved, yet the page is shown again: an inline formset (of a
            # subclass) refused. Nothing of the save may stay: the admin's
            # transaction rolls back as the view returns (the page renders after it).
            transaction.set_rollback(True, using=router.db_for_write(EventSeries))
        return response

    @admin.display(description=gettext_lazy("rule"))
    def rule_description(self, obj: EventSeries) -> str:
        rule = obj.recurrence_rule
        # The series' dates: the rule with its extra dates and holidays.
        return describe_spec(obj.dates_spec(rule)) if rule is not None else "—"

    @admin.display(description=gettext_lazy("rule as iCalendar text (RRULE)"))
    def rrule_string(self, obj: EventSeries) -> str:
        rule = obj.recurrence_rule
        return format_html("<code>{}</code>", rule.rrule_string) if rule is not None else "—"

    def _local(self, obj: EventSeries, value: dt.datetime | None) -> str:
        return "—" if value is None else local_label(obj, value)

    @admin.display(description=gettext_lazy("dates created up to"))
    def cursor(self, obj: EventSeries) -> str:
        return self._local(obj, obj.last_generated_until)

    @admin.display(description=gettext_lazy("next dates added on"))
    def next_due_local(self, obj: EventSeries) -> str:
        return self._local(obj, obj.next_due_at)

    @admin.display(description=gettext_lazy("cancelled dates"))
    def exdates_local(self, obj: EventSeries) -> str:
        instants = sorted(obj.exdate_instants)
        if not instants:
            return "—"
        return format_html_join(
            ", ", "<span>{}</span>", ((self._local(obj, value),) for value in instants)
        )

    @admin.display(description=gettext_lazy("next occurrence"), ordering="revel_next")
    def next_occurrence(self, obj: EventSeries) -> str:
        return self._local(obj, getattr(obj, "revel_next", None))

    @admin.display(description=gettext_lazy("upcoming"), ordering="revel_upcoming")
    def upcoming_count(self, obj: EventSeries) -> int:
        return int(getattr(obj, "revel_upcoming", 0))

    @admin.display(description=gettext_lazy("parked"), ordering="parked_at")
    def parked(self, obj: EventSeries) -> str:
        """Empty while the series generates; else since when and why (cut for the list)."""
        if obj.parked_at is None:
            return ""
        reason = obj.parked_reason
        short = reason if len(reason) <= 80 else reason[:79] + "…"
        return _("Since %(when)s: %(reason)s") % {
            "when": self._local(obj, obj.parked_at),
            "reason": short,
        }

    @admin.display(description=gettext_lazy("drifted"))
    def drifted_count(self, obj: EventSeries) -> int:
        count = getattr(obj, "revel_drifted_count", None)
        return len(detect_cadence_drift(obj)) if count is None else int(count)

    @admin.action(description=gettext_lazy("Generate now"), permissions=["change"])
    def generate_now_action(self, request: HttpRequest, queryset: QuerySet[EventSeries]) -> None:
        selection = selected(request, queryset)
        # A large selection goes to the daily pass's own chunk task.
        if not queue_action(
            request, selection, generate_series_chunk, QUEUED_GENERATION, label=_("Generate now")
        ):
            report_each(request, selection.series(), generate_now, now=_now())

    @admin.action(description=gettext_lazy("Pause"), permissions=["change"])
    def pause_action(self, request: HttpRequest, queryset: QuerySet[EventSeries]) -> None:
        selection = selected(request, queryset)
        if not queue_action(request, selection, pause_series_chunk, QUEUED_PAUSE, label=_("Pause")):
            report_each(request, selection.series(), pause, now=_now())

    @admin.action(description=gettext_lazy("Resume"), permissions=["change"])
    def resume_action(self, request: HttpRequest, queryset: QuerySet[EventSeries]) -> None:
        selection = selected(request, queryset)
        if not queue_action(
            request, selection, resume_series_chunk, QUEUED_RESUME, label=_("Resume")
        ):
            report_each(request, selection.series(), resume, now=_now())

    @admin.action(description=gettext_lazy("Cancel stale dates…"), permissions=["change"])
    def cancel_stale_action(
        self, request: HttpRequest, queryset: QuerySet[EventSeries]
    ) -> HttpResponse | None:
        return self._cancel_stale(request, selected(request, queryset), from_action=True)
