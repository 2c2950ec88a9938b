"""The admin's "Change this and following…": a series split at one of its dates.

The change page links each upcoming date the series can be split at to
``<id>/split/?at=<UTC instant>``. That page is a form: the continuation's name,
its rule (the series' rule from that date on) and the template fields the host
propagates, pre-filled from the series. Submitting shows the split's plan
(``plan_split``): the dates that move, those the new rule does not hold (kept as
drift, never cancelled), the new dates. Confirming re-posts the same form with
the plan's hash and applies exactly that plan (``split_series``), as the change
plan page does for a cadence change (decision 0034); then the continuation's page.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .. import rules
from ..describe import describe_rule
from ..exceptions import PlanOutdatedError, RecurrenceError
from ..holiday_settings import holiday_settings_of
from ..host_model import title_field
from ..instants import describe_instant
from ..models import EventSeries, RecurrenceRule, get_event_model
from ..services.plans import RecurrencePlan
from ..services.splits import (
    SplitResult,
    is_split_point,
    plan_split,
    slots_before,
    split_series,
    split_title,
)
from .buttons import SeriesButtonsMixin
from .clock import current_time as _now
from .holidays import changed_holidays, describe_holidays
from .plans import (
    PLAN_CANCEL,
    PLAN_HASH,
    PlanLine,
    carried_fields,
    moved_text,
    plan_lines,
    ticked_drift,
)
from .split_forms import (
    TEMPLATE_PREFIX,
    TITLE_EDITED,
    AtForm,
    SplitForm,
    route_split_errors,
    split_initial,
    template_changes_of,
    template_form_class,
)
from .telling import NOTIFY, NOTIFY_SHOWN, posted_notify, telling_context

#: The split pages' own buttons, besides what every confirmation page leaves out.
_NOT_CARRIED = frozenset({"_edit", "_confirm", NOTIFY, NOTIFY_SHOWN})


def splittable(rule: RecurrenceRule, at: dt.datetime, *, now: dt.datetime) -> bool:
    """Whether ``split_series`` takes ``at``: a date of the rule, to come, not its first."""
    return is_split_point(rule, at, now=now)


def not_splittable_text(rule: RecurrenceRule, at: dt.datetime) -> str:
    return _(
        "%(date)s is not a date this series can be split at (a date of its rule, still "
        "to come, not its first): pick one from its upcoming dates."
    ) % {"date": describe_instant(at, rule.timezone)}


def last_date_before(rule: RecurrenceRule, at: dt.datetime) -> dt.datetime | None:
    """The series' last date before ``at``: where the original ends after the split."""
    earlier = slots_before(rule, at)
    return earlier[-1] if earlier else None


