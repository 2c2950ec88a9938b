"""The series form of the admin: series fields and its rule's fields on one page.

A rule is never edited on its own page (it belongs to exactly one series), so its
fields (``rule_fields.py``) are part of this form, each error on the field a person
has to change.

Validating a bound form saves it: once every field is valid, the form calls its
service (``update_series`` on the change page, ``create_series_from_event`` on
the add page) in a savepoint, and a refusal becomes errors on this bound form,
so the page shows them beside what the organiser typed
(docs/decisions/0031-admin-form-path.md). A change of the rule or the window is
not saved until its plan is confirmed (``plans.py``, decision 0034).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Mapping
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db import router, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .. import rules
from ..adapter import get_adapter
from ..exceptions import PlanOutdatedError, RecurrenceError
from ..holiday_settings import holiday_settings_of
from ..instants import AwareInstantField
from ..models import RULE_FIELDS, EventSeries, get_event_model
from ..services.editing import SeriesUpdate, update_series
from ..services.from_event import SeriesFromEvent, create_series_from_event
from ..services.plans import HOLIDAYS_KEY, RecurrencePlan, plan_recurrence_change
from ..validators import validate_single_line
from .clock import current_time
from .errors import add_service_error
from .holidays import HOLIDAY_FIELDSET, HolidayFieldsForm, changed_holidays, holiday_initial
from .plans import PLAN_HASH, PlannedSave, schedule_changes, ticked_drift
from .rule_fields import (
    MONTHLY_CHOICES,
    NTH_CHOICES,
    WEEKDAY_CHOICES,
    RuleFieldsForm,
    WallClockField,
    ZoneInput,
    local_wall_clock,
    rule_initial,
)
from .telling import posted_notify

SERIES_FIELDS = (
    "name",
    "slug",
    "description",
    "is_active",
    "auto_publish",
    "generation_window_weeks",
)


class DateButtonForm(forms.Form):
    """What a *Cancel* or *Restore* button of the change page posts: one date of the
    series as an instant, read by the app's one parser (``instants.py``)."""

    instant = AwareInstantField(label=_("date"))


#: The id of "Add a date"'s own form on the change page.
ADD_DATE_FORM_ID = "revel-add-date-form"


