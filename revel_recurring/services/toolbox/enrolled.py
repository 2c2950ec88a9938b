"""Booking enrolled users on dates: one host call per batch, one message per user.

:func:`book_enrolled_rows` is the one place the app books enrolled users. Generation
calls it with the rows it just inserted (a new series, a run of the daily pass, an
extra date, the partner dates a move creates), an operation with the rows it
restored, the enrolment services with the rows an enrolment or a taken-back date
reaches. It reads the enrolments of the rows' series in one query, what each user
already has on those rows in another, asks the host's ``book_enrolled`` once, writes
what became of each (user, date) in bulk and one message per user and series.
Runs inside the caller's transaction and under its series lock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

from django.db import connection, transaction

from ...adapter import get_adapter
from ...enrolled import BOOKED, HELD, REFUSED, BookingAnswer
from ...mixins import RecurringEventMixin
from ...models import Enrolment, EnrolmentDate, EventSeries, get_event_model
from ...notices.enrolled import SeriesShare, UserDates, record_enrolment_notices
from ...notices.rows import states_of
from ...signals import enrolled_dates_booked

#: What a user already has on a date that a new booking must not repeat.
_KEPT = (EnrolmentDate.State.BOOKED, EnrolmentDate.State.HELD, EnrolmentDate.State.SKIPPED)
#: The answer for a pair the host left out of its answer.
_NO_ANSWER = BookingAnswer.refused("no answer from the site")


def host_enrols() -> bool:
    """Whether the host books enrolled users (its event model overrides ``book_enrolled``)."""
    hook: Any = getattr(get_event_model(), "book_enrolled", None)
    default: Any = RecurringEventMixin.book_enrolled
    return getattr(hook, "__func__", None) is not default.__func__


def zone_of(series: EventSeries) -> ZoneInfo:
    """The series' wall clock: its rule's zone, UTC without a rule."""
    rule = series.recurrence_rule if series.recurrence_rule_id is not None else None
    return ZoneInfo(str(rule.timezone)) if rule is not None else ZoneInfo("UTC")


def local_day(start: dt.datetime, zone: ZoneInfo) -> dt.date:
    """The day ``start`` falls on, on the series' wall clock (what enrolments count in)."""
    return start.astimezone(zone).date()


def bookable(model: Any, row: Any, now: dt.datetime) -> bool:
    """Whether an enrolled user can be booked on ``row``: open, and still to come."""
    return bool(
        model.is_status(row.occurrence_status, model.RECURRING_STATUS_OPEN)
        and row.occurrence_start > now
    )


@dataclass
class EnrolmentBatch:
    """What one batch did: per series, per user, the rows booked and refused."""

    booked: dict[int, dict[str, list[Any]]] = field(default_factory=dict)
    refused: dict[int, dict[str, list[tuple[Any, str]]]] = field(default_factory=dict)

    def count(self) -> int:
        """How many (user, date) bookings the batch made."""
        return sum(len(rows) for users in self.booked.values() for rows in users.values())


def book_enrolled_rows(
    rows: Iterable[Any],
    series: Mapping[int, EventSeries],
    *,
    now: dt.datetime,
    users: Collection[str] | None = None,
    retry: Collection[str] = (),
    tell: str = "now",
) -> EnrolmentBatch:
    """Book every enrolled user on each of ``rows`` their enrolment covers.

    ``rows`` are host events of ``series`` (id -> locked series); those not open or
    already past are left out. ``users`` limits the batch to these user keys (a new
    enrolment). A user who already holds the date through the enrolment, by a
    booking of their own, or skipped it, is left alone, unless the date's state is
    in ``retry`` (a date taken back after a skip). One query for the enrolments,
    one for the dates' states, one host call, one upsert. ``tell`` says when the
    users hear of it: "now" writes one message per user and series in this
    transaction; "later" leaves the dates owed (``told_at`` empty) for
    :func:`tell_untold`, which the daily pass's chunk task queues after its commit;
    "none" owes nobody a message. Nothing at all when the host does not book
    enrolled users.
    """
    if tell not in ("now", "later", "none"):
        raise ValueError(f"tell must be 'now', 'later' or 'none', not {tell!r}")
    batch = EnrolmentBatch()
    if not host_enrols():
        return batch
    model = get_event_model()
    live = [row for row in rows if row.series_id in series and bookable(model, row, now)]
    if not live:
        return batch
    enrolments = Enrolment.objects.filter(series_id__in={row.series_id for row in live})
    if users is not None:
        enrolments = enrolments.filter(user_pk__in=list(users))
    by_series: dict[int, list[Enrolment]] = {}
    for enrolment in enrolments.order_by("pk"):
        by_series.setdefault(enrolment.series_id, []).append(enrolment)
    if not by_series:
        return batch
    pairs = _pairs(live, by_series, series)
    if not pairs:
        return batch
    states = _states_held(pairs)
    wanted = [
        (row, user)
        for row, user in pairs
        if states.get((user, str(row.pk))) not in _KEPT or states[(user, str(row.pk))] in retry
    ]
    if not wanted:
        return batch
    answers = model.book_enrolled(wanted)
    _write_dates(wanted, answers, told=None if tell == "later" else now)
    for row, user in wanted:
        answer = answers.get((row.pk, user), _NO_ANSWER)
        if answer.state == BOOKED:
            batch.booked.setdefault(row.series_id, {}).setdefault(user, []).append(row)
        elif answer.state == REFUSED:
            batch.refused.setdefault(row.series_id, {}).setdefault(user, []).append(
                (row, answer.reason)
            )
    if tell == "now":
        tell_enrolled(batch, series, now=now)
    return batch


