"""The host side: organisations, their audience, and an Event that joins series."""

from __future__ import annotations

import datetime as dt
import re
import secrets
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from revel_recurring.enrolled import BookingAnswer
from revel_recurring.instants import describe_instant
from revel_recurring.models import EventSeries, RecurringEventMixin
from revel_recurring.people import BookedPerson
from revel_recurring.querysets import RecurringEventQuerySet

# An occurrence slug is the template slug plus "-YYYYMMDD-HHMM" (14 characters); the
# template part is cut so the result always fits the 255-character column.
_SLUG_MAX_LENGTH = 255
_SLUG_SUFFIX_LENGTH = 14


class Organization(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    # When the set of this organisation's series last changed: a template saved
    # (its visibility may have changed) or deleted (events/signals.py).
    # Its feed's Last-Modified is never older: a series that left the feed moves
    # no listed row, and a client polling with If-Modified-Since must still see it.
    # See docs/decisions/0026-feed-revision-stamp.md.
    feed_changed_at = models.DateTimeField(default=timezone.now)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_organizations"
    )
    staff = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="staffed_organizations"
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="Membership",
        blank=True,
        related_name="member_organizations",
    )
    followers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="Follow",
        blank=True,
        related_name="followed_organizations",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("name", "pk")

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        PAUSED = "paused", _("Paused")
        CANCELLED = "cancelled", _("Cancelled")

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="memberships"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "user"], name="events_membership_unique_user"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.organization} ({self.status})"


class Follow(models.Model):
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="follows")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows"
    )
    notify_new_events = models.BooleanField(
        default=False, help_text=_("Opted in to hear about new events of this organisation.")
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "user"], name="events_follow_unique_user"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} follows {self.organization}"


class NotificationPreference(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preference"
    )
    silence_all = models.BooleanField(default=False)
    disabled_types = models.JSONField(
        default=list,
        blank=True,
        help_text=_('Notification types this user opted out of, e.g. ["SERIES_EVENTS_GENERATED"].'),
    )

    def __str__(self) -> str:
        return f"Notification preferences of {self.user}"

    def clean(self) -> None:
        if not isinstance(self.disabled_types, list) or not all(
            isinstance(item, str) for item in self.disabled_types
        ):
            raise ValidationError(
                {"disabled_types": _("Give a list of notification type names (strings).")}
            )

    def allows(self, notification_type: str) -> bool:
        return not self.silence_all and notification_type not in (self.disabled_types or [])


def occurrence_slug(template_slug: str, start: dt.datetime) -> str:
    """The slug of the occurrence of ``template_slug`` starting at ``start``.

    Formatted from the UTC instant, so it is deterministic, unique within the series
    (one occurrence per instant) and independent of the server's time zone.
    """
    base = template_slug[: _SLUG_MAX_LENGTH - _SLUG_SUFFIX_LENGTH]
    return f"{base}-{start.astimezone(dt.UTC):%Y%m%d-%H%M}"


def template_copy_slug(slug: str, start: dt.datetime) -> str:
    """The slug of a template copied from ``slug`` for a series starting at ``start``.

    "evening-run" -> "evening-run-from-20270330"; a copy of a copy replaces the
    earlier "-from-..." part instead of adding another.
    """
    base = re.sub(r"-from-\d{8}$", "", slug)[: _SLUG_MAX_LENGTH - _SLUG_SUFFIX_LENGTH]
    return f"{base}-from-{start.astimezone(dt.UTC):%Y%m%d}"


class EventQuerySet(RecurringEventQuerySet["Event"]):
    """The site's own filters next to the app's occurrences() / templates() / one_offs()."""

    def listed(self) -> EventQuerySet:
        """What the public pages may show: neither private nor unlisted."""
        return self.exclude(visibility__in=[Event.Visibility.PRIVATE, Event.Visibility.UNLISTED])


