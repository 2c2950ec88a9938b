"""Which days a rule picks: a weekly rule's weekdays, a monthly rule's day, nothing else.

Each frequency reads some of the optional rule fields
(:data:`~revel_recurring.rules.FIELDS_USED_BY`); a field it does not read is an
error rather than silently ignored, so an organiser never believes it took effect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from ..rules import FIELDS_USED_BY, OPTIONAL_RULE_FIELDS, Frequency, MonthlyType
from .limits import is_whole_number

#: Where a check reports a problem: ``add(field, message)``.
Add = Callable[[str, str], None]

# What each optional field means, for "a daily rule does not use ..." messages.
_FIELD_WORDS: dict[str, Promise] = {
    "weekdays": pgettext_lazy("what a rule does not use", "weekdays"),
    "monthly_type": pgettext_lazy(
        "what a rule does not use", "a choice between day of month and weekday"
    ),
    "day_of_month": pgettext_lazy("what a rule does not use", "a day of the month"),
    "nth_weekday": pgettext_lazy("what a rule does not use", "which weekday of the month"),
    "weekday": pgettext_lazy("what a rule does not use", "a day of the week"),
}
# The rule those messages speak of, by frequency (and a monthly one by day of month).
_RULE_WORDS: dict[Frequency, Promise] = {
    Frequency.DAILY: pgettext_lazy("a rule that does not use a field", "A daily rule"),
    Frequency.WEEKLY: pgettext_lazy("a rule that does not use a field", "A weekly rule"),
    Frequency.MONTHLY: pgettext_lazy("a rule that does not use a field", "A monthly rule"),
    Frequency.YEARLY: pgettext_lazy("a rule that does not use a field", "A yearly rule"),
}
_MONTHLY_BY_DAY_WORDS = pgettext_lazy(
    "a rule that does not use a field", "A monthly rule by day of month"
)


def _is_set(name: str, value: object) -> bool:
    if name == "weekdays":
        return value not in (None, [], ())
    return value not in (None, "")


def check_days(frequency: Frequency, data: Mapping[str, Any], add: Add) -> None:
    """Report the optional fields ``frequency`` does not read, then check those it does."""
    used = FIELDS_USED_BY[frequency]
    for name in OPTIONAL_RULE_FIELDS:
        if name not in used and _is_set(name, data.get(name)):
            add(
                name,
                _("%(rule)s does not use %(field)s; leave it empty.")
                % {"rule": _RULE_WORDS[frequency], "field": _FIELD_WORDS[name]},
            )
    if frequency is Frequency.WEEKLY:
        _check_weekdays(data.get("weekdays"), add)
    if frequency is Frequency.MONTHLY:
        _check_monthly(data, add)


def _check_weekdays(value: object, add: Add) -> None:
    if value in (None, []):
        return
    if not isinstance(value, (list, tuple)):
        add("weekdays", _("Give the weekdays as a list of numbers from 0 (Monday) to 6 (Sunday)."))
        return
    for item in value:
        if not is_whole_number(item) or not 0 <= item <= 6:
            add(
                "weekdays",
                _("Each weekday must be 0 (Monday) to 6 (Sunday), got %(value)r.")
                % {"value": item},
            )
    if len(set(map(repr, value))) != len(value):
        add("weekdays", _("Give each weekday once."))


def _check_monthly(data: Mapping[str, Any], add: Add) -> None:
    """A monthly rule names its kind, then the fields of that kind and none of the other's."""
    monthly_type = data.get("monthly_type")
    if monthly_type in (None, ""):
        add("monthly_type", _("Choose whether the monthly rule is by day of month or by weekday."))
        return
    try:
        kind = MonthlyType(monthly_type)
    except ValueError:
        add(
            "monthly_type",
            _("Choose whether the monthly rule is by day of month or by weekday, got %(value)r.")
            % {"value": monthly_type},
        )
        return
    if kind is MonthlyType.DAY_OF_MONTH:
        _check_by_day_of_month(data, add)
    else:
        _check_by_weekday(data, add)


def _check_by_day_of_month(data: Mapping[str, Any], add: Add) -> None:
    day_of_month = data.get("day_of_month")
    if day_of_month is None:
        add("day_of_month", _("Give the day of the month: 1 to 31, or -1 for the last day."))
    elif not is_whole_number(day_of_month) or not (1 <= day_of_month <= 31 or day_of_month == -1):
        add(
            "day_of_month",
            _("The day of the month must be 1 to 31, or -1 for the last day, got %(value)r.")
            % {"value": day_of_month},
        )
    for name in ("nth_weekday", "weekday"):
        if data.get(name) is not None:
            add(
                name,
                _("%(rule)s does not use %(field)s; leave it empty.")
                % {"rule": _MONTHLY_BY_DAY_WORDS, "field": _FIELD_WORDS[name]},
            )


def _check_by_weekday(data: Mapping[str, Any], add: Add) -> None:
    nth_weekday, weekday = data.get("nth_weekday"), data.get("weekday")
    if data.get("day_of_month") is not None:
        add(
            "day_of_month",
            _("A monthly rule by weekday does not use a day of the month; leave it empty."),
        )
    if nth_weekday is None:
        add(
            "nth_weekday",
            _(
                "Choose which weekday of the month: 1 to 5 (first to fifth), or -1 to -5 "
                "counting from the month's end (-1 is the last)."
            ),
        )
    elif not is_whole_number(nth_weekday) or nth_weekday == 0 or not -5 <= nth_weekday <= 5:
        add(
            "nth_weekday",
            _(
                "Which weekday of the month must be 1 to 5, or -1 to -5 from the month's end, "
                "got %(value)r."
            )
            % {"value": nth_weekday},
        )
    if weekday is None:
        add("weekday", _("Choose the day of the week: 0 (Monday) to 6 (Sunday)."))
    elif not is_whole_number(weekday) or not 0 <= weekday <= 6:
        add(
            "weekday",
            _("The day of the week must be 0 (Monday) to 6 (Sunday), got %(value)r.")
            % {"value": weekday},
        )
