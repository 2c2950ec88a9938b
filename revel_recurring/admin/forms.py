"""The series form of the admin: series fields and its rule's fields on one page.

A rule is never edited on its own page (it belongs to exactly one series), so its
fields are declared here and validated with the same ``validate_rule`` the model
and the API use; each error lands on the field a person has to change. Start and
until are entered as wall-clock times in the rule's own zone, the way organisers
think of them ("18:30 in Vienna"), whatever the site's TIME_ZONE is.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from django import forms
from django.contrib.admin.widgets import AdminSplitDateTime
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from .. import rules
from ..adapter import get_adapter
from ..instants import AwareInstantField
from ..models import RULE_FIELDS, EventSeries, RecurrenceRule, get_event_model
from ..validators import WEEKDAY_NAMES, validate_rule, validate_timezone

WEEKDAY_CHOICES = [(number, _(name)) for number, name in enumerate(WEEKDAY_NAMES)]
NTH_CHOICES = [
    ("", "---------"),
    (1, _("first")),
    (2, _("second")),
    (3, _("third")),
    (4, _("fourth")),
    (5, _("fifth")),
    (-1, _("last")),
    (-2, _("second to last")),
    (-3, _("third to last")),
    (-4, _("fourth to last")),
    (-5, _("fifth to last")),
]
SERIES_FIELDS = (
    "name",
    "slug",
    "description",
    "is_active",
    "auto_publish",
    "generation_window_weeks",
)


class WallClockField(forms.SplitDateTimeField):
    """A date and a time as a naive wall clock; the form localizes it in the rule's zone."""

    widget = AdminSplitDateTime

    def compress(self, data_list: Any) -> dt.datetime | None:
        if not data_list:
            return None
        day, time = data_list
        if day in self.empty_values:
            raise ValidationError(self.error_messages["invalid_date"], code="invalid_date")
        if time in self.empty_values:
            raise ValidationError(self.error_messages["invalid_time"], code="invalid_time")
        return dt.datetime.combine(day, time)


class DateButtonForm(forms.Form):
    """What a *Cancel* or *Restore* button of the change page posts: one date of the
    series as an instant, read by the app's one parser (``instants.py``)."""

    instant = AwareInstantField(label=_("date"))


class ZoneInput(forms.TextInput):
    """A text input with the IANA zone names as suggestions (an HTML datalist)."""

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        list_id = f"{name}_zones"
        field = super().render(name, value, {**(attrs or {}), "list": list_id}, renderer)
        options = format_html_join(
            "", '<option value="{}">', ((zone,) for zone in sorted(zoneinfo.available_timezones()))
        )
        return format_html('{}<datalist id="{}">{}</datalist>', field, list_id, options)


def _optional_int(**kwargs: Any) -> forms.TypedChoiceField:
    return forms.TypedChoiceField(coerce=int, empty_value=None, required=False, **kwargs)


def local_wall_clock(value: dt.datetime | None, zone_name: str) -> dt.datetime | None:
    """An aware instant as the naive wall clock of ``zone_name`` (for form initial values)."""
    if value is None:
        return None
    return value.astimezone(zoneinfo.ZoneInfo(zone_name)).replace(tzinfo=None)


class EventSeriesForm(forms.ModelForm):  # type: ignore[type-arg]
    """Series and rule together; ``rule_values`` holds the validated rule after is_valid()."""

    frequency = forms.ChoiceField(label=_("frequency"), choices=RecurrenceRule.Frequency.choices)
    interval = forms.IntegerField(label=_("interval"), initial=1, help_text=_("Every N periods."))
    weekdays = forms.TypedMultipleChoiceField(
        label=_("weekdays"),
        coerce=int,
        choices=WEEKDAY_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Weekly rules only."),
    )
    monthly_type = forms.ChoiceField(
        label=_("monthly type"),
        choices=[("", "---------"), *RecurrenceRule.MonthlyType.choices],
        required=False,
        help_text=_("Monthly rules only."),
    )
    day_of_month = forms.IntegerField(
        label=_("day of month"),
        required=False,
        help_text=_("1 to 31, or -1 for the last day (monthly, by day of the month)."),
    )
    nth_weekday = _optional_int(
        label=_("which weekday of the month"),
        choices=NTH_CHOICES,
        help_text=_("Monthly, by nth weekday."),
    )
    weekday = _optional_int(
        label=_("weekday"),
        choices=[("", "---------"), *WEEKDAY_CHOICES],
        help_text=_("Monthly, by nth weekday."),
    )
    dtstart = WallClockField(
        label=_("first occurrence"),
        help_text=_("Date and wall-clock time in the rule's time zone."),
    )
    until = WallClockField(
        label=_("until"),
        required=False,
        help_text=_("Last possible occurrence (inclusive), in the rule's time zone."),
    )
    count = forms.IntegerField(
        label=_("count"), required=False, help_text=_("Number of occurrences; or give until.")
    )
    timezone = forms.CharField(
        label=_("time zone"),
        widget=ZoneInput,
        help_text=_("IANA name, e.g. Europe/Vienna. Occurrences keep their wall clock here."),
    )

    class Meta:
        model = EventSeries
        fields = SERIES_FIELDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rule_values: dict[str, Any] = {}
        rule = self.instance.recurrence_rule if self.instance.pk else None
        if rule is not None:
            for name in RULE_FIELDS:
                self.initial.setdefault(name, getattr(rule, name))
            self.initial["dtstart"] = local_wall_clock(rule.dtstart, rule.timezone)
            self.initial["until"] = local_wall_clock(rule.until, rule.timezone)
            self.initial["monthly_type"] = rule.monthly_type or ""
        else:
            self.initial.setdefault("timezone", timezone.get_current_timezone_name())

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        if any(name in self.errors for name in RULE_FIELDS):
            return cleaned
        try:
            zone = zoneinfo.ZoneInfo(validate_timezone(cleaned.get("timezone")))
        except ValidationError as exc:
            self.add_error("timezone", exc)
            return cleaned
        values = {name: cleaned.get(name) for name in RULE_FIELDS}
        values["weekdays"] = sorted(values["weekdays"] or [])
        values["monthly_type"] = values["monthly_type"] or ""
        for name in ("dtstart", "until"):
            wall_clock = values[name]
            if wall_clock is not None:
                values[name] = rules.localize(wall_clock, zone)
        try:
            validate_rule(values)
        except ValidationError as exc:
            for field, messages in exc.message_dict.items():
                self.add_error(field if field in self.fields else None, messages)
            return cleaned
        self.rule_values = values
        return cleaned


class EventSeriesAddForm(EventSeriesForm):
    """The add form: a new series needs a template, copied from an existing one-off event."""

    template_source: forms.ModelChoiceField[Any] = forms.ModelChoiceField(
        label=_("copy the template from"),
        queryset=None,
        help_text=_(
            "The series' template is a draft copy of this one-off event (its fields and "
            "related rows such as ticket tiers). If the event starts on a date of the "
            "rule, it becomes that date's occurrence (bookings kept); otherwise it is "
            "left as it is."
        ),
    )

    #: The user the add page is for; set by the ModelAdmin (``get_form``), so the
    #: choices are the adapter's ``get_template_sources(user)``.
    user: Any = None

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