class Event(RecurringEventMixin, models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")
        CANCELLED = "cancelled", _("Cancelled")

    class Visibility(models.TextChoices):
        PUBLIC = "public", _("Public")
        MEMBERS_ONLY = "members_only", _("Members only")
        STAFF_ONLY = "staff_only", _("Staff only")
        PRIVATE = "private", _("Private")
        UNLISTED = "unlisted", _("Unlisted")

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="events")
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=_SLUG_MAX_LENGTH)
    description = models.TextField(blank=True, default="")
    start = models.DateTimeField()
    end = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    visibility = models.CharField(
        max_length=12, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    capacity = models.PositiveIntegerField(null=True, blank=True, help_text=_("Empty: unlimited."))
    address = models.CharField(max_length=255, blank=True, default="")
    latitude = models.DecimalField(
        max_digits=9,
        decimal_places=6,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal(-90)), MaxValueValidator(Decimal(90))],
    )
    longitude = models.DecimalField(
        max_digits=9,
        decimal_places=6,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal(-180)), MaxValueValidator(Decimal(180))],
    )
    waitlist_open = models.BooleanField(default=False)
    requires_ticket = models.BooleanField(default=False)
    rsvp_before = models.DateTimeField(null=True, blank=True)
    check_in_starts_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = EventQuerySet.as_manager()

    RECURRING_START_FIELD = "start"
    RECURRING_END_FIELD = "end"
    RECURRING_STATUS_FIELD = "status"
    RECURRING_VISIBILITY_FIELD = "visibility"
    RECURRING_UPDATED_FIELD = "updated_at"
    RECURRING_STATUS_DRAFT = Status.DRAFT.value
    RECURRING_STATUS_OPEN = Status.OPEN.value
    RECURRING_STATUS_CANCELLED = Status.CANCELLED.value
    RECURRING_VISIBILITY_PUBLIC = Visibility.PUBLIC.value
    RECURRING_VISIBILITY_MEMBERS_ONLY = Visibility.MEMBERS_ONLY.value
    RECURRING_VISIBILITY_STAFF_ONLY = Visibility.STAFF_ONLY.value
    RECURRING_VISIBILITY_PRIVATE = Visibility.PRIVATE.value
    RECURRING_VISIBILITY_UNLISTED = Visibility.UNLISTED.value
    RECURRING_SHIFTED_FIELDS = ("rsvp_before", "check_in_starts_at")
    RECURRING_UNCOPIED_FIELDS = ("slug", "created_at", "updated_at")
    PROPAGATABLE_FIELDS = (
        "name",
        "description",
        "visibility",
        "capacity",
        "waitlist_open",
        "requires_ticket",
        "address",
        "latitude",
        "longitude",
    )
    # A new address without its coordinates would put the pin somewhere else.
    PROPAGATION_COUPLED_FIELDS = (("address", "latitude", "longitude"),)

    class Meta(RecurringEventMixin.Meta):
        ordering = ("start", "pk")
        constraints = [
            *RecurringEventMixin.Meta.constraints,
            models.UniqueConstraint(
                fields=["organization", "slug"], name="events_event_unique_slug_per_org"
            ),
            models.CheckConstraint(
                condition=models.Q(end__gt=models.F("start")), name="events_event_end_after_start"
            ),
            models.CheckConstraint(
                condition=models.Q(latitude__isnull=True, longitude__isnull=True)
                | models.Q(latitude__isnull=False, longitude__isnull=False),
                name="events_event_location_complete",
            ),
        ]
        indexes = [models.Index(fields=["organization", "start"], name="events_event_org_start")]

    def __str__(self) -> str:
        # In the site's zone: a one-off event has no rule, and reading an occurrence's
        # rule here would cost a query per event in every list that names events.
        return f"{self.name}, {describe_instant(self.start, timezone.get_current_timezone_name())}"

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if self.start is not None and self.end is not None and self.end <= self.start:
            errors["end"] = gettext("The end must be after the start.")
        if (self.latitude is None) != (self.longitude is None):
            field = "longitude" if self.longitude is None else "latitude"
            errors[field] = gettext("Give both latitude and longitude, or neither.")
        if errors:
            raise ValidationError(errors)

    def prepare_occurrence(
        self, *, start: dt.datetime, occurrence_index: int, status: str
    ) -> Event:
        occurrence = super().prepare_occurrence(
            start=start, occurrence_index=occurrence_index, status=status
        )
        occurrence.slug = occurrence_slug(self.slug, start)
        return occurrence

    def prepare_template_copy(self, *, start: dt.datetime) -> Event:
        # A template copy (a series started from this event, a split's continuation)
        # must not take the slug of the occurrence at `start`, which may exist.
        copy = super().prepare_template_copy(start=start)
        copy.slug = template_copy_slug(self.slug, start)
        return copy

    @classmethod
    def clone_related(cls, template: Event, occurrences: Sequence[Event]) -> None:
        """Give every new occurrence a copy of the template's ticket tiers.

        One SELECT and one bulk INSERT whatever the number of occurrences. Sales
        windows move with the occurrence; nothing sold carries over.
        """
        cls.clone_related_many([(template, occurrences)])

    @classmethod
    def clone_related_many(cls, batches: Sequence[tuple[Event, Sequence[Event]]]) -> None:
        """The tiers of every template in ``batches``: one SELECT and one bulk INSERT in all."""
        wanted = [(template, occurrences) for template, occurrences in batches if occurrences]
        if not wanted:
            return
        # order_by("pk"): the model's default ordering starts with the event FK,
        # which would join the events table for nothing here.
        tiers: dict[int, list[TicketTier]] = {}
        for tier in TicketTier.objects.filter(
            event_id__in=[pair[0].pk for pair in wanted]
        ).order_by("pk"):
            tiers.setdefault(tier.event_id, []).append(tier)
        copies = [
            tier.copy_for(occurrence, delta=occurrence.start - template.start)
            for template, occurrences in wanted
            for occurrence in occurrences
            for tier in tiers.get(template.pk, ())
        ]
        if copies:
            # ignore_conflicts: copy_template_related passes occurrences that may hold
            # some of these tiers already; (event, name) is unique, so those are skipped.
            TicketTier.objects.bulk_create(copies, ignore_conflicts=True)

    def has_bookings(self) -> bool:
        return self.ticket_tiers.filter(quantity_sold__gt=0).exists()

    @classmethod
    def booked_among(cls, events: Sequence[Event]) -> set[Any]:
        # One query for a whole page or series; order_by(): the tier's default
        # ordering would join the events table for nothing.
        if not events:
            return set()
        return set(
            TicketTier.objects.filter(
                event_id__in=[event.pk for event in events], quantity_sold__gt=0
            )
            .order_by()
            .values_list("event_id", flat=True)
            .distinct()
        )

    @classmethod
    def count_bookings_among(cls, events: Sequence[Event]) -> dict[Any, int]:
        # Tickets sold over all tiers of each event, in one aggregate query.
        if not events:
            return {}
        return dict(
            TicketTier.objects.filter(
                event_id__in=[event.pk for event in events], quantity_sold__gt=0
            )
            .order_by()
            .values("event_id")
            .annotate(sold=models.Sum("quantity_sold"))
            .values_list("event_id", "sold")
        )

    @classmethod
    def people_booked_among(cls, events: Sequence[Event]) -> Mapping[Any, Sequence[BookedPerson]]:
        """The holders of each event's tickets, one per address, in one query.

        Places sold without a ``Ticket`` (counted in ``quantity_sold`` only) name
        nobody: those buyers are not told when their date changes.
        """
        if not events:
            return {}
        rows = (
            Ticket.objects.filter(tier__event_id__in=[event.pk for event in events])
            .order_by("tier__event_id", "pk")
            .values_list("tier__event_id", "email", "name", "language", "timezone")
        )
        people: dict[Any, dict[str, BookedPerson]] = {}
        for event_id, email, name, language, zone in rows:
            person = BookedPerson(address=email, name=name, language=language, timezone=zone)
            people.setdefault(event_id, {}).setdefault(person.key, person)
        return {pk: list(named.values()) for pk, named in people.items()}

    @classmethod
    def book_enrolled(
        cls, pairs: Sequence[tuple[Event, str]]
    ) -> Mapping[tuple[Any, str], BookingAnswer]:
        """A ticket of each event's cheapest tier for each enrolled user: five queries.

        See ``book_enrolled_tickets``.
        """
        return book_enrolled_tickets(pairs)

    @classmethod
    def release_enrolled(cls, pairs: Sequence[tuple[Event, str]]) -> None:
        """Delete the tickets ``book_enrolled`` made for these pairs: three queries."""
        release_enrolled_tickets(pairs)


