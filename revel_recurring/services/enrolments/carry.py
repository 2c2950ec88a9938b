"""Enrolments across a split: the continuation takes them on from the split date."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from ...models import Enrolment, EnrolmentDate, EventSeries
from ..toolbox.enrolled import local_day, zone_of


def carry_enrolments(
    original: EventSeries, continuation: EventSeries, *, at: dt.datetime, moved: Sequence[Any]
) -> int:
    """Enrol the original's users in ``continuation`` from the split date; how many.

    Each enrolment that covers a day from the split date on is copied to the
    continuation (from the later of its start and the split day, to its end) and
    ends on the day before the split in the original. The dates the split handed to
    the continuation (``moved``: their keys) keep their bookings, skips and refusals,
    now counted in the continuation. Three statements and a bulk insert, whatever
    the number of users.
    """
    day = local_day(at, zone_of(original))
    carried = list(
        Enrolment.objects.filter(series=original).exclude(ends_on__lt=day).order_by("pk")
    )
    if carried:
        Enrolment.objects.bulk_create(
            [
                Enrolment(
                    series=continuation,
                    user_pk=enrolment.user_pk,
                    starts_on=max(enrolment.starts_on, day),
                    ends_on=enrolment.ends_on,
                    created_at=enrolment.created_at,
                    created_by_pk=enrolment.created_by_pk,
                )
                for enrolment in carried
            ],
            batch_size=500,
        )
        # Enrolments that began on or after the split day belong to the continuation alone.
        Enrolment.objects.filter(pk__in=[e.pk for e in carried], starts_on__gte=day).delete()
        Enrolment.objects.filter(pk__in=[e.pk for e in carried]).update(
            ends_on=day - dt.timedelta(days=1)
        )
    keys = [str(pk) for pk in moved]
    for start in range(0, len(keys), 1000):
        EnrolmentDate.objects.filter(
            series=original, occurrence_pk__in=keys[start : start + 1000]
        ).update(series=continuation)
    return len(carried)
