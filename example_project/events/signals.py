"""Keep ``Organization.feed_changed_at`` current: the organisation feed's departure stamp.

A series leaves an organisation's feed when its template is made members-only or
deleted; neither moves a row the feed still lists. These receivers stamp the
organisation instead, so the feed's Last-Modified moves too. Pausing saves the
series row, whose ``updated_at`` the feed already reads (see
docs/decisions/0026-feed-revision-stamp.md).
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from .models import Event, Organization


def _stamp(organization_ids: Any) -> None:
    Organization.objects.filter(pk__in=organization_ids).update(feed_changed_at=timezone.now())


def template_changed(sender: Any, instance: Event, **kwargs: Any) -> None:
    # Occurrences are saved by the thousand and move their own listed stamps.
    if instance.is_template:
        _stamp([instance.organization_id])


def connect() -> None:
    post_save.connect(template_changed, sender=Event, dispatch_uid="events-feed-template-saved")
    post_delete.connect(template_changed, sender=Event, dispatch_uid="events-feed-template-gone")
