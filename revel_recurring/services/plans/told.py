"""How many people a plan would tell: the distinct people booked on the dates it changes.

A plan is shown before anything is saved; the organiser reads there how many
people would get a message (one each, whatever the number of their dates). The
count asks the host's ``people_booked_among`` once, only for booked rows, and
only when the host overrides it (else nobody is told: zero). It is not part of
the plan's hash (decision 0043: bookings only in its second half), so a plan
shown with a count applies with the same hash.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from ...models import get_event_model
from ..toolbox.operation import host_tells_people
from .result import PlannedOccurrence, RecurrencePlan
from .state import PlanState


def count_people(events: Iterable[Any]) -> int:
    """The distinct people (by ``BookedPerson.key``) booked on ``events``: one call to the
    host's ``people_booked_among``, none for no events or a host without the hook."""
    rows = list(events)
    if not rows or not host_tells_people():
        return 0
    answer = get_event_model().people_booked_among(rows)
    return len({person.key for people in answer.values() for person in people})


def changing_rows(plan: RecurrencePlan, *, split: bool = False) -> list[PlannedOccurrence]:
    """The booked rows whose people applying ``plan`` would tell.

    A change plan: its booked drifted dates that would move or be cancelled (a date
    edited by hand is never cancelled; it moves only when it has somewhere to go).
    A split: every booked date that changes series too, since its calendar identity
    (the series' UID) changes even where its time does not.
    """
    drift = [row for row in plan.drift if row.moves_to is not None or not row.is_modified]
    rows = [*plan.stay, *drift] if split else drift
    return [row for row in rows if row.booked]


def with_people_told(
    plan: RecurrencePlan, state: PlanState, *, split: bool = False
) -> RecurrencePlan:
    """``plan`` with ``people_told`` counted among the rows :func:`changing_rows` names
    (``state``'s rows are the events asked about)."""
    wanted = {row.id for row in changing_rows(plan, split=split)}
    if not wanted:
        return plan
    events = [row.event for row in state.rows if row.id in wanted]
    return dataclasses.replace(plan, people_told=count_people(events))


__all__ = ["changing_rows", "count_people", "with_people_told"]
