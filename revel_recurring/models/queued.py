"""``QueuedAction``: an admin action handed to the task queue, and how it went.

An admin action over more series than ``REVEL_RECURRING_ADMIN_INLINE_LIMIT`` is
queued and the request answers at once; these rows are what the series list shows
of it afterwards: who asked for what over how many series, how many are done and
how many failed (each failure named in a ``QueuedActionFailure``), and when it
finished. They are kept for ``REVEL_RECURRING_QUEUED_ACTION_DAYS``.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class QueuedAction(models.Model):
    """One queued admin action over a selection of series, counted as its chunks report.

    The person is kept as the key and the username they had (``user_pk``,
    ``user_name``), not as a foreign key: the user model is the host's
    (``AUTH_USER_MODEL``, with any key type), and the app's migrations never
    depend on a host app (a host whose user model lives beside its event model
    would make the two apps' migrations depend on each other). ``done`` and
    ``failed`` grow by one UPDATE per chunk; ``finished_at`` is set by the chunk
    that brings ``done + failed`` to ``series_count``.
    """

    class Action(models.TextChoices):
        GENERATE = "generate", pgettext_lazy("queued action", "Generate now")
        PAUSE = "pause", pgettext_lazy("queued action", "Pause")
        RESUME = "resume", pgettext_lazy("queued action", "Resume")
        DELETE = "delete", pgettext_lazy("queued action", "Delete")
        CANCEL_STALE = "cancel_stale", pgettext_lazy("queued action", "Cancel stale dates")

    action = models.CharField(
        pgettext_lazy("model field", "action"), max_length=20, choices=Action.choices
    )
    user_pk = models.CharField(pgettext_lazy("model field", "user id"), max_length=64, blank=True)
    user_name = models.CharField(pgettext_lazy("model field", "user"), max_length=150, blank=True)
    series_count = models.PositiveIntegerField(pgettext_lazy("model field", "series"))
    done = models.PositiveIntegerField(pgettext_lazy("model field", "done"), default=0)
    failed = models.PositiveIntegerField(pgettext_lazy("model field", "failed"), default=0)
    queued_at = models.DateTimeField(
        pgettext_lazy("model field", "queued at"), default=timezone.now
    )
    finished_at = models.DateTimeField(
        pgettext_lazy("model field", "finished at"), null=True, blank=True
    )

    class Meta:
        verbose_name = _("bulk action")
        verbose_name_plural = _("bulk actions")
        ordering = ("-queued_at", "-pk")
        indexes = [
            models.Index(fields=["queued_at"], name="revel_queued_action_at"),
            models.Index(fields=["user_pk", "queued_at"], name="revel_queued_action_user"),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} ({self.series_count})"

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None


class QueuedActionFailure(models.Model):
    """A series a queued action could not do, and why (in the words of the refusal)."""

    queued_action = models.ForeignKey(
        QueuedAction,
        on_delete=models.CASCADE,
        related_name="failures",
        verbose_name=_("bulk action"),
    )
    # The series' key and name as they were: a deleted series leaves its failure named.
    series_pk = models.BigIntegerField(pgettext_lazy("model field", "series id"))
    series_name = models.CharField(pgettext_lazy("model field", "name"), max_length=255)
    reason = models.TextField(pgettext_lazy("model field", "reason"))

    class Meta:
        # English writes both alike; German and Dutch do not (one context each).
        verbose_name = pgettext_lazy("singular", "failed series")
        verbose_name_plural = pgettext_lazy("plural", "failed series")
        ordering = ("pk",)

    def __str__(self) -> str:
        return f"{self.series_name}: {self.reason}"
