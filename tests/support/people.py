"""Booking a named person on an event, the same way on every test host.

Each host's tree offers the fixture ``book_person`` (tests/default/conftest.py,
tests/studio/conftest.py, tests/dojo/conftest.py, and the example project's
example_project/tests/conftest.py), one signature everywhere::

    book_person(event, address, *, name="", language="", timezone="") -> BookedPerson

It books the person with ``address`` on ``event`` (an occurrence of the suite's
host) and returns the :class:`~revel_recurring.people.BookedPerson` the host's
``people_booked_among`` answers for them, so a test can compare with it::

    alice = book_person(rows[1], "alice@example.com", language="de")
    assert Event.people_booked_among(rows) == {rows[1].pk: [alice]}

An empty ``name``, ``language`` or ``timezone`` leaves the host's own default: empty
on the default host and the studio, German (``"de"``) for the dojo's members. On
the studio and the dojo a person is a user found by address (case-insensitive):
booking the same address twice books the same user, and non-empty values given the
second time update that user. On the default host each call adds a ``SeatHolder``;
in the example project a ``Ticket`` on the event's first tier (a tier is made if it
has none), which adds one to the tier's ``quantity_sold``
(``book_ticket_holder`` in example_project/tests/helpers.py).

The functions behind the fixture import their host's models when called: the
settings of a suite install only that suite's host.

Who is told of each operation on dates (issue 36) is checked here too,
host-neutral: a host's suite passes its ``book_person`` fixture and a factory of
weekly series (``MakeSeries``: real clock, published dates, first window
generated, ``holidays=`` passed on). :func:`check_people_told` builds two series,
lets one :data:`OPERATIONS` entry prepare them, books people, runs the operation
with the after-commit callbacks executed (the Celery task runs eagerly in the
suites) and checks what an attendee expects:

- each person booked on a changed date gets one message per operation (one
  e-mail in ``django.core.mail.outbox`` and one ``PersonNotice``), naming exactly
  their changed dates, in their language and on their wall clock;
- nobody booked only on unchanged dates, or on another series, gets one;
- with ``notify="none"`` nobody does and no ``CalendarCopy`` is written;
- ``series_dates_changed`` is sent once per operation with each changed row
  before and after.

The expected texts are written here (weekday and month names, the German and
English lines), not taken from the app's helpers, so a wrong translation, zone or
date format fails.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from django.core import mail

from revel_recurring.models import CalendarCopy, EventSeries, PersonNotice
from revel_recurring.people import BookedPerson
from revel_recurring.services.bulk import StaleChoice, cancel_stale_many
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.editing import update_series
from revel_recurring.services.holiday_data import apply_holiday_data
from revel_recurring.services.plans.apply import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.splits import split_series
from revel_recurring.signals import series_dates_changed
from tests.support.drift import drift_without_partners
from tests.support.holidays import AUSTRIA_SKIP, generated_with, newer_holiday_data
from tests.support.moves import rows_of


class BookPerson(Protocol):
    """The ``book_person`` fixture's signature."""

    def __call__(
        self, event: Any, address: str, *, name: str = "", language: str = "", timezone: str = ""
    ) -> BookedPerson: ...


def book_seat_holder(
    event: Any, address: str, *, name: str = "", language: str = "", timezone: str = ""
) -> BookedPerson:
    """The default host (tests/hosts/testapp): one ``SeatHolder`` on ``event``."""
    from tests.hosts.testapp.models import SeatHolder

    holder = SeatHolder.objects.create(
        event=event, address=address, name=name, language=language, timezone=timezone
    )
    return BookedPerson(
        address=holder.address, name=holder.name, language=holder.language, timezone=holder.timezone
    )


def book_pupil(
    event: Any, address: str, *, name: str = "", language: str = "", timezone: str = ""
) -> BookedPerson:
    """The studio (tests/hosts/studio): a ``Booking`` of the pupil with ``address``."""
    from tests.hosts.studio.models import Booking, User

    pupil = _user(User, address, full_name=name, language=language, timezone=timezone)
    Booking.objects.create(lesson=event, pupil=pupil)
    return BookedPerson(
        address=pupil.email, name=pupil.full_name, language=pupil.language, timezone=pupil.timezone
    )


