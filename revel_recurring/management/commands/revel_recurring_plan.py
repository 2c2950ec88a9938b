"""``manage.py revel_recurring_plan``: show what a change of the rule, the window or the
extra dates would do, then apply it."""

from __future__ import annotations

import datetime as dt
import shlex
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

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
    ExcludedBecause,
    PlannedDate,
    PlannedOccurrence,
    RecurrencePlan,
    apply_recurrence_plan,
    plan_recurrence_change,
)
from ...services.plans.compute import holiday_data_changed
from ..output import TranslatedCommand, bookings_text, error_line, table

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
        raise CommandError(
            _("--set %(text)s: write it as name=value, e.g. weekdays=0,2.") % {"text": repr(text)}
        )
    if name not in SETTABLE:
        raise CommandError(
            _("--set %(name)s: not a field you can change; use %(fields)s.")
            % {"name": name, "fields": ", ".join(SETTABLE)}
        )
    if not raw:
        if name in _CLEARABLE:
            return name, _CLEARED[name]
        raise CommandError(
            _("--set %(name)s: give a value; only %(fields)s clear.")
            % {"name": name, "fields": ", ".join(sorted(_CLEARABLE))}
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
        raise CommandError(
            _("--set %(name)s=%(value)s: %(error)s")
            % {"name": name, "value": raw, "error": exc.message}
        ) from None


def _whole(name: str, raw: str) -> int:
    try:
        return int(raw.strip())
    except ValueError:
        values = {"name": name, "value": repr(raw.strip())}
        if name == "weekdays":
            message = _(
                "--set %(name)s: %(value)s is not a whole number (a comma list such as 0,2; "
                "0 = Monday .. 6 = Sunday)."
            )
        else:
            message = _("--set %(name)s: %(value)s is not a whole number.")
        raise CommandError(message % values) from None


def _reason(date: PlannedDate) -> str:
    """Why a date of the new rule is skipped, in words (the API gives the stable value)."""
    if date.reason == ExcludedBecause.HOLIDAY and date.holiday:
        return _("holiday: %(holiday)s") % {"holiday": date.holiday}
    labels = {
        ExcludedBecause.CANCELLED: pgettext("why a date is skipped", "cancelled"),
        ExcludedBecause.EXDATE: pgettext("why a date is skipped", "excluded"),
        ExcludedBecause.HOLIDAY: pgettext("why a date is skipped", "holiday"),
    }
    return labels.get(date.reason, str(date.reason)) if date.reason else ""


class Command(TranslatedCommand):
    help = gettext_lazy(  # type: ignore[assignment]
        "Show what changing a series' rule, window or extra dates would do to its upcoming "
        "dates and bookings (nothing is written); with --apply HASH, apply exactly that plan."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("series", metavar="SERIES", help=_("The series' id or slug."))
        parser.add_argument(
            "--set",
            dest="changes",
            action="append",
            default=[],
            metavar="FIELD=VALUE",
            help=_(
                "A rule field, generation_window_weeks or extra_dates to change, e.g. "
                "weekdays=0,2, interval=2, until=2027-06-30T18:00:00+02:00 (until= clears "
                "it), timezone=Europe/Vienna, extra_dates=2027-12-19T10:00:00+01:00,... "
                "(the whole new set; extra_dates= removes them all). Repeat for several."
            ),
        )
        parser.add_argument(
            "--apply", metavar="HASH", help=_("Apply the plan this hash was printed for.")
        )
        parser.add_argument(
            "--cancel-drift",
            default="none",
            help=_(
                "With --apply: cancel the dates that no longer fit: none (default), "
                "unbooked (booked dates are kept and named) or all (booked ones too)."
            ),
        )
        parser.add_argument(
            "--notify",
            choices=("all", "none"),
            default=None,
            help=_(
                "With --apply: tell the people booked on the dates that change (all) or "
                "nobody (none); REVEL_RECURRING_NOTIFY_PEOPLE by default."
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        # What was typed is checked before the database is asked anything.
        changes: dict[str, Any] = {}
        for text in options["changes"]:
            name, value = parse_setting(text)
            if name in changes:
                raise CommandError(_("--set %(name)s: given twice.") % {"name": name})
            changes[name] = value
        cancel_drift = options["cancel_drift"]
        if cancel_drift not in CANCEL_DRIFT_MODES:
            raise CommandError(
                _("--cancel-drift: choose one of %(modes)s, got %(value)s.")
                % {"modes": ", ".join(CANCEL_DRIFT_MODES), "value": repr(cancel_drift)}
            )
        series = self._series(options["series"])
        self._command = self._command_line(options)
        try:
            if options["apply"] is None:
                self._show(series, plan_recurrence_change(series, changes))
                return
            applied = apply_recurrence_plan(
                series,
                options["apply"],
                changes,
                cancel_drift=cancel_drift,
                notify=options["notify"],
            )
        except PlanOutdatedError as exc:
            self.stdout.write(
                self.style.WARNING(
                    _(
                        "%(name)s changed since that plan was made; nothing was applied. "
                        "The plan as it stands now:"
                    )
                    % {"name": series.name}
                )
            )
            self._show(series, exc.plan)
            raise CommandError(
                _("Plan %(hash)s is outdated; review the plan above and apply its hash %(new)s.")
                % {"hash": options["apply"], "new": exc.plan.hash}
            ) from None
        except (ValidationError, RecurrenceError) as exc:
            raise CommandError(error_line(exc)) from None
        self._report(series, applied)

    def _series(self, key: str) -> EventSeries:
        queryset = EventSeries.objects.all()
        found = queryset.filter(pk=int(key)) if key.isdigit() else queryset.filter(slug=key)
        series = found.first()
        if series is None:
            raise CommandError(_("No series has the id or slug %(key)s.") % {"key": repr(key)})
        return series

    def _command_line(self, options: dict[str, Any]) -> list[str]:
        words = ["python", "manage.py", "revel_recurring_plan", options["series"]]
        for text in options["changes"]:
            words += ["--set", text]
        return words

    def _show(self, series: EventSeries, plan: RecurrencePlan) -> None:
        write = self.stdout.write
        write(_("Plan for %(name)s (series %(id)s)") % {"name": series.name, "id": series.pk})
        write("  " + _("Rule: %(rule)s") % {"rule": plan.description})
        if plan.changed:
            write("  " + _("Changes: %(fields)s") % {"fields": ", ".join(sorted(plan.changed))})
        else:
            write("  " + _("Changes: none (the rule, window and extra dates are already so)"))
        if plan.cursor_reset and not plan.changed and holiday_data_changed(series):
            write(
                "  "
                + _(
                    "Generation cursor: resets; the dates were placed with holidays "
                    "%(stored)s, %(installed)s is installed"
                )
                % {
                    "stored": series.holidays_version or _("(unknown)"),
                    "installed": data_version(),
                }
            )
        elif plan.cursor_reset:
            write(
                "  "
                + _("Generation cursor: resets; the window is generated again under the new rule")
            )
        else:
            write("  " + _("Generation cursor: kept"))
        write(
            "  "
            + ngettext(
                "Window: %(weeks)d week, up to %(horizon)s",
                "Window: %(weeks)d weeks, up to %(horizon)s",
                plan.generation_window_weeks,
            )
            % {
                "weeks": plan.generation_window_weeks,
                "horizon": describe_instant(plan.horizon, plan.timezone),
            }
        )
        self._occurrences(_("Stay"), plan.stay)
        self._occurrences(_("Drift (no longer fit the rule)"), plan.drift, zone=plan.timezone)
        self._dates(_("New (created on apply)"), [(d.display, "") for d in plan.new])
        self._dates(
            _("Skipped (excluded dates of the new rule)"),
            [(d.display, _reason(d)) for d in plan.excluded],
        )
        write("")
        write(_("Plan hash: %(hash)s") % {"hash": plan.hash})
        booked = len(plan.booked_drift)
        unbooked = len(
            [
                row
                for row in plan.drift
                if not row.booked and not row.is_modified and row.moves_to is None
            ]
        )
        write(_("Apply exactly this plan with:"))
        write("  " + shlex.join([*self._command, "--apply", plan.hash]))
        if plan.drift:
            # Two counts, so two sentences, each with its own plural.
            write(
                "  "
                + ngettext(
                    "Drifted dates without bookings that have a new date move to it. Add "
                    "--cancel-drift unbooked to cancel the %(count)d drifted date without "
                    "bookings that has none, or --cancel-drift all.",
                    "Drifted dates without bookings that have a new date move to it. Add "
                    "--cancel-drift unbooked to cancel the %(count)d drifted dates without "
                    "bookings that have none, or --cancel-drift all.",
                    unbooked,
                )
                % {"count": unbooked}
                + " "
                + ngettext(
                    "Without --cancel-drift all, %(count)d booked date is kept where it is.",
                    "Without --cancel-drift all, %(count)d booked dates are kept where they are.",
                    booked,
                )
                % {"count": booked}
            )

    def _occurrences(
        self, title: str, rows: Sequence[PlannedOccurrence], *, zone: str | None = None
    ) -> None:
        """A table of ``rows``; with ``zone`` (drift), each one's fate besides."""
        self.stdout.write("")
        self.stdout.write(_("%(title)s: %(count)d") % {"title": title, "count": len(rows)})
        if rows:
            header: tuple[str, ...] = (
                pgettext("command table column", "date"),
                pgettext("command table column", "bookings"),
                pgettext("command table column", "modified"),
                pgettext("command table column", "id"),
            )
            if zone is not None:
                header += (pgettext("command table column", "fate"),)
            cells = [header] + [
                (
                    row.display,
                    bookings_text(row.bookings),
                    pgettext("modified", "yes") if row.is_modified else "-",
                    str(row.id),
                    *((_fate(row, zone),) if zone is not None else ()),
                )
                for row in rows
            ]
            for line in table(cells):
                self.stdout.write(line)

    def _dates(self, title: str, rows: Sequence[tuple[str, str]]) -> None:
        self.stdout.write("")
        self.stdout.write(_("%(title)s: %(count)d") % {"title": title, "count": len(rows)})
        if rows:
            for line in table(rows):
                self.stdout.write(line)

    def _report(self, series: EventSeries, applied: AppliedPlan) -> None:
        write = self.stdout.write
        zone = applied.plan.timezone
        values = {"name": series.name, "fields": ", ".join(sorted(applied.changed))}
        if applied.changed and applied.cursor_reset:
            message = _("Applied to %(name)s: %(fields)s changed; generation cursor reset.")
        elif applied.changed:
            message = _("Applied to %(name)s: %(fields)s changed.")
        else:
            message = _("Applied to %(name)s: the rule, window and extra dates were already so.")
        write(self.style.SUCCESS(message % values))
        write("  " + _("Rule: %(rule)s") % {"rule": applied.plan.description})
        displays = {row.id: row.display for row in applied.plan.drift}
        self._dates(
            pgettext("a list of dates", "Created"),
            [(describe_instant(event.occurrence_start, zone), "") for event in applied.created],
        )
        # The same rows at their new dates (a cancelled one stays cancelled there).
        moving = {row.id: row for row in (*applied.plan.drift, *applied.plan.cancelled_moves)}
        self._dates(
            pgettext("a list of dates", "Moved"),
            [
                (
                    moving[pk].display,
                    _("to %(date)s") % {"date": describe_instant(target, zone)},
                )
                for pk in applied.moved
                if pk in moving and (target := moving[pk].moves_to) is not None
            ],
        )
        self._dates(
            pgettext("a list of dates", "Cancelled"),
            [(displays[pk], "") for pk in applied.cancelled],
        )
        targets = {row.id: row.moves_to for row in applied.plan.drift if row.moves_to}
        self._dates(
            pgettext("a list of dates", "Moved"),
            [
                (displays[pk], "-> " + describe_instant(targets[pk], zone))
                for pk in applied.moved
                if pk in targets
            ],
        )
        bookings = {row.id: row.bookings for row in applied.plan.drift}
        self._dates(
            _("Kept because booked"),
            [
                (date.display, bookings_text(bookings.get(date.id, 0)))
                for date in applied.kept_booked
            ],
        )
        self._dates(
            _("Kept because moved or edited by hand"),
            [(row.display, "") for row in applied.kept_modified],
        )
        touched = {
            *applied.moved,
            *applied.cancelled,
            *(date.id for date in applied.kept_booked),
            *(row.id for row in applied.kept_modified),
        }
        left = [row for row in applied.plan.drift if row.id not in touched]
        if left:
            self._dates(
                _("Drifted dates left as they are (cancel them with --cancel-drift)"),
                [(row.display, bookings_text(row.bookings)) for row in left],
            )


def _fate(row: PlannedOccurrence, zone: str) -> str:
    """What applying does to a drifted date, in a word or two."""
    if row.is_modified:
        return pgettext("a drifted date's fate", "kept (edited by hand)")
    if row.moves_to is not None:
        return pgettext("a drifted date's fate", "moves to %(date)s") % {
            "date": describe_instant(row.moves_to, zone)
        }
    return pgettext("a drifted date's fate", "cancelled with --cancel-drift")