class AddDateForm(forms.Form):
    """What "Add a date" posts: a date and a time on the wall clock of the rule's zone.

    ``instant_in(zone)`` localizes it with the app's DST policy (``rules.localize``),
    as the rule's start is read; the service then validates the instant.
    """

    when = WallClockField(label=_("date and time"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "revel-add-date-%s")
        super().__init__(*args, **kwargs)
        # Its inputs stand inside the series form, above its Save row; they belong
        # to "Add a date"'s own form, which stands outside it (no nested forms).
        self.fields["when"].widget.attrs["form"] = ADD_DATE_FORM_ID

    def instant_in(self, zone: str | None) -> dt.datetime:
        wall_clock: dt.datetime = self.cleaned_data["when"]
        return rules.localize(wall_clock, zoneinfo.ZoneInfo(zone or "UTC"))


class EventSeriesForm(RuleFieldsForm, HolidayFieldsForm, forms.ModelForm):  # type: ignore[type-arg]
    """Series, rule and holiday settings together, saved through ``update_series`` when
    it validates.

    After ``is_valid()``: ``rule_values`` holds the validated rule,
    ``holiday_values`` the holiday settings and ``outcome`` what the service did
    (None when the form has errors); ``save(commit=False)`` returns the saved
    series and writes nothing more. A change of the rule, the window or the
    holiday settings posted without a plan hash writes nothing: ``plan`` holds its
    plan for the confirmation page and the form is invalid (error code
    ``plan_confirmation``); ``plan_outdated`` says the hash posted was for a state
    that changed since.
    """

    #: The user the page is for; set by the ModelAdmin (``get_form``).
    user: Any = None

    class Meta:
        model = EventSeries
        fields = SERIES_FIELDS
        labels = {
            "slug": _("Short name for links"),
            "is_active": _("Active"),
            "auto_publish": _("Publish new dates"),
            "generation_window_weeks": _("Weeks ahead"),
        }
        help_texts = {
            "slug": _("Used in the series' web address; made from the name when left empty."),
            "is_active": _(
                "Untick to pause: no new dates are created until it is ticked again. "
                "Dates already created stay."
            ),
            "auto_publish": _(
                "Tick to open new dates at once; unticked, they are created as drafts "
                "for you to publish."
            ),
            "generation_window_weeks": _(
                "How far ahead dates are created, 1 to 52 weeks; each day adds the dates "
                "that come into reach."
            ),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outcome: SeriesUpdate | SeriesFromEvent | PlannedSave | None = None
        self.plan: RecurrencePlan | None = None
        self.plan_outdated = False
        #: The changes the plan was made for (the plan page lists their holidays ahead).
        self.plan_changes: dict[str, Any] | None = None
        #: The series' holiday settings as the page showed them.
        self.holidays_before = holiday_settings_of(self.instance)
        for name in ("name", "slug"):
            if name in self.fields:
                # Refused under the field before anything else is checked.
                self.fields[name].validators.append(validate_single_line)
        for name, value in holiday_initial(self.instance).items():
            self.initial.setdefault(name, value)
        rule = self.instance.recurrence_rule if self.instance.pk else None
        if rule is not None:
            fields = rule_initial(rule)
            for name in RULE_FIELDS:
                self.initial.setdefault(name, getattr(rule, name))
            for name in ("dtstart", "until", "monthly_type"):
                self.initial[name] = fields[name]
        else:
            self.initial.setdefault("timezone", timezone.get_current_timezone_name())

    def _post_clean(self) -> None:
        # After the model's own validation (the instance, a slug another series
        # holds), so that nothing is written while any field still has an error;
        # Django's UserCreationForm validates the password in this hook too.
        super()._post_clean()  # type: ignore[misc]  # not in django-stubs
        if self.errors:
            return
        try:
            # A savepoint inside the admin's transaction: a refusal rolls back to it
            # and the page (its log entry, its messages) can still use the database.
            with transaction.atomic(using=router.db_for_write(EventSeries)):
                self.outcome = self.save_through_service(now=current_time())
        except PlanOutdatedError as exc:
            self.outcome = None
            self.ask_to_confirm(exc.plan, outdated=True)
        except (RecurrenceError, ValidationError) as exc:
            self.outcome = None
            self.show_service_error(exc)

    def save_through_service(
        self, *, now: dt.datetime
    ) -> SeriesUpdate | SeriesFromEvent | PlannedSave | None:
        """Write the form in one ``update_series`` call: one lock, one transaction.

        ``is_active`` is passed only when the person changed it: resuming unparks a
        series, and saving an unrelated field must not. A change of the rule or the
        window is planned instead (None, nothing written) until the form comes back
        with the plan's hash; then the plan is applied and the other fields saved.
        """
        data = self.cleaned_data
        holidays = changed_holidays(self.holidays_before, self.holiday_values)
        changes = schedule_changes(
            self.instance.recurrence_rule,
            self.rule_values,
            window=data["generation_window_weeks"],
            window_changed="generation_window_weeks" in self.changed_data,
            # A policy without a country changes no date: saved without a plan.
            holidays=holidays if holidays and self._names_a_calendar(holidays) else None,
        )
        plain = {
            "name": data["name"],
            "slug": data["slug"],
            "description": data["description"],
            "is_active": data["is_active"] if "is_active" in self.changed_data else None,
            "auto_publish": data["auto_publish"],
        }
        if changes is None:
            return update_series(
                self.instance,
                **plain,
                generation_window_weeks=data["generation_window_weeks"],
                rule_changes=self.rule_values,
                holidays=holidays,
                now=now,
            )
        self.plan_changes = changes
        plan_hash = self.data.get(PLAN_HASH)
        if not plan_hash:
            self.ask_to_confirm(plan_recurrence_change(self.instance, changes, now=now))
            return None
        # The same call as the API's recurrence-apply/: the plan first (its hash was
        # made from the series as it is now), the other fields in the same transaction.
        update = update_series(
            self.instance,
            **plain,
            rule_changes=self.rule_values,
            generation_window_weeks=data["generation_window_weeks"],
            holidays=changes.get(HOLIDAYS_KEY),
            plan_hash=plan_hash,
            cancel_drift=ticked_drift(self.data),
            notify=posted_notify(self.data),
            now=now,
        )
        assert update.applied is not None  # a plan hash was given
        return PlannedSave(applied=update.applied, update=update, generated=list(update.created))

    def _names_a_calendar(self, holidays: Mapping[str, Any]) -> bool:
        return bool(holidays["country"] or self.holidays_before["country"])

    def ask_to_confirm(self, plan: RecurrencePlan, *, outdated: bool = False) -> None:
        """Hold ``plan`` for the confirmation page; the form stays unsaved (invalid)."""
        self.plan = plan
        self.plan_outdated = outdated
        self.add_error(
            None,
            ValidationError(
                _("Confirm what the new schedule does to the dates before it is saved."),
                code="plan_confirmation",
            ),
        )

    def show_service_error(self, exc: RecurrenceError | ValidationError) -> None:
        """The service's refusal on this form: each message under its field, else on top."""
        add_service_error(self, exc, own_keys=self.fields)


#: What a create error may name of this form; every other key is the template's.
_CREATE_KEYS = frozenset(
    {*RULE_FIELDS, *HOLIDAY_FIELDSET, "generation_window_weeks", "auto_publish", "is_active"}
)


class EventSeriesAddForm(EventSeriesForm):
    """The add form: a new series needs a template, copied from an existing one-off event.

    Saved through ``create_series_from_event`` when it validates; ``instance`` is
    then the new series. The slug is filled from the name (editable afterwards).
    """

    template_source: forms.ModelChoiceField[Any] = forms.ModelChoiceField(
        label=_("Copy the template from"),
        queryset=None,
        help_text=_(
            "The series' template is a draft copy of this one-off event (its fields and "
            "related rows such as ticket tiers). If the event starts on a date of the "
            "rule, it becomes that date's occurrence (bookings kept); otherwise it is "
            "left as it is."
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model = get_event_model()
        source = self.fields["template_source"]
        assert isinstance(source, forms.ModelChoiceField)
        if self.user is None:
            sources = model._default_manager.none()
        else:
            sources = get_adapter().get_template_sources(self.user)
        source.queryset = sources.filter(series__isnull=True).order_by(
            model.RECURRING_START_FIELD, "pk"
        )

    def save_through_service(
        self, *, now: dt.datetime
    ) -> SeriesUpdate | SeriesFromEvent | PlannedSave | None:
        """Create the series, its template copied from the chosen event, and its first window."""
        data = self.cleaned_data
        result = create_series_from_event(
            data["template_source"],
            rule_data=self.rule_values,
            name=data["name"],
            description=data["description"],
            auto_publish=data["auto_publish"],
            generation_window_weeks=data["generation_window_weeks"],
            is_active=data["is_active"],
            holidays=self.holiday_values,
            now=now,
        )
        self.instance = result.series
        return result

    def show_service_error(self, exc: RecurrenceError | ValidationError) -> None:
        """Errors about the copied template go under the event it is copied from."""
        add_service_error(self, exc, own_keys=_CREATE_KEYS, elsewhere="template_source")


# The rule's fields live in rule_fields.py; their names stay importable from here.
__all__ = [
    "ADD_DATE_FORM_ID",
    "MONTHLY_CHOICES",
    "NTH_CHOICES",
    "SERIES_FIELDS",
    "WEEKDAY_CHOICES",
    "AddDateForm",
    "DateButtonForm",
    "EventSeriesAddForm",
    "EventSeriesForm",
    "RuleFieldsForm",
    "WallClockField",
    "ZoneInput",
    "local_wall_clock",
    "rule_initial",
]
