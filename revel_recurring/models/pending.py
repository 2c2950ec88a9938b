"""``PendingExdate``: a deleted occurrence's slot, until its series' exdates take it in."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .. import rules
from .series import EventSeries


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