def _pairs(
    rows: Sequence[Any], by_series: Mapping[int, list[Enrolment]], series: Mapping[int, EventSeries]
) -> list[tuple[Any, str]]:
    zones = {pk: zone_of(one) for pk, one in series.items() if pk in by_series}
    pairs = []
    for row in sorted(rows, key=lambda r: (r.occurrence_start, str(r.pk))):
        enrolled = by_series.get(row.series_id)
        if not enrolled:
            continue
        day = local_day(row.occurrence_start, zones[row.series_id])
        pairs += [(row, enrolment.user_pk) for enrolment in enrolled if enrolment.covers(day)]
    return pairs


def _states_held(pairs: Sequence[tuple[Any, str]]) -> dict[tuple[str, str], str]:
    """What each user already has on each row: one query (bounded IN lists)."""
    users = sorted({user for _row, user in pairs})
    pks = sorted({str(row.pk) for row, _user in pairs})
    held: dict[tuple[str, str], str] = {}
    for start in range(0, len(pks), 1000):
        for user, pk, state in (
            EnrolmentDate.objects.filter(
                user_pk__in=users, occurrence_pk__in=pks[start : start + 1000]
            )
            .order_by()  # the model's ordering joins the series for its name
            .values_list("user_pk", "occurrence_pk", "state")
        ):
            held[(user, pk)] = state
    return held


def _write_dates(
    pairs: Sequence[tuple[Any, str]],
    answers: Mapping[tuple[Any, str], BookingAnswer],
    *,
    told: dt.datetime | None,
) -> None:
    """Upsert what became of each pair: one statement per 500 rows.

    ``told`` is when the users' messages are written (None: still owed); a date
    held by the user's own booking owes no message.
    """
    now = dt.datetime.now(dt.UTC)
    records = []
    for row, user in pairs:
        answer = answers.get((row.pk, user), _NO_ANSWER)
        records.append(
            EnrolmentDate(
                series_id=row.series_id,
                user_pk=user,
                occurrence_pk=str(row.pk),
                starts_at=row.occurrence_start,
                state=answer.state if answer.state in (BOOKED, HELD) else REFUSED,
                reason=answer.reason[:200],
                updated_at=now,
                told_at=now if answer.state == HELD else told,
            )
        )
    upsert_dates(records)


def upsert_dates(records: Sequence[EnrolmentDate]) -> None:
    """Insert or overwrite ``records`` by (user, date), in batches of 500."""
    if not records:
        return
    options: dict[str, Any] = {
        "update_conflicts": True,
        "update_fields": ["series", "starts_at", "state", "reason", "updated_at", "told_at"],
    }
    # MySQL and MariaDB take the conflict from any unique key and refuse a target.
    if connection.features.supports_update_conflicts_with_target:
        options["unique_fields"] = ["user_pk", "occurrence_pk"]
    EnrolmentDate.objects.bulk_create(records, batch_size=500, **options)


def tell_enrolled(
    batch: EnrolmentBatch, series: Mapping[int, EventSeries], *, now: dt.datetime
) -> None:
    """One message per user and series of ``batch``; queued after commit.

    The whole batch at once, whatever its series (a chunk of the daily pass): one
    ``get_enrolled_people`` call, then :func:`record_enrolment_notices` (one
    operation per series, one notice per user and series, in statements that do
    not grow with the series). One ``enrolled_dates_booked`` per series, after commit.
    """
    involved = sorted(set(batch.booked) | set(batch.refused))
    if not involved:
        return
    adapter = get_adapter()
    keys = sorted(
        {
            user
            for pk in involved
            for user in (*batch.booked.get(pk, {}), *batch.refused.get(pk, {}))
        }
    )
    people = adapter.get_enrolled_people(keys)
    # Each row once, however many users it was booked or refused for.
    rows = list(
        {
            row.pk: row
            for pk in involved
            for row in (
                *(row for users in batch.booked.get(pk, {}).values() for row in users),
                *(row for users in batch.refused.get(pk, {}).values() for row, _reason in users),
            )
        }.values()
    )
    states = states_of(rows, {pk: series[pk] for pk in involved})
    shares = []
    for pk in involved:
        owed: dict[str, UserDates] = {}
        for user, booked in batch.booked.get(pk, {}).items():
            if user in people:
                owed.setdefault(user, UserDates(people[user])).booked += [
                    states[row.pk] for row in booked
                ]
        for user, refused in batch.refused.get(pk, {}).items():
            if user in people:
                owed.setdefault(user, UserDates(people[user])).refused += [
                    (states[row.pk], reason) for row, reason in refused
                ]
        shares.append(SeriesShare(series[pk], owed))
    operations = record_enrolment_notices(
        shares, adapter, now=now, loaded={row.pk: row for row in rows}
    )
    for pk in involved:
        operation = operations.get(pk)
        transaction.on_commit(
            partial(
                enrolled_dates_booked.send_robust,
                sender=EventSeries,
                series=series[pk],
                booked={u: [r.pk for r in rs] for u, rs in batch.booked.get(pk, {}).items()},
                refused={u: [r.pk for r, _ in rs] for u, rs in batch.refused.get(pk, {}).items()},
                operation_id=None if operation is None else operation.pk,
            )
        )


