"""A series' holiday settings as callers give them: checked, normalised, set on the series.

The services, the API and the admin take the same four settings, named without
the model's ``holiday_`` prefix: ``country`` (ISO 3166 code of a calendar the
installed ``holidays`` package has; empty for none), ``subdivision`` (one of the
country's, e.g. ``BY``), ``categories`` (the package's categories for the
country besides ``public``, e.g. ``bank``) and ``policy`` (``keep``, ``skip``,
``shift``). Errors are ``ValidationError`` keyed by the model field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from .holiday_rules import HolidayPolicy, supported_categories, supported_countries

__all__ = [
    "HOLIDAY_FIELDS",
    "HOLIDAY_KEYS",
    "holiday_settings_of",
    "normalize_holiday_settings",
    "set_holiday_settings",
]

#: Setting name -> the EventSeries field holding it.
HOLIDAY_FIELDS: Mapping[str, str] = {
    "country": "holiday_country",
    "subdivision": "holiday_subdivision",
    "categories": "holiday_categories",
    "policy": "holiday_policy",
}
HOLIDAY_KEYS = frozenset(HOLIDAY_FIELDS)


def holiday_settings_of(series: Any) -> dict[str, Any]:
    """The four settings of ``series`` (an EventSeries) as a dict."""
    return {key: getattr(series, name) for key, name in HOLIDAY_FIELDS.items()}


def normalize_holiday_settings(
    values: Mapping[str, Any], *, current: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``values`` over ``current`` (the series' settings), checked; the four settings.

    Country and subdivision are upper-cased; categories sorted, ``public`` left
    out (always included); an empty country clears the subdivision and categories.
    """
    unknown = sorted(set(values) - HOLIDAY_KEYS)
    if unknown:
        raise ValidationError(
            {
                "holidays": _("Unknown holiday setting(s): %(names)s. Use %(known)s.")
                % {"names": ", ".join(unknown), "known": ", ".join(sorted(HOLIDAY_KEYS))}
            }
        )
    merged: dict[str, Any] = {
        "country": "",
        "subdivision": "",
        "categories": [],
        "policy": HolidayPolicy.SKIP.value,
        **(current or {}),
        **values,
    }
    errors: dict[str, str] = {}
    country = _text(merged["country"], "holiday_country", errors).upper()
    subdivision = _text(merged["subdivision"], "holiday_subdivision", errors).upper()
    policy = _text(merged["policy"], "holiday_policy", errors).lower()
    categories = merged["categories"] if merged["categories"] is not None else []
    if policy not in {p.value for p in HolidayPolicy}:
        errors["holiday_policy"] = _("Choose keep, skip or shift, not '%(value)s'.") % {
            "value": policy
        }
    if not isinstance(categories, (list, tuple)) or not all(
        isinstance(item, str) for item in categories
    ):
        errors["holiday_categories"] = _("Give the categories as a list of names.")
        categories = []
    countries = supported_countries()
    if country and country not in countries:
        errors["holiday_country"] = _(
            "'%(value)s' is no holiday calendar the holidays package offers "
            "(an ISO 3166 country code such as AT, DE or US)."
        ) % {"value": country}
    elif not country:
        subdivision, categories = "", []
    else:
        if subdivision and subdivision not in countries[country]:
            errors["holiday_subdivision"] = _(
                "%(country)s has no subdivision '%(value)s'; choose one of %(known)s."
            ) % {
                "country": country,
                "value": subdivision,
                "known": ", ".join(countries[country]) or _("none"),
            }
        offered = supported_categories(country)
        wrong = sorted({str(item).lower() for item in categories} - set(offered))
        if wrong:
            errors["holiday_categories"] = _(
                "%(country)s has no holiday category %(names)s; choose among %(known)s."
            ) % {"country": country, "names": ", ".join(wrong), "known": ", ".join(offered)}
    if errors:
        raise ValidationError(errors)
    return {
        "country": country,
        "subdivision": subdivision,
        "categories": sorted({str(item).lower() for item in categories} - {"public"}),
        "policy": policy,
    }


def set_holiday_settings(series: Any, settings: Mapping[str, Any]) -> set[str]:
    """Set normalised ``settings`` on ``series`` (not saved); the names of the fields changed."""
    changed: set[str] = set()
    for key, name in HOLIDAY_FIELDS.items():
        if key in settings and getattr(series, name) != settings[key]:
            setattr(series, name, settings[key])
            changed.add(name)
    return changed


def _text(value: Any, field: str, errors: dict[str, str]) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        errors[field] = _("Give a text value.")
        return ""
    return value.strip()
