"""Who is booked, answered by the test: ``people_booked_among`` patched on a host model.

The faces' tests (API, admin, commands) check how many people a plan would tell
and that ``notify`` reaches the service; they need a host that names people
without depending on how each host stores them. :func:`patch_people` replaces
the hook on the host's event model with one answering from :class:`People`, which
also counts the calls (a plan asks once). Marking a row as booked for the plan's
own counts stays the suite's (seats, bookings).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from revel_recurring.people import BookedPerson


@dataclass
class People:
    """The people booked on each event (by pk), and how often the host was asked."""

    booked: dict[Any, list[BookedPerson]] = field(default_factory=dict)
    calls: int = 0

    def book(self, event: Any, address: str, *, name: str = "", language: str = "") -> BookedPerson:
        """Book the person with ``address`` on ``event``; the person as the hook names them."""
        person = BookedPerson(address=address, name=name, language=language)
        self.booked.setdefault(event.pk, []).append(person)
        return person

    def answer(self, events: Sequence[Any]) -> Mapping[Any, Sequence[BookedPerson]]:
        self.calls += 1
        wanted = {event.pk for event in events}
        return {pk: people for pk, people in self.booked.items() if pk in wanted}


def patch_people(monkeypatch: pytest.MonkeyPatch, model: type[Any]) -> People:
    """Make ``model.people_booked_among`` answer from a fresh :class:`People`."""
    people = People()

    def people_booked_among(cls: type[Any], events: Sequence[Any]) -> Any:
        return people.answer(events)

    monkeypatch.setattr(model, "people_booked_among", classmethod(people_booked_among))
    return people
