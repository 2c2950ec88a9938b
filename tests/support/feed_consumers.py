"""Three independent calendar consumers, expanding an exported feed as calendar apps do.

A feed is right only when the apps people subscribe with expand it to exactly
the dates that exist. Each consumer parses the body, expands every VEVENT
(RRULE, EXDATE, RDATE, RECURRENCE-ID overrides) between two instants, and
gives a sorted *list* of ``(UTC instant, SUMMARY)``: a date shown twice stays
twice, so comparing with the rows catches it.

- ``recurring-ical-events``: expands what the ``icalendar`` package parses;
- ``ical``: the package Home Assistant uses (its own parser and timeline);
- ``ical.js``: Mozilla's library (Thunderbird, many web calendars), run by node
  from ``tests/js`` (``npm ci --prefix tests/js``; ``make test`` installs it). It
  reads time zones only from the feed's VTIMEZONEs.

Shared by the three test hosts (tests/, tests/studio/, example_project/): it
reads rows through ``get_event_model()`` and the configured adapter only.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

Instance = tuple[dt.datetime, str]
Job = tuple[bytes, dt.datetime, dt.datetime]

CONSUMERS = ("recurring-ical-events", "ical", "ical.js")

JS_DIR = Path(__file__).resolve().parents[1] / "js"
INSTALL_HINT = "npm ci --prefix tests/js"


def expand(consumer: str, body: bytes, start: dt.datetime, end: dt.datetime) -> list[Instance]:
    """The instances ``consumer`` reads in ``body`` starting in [start, end), sorted."""
    return expand_many(consumer, [(body, start, end)])[0]


def expand_many(consumer: str, jobs: Sequence[Job]) -> list[list[Instance]]:
    """:func:`expand` for several feeds; ical.js reads them all in one node process."""
    if consumer == "ical.js":
        return _ical_js(jobs)
    if consumer == "recurring-ical-events":
        read = _recurring_ical_events
    elif consumer == "ical":
        read = _ical
    else:
        raise ValueError(f"unknown consumer {consumer!r}; choose one of {CONSUMERS}")
    return [_within(read(body, start, end), start, end) for body, start, end in jobs]


def _within(found: list[Instance], start: dt.datetime, end: dt.datetime) -> list[Instance]:
    # The libraries answer "overlapping the window"; every consumer is held to
    # "starting in it" so that the three lists are comparable.
    return sorted(item for item in found if start <= item[0] < end)


def _recurring_ical_events(body: bytes, start: dt.datetime, end: dt.datetime) -> list[Instance]:
    import icalendar
    import recurring_ical_events

    calendar = icalendar.Calendar.from_ical(body)
    return [
        (event["DTSTART"].dt.astimezone(dt.UTC), str(event.get("SUMMARY", "")))
        for event in recurring_ical_events.of(calendar).between(start, end)
    ]


def _ical(body: bytes, start: dt.datetime, end: dt.datetime) -> list[Instance]:
    from ical.calendar_stream import IcsCalendarStream

    calendar = IcsCalendarStream.calendar_from_ics(body.decode())
    timeline = calendar.timeline_tz(dt.UTC)
    found = []
    for event in timeline.overlapping(start, end):
        begins = event.start
        assert isinstance(begins, dt.datetime), f"all-day event {event.summary!r} in a feed"
        found.append((begins.astimezone(dt.UTC), event.summary or ""))
    return found


Span = tuple[dt.datetime, dt.datetime, str]


def expand_spans_many(consumer: str, jobs: Sequence[Job]) -> list[list[Span]]:
    """:func:`expand_many` with each instance's end: ``(start, end, SUMMARY)``, sorted.

    The end is what the consumer computes from DTEND or DURATION; an event with
    neither ends at its start in all three.
    """
    if consumer == "ical.js":
        return _ical_js(jobs, ends=True)
    if consumer == "recurring-ical-events":
        read = _recurring_ical_events_spans
    elif consumer == "ical":
        read = _ical_spans
    else:
        raise ValueError(f"unknown consumer {consumer!r}; choose one of {CONSUMERS}")
    return [
        sorted(item for item in read(body, start, end) if start <= item[0] < end)
        for body, start, end in jobs
    ]


def _recurring_ical_events_spans(body: bytes, start: dt.datetime, end: dt.datetime) -> list[Span]:
    import icalendar
    import recurring_ical_events

    calendar = icalendar.Calendar.from_ical(body)
    found = []
    for event in recurring_ical_events.of(calendar).between(start, end):
        begins = event["DTSTART"].dt.astimezone(dt.UTC)
        if "DTEND" in event:
            ends = event["DTEND"].dt.astimezone(dt.UTC)
        elif "DURATION" in event:
            ends = begins + event["DURATION"].dt
        else:
            ends = begins
        found.append((begins, ends, str(event.get("SUMMARY", ""))))
    return found


def _ical_spans(body: bytes, start: dt.datetime, end: dt.datetime) -> list[Span]:
    from ical.calendar_stream import IcsCalendarStream

    calendar = IcsCalendarStream.calendar_from_ics(body.decode())
    found = []
    for event in calendar.timeline_tz(dt.UTC).overlapping(start, end):
        begins, ends = event.start, event.end
        assert isinstance(begins, dt.datetime), f"all-day event {event.summary!r} in a feed"
        assert isinstance(ends, dt.datetime)
        found.append((begins.astimezone(dt.UTC), ends.astimezone(dt.UTC), event.summary or ""))
    return found


def shown_spans(series: Any) -> list[Span]:
    """:func:`shown_instances` with each row's end: the start plus ``occurrence_duration()``
    (the start itself for an event without a length)."""
    from revel_recurring.models import get_event_model

    model = get_event_model()
    by_start = {
        event.occurrence_start.astimezone(dt.UTC): event
        for event in model._default_manager.filter(series=series, is_template=False)
    }
    spans = []
    for instant, summary in shown_instances(series):
        length = by_start[instant].occurrence_duration() or dt.timedelta(0)
        spans.append((instant, instant + length, summary))
    return sorted(spans)


Note = tuple[dt.datetime, str, str, str]


def expand_notes_many(consumer: str, jobs: Sequence[Job]) -> list[list[Note]]:
    """:func:`expand_many` with what each instance says besides its title:
    ``(start, SUMMARY, DESCRIPTION, URL)``, sorted ("" for a property not there)."""
    if consumer == "ical.js":
        return _ical_js(jobs, notes=True)
    if consumer == "recurring-ical-events":
        read = _recurring_ical_events_notes
    elif consumer == "ical":
        read = _ical_notes
    else:
        raise ValueError(f"unknown consumer {consumer!r}; choose one of {CONSUMERS}")
    return [
        sorted(item for item in read(body, start, end) if start <= item[0] < end)
        for body, start, end in jobs
    ]


def _recurring_ical_events_notes(body: bytes, start: dt.datetime, end: dt.datetime) -> list[Note]:
    import icalendar
    import recurring_ical_events

    calendar = icalendar.Calendar.from_ical(body)
    return [
        (
            event["DTSTART"].dt.astimezone(dt.UTC),
            str(event.get("SUMMARY", "")),
            str(event.get("DESCRIPTION", "")),
            str(event.get("URL", "")),
        )
        for event in recurring_ical_events.of(calendar).between(start, end)
    ]


def _ical_notes(body: bytes, start: dt.datetime, end: dt.datetime) -> list[Note]:
    from ical.calendar_stream import IcsCalendarStream

    calendar = IcsCalendarStream.calendar_from_ics(body.decode())
    found = []
    for event in calendar.timeline_tz(dt.UTC).overlapping(start, end):
        begins = event.start
        assert isinstance(begins, dt.datetime), f"all-day event {event.summary!r} in a feed"
        found.append(
            (
                begins.astimezone(dt.UTC),
                event.summary or "",
                event.description or "",
                str(event.url or ""),
            )
        )
    return found


def _ical_js(jobs: Sequence[Job], *, ends: bool = False, notes: bool = False) -> list[list[Any]]:
    node = shutil.which("node")
    if node is None:
        pytest.fail(
            "node is not installed: the ical.js consumer needs it "
            f"(apt-get install nodejs npm, then {INSTALL_HINT})"
        )
    if not (JS_DIR / "node_modules" / "ical.js" / "package.json").is_file():
        pytest.fail(f"ical.js is not installed in {JS_DIR}: run `{INSTALL_HINT}`")
    payload = [
        {"ics": body.decode(), "start": start.isoformat(), "end": end.isoformat()}
        for body, start, end in jobs
    ]
    done = subprocess.run(
        [
            node,
            str(JS_DIR / "expand.mjs"),
            "--batch",
            *(["--ends"] if ends else []),
            *(["--notes"] if notes else []),
        ],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if done.returncode != 0:
        pytest.fail(f"ical.js could not expand the feed:\n{done.stderr}")
    if notes:
        return [
            sorted(
                (dt.datetime.fromisoformat(begins), summary, description, url)
                for begins, summary, description, url in found
            )
            for found in json.loads(done.stdout)
        ]
    if ends:
        return [
            sorted(
                (dt.datetime.fromisoformat(begins), dt.datetime.fromisoformat(finish), summary)
                for begins, finish, summary in found
            )
            for found in json.loads(done.stdout)
        ]
    return [
        sorted((dt.datetime.fromisoformat(instant), summary) for instant, summary in found)
        for found in json.loads(done.stdout)
    ]


def shown_instances(series: Any) -> list[Instance]:
    """What a feed of ``series`` must show, read from its rows, sorted.

    Every occurrence that is neither a draft nor cancelled and that the adapter's
    ``is_ical_exported`` lets into the feeds, at its own start, under the summary
    the adapter gives it. Read independently of ``revel_recurring.ical``.
    """
    from revel_recurring.adapter import get_adapter
    from revel_recurring.models import get_event_model

    model = get_event_model()
    adapter = get_adapter()
    manager = model._default_manager
    template = manager.filter(series=series, is_template=True).first()
    hidden = (model.RECURRING_STATUS_DRAFT, model.RECURRING_STATUS_CANCELLED)
    return sorted(
        (event.occurrence_start.astimezone(dt.UTC), adapter.get_ical_summary(event, series))
        for event in manager.filter(series=series, is_template=False)
        if getattr(event, model.RECURRING_STATUS_FIELD) not in hidden
        and adapter.is_ical_exported(event, series, template)
    )


def window(
    series: Any, *, before: dt.timedelta = dt.timedelta(days=60)
) -> tuple[dt.datetime, dt.datetime]:
    """From well before the rule's start and first row to just past the generation cursor.

    Up to the cursor every slot was given its chance to become a row; beyond it
    the RRULE stands for dates generation has not created yet, which no row can
    match. The cursor itself is inclusive (a slot on it is generated).
    """
    from revel_recurring.models import get_event_model

    series.refresh_from_db()
    model = get_event_model()
    starts = [
        event.occurrence_start
        for event in model._default_manager.filter(series=series, is_template=False)
    ]
    if series.recurrence_rule is not None:
        starts.append(series.recurrence_rule.dtstart)
    cursor = series.last_generated_until
    assert cursor is not None, f"series {series.pk} was never generated"
    return min(starts) - before, cursor + dt.timedelta(seconds=1)
