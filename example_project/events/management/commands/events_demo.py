"""Create the demo organisation and weekly series (idempotently), then generate it.

`make demo` runs this after `migrate`; running it again reuses everything it made
and only materializes what the rolling window has newly reached.
"""

from __future__ import annotations

import datetime as dt
import secrets
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from example_project.events.models import Event, Follow, Organization, TicketTier
from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.services.generation import generate_series_events

ZONE_NAME = "Europe/Vienna"
ZONE = ZoneInfo(ZONE_NAME)
TUESDAY = 1
START_TIME = dt.time(18, 30)
DEMO_USERNAME = "demo"
ADMIN_USERNAME = "admin"
ORG_SLUG = "vienna-runners"
TEMPLATE_SLUG = "tuesday-evening-run"


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
        created = generate_series_events(series, now=now)
        self._report(series, created, password)

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
        for event in occurrences:
            local = event.start.astimezone(ZONE)
            utc = event.start.astimezone(dt.UTC)
            marker = "*" if event.pk in new else " "
            self.stdout.write(
                f" {marker}#{event.occurrence_index:<3} {local:%a %Y-%m-%d %H:%M %Z}"
                f" = {utc:%Y-%m-%d %H:%M} UTC  {event.status}"
            )
        self.stdout.write(f"Series page: http://127.0.0.1:8000/series/{series.slug}/")
        self.stdout.write(
            f"Admin: http://127.0.0.1:8000/admin/revel_recurring/eventseries/{series.pk}/change/"
        )
        if password is not None:
            self.stdout.write(
                f"  log in as {ADMIN_USERNAME!r} with password {password!r} "
                "(demo only: a new random password on every run)"
            )


def _parse_now(value: str) -> dt.datetime:
    parsed = parse_datetime(value)
    if parsed is None or timezone.is_naive(parsed):
        raise CommandError(f"--now must be an ISO 8601 datetime with an offset, got {value!r}.")
    return parsed


def _demo_organization() -> Organization:
    user_model = get_user_model()
    user, created = user_model._default_manager.get_or_create(
        username=DEMO_USERNAME, defaults={"email": "demo@example.com"}
    )
    if created:
        # The organisation's owner is a person of the story, not a login.
        user.set_unusable_password()
        user.save(update_fields=["password"])
    organization, _ = Organization.objects.get_or_create(
        slug=ORG_SLUG, defaults={"name": "Vienna Runners", "owner": user}
    )
    organization.staff.add(user)
    Follow.objects.get_or_create(
        organization=organization, user=user, defaults={"notify_new_events": True}
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