class TicketTier(models.Model):
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="ticket_tiers")
    name = models.CharField(max_length=100)
    price = models.DecimalField(max_digits=10, decimal_places=2, default=Decimal("0.00"))
    quantity = models.PositiveIntegerField()
    quantity_sold = models.PositiveIntegerField(default=0)
    sales_start = models.DateTimeField(null=True, blank=True)
    sales_end = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("event", "price", "pk")
        constraints = [
            models.UniqueConstraint(fields=["event", "name"], name="events_tier_unique_name"),
            models.CheckConstraint(
                condition=models.Q(quantity_sold__lte=models.F("quantity")),
                name="events_tier_not_oversold",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.price})"

    def clean(self) -> None:
        if self.sales_start and self.sales_end and self.sales_end <= self.sales_start:
            raise ValidationError({"sales_end": _("Sales must end after they start.")})

    def copy_for(self, event: Event, *, delta: dt.timedelta) -> TicketTier:
        """An unsaved copy on ``event`` with the sales window moved by ``delta``."""
        return TicketTier(
            event=event,
            name=self.name,
            price=self.price,
            quantity=self.quantity,
            quantity_sold=0,
            sales_start=_shift(self.sales_start, delta),
            sales_end=_shift(self.sales_end, delta),
        )


def _shift(value: dt.datetime | None, delta: dt.timedelta) -> dt.datetime | None:
    return None if value is None else value + delta