def book_member(
    event: Any, address: str, *, name: str = "", language: str = "", timezone: str = ""
) -> BookedPerson:
    """The dojo (tests/hosts/dojo): a ``Booking`` of the member with ``address``."""
    from tests.hosts.dojo.models import Booking, User

    member = _user(User, address, name=name, language=language, timezone=timezone)
    Booking.objects.create(training=event, member=member)
    return BookedPerson(
        address=member.email, name=member.name, language=member.language, timezone=member.timezone
    )


def _user(model: Any, address: str, **values: str) -> Any:
    """The user with ``address``, created if missing; the non-empty ``values`` set on it."""
    given = {field: value for field, value in values.items() if value}
    user = model.objects.filter(email__iexact=address).first()
    if user is None:
        return model.objects.create_user(address, None, **given)
    if given:
        for field, value in given.items():
            setattr(user, field, value)
        user.save(update_fields=list(given))
    return user


MakeSeries = Callable[..., EventSeries]
#: Runs the after-commit callbacks of the block (pytest-django's
#: ``django_capture_on_commit_callbacks``).
OnCommit = Callable[..., Any]

#: The people of every scenario: English on New York's clock, German on the series' own.
ANNA = {
    "address": "anna@people.example",
    "name": "Anna",
    "language": "en",
    "timezone": "America/New_York",
}
BERND = {"address": "bernd@people.example", "name": "Bernd", "language": "de", "timezone": ""}
#: Booked on a date the operation leaves alone.
CARLA = {"address": "carla@people.example", "name": "Carla", "language": "en", "timezone": ""}
#: Booked on another series, which the operation leaves alone.
DORA = {"address": "dora@people.example", "name": "Dora", "language": "de", "timezone": ""}

_DAYS = {
    "en": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
    "de": ("Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"),
}
_MONTHS = {
    "en": ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
    "de": ("Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"),
}
#: A date's line in the message, per language and kind of change.
_LINES = {
    "en": {
        "cancelled": "- {before}: cancelled",
        "moved": "- {before}: moved to {after}",
        "restored": "- {after}: takes place again",
        "renamed": "- {after}: unchanged; your calendar entry is renewed",
    },
    "de": {
        "cancelled": "- {before}: abgesagt",
        "moved": "- {before}: verlegt auf {after}",
        "restored": "- {after}: findet wieder statt",
        "renamed": "- {after}: unverändert; Ihr Kalendereintrag wird erneuert",
    },
}
_SUBJECTS = {
    "en": ("{series}: 1 of your dates changed", "{series}: {count} of your dates changed"),
    "de": (
        "{series}: 1 Ihrer Termine hat sich geändert",
        "{series}: {count} Ihrer Termine haben sich geändert",
    ),
}
_GREETINGS = {"en": "Hello {name},", "de": "Hallo {name},"}


def wall_clock(instant: dt.datetime, zone: str, language: str) -> str:
    """``instant`` as a person reads it: "Tue 8 Dec 2026 19:00 (America/New_York)" or
    "Di, 8. Dez 2026, 19:00 (Europe/Berlin)"."""
    local = instant.astimezone(ZoneInfo(zone))
    day, month = _DAYS[language][local.weekday()], _MONTHS[language][local.month - 1]
    if language == "de":
        return f"{day}, {local.day}. {month} {local.year}, {local:%H:%M} ({zone})"
    return f"{day} {local.day} {month} {local.year} {local:%H:%M} ({zone})"


@dataclass
class Stage:
    """Two weekly series of the host and their rows (start order) as the operation found them."""

    series: EventSeries
    rows: list[Any]
    other: EventSeries
    other_rows: list[Any]
    zone: str
    #: Anything an operation's preparation hands to its run.
    notes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Operation:
    """One operation of issue 36 as the scenario runs it.

    ``prepare`` runs before anyone is booked (a drift, a cancelled date to restore);
    ``groups`` names the rows each of its operations changes (one group per
    ``series_dates_changed``, in the order sent); ``run`` does it with ``notify``.
    ``calendar`` wraps preparation and run (the holiday data the test fakes).
    """

    kind: str
    date_kind: str
    groups: Callable[[Stage], list[list[Any]]]
    run: Callable[[Stage, str], None]
    prepare: Callable[[Stage], None] = lambda stage: None
    holidays: dict[str, Any] | None = None
    calendar: Callable[[Stage], contextlib.AbstractContextManager[None]] = lambda stage: (
        contextlib.nullcontext()
    )


