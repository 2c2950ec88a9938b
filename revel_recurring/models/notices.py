"""What the people booked on changed dates are sent, and what their calendars hold.

``SeriesOperation`` is one change to a series' dates; ``PersonNotice`` the one
message it owes each person booked on a date it touched (written in the change's
transaction, sent after commit, never twice); ``CalendarCopy`` what a person's
calendar holds for one iCalendar identity (UID and RECURRENCE-ID), as last sent.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .series import EventSeries


class SeriesOperation(models.Model):
    """One operation on a series' dates: a cancellation, an applied plan, a split...

    Written when the operation touched a date someone is booked on; its notices
    hang from it. The series is named by value too, so the record outlives it.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(pgettext_lazy("model field", "kind"), max_length=32)
    series = models.ForeignKey(
        EventSeries,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="operations",
        verbose_name=pgettext_lazy("model field", "series"),
    )
    series_name = models.CharField(pgettext_lazy("model field", "series name"), max_length=200)
    plan_hash = models.CharField(
        pgettext_lazy("model field", "plan hash"), max_length=128, blank=True, default=""
    )
    notify = models.CharField(pgettext_lazy("model field", "people told"), max_length=8)
    created_at = models.DateTimeField(
        pgettext_lazy("model field", "created at"), default=timezone.now
    )

    class Meta:
        verbose_name = _("series operation")
        verbose_name_plural = _("series operations")
        ordering = ("created_at", "pk")

    def __str__(self) -> str:
        return f"{self.kind} of {self.series_name}"


class PersonNotice(models.Model):
    """The one message an operation owes one person: their dates before and after.

    ``payload`` holds everything the message says (dates, calendar entries with
    their SEQUENCE), fixed in the change's transaction, so a retried send writes
    the same message. ``sent_at`` is set once the mail server (or the host's
    delivery) accepted it.
    """

    operation = models.ForeignKey(
        SeriesOperation,
        on_delete=models.CASCADE,
        related_name="notices",
        verbose_name=pgettext_lazy("model field", "operation"),
    )
    # 254: the longest e-mail address (RFC 5321), and an indexable length on MariaDB.
    address = models.CharField(pgettext_lazy("model field", "address"), max_length=254)
    name = models.CharField(pgettext_lazy("model field", "name"), max_length=200, blank=True)
    language = models.CharField(pgettext_lazy("model field", "language"), max_length=16, blank=True)
    timezone = models.CharField(
        pgettext_lazy("model field", "time zone"), max_length=64, blank=True
    )
    payload = models.JSONField(pgettext_lazy("model field", "payload"))
    attempts = models.PositiveIntegerField(pgettext_lazy("model field", "attempts"), default=0)
    last_error = models.TextField(pgettext_lazy("model field", "last error"), blank=True)
    sent_at = models.DateTimeField(pgettext_lazy("model field", "sent at"), null=True, blank=True)

    class Meta:
        verbose_name = _("message to a booked person")
        verbose_name_plural = _("messages to booked people")
        ordering = ("operation", "address")
        constraints = [
            models.UniqueConstraint(
                fields=["operation", "address"], name="revel_notice_one_per_person"
            )
        ]
        indexes = [models.Index(fields=["sent_at"], name="revel_notice_sent_at")]

    def __str__(self) -> str:
        return f"{self.address} ({self.operation_id})"


class CalendarCopy(models.Model):
    """What one person's calendar holds for one identity, as the app last sent it.

    The identity is a UID and a RECURRENCE-ID (none for an event of its own);
    ``occurrence_pk`` the host event it stands for; ``sequence`` the SEQUENCE
    last sent for it, which only goes up; ``cancelled`` whether that was a CANCEL.
    """

    address = models.CharField(pgettext_lazy("model field", "address"), max_length=254)
    uid = models.CharField(pgettext_lazy("model field", "UID"), max_length=255)
    recurrence_id = models.DateTimeField(
        pgettext_lazy("model field", "RECURRENCE-ID"), null=True, blank=True
    )
    # The UID and RECURRENCE-ID in one text: a unique key that NULLs cannot split.
    identity = models.CharField(pgettext_lazy("model field", "identity"), max_length=300)
    occurrence_pk = models.CharField(pgettext_lazy("model field", "occurrence id"), max_length=255)
    sequence = models.PositiveIntegerField(pgettext_lazy("model field", "sequence"))
    cancelled = models.BooleanField(pgettext_lazy("model field", "cancelled"), default=False)
    updated_at = models.DateTimeField(pgettext_lazy("model field", "updated at"), auto_now=True)

    class Meta:
        verbose_name = _("calendar copy")
        verbose_name_plural = _("calendar copies")
        constraints = [
            models.UniqueConstraint(
                fields=["address", "identity"], name="revel_calendar_copy_identity"
            )
        ]
        indexes = [
            models.Index(fields=["occurrence_pk", "address"], name="revel_calendar_copy_row")
        ]

    def __str__(self) -> str:
        return f"{self.identity} for {self.address}"