class Ticket(models.Model):
    """One place of a tier held by a named person: whom to tell when its date changes.

    ``TicketTier.quantity_sold`` counts every place sold, with a ``Ticket`` or
    without (sold at the door, imported as a number), and each ticket is one of
    them: saving a new ticket adds one to its tier's ``quantity_sold`` and deleting
    it takes one away, in the same transaction (a ticket beyond the tier's
    ``quantity`` is refused by the tier's constraint). So ``booked_among`` and
    ``count_bookings_among`` read ``quantity_sold`` alone, and
    ``people_booked_among`` reads the tickets. ``bulk_create`` and queryset
    deletes skip ``save``/``delete``: whoever uses them adjusts ``quantity_sold``.
    A ticket stays on the tier it was sold on.
    """

    tier = models.ForeignKey(TicketTier, on_delete=models.CASCADE, related_name="tickets")
    email = models.EmailField(_("e-mail"), help_text=_("Where messages about the date go."))
    name = models.CharField(_("name"), max_length=200, blank=True, default="")
    language = models.CharField(
        _("language"),
        max_length=16,
        blank=True,
        default="",
        help_text=_("A language code such as de; empty: the site's language."),
    )
    timezone = models.CharField(
        _("time zone"),
        max_length=64,
        blank=True,
        default="",
        help_text=_("An IANA zone such as America/New_York; empty: the series' zone."),
    )
    # The user the ticket was booked for through an enrolment (``book_enrolled``), or a
    # signed-in buyer; empty for tickets sold to an address only.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="tickets",
        verbose_name=_("user"),
    )
    enrolled = models.BooleanField(
        _("through an enrolment"),
        default=False,
        help_text=_("Booked for an enrolled user: released when they skip the date or leave."),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("tier", "pk")

    def __str__(self) -> str:
        return f"{self.email} ({self.tier})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        adding = self._state.adding
        with transaction.atomic(using=kwargs.get("using")):
            super().save(*args, **kwargs)
            if adding:
                TicketTier.objects.using(self._state.db).filter(pk=self.tier_id).update(
                    quantity_sold=models.F("quantity_sold") + 1
                )

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        with transaction.atomic(using=kwargs.get("using") or self._state.db):
            TicketTier.objects.using(self._state.db).filter(pk=self.tier_id).update(
                quantity_sold=Greatest(models.F("quantity_sold") - 1, 0)
            )
            return super().delete(*args, **kwargs)

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if self.language and self.language not in dict(settings.LANGUAGES):
            errors["language"] = gettext("Give one of the site's languages, or nothing.")
        if self.timezone:
            try:
                ZoneInfo(self.timezone)
            except (ZoneInfoNotFoundError, ValueError):
                errors["timezone"] = gettext("Give an IANA time zone such as Europe/Vienna.")
        if errors:
            raise ValidationError(errors)


def _cheapest_tiers(event_pks: set[Any]) -> dict[Any, TicketTier]:
    """Each event's cheapest tier (the first in the tiers' order), locked: one query."""
    tiers: dict[Any, TicketTier] = {}
    locked = (
        TicketTier.objects.select_for_update()
        .filter(event_id__in=event_pks)
        .order_by("event_id", "price", "pk")
    )
    for tier in locked:
        tiers.setdefault(tier.event_id, tier)
    return tiers


def _add_sold(counts: Mapping[Any, int], *, sign: int) -> None:
    """Add (``sign`` 1) or take back (-1) ``counts`` tickets per tier pk, in one UPDATE."""
    if not counts:
        return
    sold = models.Case(
        *(
            models.When(
                pk=pk,
                then=Greatest(
                    models.F("quantity_sold") + models.Value(sign * count), models.Value(0)
                ),
            )
            for pk, count in counts.items()
        ),
        default=models.F("quantity_sold"),
        output_field=models.IntegerField(),
    )
    TicketTier.objects.filter(pk__in=list(counts)).update(quantity_sold=sold)


def book_enrolled_tickets(
    pairs: Sequence[tuple[Event, str]],
) -> dict[tuple[Any, str], BookingAnswer]:
    """The example's ``book_enrolled``: a ticket per (event, user), batched.

    Each user gets a ticket of the event's cheapest tier within the tier's
    ``quantity``, counted in its ``quantity_sold`` as every ticket is; the tier's
    sales window does not apply (an enrolment is a standing booking made ahead).
    A user who already holds a ticket of the event is ``held``; an event without
    a tier refuses with "no tickets on sale", a full cheapest tier with "sold
    out". Five queries whatever the number of pairs: the users, their tickets,
    the tiers (locked for the count), one INSERT and one UPDATE of the counts.
    """
    if not pairs:
        return {}
    event_pks = {event.pk for event, _user in pairs}
    users = {
        str(user.pk): user
        for user in get_user_model()._default_manager.filter(pk__in={key for _e, key in pairs})
    }
    held = {
        (event_pk, str(user_pk))
        for event_pk, user_pk in Ticket.objects.filter(
            tier__event_id__in=event_pks, user_id__in=list(users)
        )
        .order_by()
        .values_list("tier__event_id", "user_id")
    }
    tiers = _cheapest_tiers(event_pks)
    added: dict[Any, int] = {}
    tickets: list[Ticket] = []
    answers: dict[tuple[Any, str], BookingAnswer] = {}
    for event, user_key in pairs:
        key = (event.pk, user_key)
        user = users.get(user_key)
        tier = tiers.get(event.pk)
        if user is None:
            answers[key] = BookingAnswer.refused(gettext("no such user"))
        elif key in held:
            answers[key] = BookingAnswer.held()
        elif tier is None:
            answers[key] = BookingAnswer.refused(gettext("no tickets on sale"))
        elif tier.quantity_sold + added.get(tier.pk, 0) >= tier.quantity:
            answers[key] = BookingAnswer.refused(gettext("sold out"))
        else:
            added[tier.pk] = added.get(tier.pk, 0) + 1
            held.add(key)
            tickets.append(_enrolled_ticket(tier, user))
            answers[key] = BookingAnswer.booked()
    Ticket.objects.bulk_create(tickets)
    _add_sold(added, sign=1)
    return answers


def _enrolled_ticket(tier: TicketTier, user: Any) -> Ticket:
    email = getattr(user, user.get_email_field_name(), "") or ""
    full_name = user.get_full_name() if hasattr(user, "get_full_name") else ""
    return Ticket(
        tier=tier, user=user, enrolled=True, email=email, name=full_name or user.get_username()
    )


def release_enrolled_tickets(pairs: Sequence[tuple[Event, str]]) -> None:
    """The example's ``release_enrolled``: delete the enrolment's tickets of these pairs.

    Only tickets booked through the enrolment (``Ticket.enrolled``) go; a ticket the
    user bought is theirs. Three queries: the tickets, one DELETE, one UPDATE of
    the tiers' ``quantity_sold``.
    """
    wanted = {(event.pk, user_key) for event, user_key in pairs}
    if not wanted:
        return
    found = Ticket.objects.filter(
        tier__event_id__in={pk for pk, _user in wanted},
        user_id__in={user for _pk, user in wanted},
        enrolled=True,
    ).values_list("pk", "tier_id", "tier__event_id", "user_id")
    doomed: list[Any] = []
    taken: dict[Any, int] = {}
    for pk, tier_pk, event_pk, user_pk in found.order_by():
        if (event_pk, str(user_pk)) in wanted:
            doomed.append(pk)
            taken[tier_pk] = taken.get(tier_pk, 0) + 1
    if doomed:
        Ticket.objects.filter(pk__in=doomed).delete()
        _add_sold(taken, sign=-1)


class SeriesFollow(models.Model):
    """A user following one series rather than the whole organisation."""

    series = models.ForeignKey(
        "revel_recurring.EventSeries", on_delete=models.CASCADE, related_name="+"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="series_follows"
    )
    notify_new_events = models.BooleanField(
        default=False, help_text=_("Opted in to hear about new dates of this series.")
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["series", "user"], name="events_seriesfollow_unique")
        ]

    def __str__(self) -> str:
        return f"{self.user} follows series {self.series_id}"


