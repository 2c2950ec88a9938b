"""``manage.py revel_recurring_plan``: show what a change of the rule, the window or the
extra dates would do, then apply it."""

from __future__ import annotations

import datetime as dt
import shlex
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from ... import rules
from ...exceptions import PlanOutdatedError, RecurrenceError
from ...holiday_rules import data_version
from ...instants import InvalidInstantError, describe_instant, parse_aware_instant
from ...models import EventSeries
from ...services.plans import (
    CANCEL_DRIFT_MODES,
    EXTRA_DATES_KEY,
    WINDOW_KEY,
    AppliedPlan,
    PlannedOccurrence,
    RecurrencePlan,
    apply_recurrence_plan,
    plan_recurrence_change,
)
from ...services.plans.compute import holiday_data_changed
from ..output import bookings_text, error_line, table

SETTABLE = (*rules.RULE_FIELDS, WINDOW_KEY, EXTRA_DATES_KEY)
_WHOLE_NUMBERS = {"interval", "count", "day_of_month", "nth_weekday", "weekday", WINDOW_KEY}
# Fields an empty value clears; the others need one.
_CLEARABLE = {
    "count",
    "day_of_month",
    "nth_weekday",
    "weekday",
    "until",
    "weekdays",
    EXTRA_DATES_KEY,
}
_CLEARED: dict[str, Any] = {
    **rules.UNSET_RULE_VALUES,
    "count": None,
    "until": None,
    EXTRA_DATES_KEY: [],
}


def parse_setting(text: str) -> tuple[str, Any]:
    """One ``--set name=value`` as (field, value of the field's type); CommandError if not one."""
    name, sep, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    if not sep or not name:
        raise CommandError(f"--set {text!r}: write it as name=value, e.g. weekdays=0,2.")
    if name not in SETTABLE:
        raise CommandError(f"--set {name}: not a field you can change; use {', '.join(SETTABLE)}.")
    if not raw:
        if name in _CLEARABLE:
            return name, _CLEARED[name]
        raise CommandError(
            f"--set {name}: give a value; only {', '.join(sorted(_CLEARABLE))} clear."
        )
    if name == "weekdays":
        return name, [_whole(name, part) for part in raw.split(",")]
    if name in _WHOLE_NUMBERS:
        return name, _whole(name, raw)
    if name in ("dtstart", "until"):
        return name, _instant(name, raw)
    if name == EXTRA_DATES_KEY:
        return name, [_instant(name, part.strip()) for part in raw.split(",")]
    if name in ("frequency", "monthly_type"):
        return name, raw.upper()
    return name, raw


def _instant(name: str, raw: str) -> dt.datetime:
    try:
        return parse_aware_instant(raw)
    except InvalidInstantError as exc:
        raise CommandError(f"--set {name}={raw}: {exc.message}") from None


def _whole(name: str, raw: str) -> int:
    try:
        return int(raw.strip())
    except ValueError:
        hint = " (a comma list such as 0,2; 0 = Monday .. 6 = Sunday)" if name == "weekdays" else ""
        raise CommandError(f"--set {name}: {raw.strip()!r} is not a whole number{hint}.") from None