def _from_third(stage: Stage) -> list[list[Any]]:
    return [stage.rows[2:]]


def _third(stage: Stage) -> list[list[Any]]:
    return [[stage.rows[2]]]


def _fourth(stage: Stage) -> list[list[Any]]:
    return [[stage.rows[3]]]


def _cancel(stage: Stage, notify: str) -> None:
    cancel_occurrence(stage.series, stage.rows[2].recurrence_id, include_booked=True, notify=notify)


def _cancel_before(stage: Stage) -> None:
    cancel_occurrence(stage.series, stage.rows[2].recurrence_id, notify="none")


def _restore(stage: Stage, notify: str) -> None:
    restore_occurrence(stage.series, stage.rows[2].recurrence_id, notify=notify)


def _drift(stage: Stage) -> None:
    drift_without_partners(stage.series, keep=2)


def _drift_both(stage: Stage) -> None:
    drift_without_partners(stage.series, keep=2)
    drift_without_partners(stage.other, keep=2)


def _cancel_stale(stage: Stage, notify: str) -> None:
    cancel_stale_occurrences(stage.series, include_booked=True, notify=notify)


def _both_from_third(stage: Stage) -> list[list[Any]]:
    # cancel_stale_many works through the series in id order.
    return [stage.rows[2:], stage.other_rows[2:]]


def _cancel_stale_many(stage: Stage, notify: str) -> None:
    stale = [row.pk for row in stage.rows[2:] + stage.other_rows[2:]]
    cancel_stale_many(
        [stage.series.pk, stage.other.pk],
        choice=StaleChoice(ticked=frozenset(stale), listed=frozenset(stale)),
        notify=notify,
    )


def _later(stage: Stage) -> dict[str, Any]:
    """The rule half an hour later: every date moves."""
    return {"dtstart": stage.rows[0].recurrence_id + dt.timedelta(minutes=30)}


def _next_day(stage: Stage) -> dict[str, Any]:
    """The rule on the next weekday: every date moves to its week's."""
    start = stage.rows[0].recurrence_id.astimezone(ZoneInfo(stage.zone)) + dt.timedelta(days=1)
    return {"dtstart": start, "weekdays": [start.weekday()]}


def _cancel_second(stage: Stage) -> None:
    """The second date cancelled: it moves along cancelled, its people hear nothing."""
    cancel_occurrence(stage.series, stage.rows[1].recurrence_id, notify="none")
    stage.notes["quiet"] = stage.rows[1]


def _all_but_second(stage: Stage) -> list[list[Any]]:
    return [[row for row in stage.rows if row.pk != stage.rows[1].pk]]


def _plan(changes: Callable[[Stage], dict[str, Any]], cancel_drift: str = "none") -> Any:
    def run(stage: Stage, notify: str) -> None:
        wanted = changes(stage)
        plan = plan_recurrence_change(stage.series, wanted)
        apply_recurrence_plan(
            stage.series, plan.hash, wanted, cancel_drift=cancel_drift, notify=notify
        )

    return run


def _split(stage: Stage, notify: str) -> None:
    result = split_series(stage.series, at=stage.rows[2].recurrence_id, notify=notify)
    stage.notes["continuation"] = result.continuation


def _move(stage: Stage, notify: str) -> None:
    update_series(stage.series, rule_changes=_next_day(stage), notify=notify)


def _holiday_on(*positions: int) -> Callable[[Stage], contextlib.AbstractContextManager[None]]:
    """Holiday data that knows the days of the dates at ``positions`` as holidays, and
    the days of the series' other dates as none (a real holiday among them, such as
    8 December, would change them too)."""

    def calendar(stage: Stage) -> contextlib.AbstractContextManager[None]:
        zone = ZoneInfo(stage.zone)
        days = [row.occurrence_start.astimezone(zone).date() for row in stage.rows]
        added = [days[at] for at in positions]
        return newer_holiday_data(dict.fromkeys(added, "Test Day"), removed=set(days) - set(added))

    return calendar


