"""``DeletedSeries``: a deleted series remembered, so its feed can tell calendar apps."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .. import rules


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