class Command(BaseCommand):
    help = (
        "Show what changing a series' rule, window or extra dates would do to its upcoming "
        "dates and bookings (nothing is written); with --apply HASH, apply exactly that plan."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("series", metavar="SERIES", help="The series' id or slug.")
        parser.add_argument(
            "--set",
            dest="changes",
            action="append",
            default=[],
            metavar="FIELD=VALUE",
            help=(
                "A rule field, generation_window_weeks or extra_dates to change, e.g. "
                "weekdays=0,2, interval=2, until=2027-06-30T18:00:00+02:00 (until= clears "
                "it), timezone=Europe/Vienna, extra_dates=2027-12-19T10:00:00+01:00,... "
                "(the whole new set; extra_dates= removes them all). Repeat for several."
            ),
        )
        parser.add_argument(
            "--apply", metavar="HASH", help="Apply the plan this hash was printed for."
        )
        parser.add_argument(
            "--cancel-drift",
            default="none",
            help=(
                "With --apply: cancel the dates that no longer fit: none (default), "
                "unbooked (booked dates are kept and named) or all (booked ones too)."
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        # What was typed is checked before the database is asked anything.
        changes: dict[str, Any] = {}
        for text in options["changes"]:
            name, value = parse_setting(text)
            if name in changes:
                raise CommandError(f"--set {name}: given twice.")
            changes[name] = value
        cancel_drift = options["cancel_drift"]
        if cancel_drift not in CANCEL_DRIFT_MODES:
            raise CommandError(
                f"--cancel-drift: choose one of {', '.join(CANCEL_DRIFT_MODES)}, "
                f"got {cancel_drift!r}."
            )
        series = self._series(options["series"])
        self._command = self._command_line(options)
        try:
            if options["apply"] is None:
                self._show(series, plan_recurrence_change(series, changes))
                return
            applied = apply_recurrence_plan(
                series, options["apply"], changes, cancel_drift=cancel_drift
            )
        except PlanOutdatedError as exc:
            self.stdout.write(
                self.style.WARNING(
                    f"{series.name} changed since that plan was made; nothing was applied. "
                    "The plan as it stands now:"
                )
            )
            self._show(series, exc.plan)
            raise CommandError(
                f"Plan {options['apply']} is outdated; review the plan above and apply "
                f"its hash {exc.plan.hash}."
            ) from None
        except (ValidationError, RecurrenceError) as exc:
            raise CommandError(error_line(exc)) from None
        self._report(series, applied)

    def _series(self, key: str) -> EventSeries:
        queryset = EventSeries.objects.all()
        found = queryset.filter(pk=int(key)) if key.isdigit() else queryset.filter(slug=key)
        series = found.first()
        if series is None:
            raise CommandError(f"No series has the id or slug {key!r}.")
        return series

    def _command_line(self, options: dict[str, Any]) -> list[str]:
        words = ["python", "manage.py", "revel_recurring_plan", options["series"]]
        for text in options["changes"]:
            words += ["--set", text]
        return words

    def _show(self, series: EventSeries, plan: RecurrencePlan) -> None:
        write = self.stdout.write
        write(f"Plan for {series.name} (series {series.pk})")
        write(f"  Rule: {plan.description}")
        if plan.changed:
            write(f"  Changes: {', '.join(sorted(plan.changed))}")
        else:
            write("  Changes: none (the rule, window and extra dates are already so)")
        if plan.cursor_reset and not plan.changed and holiday_data_changed(series):
            write(
                f"  Generation cursor: resets; the dates were placed with holidays "
                f"{series.holidays_version or '(unknown)'}, {data_version()} is installed"
            )
        elif plan.cursor_reset:
            write("  Generation cursor: resets; the window is generated again under the new rule")
        else:
            write("  Generation cursor: kept")
        write(
            f"  Window: {plan.generation_window_weeks} weeks, "
            f"up to {describe_instant(plan.horizon, plan.timezone)}"
        )
        self._occurrences("Stay", plan.stay)
        self._occurrences("Drift (no longer fit the rule)", plan.drift)
        self._dates("New (created on apply)", [(d.display, "") for d in plan.new])
        self._dates(
            "Skipped (excluded dates of the new rule)",
            [(d.display, str(d.reason)) for d in plan.excluded],
        )
        write("")
        write(f"Plan hash: {plan.hash}")
        booked = len(plan.booked_drift)
        unbooked = len([row for row in plan.drift if not row.booked and not row.is_modified])
        write("Apply exactly this plan with:")
        write("  " + shlex.join([*self._command, "--apply", plan.hash]))
        if plan.drift:
            write(
                f"  add --cancel-drift unbooked to cancel the {unbooked} drifted date(s) without "
                f"bookings (the {booked} booked one(s) are kept), or --cancel-drift all."
            )

    def _occurrences(self, title: str, rows: Sequence[PlannedOccurrence]) -> None:
        self.stdout.write("")
        self.stdout.write(f"{title}: {len(rows)}")
        if rows:
            cells = [("date", "bookings", "modified", "id")] + [
                (
                    row.display,
                    bookings_text(row.bookings),
                    "yes" if row.is_modified else "-",
                    str(row.id),
                )
                for row in rows
            ]
            for line in table(cells):
                self.stdout.write(line)

    def _dates(self, title: str, rows: Sequence[tuple[str, str]]) -> None:
        self.stdout.write("")
        self.stdout.write(f"{title}: {len(rows)}")
        if rows:
            for line in table(rows):
                self.stdout.write(line)

    def _report(self, series: EventSeries, applied: AppliedPlan) -> None:
        write = self.stdout.write
        zone = applied.plan.timezone
        if applied.changed:
            reset = "; generation cursor reset" if applied.cursor_reset else ""
            write(
                self.style.SUCCESS(
                    f"Applied to {series.name}: "
                    f"{', '.join(sorted(applied.changed))} changed{reset}."
                )
            )
        else:
            write(
                self.style.SUCCESS(
                    f"Applied to {series.name}: the rule, window and extra dates were already so."
                )
            )
        write(f"  Rule: {applied.plan.description}")
        displays = {row.id: row.display for row in applied.plan.drift}
        self._dates(
            "Created",
            [(describe_instant(event.occurrence_start, zone), "") for event in applied.created],
        )
        self._dates("Cancelled", [(displays[pk], "") for pk in applied.cancelled])
        bookings = {row.id: row.bookings for row in applied.plan.drift}
        self._dates(
            "Kept because booked",
            [
                (date.display, bookings_text(bookings.get(date.id, 0)))
                for date in applied.kept_booked
            ],
        )
        self._dates(
            "Kept because moved or edited by hand",
            [(row.display, "") for row in applied.kept_modified],
        )
        touched = {
            *applied.cancelled,
            *(date.id for date in applied.kept_booked),
            *(row.id for row in applied.kept_modified),
        }
        left = [row for row in applied.plan.drift if row.id not in touched]
        if left:
            self._dates(
                "Drifted dates left as they are (cancel them with --cancel-drift)",
                [(row.display, bookings_text(row.bookings)) for row in left],
            )
