"""The fields of a recurrence rule on an admin page, entered as its zone's wall clock.

:class:`RuleFieldsForm` is shared by the series form (``forms.py``) and the split
form (``splits.py``); its values are validated with the same ``validate_rule`` the
model and the API use, each error on the field a person has to change. Start and
until are entered as wall-clock times in the rule's own zone ("18:30 in Vienna"),
whatever the site's TIME_ZONE is.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from django import forms
from django.contrib.admin.widgets import AdminSplitDateTime
from django.core.exceptions import ValidationError
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .. import rules
from ..models import RULE_FIELDS, RecurrenceRule
from ..validators import WEEKDAY_NAMES, validate_rule, validate_timezone

WEEKDAY_CHOICES = [(number, _(name)) for number, name in enumerate(WEEKDAY_NAMES)]
NTH_CHOICES = [
    ("", "---------"),
    (1, pgettext_lazy("ordinal", "first")),
    (2, pgettext_lazy("ordinal", "second")),
    (3, pgettext_lazy("ordinal", "third")),
    (4, pgettext_lazy("ordinal", "fourth")),
    (5, pgettext_lazy("ordinal", "fifth")),
    (-1, pgettext_lazy("ordinal", "last")),
    (-2, pgettext_lazy("ordinal", "second to last")),
    (-3, pgettext_lazy("ordinal", "third to last")),
    (-4, pgettext_lazy("ordinal", "fourth to last")),
    (-5, pgettext_lazy("ordinal", "fifth to last")),
]
MONTHLY_CHOICES = [
    (RecurrenceRule.MonthlyType.DAY_OF_MONTH.value, _("by day of month (such as the 15th)")),
    (RecurrenceRule.MonthlyType.NTH_WEEKDAY.value, _("by weekday (such as the second Tuesday)")),
]


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


class RuleFieldsForm(forms.Form):
    """The fields of a recurrence rule, validated with ``validate_rule`` in its zone.

    After ``is_valid()``, ``rule_values`` holds the rule as the services take it
    (start and until localized in the rule's zone); empty while any field is wrong.
    Shared by the series form and the split form ("this and following").
    """

    frequency = forms.ChoiceField(label=_("Repeats"), choices=RecurrenceRule.Frequency.choices)
    interval = forms.IntegerField(
        label=_("Every"),
        initial=1,
        help_text=_(
            "How many days, weeks, months or years apart: 1 for every one, 2 for every "
            "other one, and so on."
        ),
    )
    weekdays = forms.TypedMultipleChoiceField(
        label=_("On"),
        coerce=int,
        choices=WEEKDAY_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "Weekly rules only. Tick none to repeat on the weekday of the first occurrence."
        ),
    )
    monthly_type = forms.ChoiceField(
        label=_("Monthly"),
        choices=[("", "---------"), *MONTHLY_CHOICES],
        required=False,
        help_text=_("Monthly rules only: the same day number every month, or the same weekday."),
    )
    day_of_month = forms.IntegerField(
        label=_("Day of the month"),
        required=False,
        help_text=_(
            "Monthly by day of month: 1 to 31, or -1 for the last day. A month without "
            "that day (the 31st in April) is skipped."
        ),
    )
    nth_weekday = _optional_int(
        label=_("Which one"),
        choices=NTH_CHOICES,
        help_text=_("Monthly by weekday: the first, second, ... or last of that weekday."),
    )
    weekday = _optional_int(
        label=_("Day of the week"),
        choices=[("", "---------"), *WEEKDAY_CHOICES],
        help_text=_("Monthly by weekday."),
    )
    dtstart = WallClockField(
        label=_("Starts"),
        help_text=_(
            "The first date and its time, as a clock in the time zone below shows it. "
            "Every date keeps this time of day."
        ),
    )
    until = WallClockField(
        label=_("Ends"),
        required=False,
        help_text=_(
            "Optional: no date after this moment (in the time zone below). Give an end "
            "or a number of dates, not both; with neither, the series goes on."
        ),
    )
    count = forms.IntegerField(
        label=_("Number of dates"),
        required=False,
        help_text=_("Optional: stop after this many dates, counted from the first."),
    )
    timezone = forms.CharField(
        label=_("Time zone"),
        widget=ZoneInput,
        help_text=_(
            "Where the times are meant, such as Europe/Vienna: a class at 18:30 stays "
            "at 18:30 there when the clocks change."
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rule_values: dict[str, Any] = {}

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


def rule_initial(rule: RecurrenceRule) -> dict[str, Any]:
    """The rule fields' initial values for ``rule`` (start and until as its zone's wall clock)."""
    initial = {name: getattr(rule, name) for name in RULE_FIELDS}
    initial["dtstart"] = local_wall_clock(rule.dtstart, rule.timezone)
    initial["until"] = local_wall_clock(rule.until, rule.timezone)
    initial["monthly_type"] = rule.monthly_type or ""
    return initial


__all__ = [
    "MONTHLY_CHOICES",
    "NTH_CHOICES",
    "WEEKDAY_CHOICES",
    "RuleFieldsForm",
    "WallClockField",
    "ZoneInput",
    "local_wall_clock",
    "rule_initial",
]