def events_scheduled_title(count: int, series_name: str) -> str:
    """ "1 new event scheduled for Yoga" / "8 new events scheduled for Yoga"."""
    return ngettext(
        "%(count)d new event scheduled for %(series)s",
        "%(count)d new events scheduled for %(series)s",
        count,
    ) % {"count": count, "series": series_name}


class DigestRecord(models.Model):
    """One digest the notifier delivered: what it was about, once per generated batch."""

    series = models.ForeignKey(
        "revel_recurring.EventSeries", on_delete=models.CASCADE, related_name="+"
    )
    notification_type = models.CharField(max_length=64)
    occurrence_count = models.PositiveIntegerField()
    audience = models.CharField(
        max_length=16, blank=True, default="", help_text=_("staff, members or public.")
    )
    recipient_count = models.PositiveIntegerField(default=0)
    url = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-pk")

    def __str__(self) -> str:
        return f"{self.notification_type}: {self.occurrence_count} for series {self.series_id}"

    @property
    def title(self) -> str:
        return events_scheduled_title(self.occurrence_count, self.series.name)


class Notification(models.Model):
    """One recipient's in-app notification of a digest, with its read flag.

    What the notification says (type, series, count, link) lives once on its
    ``DigestRecord``: a batch reaching 300 people writes 300 narrow rows in one
    INSERT (SQLite's 999-parameter cap fits 333 of them per statement).
    """

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    digest = models.ForeignKey(DigestRecord, on_delete=models.CASCADE, related_name="notifications")
    is_read = models.BooleanField(default=False)

    class Meta:
        ordering = ("-digest__created_at", "-pk")
        constraints = [
            models.UniqueConstraint(
                fields=["digest", "recipient"], name="events_notification_once_per_digest"
            )
        ]
        indexes = [
            models.Index(fields=["recipient", "is_read"], name="events_notif_recipient_read")
        ]

    def __str__(self) -> str:
        return f"{self.digest} to {self.recipient}"

    @property
    def notification_type(self) -> str:
        return self.digest.notification_type

    @property
    def series(self) -> EventSeries:
        return self.digest.series

    @property
    def occurrence_count(self) -> int:
        return self.digest.occurrence_count

    @property
    def link(self) -> str:
        return self.digest.url


__all__ = [
    "DigestRecord",
    "Event",
    "EventQuerySet",
    "Follow",
    "Membership",
    "Notification",
    "NotificationPreference",
    "Organization",
    "SeriesFollow",
    "Ticket",
    "TicketTier",
    "events_scheduled_title",
    "occurrence_slug",
    "template_copy_slug",
]


def _new_calendar_key() -> str:
    return secrets.token_urlsafe(32)


class CalendarToken(models.Model):
    """A user's secret for calendar subscriptions: ``/calendar/<key>/...`` URLs.

    Calendar apps cannot sign in, so a feed of series that are not public is
    reached through a URL holding this key and answered with what its user may
    see. Rotating the key (a new one, the old one stops working at once) is what a
    user does after sharing a URL by mistake.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_token"
    )
    key = models.CharField(max_length=64, unique=True, default=_new_calendar_key)
    created_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Calendar token of {self.user}"

    @classmethod
    def for_user(cls, user: Any) -> CalendarToken:
        token, _created = cls.objects.get_or_create(user=user)
        return token

    def rotate(self) -> None:
        self.key = _new_calendar_key()
        self.save(update_fields=["key", "created_at"])
