"""Enrolments across a split: the continuation takes them on from the split date.

:func:`carry_enrolments` hands the original's enrolments on when the split is made;
:func:`locked_continuations` lets an enrolment made in the original afterwards (a user
who enrolled while the split was written, say) go on with the continuation as well.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from ... import rules
from ...models import Enrolment, EnrolmentDate, EventSeries
from ..toolbox.enrolled import local_day, zone_of
from ..toolbox.locking import lock_several_series
from ..toolbox.plumbing import load_rule


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


def locked_continuations(locked: EventSeries) -> list[tuple[EventSeries, dt.date]]:
    """The continuations split off ``locked`` (its own, that one's, ...), each locked, with
    the day it takes over from on ``locked``'s wall clock (its rule's first date).

    ``locked``'s lock is held already; continuations are created after their original,
    so theirs are taken after it in ascending order, as a split takes both. A chain a
    split lengthened while the locks were taken is read again.
    """
    held = {locked.pk}
    while True:
        chain = _chain(locked.pk)
        missing = sorted(set(chain) - held)
        if not missing:
            break
        held.update(one.pk for one in lock_several_series(missing))
    zone = zone_of(locked)
    found: list[tuple[EventSeries, dt.date]] = []
    for pk in chain:
        one = EventSeries.objects.get(pk=pk)
        rule = load_rule(one)
        if rule is None:
            break
        found.append((one, local_day(rules.to_utc(rule.dtstart), zone)))
    return found


def _chain(series_id: int) -> list[int]:
    """The ids of the continuations after ``series_id``, in link order (one query a link)."""
    chain: list[int] = []
    current = series_id
    while (
        nxt := EventSeries.objects.filter(split_from_id=current)
        .order_by("pk")
        .values_list("pk", flat=True)
        .first()
    ) is not None and nxt not in chain:
        chain.append(nxt)
        current = nxt
    return chain
