"""The notifier REVEL_RECURRING_NOTIFIER points at: log the digest and keep a record.

A real site would send e-mail or push messages here; the record lets the demo and
the admin show what would have gone out.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)


def record_digest(digest: Any) -> None:
    from .models import DigestRecord

    recipients = [str(recipient) for recipient in digest.recipients]
    logger.info(
        "%s: %d new occurrence(s) of series %s for %d recipient(s) %s",
        digest.notification_type,
        digest.count,
        digest.series.pk,
        len(recipients),
        digest.url,
    )
    DigestRecord.objects.create(
        series=digest.series,
        notification_type=digest.notification_type,
        occurrence_count=digest.count,
        recipients=recipients,
        url=digest.url,
    )
