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

    The series' history: who did it (``actor``, ``face``), the plan hash where
    there is one, the rule and settings ``before`` and ``after``, and the rows it
    touched (:class:`OperationRow`, paged). The daily pass writes one summary per
    chunk (``summary``, no rows). The notices of the people booked on its dates
    hang from it. The series is named by value too (``series_ref``,
    ``series_name``, :class:`OperationSeries`), so the record outlives it.
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
    # The series' primary key by value: it stays when the series is deleted.
    series_ref = models.BigIntegerField(pgettext_lazy("model field", "series id"), null=True)
    # The user's primary key as text (any key type) and how they were named then.
    actor = models.CharField(
        pgettext_lazy("model field", "by"), max_length=255, blank=True, default=""
    )
    actor_name = models.CharField(
        pgettext_lazy("model field", "by name"), max_length=200, blank=True, default=""
    )
    # "api", "admin", "command", "task" or "code" (a service called directly).
    face = models.CharField(
        pgettext_lazy("model field", "through"), max_length=16, blank=True, default=""
    )
    # Shared by the records one queued bulk action writes (one per series).
    batch_id = models.UUIDField(pgettext_lazy("model field", "batch"), null=True, blank=True)
    before = models.JSONField(pgettext_lazy("model field", "before"), null=True, blank=True)
    after = models.JSONField(pgettext_lazy("model field", "after"), null=True, blank=True)
    row_count = models.PositiveIntegerField(pgettext_lazy("model field", "rows"), default=0)
    # The daily pass's chunk: the series it generated and how many dates each.
    summary = models.JSONField(pgettext_lazy("model field", "summary"), null=True, blank=True)
    reverts = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reverted_by",
        verbose_name=pgettext_lazy("model field", "reverts"),
    )

    class Meta:
        verbose_name = _("series operation")
        verbose_name_plural = _("series operations")
        ordering = ("created_at", "pk")
        indexes = [
            models.Index(fields=["series_ref", "created_at"], name="revel_operation_series"),
            models.Index(fields=["created_at"], name="revel_operation_created"),
            models.Index(fields=["batch_id"], name="revel_operation_batch"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of {self.series_name}"


class OperationSeries(models.Model):
    """A series an operation touched, by value (a split touches two, a chunk many)."""

    operation = models.ForeignKey(
        SeriesOperation,
        on_delete=models.CASCADE,
        related_name="series_links",
        verbose_name=pgettext_lazy("model field", "operation"),
    )
    series_ref = models.BigIntegerField(pgettext_lazy("model field", "series id"))
    series_name = models.CharField(pgettext_lazy("model field", "series name"), max_length=200)
    # Dates the operation created in this series (the daily pass's summary).
    created = models.PositiveIntegerField(pgettext_lazy("model field", "dates created"), default=0)

    class Meta:
        verbose_name = _("series of an operation")
        verbose_name_plural = _("series of operations")
        constraints = [
            models.UniqueConstraint(
                fields=["operation", "series_ref"], name="revel_operation_series_once"
            )
        ]
        indexes = [models.Index(fields=["series_ref", "operation"], name="revel_op_series_ref")]

    def __str__(self) -> str:
        return f"{self.series_name} ({self.operation_id})"


class OperationRow(models.Model):
    """One row an operation touched: its slot, start and status before and after.

    ``position`` orders a record's rows for reading page by page; ``booked`` is
    how many people the host said were booked on it then (None: the host does not
    say). Statuses are the app's words ("live", "cancelled", "draft"), whatever
    the host stores.
    """

    operation = models.ForeignKey(
        SeriesOperation,
        on_delete=models.CASCADE,
        related_name="rows",
        verbose_name=pgettext_lazy("model field", "operation"),
    )
    position = models.PositiveIntegerField(pgettext_lazy("model field", "position"))
    # The host event's primary key as text; 255 keeps it indexable on MariaDB.
    occurrence_pk = models.CharField(pgettext_lazy("model field", "occurrence id"), max_length=255)
    # "created", "moved", "cancelled", "restored", "deleted", "renamed" or "edited".
    change = models.CharField(pgettext_lazy("model field", "change"), max_length=16)
    series_before = models.BigIntegerField(
        pgettext_lazy("model field", "series before"), null=True, blank=True
    )
    series_after = models.BigIntegerField(
        pgettext_lazy("model field", "series after"), null=True, blank=True
    )
    slot_before = models.DateTimeField(
        pgettext_lazy("model field", "slot before"), null=True, blank=True
    )
    slot_after = models.DateTimeField(
        pgettext_lazy("model field", "slot after"), null=True, blank=True
    )
    start_before = models.DateTimeField(
        pgettext_lazy("model field", "start before"), null=True, blank=True
    )
    start_after = models.DateTimeField(
        pgettext_lazy("model field", "start after"), null=True, blank=True
    )
    status_before = models.CharField(
        pgettext_lazy("model field", "status before"), max_length=16, blank=True, default=""
    )
    status_after = models.CharField(
        pgettext_lazy("model field", "status after"), max_length=16, blank=True, default=""
    )
    booked = models.PositiveIntegerField(
        pgettext_lazy("model field", "people booked"), null=True, blank=True
    )

    class Meta:
        verbose_name = _("row of an operation")
        verbose_name_plural = _("rows of operations")
        ordering = ("operation", "position")
        constraints = [
            models.UniqueConstraint(
                fields=["operation", "position"], name="revel_operation_row_position"
            )
        ]
        indexes = [models.Index(fields=["occurrence_pk"], name="revel_operation_row_pk")]

    def __str__(self) -> str:
        return f"{self.change} {self.occurrence_pk} ({self.operation_id})"


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
