"""The enrolment hooks of the studio and the dojo: one booking row per (event, user).

Both hosts book a user with a ``Booking`` of the event and the user, within the
event's nullable ``capacity`` (empty: unlimited), and name their users by e-mail,
name, language and time zone. What differs is passed in: the booking model and its
two foreign keys, the user's name field and the word for a full date. Every call is
a handful of queries, never one per pair.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.db import models

from revel_recurring.enrolled import BookingAnswer
from revel_recurring.people import BookedPerson


def book_in_bulk(
    pairs: Sequence[tuple[Any, str]],
    *,
    booking: type[models.Model],
    event_field: str,
    user_field: str,
    full: str,
) -> Mapping[tuple[Any, str], BookingAnswer]:
    """``book_enrolled``: a ``booking`` row per pair, ``full`` once ``capacity`` is reached.

    Five queries: the users, the bookings held, the counts, the capacities, one INSERT.
    """
    if not pairs:
        return {}
    event_model = type(pairs[0][0])
    pks = sorted({event.pk for event, _user in pairs}, key=str)
    users = {
        str(user.pk): user
        for user in get_user_model()._default_manager.filter(pk__in={key for _e, key in pairs})
    }
    rows = booking._default_manager.filter(**{f"{event_field}__in": pks}).order_by()
    held = {
        (event_pk, str(user_pk))
        for event_pk, user_pk in rows.filter(**{f"{user_field}__in": list(users)}).values_list(
            f"{event_field}_id", f"{user_field}_id"
        )
    }
    taken = dict(
        rows.values(f"{event_field}_id")
        .annotate(count=models.Count("pk"))
        .values_list(f"{event_field}_id", "count")
    )
    capacity = dict(event_model._default_manager.filter(pk__in=pks).values_list("pk", "capacity"))
    answers: dict[tuple[Any, str], BookingAnswer] = {}
    made = []
    for event, user_key in pairs:
        key = (event.pk, user_key)
        limit = capacity.get(event.pk)
        if user_key not in users:
            answers[key] = BookingAnswer.refused("no such user")
        elif key in held:
            answers[key] = BookingAnswer.held()
        elif limit is not None and taken.get(event.pk, 0) >= limit:
            answers[key] = BookingAnswer.refused(full)
        else:
            taken[event.pk] = taken.get(event.pk, 0) + 1
            held.add(key)
            made.append(booking(**{f"{event_field}_id": event.pk, user_field: users[user_key]}))
            answers[key] = BookingAnswer.booked()
    booking._default_manager.bulk_create(made)
    return answers


def release_in_bulk(
    pairs: Sequence[tuple[Any, str]],
    *,
    booking: type[models.Model],
    event_field: str,
    user_field: str,
) -> None:
    """``release_enrolled``: one DELETE of the pairs' bookings."""
    if not pairs:
        return
    wanted = models.Q()
    for event, user_key in pairs:
        wanted |= models.Q(**{f"{event_field}_id": event.pk, f"{user_field}_id": user_key})
    booking._default_manager.filter(wanted).delete()


def people_of(user_keys: Sequence[str], *, name_field: str) -> dict[str, BookedPerson]:
    """``get_enrolled_people``: each user's e-mail, name, language and zone, in one query."""
    if not user_keys:
        return {}
    found = get_user_model()._default_manager.filter(pk__in=list(user_keys))
    return {
        str(pk): BookedPerson(address=email, name=name, language=language, timezone=zone)
        for pk, email, name, language, zone in found.values_list(
            "pk", "email", name_field, "language", "timezone"
        )
    }