def _fifth(stage: Stage) -> list[list[Any]]:
    return [[stage.rows[4]]]


def _policy(policy: str) -> Callable[[Stage], dict[str, Any]]:
    return lambda stage: {"holidays": {"policy": policy}}


def _holiday_data(stage: Stage, notify: str) -> None:
    generated_with(stage.series)
    assert apply_holiday_data(stage.series, notify=notify) is not None


#: Every operation that moves, cancels, restores or re-identifies dates.
OPERATIONS: dict[str, Operation] = {
    "cancel": Operation("cancel", "cancelled", _third, _cancel),
    "restore": Operation("restore", "restored", _third, _restore, prepare=_cancel_before),
    "cancel_stale": Operation(
        "cancel_stale", "cancelled", _from_third, _cancel_stale, prepare=_drift
    ),
    "cancel_stale_many": Operation(
        "cancel_stale", "cancelled", _both_from_third, _cancel_stale_many, prepare=_drift_both
    ),
    "plan_time": Operation("plan", "moved", _all_but_second, _plan(_later), prepare=_cancel_second),
    "plan_weekday": Operation(
        "plan", "moved", _all_but_second, _plan(_next_day), prepare=_cancel_second
    ),
    "split": Operation("split", "renamed", _from_third, _split),
    "move": Operation("move", "moved", _all_but_second, _move, prepare=_cancel_second),
    "holiday_shift": Operation(
        "holidays",
        "moved",
        _fourth,
        _plan(_policy("shift")),
        holidays={**AUSTRIA_SKIP, "policy": "keep"},
        calendar=_holiday_on(3),
    ),
    "holiday_skip": Operation(
        "holidays",
        "cancelled",
        _fourth,
        _plan(_policy("skip"), cancel_drift="all"),
        holidays={**AUSTRIA_SKIP, "policy": "keep"},
        calendar=_holiday_on(3),
    ),
    # The holiday data update keeps booked dates (cancel_drift "unbooked"): of the
    # two new holidays the fourth date, booked, stays; the fifth, free, is cancelled.
    # Nobody is told; the signal names the fifth.
    "holiday_data": Operation(
        "holiday_data",
        "cancelled",
        _fifth,
        _holiday_data,
        holidays=AUSTRIA_SKIP,
        calendar=_holiday_on(3, 4),
    ),
}


@contextlib.contextmanager
def signals_sent() -> Iterator[list[dict[str, Any]]]:
    """The kwargs of each ``series_dates_changed`` sent inside the block."""
    calls: list[dict[str, Any]] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        kwargs.pop("signal", None)
        calls.append(kwargs)

    series_dates_changed.connect(receiver, weak=False)
    try:
        yield calls
    finally:
        series_dates_changed.disconnect(receiver)


def _stage(make_series: MakeSeries, operation: Operation) -> Stage:
    options = {} if operation.holidays is None else {"holidays": operation.holidays}
    series = make_series(name="Evening class", **options)
    other = make_series(name="Morning class", **options)
    rows, other_rows = rows_of(series), rows_of(other)
    assert len(rows) >= 6, "the window holds six dates at least"
    assert len(other_rows) >= 6
    assert series.recurrence_rule is not None
    return Stage(series, rows, other, other_rows, zone=str(series.recurrence_rule.timezone))


def _assignment(groups: list[list[Any]]) -> dict[str, list[list[Any]]]:
    """Who is booked where: Anna on every changed date of a group but its last, Bernd
    on the last (both on a group's only date)."""
    anna = [group[:-1] or group[-1:] for group in groups]
    bernd = [group[-1:] for group in groups]
    return {ANNA["address"]: anna, BERND["address"]: bernd}


def _expected_lines(
    rows: Sequence[Any], after: dict[Any, Any], kind: str, person: dict[str, str], zone: str
) -> list[str]:
    language = person["language"]
    wall = person["timezone"] or zone
    return [
        _LINES[language][kind].format(
            before=wall_clock(row.occurrence_start, wall, language),
            after=wall_clock(after[row.pk].occurrence_start, wall, language),
        )
        for row in sorted(rows, key=lambda one: (one.occurrence_start, str(one.pk)))
    ]


