"""``EventSeries``: a rule, a template event, the series' own dates and the generation cursor."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from django.core import checks
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .. import rules
from ..backend_checks import without_answered_warnings
from ..holiday_rules import HolidayPolicy, HolidayRule
from ..mixins import RecurringEventMixin
from ..querysets import EventSeriesQuerySet
from ..rules.zone_data import fingerprint_holds
from ..validators import WINDOW_WEEKS_MAX, WINDOW_WEEKS_MIN
from .event_model import get_event_model
from .rule import RecurrenceRule


def _unique_slug(name: str, exclude_pk: int | None) -> str:
    base = slugify(name)[:200] or "series"
    candidates = EventSeries.objects.filter(slug__startswith=base)
    if exclude_pk is not None:
        candidates = candidates.exclude(pk=exclude_pk)
    taken = set(candidates.values_list("slug", flat=True))
    slug, suffix = base, 2
    while slug in taken:
        slug, suffix = f"{base}-{suffix}", suffix + 1
    return slug


EventSeriesManager = models.Manager.from_queryset(EventSeriesQuerySet)


class HolidayPolicyChoices(models.TextChoices):
    """:class:`~revel_recurring.holiday_rules.HolidayPolicy` as model choices."""

    KEEP = HolidayPolicy.KEEP.value, _("Keep the date")
    SKIP = HolidayPolicy.SKIP.value, _("Skip the date")
    SHIFT = HolidayPolicy.SHIFT.value, _("Move the date to the next free day")


class EventSeries(models.Model):
    """A recurring series: a rule, a template event and the rolling-window cursor."""

    name = models.CharField(pgettext_lazy("model field", "name"), max_length=255)
    slug = models.SlugField(
        pgettext_lazy("model field", "slug"), max_length=255, unique=True, blank=True
    )
    description = models.TextField(
        pgettext_lazy("model field", "description"), blank=True, default=""
    )
    recurrence_rule = models.OneToOneField(
        RecurrenceRule,
        verbose_name=pgettext_lazy("model field", "recurrence rule"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="series",
    )
    # Not editable in forms: the cancellation services change it under the series
    # lock; a form saving a copy read before a cancellation would undo it.
    exdates = models.JSONField(
        verbose_name=pgettext_lazy("model field", "cancelled dates"),
        default=list,
        blank=True,
        editable=False,
        help_text=_("Excluded occurrence instants, UTC."),
    )
    # Written by services.extra_dates under the series lock, like exdates.
    extra_dates = models.JSONField(
        verbose_name=pgettext_lazy("model field", "extra dates"),
        default=list,
        blank=True,
        editable=False,
        help_text=_("Dates of the series besides its rule's (RFC 5545 RDATE), UTC instants."),
    )
    # A holiday calendar of the ``holidays`` package and what its holidays do to
    # the rule's dates (revel_recurring.holiday_rules). A change is a schedule
    # change: it goes through services.editing / a plan, like a rule change.
    holiday_country = models.CharField(
        verbose_name=pgettext_lazy("model field", "holiday country"),
        max_length=3,
        blank=True,
        default="",
        help_text=_("ISO 3166 country code of the holiday calendar, e.g. AT; empty for none."),
    )
    holiday_subdivision = models.CharField(
        verbose_name=pgettext_lazy("model field", "holiday subdivision"),
        max_length=10,
        blank=True,
        default="",
        help_text=_("Subdivision of the holiday calendar, e.g. BY for Bavaria; empty for none."),
    )
    holiday_categories = models.JSONField(
        verbose_name=pgettext_lazy("model field", "holiday categories"),
        default=list,
        blank=True,
        help_text=_("Holiday categories besides public ones, e.g. bank; empty for public."),
    )
    holiday_policy = models.CharField(
        verbose_name=pgettext_lazy("model field", "holiday policy"),
        max_length=5,
        choices=HolidayPolicyChoices,
        default=HolidayPolicyChoices.SKIP,
        help_text=_("What a holiday does to a date of the rule."),
    )
    # Written by the cancellation services under the series lock, like exdates.
    holidays_kept = models.JSONField(
        verbose_name=pgettext_lazy("model field", "holidays kept"),
        default=list,
        blank=True,
        editable=False,
        help_text=_("Dates of the rule kept on purpose although they fall on a holiday, UTC."),
    )
    holidays_version = models.CharField(
        verbose_name=pgettext_lazy("model field", "holidays version"),
        max_length=32,
        blank=True,
        default="",
        editable=False,
        help_text=_("The holidays package version the last generation applied."),
    )
    zone_fingerprint = models.CharField(
        verbose_name=pgettext_lazy("model field", "time-zone data fingerprint"),
        max_length=64,
        blank=True,
        default="",
        editable=False,
        help_text=_(
            "The UTC offsets of the rule's zone up to the generation cursor, as the dates "
            "were placed (revel_recurring.rules.zone_data)."
        ),
    )
    is_active = models.BooleanField(pgettext_lazy("model field", "active"), default=True)
    auto_publish = models.BooleanField(
        pgettext_lazy("model field", "publish automatically"), default=False
    )
    generation_window_weeks = models.PositiveSmallIntegerField(
        verbose_name=pgettext_lazy("model field", "generation window (weeks)"),
        default=8,
        validators=[MinValueValidator(WINDOW_WEEKS_MIN), MaxValueValidator(WINDOW_WEEKS_MAX)],
    )
    last_generated_until = models.DateTimeField(
        pgettext_lazy("model field", "dates created up to"), null=True, blank=True, editable=False
    )
    last_occurrence_index = models.PositiveIntegerField(
        verbose_name=pgettext_lazy("model field", "last occurrence number"),
        default=0,
        editable=False,
        help_text=_("The highest occurrence_index handed out; never reused."),
    )
    next_due_at = models.DateTimeField(
        verbose_name=pgettext_lazy("model field", "next dates added on"),
        null=True,
        blank=True,
        editable=False,
        help_text=_(
            "When the next not-yet-materialized occurrence enters the window; "
            "empty once the rule is exhausted."
        ),
    )
    # Set by the daily pass when generation failed for a reason a retry cannot
    # fix; the pass skips the series until someone unparks it (docs/decisions/
    # 0023-parked-series.md).
    parked_at = models.DateTimeField(
        verbose_name=pgettext_lazy("model field", "parked at"),
        null=True,
        blank=True,
        editable=False,
        help_text=_(
            "When the daily pass stopped generating this series after a failure a retry "
            "cannot fix; empty while it generates."
        ),
    )
    parked_reason = models.TextField(
        verbose_name=pgettext_lazy("model field", "reason parked"),
        blank=True,
        default="",
        editable=False,
        help_text=_("Why generation failed; resume the series or fix the cause to clear it."),
    )
    # A "this and following" split (services.splits): the series this one continues.
    # SET_NULL: deleting one half never deletes the other.
    split_from = models.OneToOneField(
        "self",
        verbose_name=pgettext_lazy("model field", "continues"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="continued_by",
        help_text=_("The series this one continues from the date it was split at."),
    )
    created_at = models.DateTimeField(pgettext_lazy("model field", "created at"), auto_now_add=True)
    updated_at = models.DateTimeField(pgettext_lazy("model field", "updated at"), auto_now=True)

    objects = EventSeriesManager()

    class Meta:
        # English writes both alike; German and Dutch do not (one context each).
        verbose_name = pgettext_lazy("singular", "event series")
        verbose_name_plural = pgettext_lazy("plural", "event series")
        ordering = ("name", "pk")
        indexes = [
            models.Index(
                fields=["next_due_at"],
                name="revel_series_due_idx",
                condition=models.Q(is_active=True),
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Fill a unique slug, normalise exdates and extra dates; a new ruled series is due."""
        if not self.slug:
            self.slug = _unique_slug(self.name, self.pk)
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "slug"}
        self.exdates = rules.normalize_exdates(self.exdates or [])
        self.extra_dates = rules.normalize_exdates(self.extra_dates or [])
        self.holidays_kept = rules.normalize_exdates(self.holidays_kept or [])
        if (
            self._state.adding
            and self.next_due_at is None
            and self.last_generated_until is None
            and self.recurrence_rule_id is not None
        ):
            # A new series is due at once, so the next dispatcher pass picks it up.
            # Later changes go through the services, which recompute next_due_at.
            self.next_due_at = timezone.now()
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "next_due_at"}
        super().save(*args, **kwargs)

    @classmethod
    def check(cls, **kwargs: Any) -> list[checks.CheckMessage]:
        """Django's checks, without its W037 about the due-series index.

        MariaDB and MySQL create it as a plain index on ``next_due_at``, which
        serves the daily pass as well (``revel_recurring.backend_checks``).
        """
        messages: list[checks.CheckMessage] = super().check(**kwargs)
        return without_answered_warnings(cls, messages, indexes=["revel_series_due_idx"])

    @property
    def exdate_instants(self) -> frozenset[dt.datetime]:
        """The excluded slots as a set of UTC instants."""
        return rules.exdate_instants(self.exdates or [])

    @property
    def extra_date_instants(self) -> frozenset[dt.datetime]:
        """The extra dates as a set of UTC instants."""
        return rules.exdate_instants(self.extra_dates or [])

    def zone_data_changed(self, rule: RecurrenceRule | None = None) -> bool:
        """Whether the time-zone data loaded now gives the rule's zone other UTC offsets, over
        the span of the generated dates (from the last run to its cursor), than the data
        they were placed with (``zone_fingerprint``): those dates may sit at the wrong
        wall-clock time (:mod:`revel_recurring.services.zone_data`). False without a
        cursor or a fingerprint (nothing to compare). ``rule`` defaults to the series' own."""
        if not self.zone_fingerprint or self.last_generated_until is None:
            return False
        if rule is None:
            if self.recurrence_rule_id is None:
                return False
            rule = self.recurrence_rule
        if rule is None:
            return False
        return not fingerprint_holds(self.zone_fingerprint, rule.timezone)

    def dates_spec(self, rule: RecurrenceRule) -> rules.RuleSpec:
        """The dates of this series: ``rule``'s spec with the series' extra dates.

        Every reader that asks which dates the series has (generation, the next
        due moment, drift, previews, plans, cancellation, feeds) reads this, so an
        extra date is a date like the rule's. ``rule`` is the series' rule, or
        the rule a plan or change would give it.
        """
        spec = rules.with_extra_dates(rule.to_spec(), self.extra_dates or [])
        holiday_rule = self.holiday_rule
        return spec if holiday_rule is None else replace(spec, holidays=holiday_rule)

    @property
    def holiday_rule(self) -> HolidayRule | None:
        """The series' holiday calendar and policy, None when it names no country."""
        if not self.holiday_country:
            return None
        return HolidayRule(
            country=self.holiday_country,
            subdivision=self.holiday_subdivision or "",
            categories=tuple(sorted(self.holiday_categories or ())),
            policy=HolidayPolicy(self.holiday_policy or HolidayPolicy.SKIP),
            kept=rules.exdate_instants(self.holidays_kept or []),
        )

    def get_template(self) -> RecurringEventMixin | None:
        """The template event of this series, or None."""
        return get_event_model()._default_manager.filter(series=self, is_template=True).first()

    def occurrences(self) -> models.QuerySet[RecurringEventMixin]:
        """A queryset of this series' materialized occurrences (template excluded)."""
        return get_event_model()._default_manager.filter(series=self, is_template=False)
