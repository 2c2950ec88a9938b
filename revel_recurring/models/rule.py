"""``RecurrenceRule``: when a series happens, stored as its fields and as RFC 5545 text."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.validators import MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .. import rules
from ..rules import RULE_FIELDS
from ..validators import validate_rule


class RecurrenceRule(models.Model):
    """When a series happens: an RFC 5545 rule in an IANA zone."""

    class Frequency(models.TextChoices):
        DAILY = rules.Frequency.DAILY.value, _("Daily")
        WEEKLY = rules.Frequency.WEEKLY.value, _("Weekly")
        MONTHLY = rules.Frequency.MONTHLY.value, _("Monthly")
        YEARLY = rules.Frequency.YEARLY.value, _("Yearly")

    class MonthlyType(models.TextChoices):
        DAY_OF_MONTH = rules.MonthlyType.DAY_OF_MONTH.value, _("Day of the month")
        NTH_WEEKDAY = rules.MonthlyType.NTH_WEEKDAY.value, _("Nth weekday of the month")

    frequency = models.CharField(
        pgettext_lazy("model field", "frequency"), max_length=10, choices=Frequency.choices
    )
    interval = models.PositiveIntegerField(
        pgettext_lazy("model field", "interval"), default=1, validators=[MinValueValidator(1)]
    )
    weekdays = models.JSONField(
        verbose_name=pgettext_lazy("model field", "weekdays"),
        default=list,
        blank=True,
        help_text=_("0=Monday .. 6=Sunday; WEEKLY only."),
    )
    monthly_type = models.CharField(
        verbose_name=pgettext_lazy("model field", "monthly type"),
        max_length=16,
        choices=MonthlyType.choices,
        blank=True,
        default="",
    )
    day_of_month = models.SmallIntegerField(
        verbose_name=pgettext_lazy("model field", "day of the month"),
        null=True,
        blank=True,
        help_text=_("1..31, or -1 for the last day of the month."),
    )
    nth_weekday = models.SmallIntegerField(
        verbose_name=pgettext_lazy("model field", "which weekday"),
        null=True,
        blank=True,
        help_text=_("1..5, or -1..-5 counted from the month's end."),
    )
    weekday = models.SmallIntegerField(
        pgettext_lazy("model field", "weekday"),
        null=True,
        blank=True,
        help_text=_("0=Monday .. 6=Sunday."),
    )
    dtstart = models.DateTimeField(pgettext_lazy("model field", "first date"))
    until = models.DateTimeField(
        pgettext_lazy("model field", "until"), null=True, blank=True, help_text=_("Inclusive.")
    )
    count = models.PositiveIntegerField(
        pgettext_lazy("model field", "number of dates"), null=True, blank=True
    )
    timezone = models.CharField(
        pgettext_lazy("model field", "time zone"),
        max_length=64,
        help_text=_("IANA name, e.g. Europe/Vienna."),
    )
    rrule_string = models.TextField(
        pgettext_lazy("model field", "RRULE"), editable=False, blank=True, default=""
    )
    created_at = models.DateTimeField(pgettext_lazy("model field", "created at"), auto_now_add=True)
    updated_at = models.DateTimeField(pgettext_lazy("model field", "updated at"), auto_now=True)

    class Meta:
        verbose_name = _("recurrence rule")
        verbose_name_plural = _("recurrence rules")

    def __str__(self) -> str:
        return self.rrule_string or f"{self.frequency} rule"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Validate, store instants as whole-second UTC and recompute ``rrule_string``."""
        # An invalid rule never reaches the database: rrule_string could not be
        # computed for it and generation would fail later, far from the cause.
        validate_rule(self.field_values())
        also_saved = ["rrule_string", "updated_at", "dtstart", "until", "weekdays", "monthly_type"]
        also_saved += self.normalize()
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, *also_saved}
        super().save(*args, **kwargs)

    def normalize(self) -> list[str]:
        """Put the values in the form they are stored in (in memory); what ``save()`` does first.

        Returns the names of the optional integer fields an empty text was cleared
        from. A change plan calls it on an unsaved copy, so the rule it describes
        is the rule that would be saved.
        """
        cleared = []
        # The validators read None and "" as "not set"; store the column's own empty.
        self.weekdays = list(self.weekdays or [])
        self.monthly_type = self.monthly_type or ""
        for name in ("day_of_month", "nth_weekday", "weekday"):
            if getattr(self, name) == "":
                setattr(self, name, None)
                cleared.append(name)
        # RFC 5545 times are whole seconds and dateutil drops the fraction, so the
        # first occurrence would fall just before dtstart and a generation window
        # starting at dtstart would skip it. Both instants go in as UTC: any Python
        # offset is valid, PostgreSQL refuses those beyond +/-15:59.
        self.dtstart = rules.to_utc(self.dtstart.replace(microsecond=0))
        if self.until is not None:
            self.until = rules.to_utc(self.until)
        self.rrule_string = rules.to_rrule_string(self.to_spec())
        return cleared

    def field_values(self) -> dict[str, Any]:
        """The rule's fields (:data:`~revel_recurring.rules.RULE_FIELDS`) as a dict."""
        return {name: getattr(self, name) for name in RULE_FIELDS}

    def clean(self) -> None:
        """Validate the rule's fields together (ValidationError keyed by field)."""
        validate_rule(self.field_values())

    def to_spec(self) -> rules.RuleSpec:
        """The rule as the pure :class:`~revel_recurring.rules.RuleSpec` ``rules`` computes with."""
        return rules.RuleSpec.from_fields(self.field_values())

    def to_rrule(self) -> Any:
        """A ``dateutil.rrule.rrule`` over naive wall-clock times in the rule zone."""
        return rules.build_rrule(self.to_spec())

    def get_occurrences(self, after: dt.datetime, before: dt.datetime) -> list[dt.datetime]:
        """Occurrences strictly between two aware datetimes, as UTC instants."""
        return rules.occurrences_between(self.to_spec(), after, before)
