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
"""

from __future__ import annotations

from typing import Any, Protocol

from revel_recurring.people import BookedPerson


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
