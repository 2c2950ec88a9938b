"""Enrolments: a user booked on every date of a series from a day on, and their dates.

``Enrolment`` is one user in one series, from ``starts_on`` (a day on the series'
wall clock) until ``ends_on`` (none: open-ended). ``EnrolmentDate`` is what became
of one date for one enrolled user: booked through the enrolment, already held by a
booking of their own, skipped on their request, or refused by the host (full,
closed...). The user and the date are kept as keys, not foreign keys: the user model
and the event model are the host's, with any key type, and the app's migrations never
depend on a host app (see ``QueuedAction``).
"""

from __future__ import annotations

import datetime as dt

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .series import EventSeries


class Enrolment(models.Model):
    """One user enrolled in one series: booked on each of its dates as it is created."""

    series = models.ForeignKey(
        EventSeries,
        on_delete=models.CASCADE,
        related_name="enrolments",
        verbose_name=pgettext_lazy("model field", "series"),
    )
    user_pk = models.CharField(pgettext_lazy("model field", "user id"), max_length=64)
    starts_on = models.DateField(pgettext_lazy("model field", "from"))
    ends_on = models.DateField(pgettext_lazy("model field", "until"), null=True, blank=True)
    created_at = models.DateTimeField(
        pgettext_lazy("model field", "created at"), default=timezone.now
    )
    created_by_pk = models.CharField(
        pgettext_lazy("model field", "created by"), max_length=64, blank=True, default=""
    )
    ended_at = models.DateTimeField(pgettext_lazy("model field", "ended at"), null=True, blank=True)

    class Meta:
        verbose_name = _("enrolment")
        verbose_name_plural = _("enrolments")
        ordering = ("series", "starts_on", "pk")
        constraints = [
            models.UniqueConstraint(
                fields=["series", "user_pk"], name="revel_enrolment_one_per_user"
            )
        ]
        indexes = [models.Index(fields=["user_pk"], name="revel_enrolment_user")]

    def __str__(self) -> str:
        return f"{self.user_pk} in {self.series_id}"

    def covers(self, day: dt.date) -> bool:
        """Whether the enrolment books the date on ``day`` (a day on the series' clock)."""
        return self.starts_on <= day and (self.ends_on is None or day <= self.ends_on)


class EnrolmentDate(models.Model):
    """What became of one date for one enrolled user."""

    class State(models.TextChoices):
        BOOKED = "booked", pgettext_lazy("enrolment date", "booked")
        HELD = "held", pgettext_lazy("enrolment date", "booked by themselves")
        SKIPPED = "skipped", pgettext_lazy("enrolment date", "skipped")
        REFUSED = "refused", pgettext_lazy("enrolment date", "could not be booked")
        RELEASED = "released", pgettext_lazy("enrolment date", "released")

    series = models.ForeignKey(
        EventSeries,
        on_delete=models.CASCADE,
        related_name="enrolment_dates",
        verbose_name=pgettext_lazy("model field", "series"),
    )
    user_pk = models.CharField(pgettext_lazy("model field", "user id"), max_length=64)
    occurrence_pk = models.CharField(pgettext_lazy("model field", "occurrence id"), max_length=255)
    starts_at = models.DateTimeField(pgettext_lazy("model field", "starts at"))
    state = models.CharField(
        pgettext_lazy("model field", "state"), max_length=16, choices=State.choices
    )
    reason = models.CharField(
        pgettext_lazy("model field", "reason"), max_length=200, blank=True, default=""
    )
    updated_at = models.DateTimeField(pgettext_lazy("model field", "updated at"), auto_now=True)
    # When the user's message naming this date was written; None: still owed (a date
    # the daily pass booked, told by ``revel_recurring.tell_enrolled_users`` after it).
    told_at = models.DateTimeField(pgettext_lazy("model field", "told at"), null=True, blank=True)

    class Meta:
        verbose_name = _("enrolled date")
        verbose_name_plural = _("enrolled dates")
        ordering = ("series", "starts_at", "user_pk")
        constraints = [
            models.UniqueConstraint(
                fields=["user_pk", "occurrence_pk"], name="revel_enrolment_date_once"
            )
        ]
        indexes = [
            models.Index(fields=["occurrence_pk"], name="revel_enrolment_date_row"),
            models.Index(fields=["series", "user_pk"], name="revel_enrolment_date_user"),
            models.Index(fields=["told_at", "series"], name="revel_enrolment_date_untold"),
        ]

    def __str__(self) -> str:
        return f"{self.user_pk} on {self.occurrence_pk}: {self.state}"
