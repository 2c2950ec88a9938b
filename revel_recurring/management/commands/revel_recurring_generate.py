from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from ...exceptions import RecurrenceError
from ...models import EventSeries
from ...services.generation import generate_series_events, preview_series_events


def _parse_until(value: str) -> dt.datetime:
    parsed = parse_datetime(value)
    if parsed is None:
        raise CommandError(f"--until: '{value}' is not an ISO 8601 date and time.")
    if timezone.is_naive(parsed):
        raise CommandError(f"--until: '{value}' needs a UTC offset, e.g. 2027-01-31T00:00Z.")
    return parsed


class Command(BaseCommand):
    help = "Materialize due occurrences now, synchronously (without Celery)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--series", type=int, nargs="+", metavar="ID", help="Only these.")
        parser.add_argument("--until", type=_parse_until, help="Horizon (ISO 8601, aware).")
        parser.add_argument(
            "--dry-run", action="store_true", help="Show what would be created; write nothing."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        queryset = EventSeries.objects.active().with_rule().order_by("pk")
        if options["series"]:
            wanted = set(options["series"])
            queryset = queryset.filter(pk__in=wanted)
            missing = wanted - set(queryset.values_list("pk", flat=True))
            if missing:
                raise CommandError(
                    "No active series with a rule has id " + ", ".join(map(str, sorted(missing)))
                )
        total = queryset.count()
        created_total = failures = 0
        now = timezone.now()
        for done, series in enumerate(queryset.iterator(chunk_size=200), start=1):
            try:
                count = self._one(series, until=options["until"], now=now, dry=options["dry_run"])
            except RecurrenceError as exc:
                failures += 1
                self.stderr.write(f"series {series.pk} ({series.name}): {exc}")
                continue
            created_total += count
            self.stdout.write(
                f"[{done}/{total}] {series.name}: {count} "
                f"{'would be created' if options['dry_run'] else 'created'} "
                f"(total {created_total})"
            )
        verb = "would be created" if options["dry_run"] else "created"
        self.stdout.write(
            self.style.SUCCESS(
                f"{total} series processed, {created_total} occurrences {verb}, {failures} failed."
            )
        )
        if failures:
            raise CommandError(f"{failures} series failed.")

    def _one(
        self, series: EventSeries, *, until: dt.datetime | None, now: dt.datetime, dry: bool
    ) -> int:
        if not dry:
            return len(generate_series_events(series, until=until, now=now))
        slots = preview_series_events(series, until=until, now=now)
        for slot in slots:
            self.stdout.write(f"    would create {slot.isoformat()}")
        return len(slots)
