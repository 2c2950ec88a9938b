"""``manage.py revel_recurring_generate``: run generation now, without Celery."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from ... import rules
from ...exceptions import RecurrenceError
from ...instants import InvalidInstantError, describe_instant, parse_aware_instant
from ...models import EventSeries, get_event_model
from ...services.generation import generate_series_events, preview_series_events
from ..output import TranslatedCommand


def _parse_until(value: str) -> dt.datetime:
    # Parsed in handle(), not as an argparse type: an error raised while Django
    # parses the arguments is printed as a traceback, one from handle() as one line.
    try:
        return parse_aware_instant(value)
    except InvalidInstantError as exc:
        raise CommandError(
            _("--until %(value)s: %(error)s") % {"value": repr(value), "error": exc.message}
        ) from None


def _when(instant: dt.datetime, zone_name: str | None) -> str:
    """The wall clock in the rule's zone, then the UTC instant (as stored)."""
    return f"{describe_instant(instant, zone_name)} = {rules.format_instant(instant)}"


def _series_to_run(ids: list[int] | None) -> QuerySet[EventSeries]:
    """The active series with a rule (only ``ids`` when given), each marked ``has_template``.

    Raises ``CommandError`` naming the ids that are no such series.
    """
    templates = get_event_model()._default_manager.filter(series=OuterRef("pk"), is_template=True)
    queryset = (
        EventSeries.objects.active()
        .with_rule()
        .select_related("recurrence_rule")
        .annotate(has_template=Exists(templates))
        .order_by("pk")
    )
    if not ids:
        return queryset
    wanted = set(ids)
    queryset = queryset.filter(pk__in=wanted)
    missing = wanted - set(queryset.values_list("pk", flat=True))
    if missing:
        raise CommandError(
            ngettext(
                "No active series with a rule has id %(ids)s",
                "No active series with a rule has the ids %(ids)s",
                len(missing),
            )
            % {"ids": ", ".join(map(str, sorted(missing)))}
        )
    return queryset


def _progress_line(count: int, *, dry: bool) -> str:
    """The line shown after one series, to fill with done, total, name, count and sum."""
    if dry:
        return ngettext(
            "[%(done)d/%(total)d] %(name)s: %(count)d would be created (total %(sum)d)",
            "[%(done)d/%(total)d] %(name)s: %(count)d would be created (total %(sum)d)",
            count,
        )
    return ngettext(
        "[%(done)d/%(total)d] %(name)s: %(count)d created (total %(sum)d)",
        "[%(done)d/%(total)d] %(name)s: %(count)d created (total %(sum)d)",
        count,
    )


class Command(TranslatedCommand):
    help = gettext_lazy(  # type: ignore[assignment]
        "Materialize due occurrences now, synchronously (without Celery)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--series", type=int, nargs="+", metavar="ID", help=_("Only these."))
        parser.add_argument(
            "--until",
            help=_("Horizon: an ISO 8601 date and time with offset, e.g. 2027-03-01T00:00:00Z."),
        )
        parser.add_argument(
            "--dry-run", action="store_true", help=_("Show what would be created; write nothing.")
        )

    def handle(self, *args: Any, **options: Any) -> None:
        until = _parse_until(options["until"]) if options["until"] is not None else None
        dry = bool(options["dry_run"])
        self._verbosity = int(options["verbosity"])
        queryset = _series_to_run(options["series"])
        total = queryset.count()
        created, failures, skipped = self._run_all(queryset, total, until=until, dry=dry)
        self._summarise(total=total, skipped=skipped, failures=failures, created=created, dry=dry)
        if failures:
            raise CommandError(
                ngettext("%(count)d series failed.", "%(count)d series failed.", failures)
                % {"count": failures}
            )

    def _run_all(
        self, queryset: QuerySet[EventSeries], total: int, *, until: dt.datetime | None, dry: bool
    ) -> tuple[int, int, int]:
        """Each series in turn, one line for each; (occurrences created, failed, skipped)."""
        created_total = failures = skipped = 0
        now = timezone.now()
        for done, series in enumerate(queryset.iterator(chunk_size=200), start=1):
            if not getattr(series, "has_template", True):
                skipped += 1
                self._skip(series, done=done, total=total, until=until, now=now, dry=dry)
                continue
            try:
                count = self._one(series, until=until, now=now, dry=dry)
            except RecurrenceError as exc:
                failures += 1
                self.stderr.write(
                    _("series %(id)s (%(name)s): %(error)s")
                    % {"id": series.pk, "name": series.name, "error": exc}
                )
                continue
            created_total += count
            values = {
                "done": done,
                "total": total,
                "name": series.name,
                "count": count,
                "sum": created_total,
            }
            self.stdout.write(_progress_line(count, dry=dry) % values)
        return created_total, failures, skipped

    def _skip(
        self,
        series: EventSeries,
        *,
        done: int,
        total: int,
        until: dt.datetime | None,
        now: dt.datetime,
        dry: bool,
    ) -> None:
        """Say a series without a template is skipped; a real run parks it."""
        self.stdout.write(
            self.style.WARNING(
                _(
                    "[%(done)d/%(total)d] %(name)s: skipped, the series has no template "
                    "(give it one with revel_recurring.services.templates.replace_template)"
                )
                % {"done": done, "total": total, "name": series.name}
            )
        )
        if not dry:
            generate_series_events(series, until=until, now=now)  # parks it

    def _summarise(
        self, *, total: int, skipped: int, failures: int, created: int, dry: bool
    ) -> None:
        # Counts under labels: one sentence with four numbers has no plural form.
        if dry:
            summary = _(
                "Series processed: %(total)d, skipped (no template): %(skipped)d, "
                "failed: %(failed)d. Occurrences that would be created: %(created)d."
            )
        else:
            summary = _(
                "Series processed: %(total)d, skipped (no template): %(skipped)d, "
                "failed: %(failed)d. Occurrences created: %(created)d."
            )
        values = {"total": total, "skipped": skipped, "failed": failures, "created": created}
        self.stdout.write(self.style.SUCCESS(summary % values))

    def _one(
        self, series: EventSeries, *, until: dt.datetime | None, now: dt.datetime, dry: bool
    ) -> int:
        rule = series.recurrence_rule
        zone_name = rule.timezone if rule is not None else None
        if not dry:
            created = generate_series_events(series, until=until, now=now)
            if self._verbosity >= 2:
                for event in created:
                    when = _when(event.occurrence_start, zone_name)
                    self.stdout.write("    " + _("created %(when)s") % {"when": when})
            return len(created)
        slots = preview_series_events(series, until=until, now=now)
        for slot in slots:
            when = _when(slot, zone_name)
            self.stdout.write("    " + _("would create %(when)s") % {"when": when})
        return len(slots)
