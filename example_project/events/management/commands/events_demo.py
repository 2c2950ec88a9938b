"""Create the demo organisation, its people and weekly series (idempotently), then generate.

`make demo` runs this after `migrate`; running it again reuses everything it made
and only materializes what the rolling window has newly reached. The summary
names who the digest of the new dates reached, and which demo people it did not.
It also sells tickets for two of the series' dates (booked dates, to try what the
admin does with them: kept, ticked, moved "with its bookings"), some of them to
named holders in other languages and zones (the people told when those dates
change), enrols ``sam`` on those two dates (a ticket each), and creates a
one-off event without a series (to try "create from an event" on the admin's add
page); both once, on the first run.
"""

from __future__ import annotations

import datetime as dt
import secrets
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from example_project.events.models import (
    Event,
    Follow,
    Membership,
    NotificationPreference,
    Organization,
    SeriesFollow,
    Ticket,
    TicketTier,
)
from revel_recurring import rules
from revel_recurring.instants import InvalidInstantError, describe_instant, parse_aware_instant
from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.notifications import SeriesDigest
from revel_recurring.services.enrolments import enrol
from revel_recurring.services.generation import generate_series_events
from revel_recurring.signals import series_events_generated

ZONE_NAME = "Europe/Vienna"
ZONE = ZoneInfo(ZONE_NAME)
TUESDAY = 1
START_TIME = dt.time(18, 30)
DEMO_USERNAME = "demo"
# The demo people's throwaway password for the site's /notifications/ pages; none of
# them is staff. The admin's superuser gets a random one (--admin).
DEMO_PASSWORD = "demo"
ADMIN_USERNAME = "admin"
ORG_SLUG = "vienna-runners"
TEMPLATE_SLUG = "tuesday-evening-run"
ONE_OFF_SLUG = "saturday-long-run"
SATURDAY = 5
#: Tickets sold for the demo's booked dates: the series' second and third upcoming dates.
SOLD = (3, 1)
#: The named holders among them, per booked date: (e-mail, name, language, zone).
#: Each is one of the date's SOLD places; the rest were sold at the door, to nobody
#: the site could tell about a change.
HOLDERS = (
    (
        ("maria@example.com", "Maria", "de", "Europe/Vienna"),
        ("fiona@example.com", "Fiona", "en", "Europe/London"),
    ),
    (("jonas@example.org", "Jonas", "de", "America/New_York"),),
)

#: The demo person enrolled on the booked dates (a two-week course): one ticket each.
ENROLLED = "sam"

#: The demo's people: username -> role. They sign in with the same throwaway
#: password as the owner to see /notifications/.
DEMO_PEOPLE = {
    DEMO_USERNAME: "owner",
    "stefan": "staff",
    "maria": "active member who also follows the organisation",
    "paul": "member, membership paused",
    "clara": "member, membership cancelled",
    "nora": "active member who silenced all notifications",
    "fiona": "follows the organisation, new-event notifications on",
    "felix": "follows the organisation, new-event notifications off",
    "sam": "follows the series, new-event notifications on",
}


