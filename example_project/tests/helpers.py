"""Helpers shared by the example project's tests."""

from __future__ import annotations

import datetime as dt

from example_project.events.models import Event


def weekly_starts(template: Event, count: int) -> list[dt.datetime]:
    """``count`` weekly UTC instants after the template's start (no rule maths needed)."""
    return [template.start + dt.timedelta(weeks=week) for week in range(1, count + 1)]


def materialize(template: Event, starts: list[dt.datetime]) -> list[Event]:
    """Insert occurrences the way generation does: prepare_occurrence, then bulk_create."""
    occurrences = [
        template.prepare_occurrence(start=start, occurrence_index=index, status=Event.Status.OPEN)
        for index, start in enumerate(starts, start=1)
    ]
    return Event.objects.bulk_create(occurrences)