def check_people_told(
    make_series: MakeSeries,
    book_person: BookPerson,
    on_commit: OnCommit,
    name: str,
    *,
    notify: str = "all",
) -> None:
    """Run :data:`OPERATIONS` ``name`` on the host and check who was told what."""
    operation = OPERATIONS[name]
    stage = _stage(make_series, operation)
    with operation.calendar(stage):
        operation.prepare(stage)
        stage.rows, stage.other_rows = rows_of(stage.series), rows_of(stage.other)
        groups = operation.groups(stage)
        changed = {row.pk for group in groups for row in group}
        unchanged = [row for row in stage.rows if row.pk not in changed]
        booked = _assignment(groups) if name != "holiday_data" else {}
        people = {ANNA["address"]: ANNA, BERND["address"]: BERND}
        for address, per_group in booked.items():
            for group in per_group:
                for row in group:
                    book_person(row, **people[address])
        if name == "holiday_data":
            # Booked on the new holiday: kept, unchanged, not told.
            book_person(stage.rows[3], **ANNA)
        book_person(stage.notes.get("quiet", unchanged[0]), **CARLA)
        book_person(stage.other_rows[0], **DORA)
        mail.outbox.clear()
        notices_before = PersonNotice.objects.count()
        copies_before = CalendarCopy.objects.count()
        with signals_sent() as signals, on_commit(execute=True):
            operation.run(stage, notify)
    after = {row.pk: row for row in rows_of(stage.series) + rows_of(stage.other)}
    if "continuation" in stage.notes:
        after.update({row.pk: row for row in rows_of(stage.notes["continuation"])})

    if notify == "none":
        # Booked dates stay where they are unless their people are told: the
        # operation's record tells nobody, nothing sent, no calendar copy.
        assert all(not sent["people_told"] for sent in signals)
        assert mail.outbox == []
        assert PersonNotice.objects.count() == notices_before
        assert CalendarCopy.objects.count() == copies_before
        return

    # The signal: once per operation, each changed row before and after.
    assert len(signals) == len(groups), signals
    for sent, group in zip(signals, groups, strict=True):
        assert sent["kind"] == operation.kind
        assert sent["series"].pk == group[0].series_id
        rows = {str(row["pk"]): row for row in sent["changes"]}
        assert set(rows) == {str(row.pk) for row in group}
        for row in group:
            told = rows[str(row.pk)]
            assert told["kind"] == operation.date_kind
            assert told["start_before"] == row.occurrence_start
            assert told["start_after"] == after[row.pk].occurrence_start
            assert told["series_before"] == row.series_id
            assert told["series_after"] == after[row.pk].series_id
        assert sent["operation_id"] is not None  # the operation's history record
        assert sent["people_told"] == bool(booked)

    if not booked:
        assert mail.outbox == []
        assert PersonNotice.objects.count() == notices_before
        return

    # One message per person per operation, naming exactly their dates.
    received: dict[str, list[Any]] = {}
    for message in mail.outbox:
        assert len(message.to) == 1, message.to
        received.setdefault(_address(message.to[0]), []).append(message)
    assert set(received) == set(booked), "only the people booked on changed dates"
    names = {stage.series.pk: stage.series.name, stage.other.pk: stage.other.name}
    for address, per_group in booked.items():
        person = people[address]
        theirs = [group for group in per_group if group]
        assert len(received[address]) == len(theirs), [m.subject for m in received[address]]
        language = person["language"]
        for message, dates_of_one in zip(received[address], theirs, strict=True):
            count = len(dates_of_one)
            subject = _SUBJECTS[language][0 if count == 1 else 1]
            series_name = names[dates_of_one[0].series_id]
            assert message.subject == subject.format(series=series_name, count=count)
            lines = message.body.splitlines()
            assert lines[0] == _GREETINGS[language].format(name=person["name"])
            dates = [line for line in lines if line.startswith("- ")]
            assert dates == _expected_lines(
                dates_of_one, after, operation.date_kind, person, stage.zone
            )
            check_calendar_parts(message, dates_of_one, after, operation.date_kind, address)
            if name == "split":
                _check_split_identities(message, stage)
    assert PersonNotice.objects.count() - notices_before == sum(
        len([group for group in per_group if group]) for per_group in booked.values()
    )