class Command(BaseCommand):
    help = "Create the demo organisation and weekly Vienna series, then run generation."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--now",
            help="Pretend the current time is this ISO 8601 instant (with offset).",
        )
        parser.add_argument(
            "--admin",
            action="store_true",
            help=f"Create the superuser {ADMIN_USERNAME!r} (or reuse it) with a new random "
            "password, and print it (make demo does this).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        now = _parse_now(options["now"]) if options["now"] else timezone.now()
        with transaction.atomic():
            organization = _demo_organization()
            template = (
                Event.objects.filter(
                    organization=organization, slug=TEMPLATE_SLUG, is_template=True
                )
                .select_related("series__recurrence_rule")
                .first()
            )
            if template is None:
                template = _create_series(organization, now)
                verb = "Created"
            else:
                verb = "Reusing"
        password = _demo_superuser() if options["admin"] else None
        series = template.series
        if series is None:
            raise CommandError(f"The demo template {template.pk} lost its series; delete it.")
        self.stdout.write(f'{verb} series "{series.name}".')
        with transaction.atomic():
            _demo_people(organization, series)
        digests: list[SeriesDigest] = []

        def keep(sender: Any, digest: SeriesDigest, **kwargs: Any) -> None:
            digests.append(digest)

        series_events_generated.connect(keep, dispatch_uid="events_demo.keep")
        try:
            created = generate_series_events(series, now=now)
        finally:
            series_events_generated.disconnect(dispatch_uid="events_demo.keep")
        with transaction.atomic():
            booked = _seed_bookings(series, now)
            one_off = _one_off_event(organization, now)
        self._report(series, created, password)
        self._report_seeded(booked, one_off)
        if created:
            self._report_digest(digests)
        else:
            self.stdout.write("No new dates, so no digest was sent.")

    def _report(self, series: EventSeries, created: list[Event], password: str | None) -> None:
        rule = series.recurrence_rule
        assert rule is not None  # the demo series always has its rule
        occurrences = list(series.occurrences().order_by("start"))
        self.stdout.write(rule.rrule_string)
        self.stdout.write(
            f"Generated {len(created)} new occurrence(s); "
            f"{len(occurrences)} materialized in total ({ZONE_NAME} wall clock = UTC):"
        )
        new = {event.pk for event in created}
        local = {event.pk: describe_instant(event.start, ZONE_NAME) for event in occurrences}
        width = max(map(len, local.values()), default=0)
        for event in occurrences:
            marker = "*" if event.pk in new else " "
            self.stdout.write(
                f" {marker}#{event.occurrence_index:<3} {local[event.pk]:<{width}}"
                f" = {rules.format_instant(event.start)}  {event.status}"
            )
        site = _site_url()
        self.stdout.write(f"Series page: {site}/series/{series.slug}/")
        self.stdout.write(f"Admin: {site}/admin/revel_recurring/eventseries/{series.pk}/change/")
        if password is not None:
            self.stdout.write(
                f"  log in as {ADMIN_USERNAME!r} with password {password!r} "
                "(demo only: a new random password on every run)"
            )

    def _report_seeded(self, booked: list[tuple[Event, int]], one_off: Event) -> None:
        site = _site_url()
        dates = "; ".join(
            f"{describe_instant(event.start, ZONE_NAME)}: {sold} sold" for event, sold in booked
        )
        self.stdout.write(f"Booked dates (tickets sold): {dates or 'none upcoming'}")
        people = Event.people_booked_among([event for event, _sold in booked])
        for event, _sold in booked:
            for person in people.get(event.pk, ()):
                self.stdout.write(
                    f"  ticket of {person.address} ({person.language or 'site language'}, "
                    f"{person.timezone or ZONE_NAME}): {describe_instant(event.start, ZONE_NAME)}"
                )
        self.stdout.write(
            f"One-off event (no series): {one_off.name}, "
            f"{describe_instant(one_off.start, ZONE_NAME)}; start a series from it at "
            f"{site}/admin/revel_recurring/eventseries/add/"
        )

    def _report_digest(self, digests: list[SeriesDigest]) -> None:
        if not digests:
            self.stdout.write("No digest was sent for the new dates; the log above says why.")
            return
        digest = digests[0]
        told = [person.get_username() for person in digest.recipients]
        self.stdout.write(
            f"Digest ({digest.audience.value} audience): {digest.count} new date(s) told to "
            f"{len(told)} people, in-app and by e-mail (printed above by the console backend):"
        )
        for username in told:
            role = DEMO_PEOPLE.get(username, "not a demo person")
            self.stdout.write(f"  told      {username:<8} {role}")
        for username, role in DEMO_PEOPLE.items():
            if username not in told:
                self.stdout.write(f"  not told  {username:<8} {role}")
        self.stdout.write(
            f"Sign in as any of them (password {DEMO_PASSWORD}) at "
            f"{_site_url()}/notifications/ to see their notifications."
        )


def _site_url() -> str:
    # The address the site is served on (make demo sets it to the port it serves).
    url: str = settings.EXAMPLE_SITE_URL
    return url.rstrip("/")


def _parse_now(value: str) -> dt.datetime:
    try:
        return parse_aware_instant(value)
    except InvalidInstantError as exc:
        raise CommandError(f"--now {value!r}: {exc.message}") from None


def _demo_organization() -> Organization:
    # The owner signs in like the other demo people; the admin is "admin"'s (--admin).
    user = _demo_user(DEMO_USERNAME)
    organization, _ = Organization.objects.get_or_create(
        slug=ORG_SLUG, defaults={"name": "Vienna Runners", "owner": user}
    )
    return organization


def _demo_superuser() -> str:
    """Create (or reuse) the demo superuser and give it a fresh random password.

    A stored password cannot be shown again, so every run sets a new one and the
    command prints it; there is no fixed password anywhere, in settings or code.
    """
    user_model = get_user_model()
    user, _ = user_model._default_manager.get_or_create(
        username=ADMIN_USERNAME,
        defaults={"email": "admin@example.com", "is_staff": True, "is_superuser": True},
    )
    password = secrets.token_urlsafe(12)
    user.is_staff = user.is_superuser = True
    user.set_password(password)
    user.save(update_fields=["password", "is_staff", "is_superuser"])
    return password


def _demo_user(username: str) -> Any:
    user, created = get_user_model()._default_manager.get_or_create(
        username=username,
        defaults={"email": f"{username}@example.com", "first_name": username.capitalize()},
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save(update_fields=["password"])
    return user


def _demo_people(organization: Organization, series: EventSeries) -> None:
    """Staff, members in each state, followers with and without opt-in (get_or_create)."""
    organization.staff.add(_demo_user("stefan"))
    for username, status in (
        ("maria", Membership.Status.ACTIVE),
        ("paul", Membership.Status.PAUSED),
        ("clara", Membership.Status.CANCELLED),
        ("nora", Membership.Status.ACTIVE),
    ):
        Membership.objects.get_or_create(
            organization=organization, user=_demo_user(username), defaults={"status": status}
        )
    for username, opted_in in (("maria", True), ("fiona", True), ("felix", False)):
        Follow.objects.get_or_create(
            organization=organization,
            user=_demo_user(username),
            defaults={"notify_new_events": opted_in},
        )
    SeriesFollow.objects.get_or_create(
        series=series, user=_demo_user("sam"), defaults={"notify_new_events": True}
    )
    NotificationPreference.objects.get_or_create(
        user=_demo_user("nora"), defaults={"silence_all": True}
    )


def _seed_bookings(series: EventSeries, now: dt.datetime) -> list[tuple[Event, int]]:
    """Sell tickets for the second and third upcoming dates, once; the dates booked.

    Some of the places go to named holders (``HOLDERS``), each a ``Ticket`` on the
    date's tier and one of its ``quantity_sold``, and ``ENROLLED`` is enrolled on
    both dates (``_seed_enrolment``).

    Only on a series none of whose dates is booked yet, so a second run changes
    nothing (and sells nothing on the dates its window newly reached). Answers
    every upcoming booked date with its tickets sold, as the example's
    ``count_bookings_among`` hook counts them.
    """
    upcoming = list(
        series.occurrences()
        .filter(start__gte=now)
        .exclude(status=Event.Status.CANCELLED)
        .order_by("start")
    )
    if not Event.booked_among(list(series.occurrences())):
        for event, sold, holders in zip(upcoming[1:], SOLD, HOLDERS, strict=False):
            tier = TicketTier.objects.filter(event=event).order_by("pk").first()
            if tier is None:
                continue
            # Sold at the door first; each named ticket then adds its own place.
            TicketTier.objects.filter(pk=tier.pk).update(quantity_sold=sold - len(holders))
            for email, name, language, zone in holders:
                Ticket.objects.create(
                    tier=tier, email=email, name=name, language=language, timezone=zone
                )
        _seed_enrolment(series, upcoming[1:3], now)
    counts = Event.count_bookings_among(upcoming)
    return [(event, counts[event.pk]) for event in upcoming if event.pk in counts]


def _seed_enrolment(series: EventSeries, dates: list[Event], now: dt.datetime) -> None:
    """Enrol ``ENROLLED`` on ``dates`` (the booked ones): a ticket of each, told once.

    The enrolment runs from the first date's day to the last one's on the series'
    clock, so it books the dates that are booked already and no other; its tickets
    (``Ticket.enrolled``) count among the places sold.
    """
    if not dates:
        return
    days = [event.start.astimezone(ZONE).date() for event in dates]
    enrol(series, _demo_user(ENROLLED), starts_on=days[0], ends_on=days[-1], now=now)


def _one_off_event(organization: Organization, now: dt.datetime) -> Event:
    """A single Saturday run without a series (created once): the admin's "from an event"."""
    found = Event.objects.filter(organization=organization, slug=ONE_OFF_SLUG).first()
    if found is not None:
        return found
    today = now.astimezone(ZONE).date()
    saturday = today + dt.timedelta(days=(SATURDAY - today.weekday()) % 7 or 7)
    start = dt.datetime.combine(saturday, dt.time(9, 0), tzinfo=ZONE)
    event = Event(
        organization=organization,
        name="Saturday Long Run",
        slug=ONE_OFF_SLUG,
        description="18 km along the Danube Canal and back through the Prater.",
        start=start,
        end=start + dt.timedelta(hours=2),
        status=Event.Status.OPEN,
        visibility=Event.Visibility.PUBLIC,
        capacity=20,
        address="Urania, Uraniastraße 1, 1010 Wien",
        latitude=Decimal("48.211667"),
        longitude=Decimal("16.383889"),
        requires_ticket=True,
    )
    event.full_clean()
    event.save()
    TicketTier.objects.create(event=event, name="Runner", price=Decimal("5.00"), quantity=20)
    return event


def _create_series(organization: Organization, now: dt.datetime) -> Event:
    # dtstart is this week's Tuesday 18:30 in Vienna; if that is already past,
    # generation skips it (no past occurrences without backfill).
    today = now.astimezone(ZONE).date()
    tuesday = today - dt.timedelta(days=(today.weekday() - TUESDAY) % 7)
    start = dt.datetime.combine(tuesday, START_TIME, tzinfo=ZONE)
    rule = RecurrenceRule.objects.create(
        frequency=RecurrenceRule.Frequency.WEEKLY,
        weekdays=[TUESDAY],
        dtstart=start,
        timezone=ZONE_NAME,
    )
    series = EventSeries.objects.create(
        name="Tuesday Evening Run",
        description="An easy 8 km loop along the Prater Hauptallee, every Tuesday.",
        recurrence_rule=rule,
        auto_publish=True,
    )
    template = Event(
        organization=organization,
        series=series,
        is_template=True,
        name="Tuesday Evening Run",
        slug=TEMPLATE_SLUG,
        description="Meet at the Lusthaus. All paces welcome; headlamps after October.",
        start=start,
        end=start + dt.timedelta(minutes=90),
        status=Event.Status.DRAFT,
        visibility=Event.Visibility.PUBLIC,
        capacity=30,
        address="Lusthaus, Freudenau 254, 1020 Wien",
        latitude=Decimal("48.198471"),
        longitude=Decimal("16.445278"),
        waitlist_open=True,
        requires_ticket=True,
        rsvp_before=start - dt.timedelta(hours=2),
        check_in_starts_at=start - dt.timedelta(minutes=30),
    )
    template.full_clean()
    template.save()
    TicketTier.objects.create(
        event=template,
        name="Runner",
        price=Decimal("5.00"),
        quantity=30,
        sales_start=start - dt.timedelta(days=14),
        sales_end=start,
    )
    return template
