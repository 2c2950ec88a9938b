"""``manage.py revel_recurring_data``: what newer world data (time zones, holidays) changes.

The time-zone data first: a series whose zone has other UTC offsets now than
when its dates were placed is held until its dates move, and its holiday plan
would move them too. Then the ``holidays`` data, as ``revel_recurring_holidays``
(the same command under its older name, holidays only) shows and applies it.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any

from django.core.management.base import CommandError
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from ...instants import describe_instant
from ...models import EventSeries
from ...services.plans import PlannedOccurrence
from ...services.zone_data import (
    AppliedZoneData,
    ZoneDataChange,
    apply_zone_data,
    series_changed_by_zone_data,
)
from ..output import bookings_text, table
from .revel_recurring_holidays import Command as HolidaysCommand
from .revel_recurring_holidays import _series_name

COMMAND = ["python", "manage.py", "revel_recurring_data"]


class Command(HolidaysCommand):
    help = gettext_lazy(
        "List the series whose generated dates newer world data changes (nothing is "
        "written): dates the time-zone data loaded now puts at another wall-clock time, "
        "then dates another release of the holidays package changes. With --apply, "
        "move the former to their rule's times (the people booked told) and apply the "
        "latter (dates a holiday now skips cancelled unless booked)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        wanted: list[int] = options["series"] or []
        plan_hash: str | None = options["hash"]
        if plan_hash is not None and (not options["apply"] or len(wanted) != 1):
            raise CommandError(_("--hash: give it with --apply and exactly one --series ID."))
        queryset = EventSeries.objects.all()
        if wanted:
            queryset = queryset.filter(pk__in=wanted)
        zones = series_changed_by_zone_data(queryset, now=timezone.now())
        if not zones:
            self.stdout.write(
                _(
                    "Every active series' dates were placed with the time-zone data loaded "
                    "now: nothing to move."
                )
            )
        elif options["apply"]:
            self._apply_zones(zones, plan_hash=plan_hash, notify=options["notify"])
            # The hash named the zone plan; the holiday plan is computed afresh.
            options = {**options, "hash": None}
        else:
            self._show_zones(zones)
        self.stdout.write("")
        super().handle(*args, **options)

    def _show_zones(self, changes: Sequence[ZoneDataChange]) -> None:
        write = self.stdout.write
        moving = [change for change in changes if change.changes_dates]
        write(
            ngettext(
                "%(count)d series placed its dates with other time-zone data than the data "
                "loaded now; the dates of %(moving)d move.",
                "%(count)d series placed their dates with other time-zone data than the data "
                "loaded now; the dates of %(moving)d move.",
                len(changes),
            )
            % {"count": len(changes), "moving": len(moving)}
        )
        for change in changes:
            self._zone_series(change)
        write("")
        write(_("Apply every plan above (each computed afresh, booked dates moved) with:"))
        write("  " + shlex.join([*COMMAND, "--apply"]))

    def _zone_series(self, change: ZoneDataChange) -> None:
        write = self.stdout.write
        series, plan = change.series, change.plan
        write("")
        write(
            _("%(series)s: zone %(zone)s, held until applied")
            % {"series": _series_name(series), "zone": change.zone}
        )
        write("  " + _("Rule: %(rule)s") % {"rule": plan.description})
        write(_("Moves (same rows, new instants): %(count)d") % {"count": len(change.moves)})
        if change.moves:
            rows = [
                (
                    pgettext("command table column", "date now"),
                    pgettext("command table column", "moves to"),
                    pgettext("command table column", "bookings"),
                )
            ]
            rows += [
                (row.display, _moves_to(row, plan.timezone), bookings_text(row.bookings))
                for row in change.moves
            ]
            for line in table(rows):
                write(line)
        if change.stuck:
            write(
                _("Left where they are (no date of the rule to move to): %(count)d")
                % {"count": len(change.stuck)}
            )
            for line in table((row.display, "") for row in change.stuck):
                write(line)
        write(_("Plan hash: %(hash)s") % {"hash": plan.hash})
        write(_("Apply exactly this plan with:"))
        write(
            "  "
            + shlex.join([*COMMAND, "--series", str(series.pk), "--apply", "--hash", plan.hash])
        )

    def _apply_zones(
        self, changes: Sequence[ZoneDataChange], *, plan_hash: str | None, notify: str | None
    ) -> None:
        self._apply_each(
            changes,
            lambda series: apply_zone_data(series, plan_hash=plan_hash, notify=notify),
            self._zone_report,
            say_nothing=False,
        )

    def _zone_report(self, done: AppliedZoneData) -> None:
        change, applied = done.change, done.applied
        self.stdout.write(
            self.style.SUCCESS(
                _("Applied to %(series)s: its dates are placed with the zone data loaded now.")
                % {"series": _series_name(change.series)}
            )
        )
        planned = {row.id: row for row in change.moves}
        zone = change.zone
        self._dates(
            pgettext("a list of dates", "Moved"),
            [
                (planned[pk].display, "-> " + _moves_to(planned[pk], zone))
                for pk in applied.moved
                if pk in planned
            ],
            always=True,
        )
        self._dates(
            _("Kept because booked"),
            [(date.display, "") for date in applied.kept_booked],
        )
        self._dates(
            pgettext("a list of dates", "Created"),
            [(describe_instant(event.occurrence_start, zone), "") for event in applied.created],
            always=True,
        )


def _moves_to(row: PlannedOccurrence, zone: str) -> str:
    return describe_instant(row.moves_to, zone) if row.moves_to is not None else "-"