def calendar_parts(message: Any) -> dict[str, list[dict[str, str]]]:
    """The message's text/calendar parts by METHOD: each VEVENT's properties (name ->
    value, parameters dropped), read here line by line as RFC 5545 writes them. Each
    part holds the VEVENTs of one UID (RFC 5546)."""
    found: dict[str, list[dict[str, str]]] = {}
    for part in message.attachments:
        assert part.get_content_type() == "text/calendar"
        method = part.get_param("method")
        text = part.get_payload(decode=True).decode()
        lines = text.replace("\r\n ", "").replace("\r\n\t", "").splitlines()
        assert f"METHOD:{method}" in lines
        events: list[dict[str, str]] = []
        for line in lines:
            if line == "BEGIN:VEVENT":
                events.append({})
            elif events and ":" in line and line != "END:VEVENT":
                key, value = line.split(":", 1)
                events[-1][key.split(";", 1)[0]] = value
        assert len({event["UID"] for event in events}) == 1, "one UID per calendar object"
        found.setdefault(method, []).extend(events)
    return found


def _utc(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def _identity(row: Any) -> tuple[str, str | None]:
    """What a calendar knew a row by before, when the row was on its series' rule (the
    UID's local part and the slot)."""
    return (f"revel-recurring-series-{row.series_id}", _utc(row.recurrence_id))


def check_calendar_parts(
    message: Any, rows: Sequence[Any], after: dict[Any, Any], kind: str, address: str
) -> None:
    """A REQUEST for each date they keep, at its new start; a CANCEL for each identity
    their calendar loses (a cancelled date, or a date now known by another UID or
    RECURRENCE-ID), at its old start; the person as ATTENDEE, the organizer named."""
    parts = calendar_parts(message)
    cancels, requests = parts.get("CANCEL", []), parts.get("REQUEST", [])
    keeps = kind in {"moved", "restored", "renamed"}
    request_at = {event["DTSTART"]: event for event in requests}
    assert len(request_at) == len(requests)
    lost = []
    for row in rows:
        if not keeps:
            lost.append(row)
            continue
        request = request_at[_utc(after[row.pk].occurrence_start)]
        slot = request.get("RECURRENCE-ID")
        if slot is not None:
            assert request["UID"].startswith(f"revel-recurring-series-{after[row.pk].series_id}@")
            assert slot == _utc(after[row.pk].recurrence_id)
        else:
            assert request["UID"].startswith(f"revel-recurring-event-{row.pk}@")
        held = (request["UID"].split("@")[0], slot) == _identity(row)
        if kind != "restored" and not held:
            lost.append(row)
    assert len(requests) == (len(rows) if keeps else 0)
    assert sorted(event["DTSTART"] for event in cancels) == sorted(
        _utc(row.occurrence_start) for row in lost
    )
    for method, events in parts.items():
        for event in events:
            assert event["ATTENDEE"] == f"mailto:{address}"
            assert event["ORGANIZER"].startswith("mailto:")
            assert event["STATUS"] == ("CANCELLED" if method == "CANCEL" else "CONFIRMED")
            assert int(event["SEQUENCE"]) >= 0


def _check_split_identities(message: Any, stage: Stage) -> None:
    """A split's dates leave the original's UID for the continuation's, slots kept."""
    parts = calendar_parts(message)
    continuation = stage.notes["continuation"]
    assert {event["UID"].split("@")[0] for event in parts["CANCEL"]} == {
        f"revel-recurring-series-{stage.series.pk}"
    }
    assert {event["UID"].split("@")[0] for event in parts["REQUEST"]} == {
        f"revel-recurring-series-{continuation.pk}"
    }
    assert sorted(event["RECURRENCE-ID"] for event in parts["CANCEL"]) == sorted(
        event["RECURRENCE-ID"] for event in parts["REQUEST"]
    )


def _address(text: str) -> str:
    return text.rsplit("<", 1)[-1].rstrip(">")