def release_dates(
    pairs: Sequence[tuple[Any, str]],
    *,
    state: str,
    now: dt.datetime,
    keep: Collection[tuple[str, str]] = (),
) -> None:
    """Release the host's bookings of ``pairs`` (one host call) and mark the dates ``state``.

    ``keep`` names the (user key, row key) pairs whose booking is the user's own
    (held): marked too, never handed to ``release_enrolled``.
    """
    if not pairs:
        return
    model = get_event_model()
    released = [(row, user) for row, user in pairs if (user, str(row.pk)) not in keep]
    if released:
        model.release_enrolled(released)
    upsert_dates(
        [
            EnrolmentDate(
                series_id=row.series_id,
                user_pk=user,
                occurrence_pk=str(row.pk),
                starts_at=row.occurrence_start,
                state=state,
                reason="",
                updated_at=now,
                told_at=now,
            )
            for row, user in pairs
        ]
    )


def follow_moves(starts: Mapping[str, dt.datetime]) -> None:
    """Keep the enrolled dates' starts with their rows' after a move (row key -> new start).

    A moved date is the same row: its bookings stay, only the start the app keeps
    beside each user's state changes. One read and one UPDATE per 500 dates.
    """
    keys = sorted(starts)
    for first in range(0, len(keys), 1000):
        records = list(EnrolmentDate.objects.filter(occurrence_pk__in=keys[first : first + 1000]))
        for record in records:
            record.starts_at = starts[record.occurrence_pk]
        EnrolmentDate.objects.bulk_update(records, ["starts_at"], batch_size=500)


#: How many owed dates one :func:`tell_untold` call takes on (the rest wait for the next).
UNTOLD_PER_CALL = 5000


def untold_series(*, older_than: dt.timedelta, now: dt.datetime) -> list[int]:
    """The series with dates whose message is still owed after ``older_than`` (the sweep)."""
    return sorted(
        set(
            EnrolmentDate.objects.filter(told_at__isnull=True, updated_at__lt=now - older_than)
            .order_by()
            .values_list("series_id", flat=True)
            .distinct()
        )
    )


def tell_untold(series_ids: Sequence[int], *, now: dt.datetime) -> int:
    """Write the messages owed for the dates of ``series_ids`` the daily pass booked.

    In a transaction of its own, after the pass's commit: the owed dates are read
    with their row locks (``SKIP LOCKED`` where the database has it, so two calls
    never tell one date twice), each user gets one message per series naming the
    dates booked for them and those refused, and the dates are marked told. A date
    cancelled or past by then is marked told without being named. Returns how many
    dates were told. Bounded: at most :data:`UNTOLD_PER_CALL` dates per call, in a
    fixed number of statements.
    """
    if not series_ids:
        return 0
    with transaction.atomic():
        owed = EnrolmentDate.objects.filter(series_id__in=list(series_ids), told_at__isnull=True)
        if connection.features.has_select_for_update_skip_locked:
            owed = owed.select_for_update(skip_locked=True)
        records = list(owed.order_by("pk")[:UNTOLD_PER_CALL])
        if not records:
            return 0
        model = get_event_model()
        rows = {
            str(row.pk): row
            for row in model._base_manager.filter(
                pk__in=sorted({record.occurrence_pk for record in records})
            )
        }
        series = {
            one.pk: one
            for one in EventSeries.objects.select_related("recurrence_rule").filter(
                pk__in={record.series_id for record in records}
            )
        }
        batch = EnrolmentBatch()
        for record in records:
            row = rows.get(record.occurrence_pk)
            if row is None or record.series_id not in series or not bookable(model, row, now):
                continue
            if record.state == EnrolmentDate.State.BOOKED:
                batch.booked.setdefault(record.series_id, {}).setdefault(record.user_pk, []).append(
                    row
                )
            elif record.state == EnrolmentDate.State.REFUSED:
                batch.refused.setdefault(record.series_id, {}).setdefault(
                    record.user_pk, []
                ).append((row, record.reason))
        tell_enrolled(batch, series, now=now)
        EnrolmentDate.objects.filter(pk__in=[record.pk for record in records]).update(told_at=now)
    return len(records)
