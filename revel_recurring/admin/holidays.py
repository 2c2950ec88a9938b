"""The series page's holiday settings and what the pages say about a holiday's dates.

The four settings (:mod:`revel_recurring.holiday_settings`) are fields of the
series form, checked by the same ``normalize_holiday_settings`` the services
use; a change of them is a schedule change, confirmed on the change plan page
like a rule change (``plans.py``, decision 0034). The notes ("Skipped: Mariä
Empfängnis", "Moved from Tue 8 Dec 2026 (Mariä Empfängnis)") name the holiday
in the active language.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from ..holiday_rules import (
    HolidayFate,
    HolidayOutcome,
    country_names,
    place_name,
    supported_countries,
)
from ..holiday_settings import HOLIDAY_FIELDS, holiday_settings_of, normalize_holiday_settings
from ..instants import describe_day
from ..models import EventSeries, HolidayPolicyChoices
from ..services.plans.holidays_ahead import HolidayAhead

#: The form's fields, named as the series' columns (the services key their errors so).
HOLIDAY_FIELDSET = tuple(HOLIDAY_FIELDS.values())


class CountryInput(forms.TextInput):
    """A text input suggesting the countries of the installed ``holidays`` package by
    name, and naming the country whose code it holds beside it ("AT": Austria)."""

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        list_id = f"{name}_countries"
        field = super().render(name, value, {**(attrs or {}), "list": list_id}, renderer)
        countries = _country_options()
        # The name as the option's label: the browser suggests both code and name.
        options = format_html_join("", '<option value="{}" label="{}"></option>', countries)
        known = dict(countries).get(str(value or "").upper(), "")
        return format_html(
            '{} <span class="revel-country-name">{}</span><datalist id="{}">{}</datalist>',
            field,
            known,
            list_id,
            options,
        )


def _country_options() -> list[tuple[str, str]]:
    """(code, name) of each country the package has, by its two-letter code."""
    names = country_names()
    return [
        (code, names.get(code, code)) for code in sorted(supported_countries()) if len(code) == 2
    ]


class HolidayFieldsForm(forms.Form):
    """A holiday calendar and policy, checked with ``normalize_holiday_settings``.

    After ``is_valid()``, ``holiday_values`` holds the four settings as the
    services take them; None while any of them is wrong.
    """

    holiday_country = forms.CharField(
        label=gettext_lazy("Country"),
        required=False,
        max_length=3,
        widget=CountryInput,
        help_text=gettext_lazy(
            "The public holidays of this country skip or move the rule's dates: type "
            "its name and pick it from the list. Leave empty for none."
        ),
    )
    holiday_subdivision = forms.CharField(
        label=gettext_lazy("Region"),
        required=False,
        max_length=10,
        help_text=gettext_lazy(
            "Optional: a state or province whose own holidays count too, such as BY "
            "(Bavaria) in DE or NY in US."
        ),
    )
    holiday_categories = forms.CharField(
        label=gettext_lazy("Also"),
        required=False,
        help_text=gettext_lazy(
            "Optional: holiday categories besides the public holidays, separated by "
            "commas, such as bank or school, where the country has them."
        ),
    )
    # Not required: a form posted without it (a host's own form, a script) means
    # the default policy, as the model's default does.
    holiday_policy = forms.ChoiceField(
        label=gettext_lazy("On a holiday"),
        choices=HolidayPolicyChoices.choices,
        required=False,
        initial=HolidayPolicyChoices.SKIP,
        help_text=gettext_lazy(
            "Skip the date, move it to the next day that is neither a holiday, a "
            "weekend day nor another date of the series (same time), or keep it."
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.holiday_values: dict[str, Any] | None = None

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        if any(name in self.errors for name in HOLIDAY_FIELDSET):
            return cleaned
        text = cleaned.get("holiday_categories") or ""
        values = {
            "country": cleaned.get("holiday_country") or "",
            "subdivision": cleaned.get("holiday_subdivision") or "",
            "categories": [item.strip() for item in text.split(",") if item.strip()],
            "policy": cleaned.get("holiday_policy") or HolidayPolicyChoices.SKIP.value,
        }
        try:
            self.holiday_values = normalize_holiday_settings(values)
        except ValidationError as exc:
            for field, messages in exc.message_dict.items():
                self.add_error(field if field in self.fields else None, messages)
        return cleaned


def holiday_initial(series: EventSeries) -> dict[str, Any]:
    """The form's initial values for ``series``' settings (categories as one text)."""
    settings = holiday_settings_of(series)
    return {
        HOLIDAY_FIELDS["country"]: settings["country"],
        HOLIDAY_FIELDS["subdivision"]: settings["subdivision"],
        HOLIDAY_FIELDS["categories"]: ", ".join(settings["categories"] or ()),
        HOLIDAY_FIELDS["policy"]: settings["policy"],
    }


def changed_holidays(
    before: Mapping[str, Any], after: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """``after`` when it differs from ``before`` (the series' settings), else None."""
    if after is None or dict(after) == dict(before):
        return None
    return dict(after)


def describe_holidays(settings: Mapping[str, Any]) -> str:
    """The settings for a person: "Wien, Austria and bank holidays: Skip the date", or "None"."""
    country = settings.get("country") or ""
    if not country:
        return pgettext("no holiday calendar", "None")
    calendar = place_name(country, settings.get("subdivision") or "")
    categories = list(settings.get("categories") or ())
    if categories:
        calendar = _("%(calendar)s and %(categories)s holidays") % {
            "calendar": calendar,
            "categories": ", ".join(categories),
        }
    policy = HolidayPolicyChoices(settings.get("policy") or HolidayPolicyChoices.SKIP).label
    return _("%(calendar)s: %(policy)s") % {"calendar": calendar, "policy": policy}


def local_day(instant: dt.datetime, zone: str | None) -> str:
    """The date of ``instant`` on the wall clock of ``zone``, without its time."""
    return describe_day(instant, zone)


def moved_note(slot: dt.datetime, holiday: str, zone: str | None) -> str:
    """What a date a holiday moved says: "Moved from Tue 8 Dec 2026 (Mariä Empfängnis)"."""
    return _("Moved from %(date)s (%(holiday)s)") % {
        "date": local_day(slot, zone),
        "holiday": holiday,
    }


def ahead_note(item: HolidayAhead) -> str:
    """What becomes of a date on a holiday ahead: "moved to Fri 7 May 2027 18:30 (...)",
    "skipped", "kept"."""
    if item.outcome is HolidayOutcome.SHIFTED:
        return _("moved to %(date)s") % {"date": item.start_display}
    if item.outcome is HolidayOutcome.SKIPPED:
        if item.no_free_day:
            return _("skipped: no free day in the week after")
        return pgettext("a date on a holiday", "skipped")
    if item.outcome is HolidayOutcome.RESTORED:
        return _("kept on purpose")
    return pgettext("a date on a holiday", "kept")


def skipped_note(holiday: str) -> str:
    """What a date a holiday skips says: "Skipped: Mariä Empfängnis"."""
    return _("Skipped: %(holiday)s") % {"holiday": holiday}


def holiday_note(
    fate: HolidayFate | None, holiday: str, zone: str | None, *, live: bool, moved: bool
) -> str:
    """The note of a date a holiday touched ("" for none).

    ``live``: an occurrence takes place for the date (else the date is listed as
    not taking place); ``moved``: that occurrence is off its slot.
    """
    if fate is None:
        return ""
    if fate.outcome is HolidayOutcome.SKIPPED and not live:
        return skipped_note(holiday)
    if fate.outcome is HolidayOutcome.SHIFTED and moved:
        return moved_note(fate.slot, holiday, zone)
    if fate.outcome is HolidayOutcome.RESTORED:
        return _("Kept on %(holiday)s") % {"holiday": holiday}
    # Kept by the policy, or an occurrence left on a holiday its calendar now
    # skips or moves (listed as drifted beside this note).
    return _("Holiday: %(holiday)s") % {"holiday": holiday}


__all__ = [
    "HOLIDAY_FIELDSET",
    "CountryInput",
    "HolidayFieldsForm",
    "ahead_note",
    "changed_holidays",
    "describe_holidays",
    "holiday_initial",
    "holiday_note",
    "local_day",
    "moved_note",
    "skipped_note",
]
