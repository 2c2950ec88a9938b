"""``OccurrenceChange``: what happened to an occurrence that its own row cannot show."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .series import EventSeries


class OccurrenceChange(models.Model):
    """A materialized occurrence was cancelled, restored, deleted, moved to another series,
    or rescheduled to another slot of its series.

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
        RESCHEDULED = "rescheduled", _("Moved to another date of the series")

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
        pgettext_lazy("model field", "kind"), max_length=16, choices=Kind.choices
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

    # For RESCHEDULED: the slot the occurrence stands for now (``recurrence_id`` is the
    # one it stood for before the schedule changed).
    new_recurrence_id = models.DateTimeField(
        pgettext_lazy("model field", "new original date"), null=True, blank=True
    )

    # The operation that made the change, when one was recorded (its history).
    operation = models.ForeignKey(
        "revel_recurring.SeriesOperation",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="occurrence_changes",
        verbose_name=pgettext_lazy("model field", "operation"),
    )

    class Meta:
        verbose_name = _("occurrence change")
        verbose_name_plural = _("occurrence changes")
        ordering = ("at", "pk")
        indexes = [models.Index(fields=["series", "at"], name="revel_occ_change_series_at")]

    def __str__(self) -> str:
        return f"{self.kind} {self.occurrence_pk} of series {self.series_id}"