class SeriesSplitMixin(SeriesButtonsMixin):
    """``<id>/split/``: the form, the plan and the split of "Change this and following…"."""

    def get_urls(self) -> list[URLPattern]:
        name = f"{self.opts.app_label}_{self.opts.model_name}_split"
        own = [
            path("<path:object_id>/split/", self.admin_site.admin_view(self.split_view), name=name)
        ]
        return own + super().get_urls()

    def split_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        rule = series.recurrence_rule if series.recurrence_rule_id is not None else None
        template = series.get_template()
        source = request.POST if request.method == "POST" else request.GET
        at_form = AtForm({"at": source.get("at", "")})
        if rule is None or template is None or not at_form.is_valid():
            reason = (
                _("it has no recurrence rule")
                if rule is None
                else _("it has no template event")
                if template is None
                else " ".join(str(error) for error in at_form.errors.get("at", []))
            )
            messages.error(
                request,
                _("%(name)s cannot be split: %(reason)s.")
                % {"name": series.name, "reason": reason.rstrip(".")},
            )
            return self._back(series)
        at: dt.datetime = at_form.cleaned_data["at"]
        template_class = template_form_class() if get_event_model().PROPAGATABLE_FIELDS else None
        if request.method != "POST":
            form = SplitForm(initial=split_initial(rule, at, series.name, series))
            template_form = (
                template_class(instance=template, prefix=TEMPLATE_PREFIX)
                if template_class
                else None
            )
            # A link typed by hand: said at once; the service says it again on submit.
            refused = [] if splittable(rule, at, now=_now()) else [not_splittable_text(rule, at)]
            return self._split_form_page(request, series, rule, at, form, template_form, refused)
        form = SplitForm(request.POST, initial=split_initial(rule, at, series.name, series))
        template_form = (
            template_class(request.POST, instance=template, prefix=TEMPLATE_PREFIX)
            if template_class
            else None
        )
        valid = form.is_valid() & (template_form is None or template_form.is_valid())
        if "_edit" in request.POST or not valid:
            return self._split_form_page(request, series, rule, at, form, template_form, [])
        template_changes = (
            template_changes_of(template_form, title_edited=bool(request.POST.get(TITLE_EDITED)))
            if template_form is not None
            else {}
        )
        options: dict[str, Any] = {
            "at": at,
            "recurrence": form.rule_values,
            "template": template_changes,
            "name": form.cleaned_data["name"],
            "holidays": changed_holidays(holiday_settings_of(series), form.holiday_values),
            "now": _now(),
        }
        plan_hash = request.POST.get(PLAN_HASH)
        try:
            if not plan_hash:
                plan = plan_split(series, **options)
                return self._split_plan_page(request, series, rule, at, plan, options)
            result = split_series(
                series,
                plan_hash=plan_hash,
                cancel_drift=ticked_drift(request.POST),
                notify=posted_notify(request.POST),
                **options,
            )
        except PlanOutdatedError as exc:
            if exc.plan is None:
                return self._split_plan_page(
                    request, series, rule, at, None, options, outdated=str(exc)
                )
            return self._split_plan_page(
                request, series, rule, at, exc.plan, options, outdated=True
            )
        except (ValidationError, RecurrenceError) as exc:
            about_at = route_split_errors(exc, form, template_form, template_changes)
            return self._split_form_page(request, series, rule, at, form, template_form, about_at)
        self._report_split(request, result)
        return self._back(result.continuation)

    def _split_context(
        self, request: HttpRequest, series: EventSeries, rule: RecurrenceRule, at: dt.datetime
    ) -> dict[str, Any]:
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "series": series,
            "at": rules.format_instant(at),
            "at_label": describe_instant(at, rule.timezone),
            "split_url": reverse(
                f"admin:{self.opts.app_label}_{self.opts.model_name}_split",
                args=[series.pk],
                current_app=self.admin_site.name,
            ),
        }

    def _split_form_page(
        self,
        request: HttpRequest,
        series: EventSeries,
        rule: RecurrenceRule,
        at: dt.datetime,
        form: SplitForm,
        template_form: forms.ModelForm[Any] | None,
        about_at: list[str],
    ) -> TemplateResponse:
        title = title_field(get_event_model())
        context = {
            **self._split_context(request, series, rule, at),
            "title": _("Change %(name)s from %(date)s on")
            % {"name": series.name, "date": describe_instant(at, rule.timezone)},
            "form": form,
            "template_form": template_form,
            "title_input": (
                template_form[title].auto_id.removeprefix("id_")
                if template_form is not None and title in template_form.fields
                else ""
            ),
            "title_edited_name": TITLE_EDITED,
            "title_edited": "1" if form.data.get(TITLE_EDITED) else "",
            "about_at": about_at,
            "media": self.media + form.media,
        }
        return TemplateResponse(request, "admin/revel_recurring/eventseries/split.html", context)

    def _split_plan_page(
        self,
        request: HttpRequest,
        series: EventSeries,
        rule: RecurrenceRule,
        at: dt.datetime,
        plan: RecurrencePlan | None,
        options: Mapping[str, Any],
        *,
        outdated: bool | str = False,
    ) -> TemplateResponse:
        fresh = EventSeries.objects.select_related("recurrence_rule").get(pk=series.pk)
        current = fresh.recurrence_rule or rule
        last = last_date_before(current, at)
        moving: list[PlanLine] = []
        drift: list[PlanLine] = []
        telling = telling_context(plan.people_told if plan is not None else 0)
        if plan is not None:
            stay, drift = plan_lines(plan)
            moving = sorted([*stay, *drift], key=lambda line: line.start)
        fields = get_event_model()._meta
        changed_fields = [
            (capfirst(str(getattr(fields.get_field(key), "verbose_name", key))), value)
            for key, value in options["template"].items()
        ]
        holidays_now = holiday_settings_of(fresh)
        context = {
            **self._split_context(request, fresh, current, at),
            **_titles(fresh, options),
            "old_holidays": describe_holidays(holidays_now),
            "new_holidays": describe_holidays(
                {**holidays_now, **options["holidays"]} if options["holidays"] else holidays_now
            ),
            "title": _("Confirm the split of %(name)s") % {"name": fresh.name},
            "plan": plan,
            "moving": moving,
            "drift": drift,
            "any_booked_drift": plan is not None and bool(plan.booked_drift),
            "plan_cancel_name": PLAN_CANCEL,
            "old_description": describe_rule(current),
            "last_label": describe_instant(last, current.timezone) if last is not None else "—",
            "continuation_name": options["name"],
            # The continuation's first date at its own time (a split may change it).
            "first_label": describe_instant(
                options["recurrence"].get("dtstart") or at, current.timezone
            ),
            "changed_fields": changed_fields,
            "outdated": bool(outdated),
            "outdated_reason": outdated if isinstance(outdated, str) else "",
            "carried": carried_fields(request, _NOT_CARRIED),
            "plan_hash_name": PLAN_HASH,
            **telling,
        }
        return TemplateResponse(
            request, "admin/revel_recurring/eventseries/split_plan.html", context
        )

    def _report_split(self, request: HttpRequest, result: SplitResult) -> None:
        """What the split did, in the plan page's terms: open and cancelled dates handed
        over counted apart, the dates moved to the new schedule (and to which time),
        cancelled and created; the booked dates kept where they were by name."""
        continuation, original = result.continuation, result.original
        zone = continuation.recurrence_rule.timezone if continuation.recurrence_rule else None
        handed, gone = len(result.moved_open), len(result.moved_cancelled)
        created, cancelled = len(result.created), len(result.cancelled)
        plan = result.plan
        moved = (
            moved_text(plan.drift, result.rescheduled, plan.timezone)
            if plan is not None
            else ngettext("%(count)d date moved", "%(count)d dates moved", 0) % {"count": 0}
        )
        messages.success(
            request,
            _(
                "%(original)s ends on %(last)s; %(name)s continues it from %(first)s with "
                "%(handed)s (and %(gone)s): %(moved)s, %(cancelled)s, %(created)s."
            )
            % {
                "original": original.name,
                "last": describe_instant(result.last_before, zone),
                "name": continuation.name,
                "first": describe_instant(_first_date(continuation), zone),
                "handed": ngettext("%(count)d open date", "%(count)d open dates", handed)
                % {"count": handed},
                "gone": ngettext("%(count)d cancelled date", "%(count)d cancelled dates", gone)
                % {"count": gone},
                "moved": moved,
                "cancelled": ngettext(
                    "%(count)d date cancelled", "%(count)d dates cancelled", cancelled
                )
                % {"count": cancelled},
                "created": ngettext("%(count)d new date", "%(count)d new dates", created)
                % {"count": created},
            },
        )
        kept = [date.display for date in result.kept_booked]
        if kept:
            messages.warning(
                request,
                ngettext(
                    "%(name)s: %(count)d booked date kept where it was (left unticked): %(dates)s.",
                    "%(name)s: %(count)d booked dates kept where they were (left unticked): "
                    "%(dates)s.",
                    len(kept),
                )
                % {"name": continuation.name, "count": len(kept), "dates": ", ".join(kept)},
            )


