"""``EventSeriesAdmin``: series, their rule, their upcoming dates and the operator's buttons.

Nothing here writes series state itself: the form saves through one service when
it validates (``update_series`` on the change page, ``create_series_from_event``
on the add page; see ``forms.py``), each action and button through one service,
so the series lock, the cursor reset and the exdates are handled as they are for
the API, and a refusal shows on the form beside what the organiser typed.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.admin.views.main import ChangeList
from django.db import router, transaction
from django.db.models import Count, IntegerField, Min, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from ..adapter import get_adapter
from ..exclusions import excluded_between
from ..models import EventSeries, get_event_model
from ..querysets import upcoming_q
from ..services.from_event import SeriesFromEvent
from ..services.toolbox.bookings import series_zone
from .acting import ActingAdminMixin
from .actions import SeriesActionsMixin
from .beat import beat_status
from .changelist import ParkedFilter, SeriesChangeList, answers_an_action
from .clock import current_time as _now
from .columns import SeriesColumnsMixin
from .deletion import DeleteThroughServiceMixin
from .enrolments import enrolled_context, with_enrolled_notes
from .forms import EventSeriesAddForm, EventSeriesForm
from .history import SeriesHistoryMixin
from .holidays import HOLIDAY_FIELDSET
from .operations import adopted_text, generated_text
from .plans import PlannedSave, plan_page, report_applied
from .queued import recent_queued_actions
from .refused_dates import refused_date_form
from .revert import SeriesRevertMixin
from .splits import SeriesSplitMixin, split_links
from .telling import telling_context
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
#: What the series' generation has done so far, shown read-only on its page.
STATE_FIELDS = (
    "rule_description",
    "cursor",
    "next_due_local",
    "exdates_local",
    "parked_at",
    "parked_reason",
)
#: Read-only values for the technically minded, in a section shown folded.
TECHNICAL_FIELDS = ("rrule_string", "occurrence_numbers")


class EventSeriesAdmin(
    ActingAdminMixin,
    SeriesHistoryMixin,
    SeriesActionsMixin,
    SeriesColumnsMixin,
    SeriesSplitMixin,
    SeriesRevertMixin,
    DeleteThroughServiceMixin,
):
    form = EventSeriesForm
    add_form = EventSeriesAddForm
    change_form_template = "admin/revel_recurring/eventseries/change_form.html"
    change_list_template = "admin/revel_recurring/eventseries/change_list.html"
    list_display = (
        "name",
        "rule_description",
        "next_occurrence",
        "next_due_local",
        "upcoming_count",
        "drifted_count",
        "state",
    )
    list_filter = ("is_active", "auto_publish", ParkedFilter, "recurrence_rule__frequency")
    list_select_related = ("recurrence_rule",)
    # "12 results (10,000 total)" would count every visible series once more on
    # each page of the list; Django's own advice for large tables.
    show_full_result_count = False
    search_fields = ("name", "slug", "description")
    readonly_fields = (*STATE_FIELDS, *TECHNICAL_FIELDS)
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
            (
                _("Technical details"),
                {"fields": TECHNICAL_FIELDS, "classes": ("collapse",)},
            ),
        ]

    def get_exclude(self, request: HttpRequest, obj: EventSeries | None = None) -> Any:
        # The holiday fields are the form's own (HolidayFieldsForm), written by the
        # services: listed in the fieldsets, they would otherwise become model
        # fields of the form, copied onto the series before the plan was confirmed.
        return (*(super().get_exclude(request, obj) or ()), *HOLIDAY_FIELDSET)

    def get_readonly_fields(self, request: HttpRequest, obj: EventSeries | None = None) -> Any:
        return (*STATE_FIELDS, *TECHNICAL_FIELDS) if obj is not None else ()

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
        context: dict[str, Any] = {"beat": beat_status(self.admin_site)}
        if not answers_an_action(request):  # an action's request never shows the list
            context["queued_actions"] = recent_queued_actions(
                request, site_name=self.admin_site.name
            )
        context.update(extra_context or {})
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
            enrolments = enrolled_context(series, admin_site=self.admin_site, request=request)
            if enrolments["offers_enrolments"]:
                rows = with_enrolled_notes(series, rows)
            context.update(
                enrolments,
                upcoming=rows,
                upcoming_truncated=truncated,
                free_slots=free_slots(series, now=now, excluded=excluded),
                extra_dates=extra_date_rows(series),
                add_date_form=refused_date_form(request, series),
                rule_zone=series_zone(series) or "UTC",
                has_template=series.get_template() is not None,
                can_operate=self.has_change_permission(request, series),
                **split_links(series, admin_site_name=self.admin_site.name),
                **telling_context(0),
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
                changes=getattr(form, "plan_changes", None),
            )
        response = super().render_change_form(request, context, add, change, form_url, obj)
        if getattr(context["adminform"].form, "outcome", None) is not None:
            # The form saved, yet the page is shown again: an inline formset (of a
            # subclass) refused. Nothing of the save may stay: the admin's
            # transaction rolls back as the view returns (the page renders after it).
            transaction.set_rollback(True, using=router.db_for_write(EventSeries))
        return response
