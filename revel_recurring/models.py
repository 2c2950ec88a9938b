"""RecurrenceRule, EventSeries, the host mixin and ``get_event_model()``."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from django.apps import apps
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from . import rules
from .backend_checks import without_answered_warnings
from .conf import recurring_settings
from .holiday_rules import HolidayPolicy, HolidayRule
from .mixins import RecurringEventMixin
from .querysets import EventSeriesQuerySet
from .validators import WINDOW_WEEKS_MAX, WINDOW_WEEKS_MIN, validate_rule

__all__ = [
    "DeletedSeries",
    "EventSeries",
    "HolidayPolicyChoices",
    "OccurrenceChange",
    "PendingExdate",
    "RecurrenceRule",
    "RecurringEventMixin",
    "get_event_model",
]

RULE_FIELDS = rules.RULE_FIELDS  # kept importable from here


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
        """The rule as the pure :class:`~revel_recurring.rules.RuleSpec` rules.py computes with."""
        return rules.RuleSpec.from_fields(self.field_values())

    def to_rrule(self) -> Any:
        """A ``dateutil.rrule.rrule`` over naive wall-clock times in the rule zone."""
        return rules.build_rrule(self.to_spec())

    def get_occurrences(self, after: dt.datetime, before: dt.datetime) -> list[dt.datetime]:
        """Occurrences strictly between two aware datetimes, as UTC instants."""
        return rules.occurrences_between(self.to_spec(), after, before)


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


class OccurrenceChange(models.Model):
    """A materialized occurrence was cancelled, restored, deleted or moved to another series.

    Written by :mod:`revel_recurring.changelog` so that a client syncing with
    ``modified_since`` learns of removals (tombstones) and of restorations, which
    a host's "updated at" column does not show: the services save those with
    ``update_fields``, and a deleted row has no column left at all.
    """

    class Kind(models.TextChoices):
        CANCELLED = "cancelled", _("Cancelled")
        RESTORED = "restored", _("Restored")
        DELETED = "deleted", _("Deleted")
        MOVED = "moved", _("Moved to another series")

    series = models.ForeignKey(
        EventSeries,
        on_delete=models.CASCADE,
        related_name="occurrence_changes",
        verbose_name=pgettext_lazy("model field", "series"),
    )
    # The host event's primary key as text, not a foreign key: the row may be gone.
    # Text of any length: hosts key events by integers, UUIDs or strings of their own.
    occurrence_pk = models.TextField(pgettext_lazy("model field", "occurrence id"))
    recurrence_id = models.DateTimeField(
        pgettext_lazy("model field", "original date"), null=True, blank=True
    )
    occurrence_index = models.PositiveIntegerField(
        pgettext_lazy("model field", "occurrence number"), null=True, blank=True
    )
    kind = models.CharField(
        pgettext_lazy("model field", "kind"), max_length=10, choices=Kind.choices
    )
    at = models.DateTimeField(pgettext_lazy("model field", "at"), default=timezone.now)
    # For MOVED: the series the occurrence went to (a split's continuation).
    moved_to = models.ForeignKey(
        EventSeries,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=pgettext_lazy("model field", "moved to"),
    )

    class Meta:
        verbose_name = _("occurrence change")
        verbose_name_plural = _("occurrence changes")
        ordering = ("at", "pk")
        indexes = [models.Index(fields=["series", "at"], name="revel_occ_change_series_at")]

    def __str__(self) -> str:
        return f"{self.kind} {self.occurrence_pk} of series {self.series_id}"


class PendingExdate(models.Model):
    """A deleted occurrence's slot, waiting to be folded into its series' exdates.

    A host deleting an occurrence (``pre_delete``) writes one of these instead of
    locking the series row: the host's transaction may already hold occurrence row
    locks, and taking the series lock after them would invert the lock order (see
    docs/locking.md). The row has no database foreign key and no unique index, so
    inserting it never waits for anyone. Every service whose work depends on the
    excluded dates folds the pending rows of its series into ``EventSeries.exdates``
    right after taking the series lock (``services.exdates.absorb_pending_exdates``),
    and generation reads them after the slots already materialized, so a deleted
    slot is never re-created.
    """

    series = models.ForeignKey(
        EventSeries,
        on_delete=models.CASCADE,
        db_constraint=False,
        related_name="+",
        verbose_name=pgettext_lazy("model field", "series"),
    )
    instant = models.DateTimeField(pgettext_lazy("model field", "date"))

    class Meta:
        verbose_name = _("pending exdate")
        verbose_name_plural = _("pending exdates")

    def __str__(self) -> str:
        return f"{self.series_id}: {rules.format_instant(self.instant)}"


class DeletedSeries(models.Model):
    """A deleted series, remembered so that its feed can tell calendar apps to drop it.

    A calendar app removes a subscription's events only when the feed says so; a
    404 leaves the old dates in every subscriber's calendar. ``delete_series``
    records one of these, and the feeds answer an empty calendar for
    ``REVEL_RECURRING_DELETED_FEED_DAYS``, then 410 Gone (docs/decisions/
    0028-deleted-series-feeds.md). Nothing of the series is kept but its key, slug and
    name, and whether its feed was open to anyone (``is_feed_open``).
    """

    # The deleted EventSeries' primary key as text: the row is gone.
    series_pk = models.CharField(pgettext_lazy("model field", "series id"), max_length=64)
    slug = models.SlugField(pgettext_lazy("model field", "slug"), max_length=255, db_index=False)
    name = models.CharField(pgettext_lazy("model field", "name"), max_length=255)
    feed_was_open = models.BooleanField(
        verbose_name=pgettext_lazy("model field", "feed was open"),
        default=False,
        help_text=_("Whether anyone could read the series' feed without signing in."),
    )
    deleted_at = models.DateTimeField(
        pgettext_lazy("model field", "deleted at"), default=timezone.now
    )

    class Meta:
        # English writes both alike; German and Dutch do not (one context each).
        verbose_name = pgettext_lazy("singular", "deleted series")
        verbose_name_plural = pgettext_lazy("plural", "deleted series")
        ordering = ("-deleted_at", "-pk")
        indexes = [
            models.Index(fields=["series_pk"], name="revel_deleted_series_pk"),
            models.Index(fields=["slug"], name="revel_deleted_series_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.name} (deleted {rules.format_instant(self.deleted_at)})"

    @classmethod
    def latest(cls, **lookup: Any) -> DeletedSeries | None:
        """The most recent record matching ``lookup`` (``series_pk=`` or ``slug=``), or None."""
        if "series_pk" in lookup:
            lookup["series_pk"] = str(lookup["series_pk"])
        return cls.objects.filter(**lookup).order_by("-deleted_at", "-pk").first()


def get_event_model() -> type[RecurringEventMixin]:
    """The host Event model named by ``REVEL_RECURRING_EVENT_MODEL``."""
    label = recurring_settings.EVENT_MODEL
    if not label:
        raise ImproperlyConfigured("Set REVEL_RECURRING_EVENT_MODEL to 'app_label.Event'.")
    try:
        model = apps.get_model(label, require_ready=False)
    except (ValueError, LookupError) as exc:
        raise ImproperlyConfigured(
            f"REVEL_RECURRING_EVENT_MODEL refers to '{label}', which is not installed."
        ) from exc
    if not issubclass(model, RecurringEventMixin):
        raise ImproperlyConfigured(f"'{label}' must inherit RecurringEventMixin.")
    return model