def _first_date(continuation: EventSeries) -> dt.datetime:
    """The continuation's first date: its rule's start (the split date, at the new time)."""
    rule = continuation.recurrence_rule
    assert rule is not None
    return rules.to_utc(rule.dtstart)


def _titles(series: EventSeries, options: Mapping[str, Any]) -> dict[str, Any]:
    """The title of the original's dates and of the continuation's, as the split gives it
    (a new name the dates follow unless their title was given): for the plan page."""
    new = split_title(series, name=options["name"], template=options["template"])
    if new is None:
        return {"old_title": None, "new_title": None}
    return {"old_title": split_title(series, name=None, template=None), "new_title": new}


def split_links(series: EventSeries, *, admin_site_name: str) -> dict[str, Any]:
    """The change page's links between the halves of a split: (name, url, date) each or None."""

    def link(other: EventSeries | None, start_of: EventSeries) -> tuple[str, str, str] | None:
        if other is None:
            return None
        rule = start_of.recurrence_rule
        when = describe_instant(rule.dtstart, rule.timezone) if rule is not None else "—"
        url = reverse(
            f"admin:{other._meta.app_label}_{other._meta.model_name}_change",
            args=[other.pk],
            current_app=admin_site_name,
        )
        return other.name, url, when

    before = (
        EventSeries.objects.select_related("recurrence_rule")
        .filter(pk=series.split_from_id)
        .first()
        if series.split_from_id is not None
        else None
    )
    after = EventSeries.objects.select_related("recurrence_rule").filter(split_from=series).first()
    return {
        "continues": link(before, series),
        "continued_by": link(after, after) if after is not None else None,
    }


__all__ = [
    "TEMPLATE_PREFIX",
    "AtForm",
    "SeriesSplitMixin",
    "SplitForm",
    "split_initial",
    "split_links",
    "splittable",
    "template_form_class",
]
