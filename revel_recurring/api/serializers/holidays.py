"""A series' holiday calendar and policy as the API shows and takes it (decision 0037)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from ...holiday_rules import HolidayPolicy
from ..fields import StrictFieldsMixin

#: At most this many categories in one body (the package offers a handful per country).
HOLIDAY_CATEGORIES_MAX = 20

_POLICY_HELP = _(
    "What a holiday does to a date of the rule: `skip` (no occurrence), `shift` (the "
    "next day that is no holiday, no weekend day and no other date of the series, "
    "same time) or `keep`."
)


class HolidaysSerializer(serializers.Serializer[Any]):
    """The holiday calendar of a series (read from the series' own columns)."""

    country = serializers.CharField(
        source="holiday_country",
        help_text=_("ISO 3166 code of a calendar of the `holidays` package; empty for none."),
    )
    subdivision = serializers.CharField(
        source="holiday_subdivision", help_text=_("Such as BY for Bavaria; empty for none.")
    )
    categories = serializers.ListField(
        source="holiday_categories",
        child=serializers.CharField(),
        help_text=_("Categories besides the public holidays, such as `bank`."),
    )
    policy = serializers.ChoiceField(
        source="holiday_policy",
        choices=[(policy.value, policy.value) for policy in HolidayPolicy],
        help_text=_POLICY_HELP,
    )
    data_version = serializers.CharField(
        source="holidays_version",
        help_text=_(
            "The `holidays` package version the last generation applied; empty before "
            "the first generation with a calendar."
        ),
    )
    kept = serializers.ListField(
        source="holidays_kept",
        child=serializers.CharField(),
        help_text=_(
            "Dates of the rule kept on purpose although a holiday falls on them "
            "(`restore-occurrence/` of a skipped holiday date), ISO 8601 in UTC."
        ),
    )


class HolidaySettingsSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """The holiday settings a body changes: any subset; those left out stay as they are.

    ``data_version`` and ``kept`` of the representation may be sent back (a PATCH
    of the series as read): the first is ignored, the second when unchanged.
    """

    derived_keys = ("data_version",)

    country = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=3,
        help_text=_(
            "ISO 3166 code of a calendar of the `holidays` package (AT, DE, US); empty "
            "for none, which also clears the subdivision and categories."
        ),
    )
    subdivision = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=10,
        help_text=_("One of the country's subdivisions (BY, NY); empty for the whole country."),
    )
    categories = serializers.ListField(
        child=serializers.CharField(max_length=32),
        required=False,
        max_length=HOLIDAY_CATEGORIES_MAX,
        help_text=_(
            "Categories the package offers for the country besides `public` (always "
            "included), such as `bank`; empty for public holidays only."
        ),
    )
    policy = serializers.ChoiceField(
        choices=[(policy.value, policy.value) for policy in HolidayPolicy],
        required=False,
        help_text=_POLICY_HELP,
    )


__all__ = ["HOLIDAY_CATEGORIES_MAX", "HolidaySettingsSerializer", "HolidaysSerializer"]
