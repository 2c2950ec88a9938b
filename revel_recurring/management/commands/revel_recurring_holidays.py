"""``manage.py revel_recurring_holidays``: what newer holiday data changes, then apply it."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from ...exceptions import PlanOutdatedError, RecurrenceError
from ...holiday_rules import data_version
from ...instants import describe_instant
from ...models import EventSeries
from ...services.holiday_data import (
    AppliedHolidayData,
    HolidayDataChange,
    HolidayDrift,
    apply_holiday_data,
    series_changed_by_holiday_data,
)
from ..output import TranslatedCommand, bookings_text, error_line, table

COMMAND = ["python", "manage.py", "revel_recurring_holidays"]


class Command(TranslatedCommand):
    help = gettext_lazy(  # type: ignore[assignment]
        "List the series generated with another release of the holidays package whose "
        "dates the installed one changes (nothing is written); with --apply, apply the "
        "difference: dates a holiday now skips are cancelled unless booked, dates that "
        "appear are created."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--series", type=int, nargs="+", metavar="ID", help=_("Only these."))
        parser.add_argument(
            "--apply",
            action="store_true",
            help=_("Apply each series' plan (booked dates are kept and named)."),
        )
        parser.add_argument(
            "--hash",
            metavar="HASH",
            help=_("With --apply and one --series: apply only the plan this hash was printed for."),
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
        wanted: list[int] = options["series"] or []
        plan_hash: str | None = options["hash"]
        if plan_hash is not None and (not options["apply"] or len(wanted) != 1):
            raise CommandError(_("--hash: give it with --apply and exactly one --series ID."))
        queryset = EventSeries.objects.all()
        if wanted:
            queryset = queryset.filter(pk__in=wanted)
            missing = set(wanted) - set(queryset.values_list("pk", flat=True))
            if missing:
                raise CommandError(
                    ngettext(
                        "No series has id %(ids)s", "No series has the ids %(ids)s", len(missing)
                    )
                    % {"ids": ", ".join(map(str, sorted(missing)))}
                )
        now = timezone.now()
        changes = series_changed_by_holiday_data(queryset, now=now)
        if not changes:
            self.stdout.write(
                _(
                    "Every active series with a holiday calendar was generated with holidays "
                    "%(version)s, the installed release: nothing to do."
                )
                % {"version": data_version()}
            )
            return
        if options["apply"]:
            self._apply(changes, plan_hash=plan_hash, notify=options["notify"])
        else:
            self._show(changes)

    def _show(self, changes: Sequence[HolidayDataChange]) -> None:
        write = self.stdout.write
        changing = [change for change in changes if change.changes_dates]
        write(
            ngettext(
                "%(count)d series was generated with another release of holidays than the "
                "installed %(version)s; the dates of %(changing)d change.",
                "%(count)d series were generated with another release of holidays than the "
                "installed %(version)s; the dates of %(changing)d change.",
                len(changes),
            )
            % {"count": len(changes), "version": data_version(), "changing": len(changing)}
        )
        for change in changing:
            self._series(change)
        steady = [change for change in changes if not change.changes_dates]
        if steady:
            write("")
            write(
                _("No date changes (--apply records the installed release): %(count)d")
                % {"count": len(steady)}
            )
            for line in table(
                (_series_name(change.series), change.stored_version) for change in steady
            ):
                write(line)
        write("")
        write(_("Apply every plan above (each computed afresh, booked dates kept) with:"))
        write("  " + shlex.join([*COMMAND, "--apply"]))

    def _series(self, change: HolidayDataChange) -> None:
        write = self.stdout.write
        series, plan = change.series, change.plan
        write("")
        write(
            _("%(series)s: generated with holidays %(version)s")
            % {"series": _series_name(series), "version": change.stored_version or _("(unknown)")}
        )
        write("  " + _("Rule: %(rule)s") % {"rule": plan.description})
        write("")
        write(
            _("Drift (a holiday now skips or moves them): %(count)d") % {"count": len(change.drift)}
        )
        if change.drift:
            rows = [
                (
                    pgettext("command table column", "date"),
                    pgettext("command table column", "holiday"),
                    pgettext("command table column", "bookings"),
                    pgettext("command table column", "on apply"),
                )
            ]
            rows += [
                (
                    item.occurrence.display,
                    item.holiday or "-",
                    bookings_text(item.occurrence.bookings),
                    _on_apply(item),
                )
                for item in change.drift
            ]
            for line in table(rows):
                write(line)
        write("")
        write(_("New (created on apply): %(count)d") % {"count": len(change.appearing)})
        if change.appearing:
            for line in table(
                (
                    date.display,
                    (
                        _("moved here from %(date)s (%(holiday)s)")
                        % {
                            "date": describe_instant(date.shifted_from, plan.timezone),
                            "holiday": date.holiday,
                        }
                        if date.shifted_from is not None
                        else _("no holiday there any more")
                    ),
                )
                for date in change.appearing
            ):
                write(line)
        write("")
        write(_("Plan hash: %(hash)s") % {"hash": plan.hash})
        write(_("Apply exactly this plan with:"))
        write(
            "  "
            + shlex.join([*COMMAND, "--series", str(series.pk), "--apply", "--hash", plan.hash])
        )

    def _apply(
        self,
        changes: Sequence[HolidayDataChange],
        *,
        plan_hash: str | None,
        notify: str | None = None,
    ) -> None:
        self._apply_each(
            changes,
            lambda series: apply_holiday_data(series, plan_hash=plan_hash, notify=notify),
            self._report,
        )

    def _apply_each(
        self,
        changes: Sequence[Any],
        apply: Callable[[EventSeries], Any],
        report: Callable[[Any], None],
        *,
        say_nothing: bool = True,
    ) -> None:
        """Apply each change's plan with ``apply``; a series that fails is named and counted,
        the others go on; the command fails at the end when any did (shared with the
        time-zone data of ``revel_recurring_data``)."""
        failed = 0
        for change in changes:
            series = change.series
            try:
                done = apply(series)
            except PlanOutdatedError:
                failed += 1
                self.stdout.write(
                    self.style.WARNING(
                        _(
                            "%(series)s changed since that plan was made; nothing was applied. "
                            "Run the command again to see its plan as it stands now."
                        )
                        % {"series": _series_name(series)}
                    )
                )
                continue
            except (ValidationError, RecurrenceError) as exc:
                failed += 1
                self.stdout.write(
                    self.style.ERROR(
                        _("%(series)s: %(error)s")
                        % {"series": _series_name(series), "error": error_line(exc)}
                    )
                )
                continue
            if done is not None:
                report(done)
            elif say_nothing:
                self.stdout.write(
                    _("%(series)s: nothing to apply.") % {"series": _series_name(series)}
                )
        if failed:
            raise CommandError(
                ngettext(
                    "%(failed)d of %(count)d series was not applied.",
                    "%(failed)d of %(count)d series were not applied.",
                    failed,
                )
                % {"failed": failed, "count": len(changes)}
            )

    def _report(self, done: AppliedHolidayData) -> None:
        write = self.stdout.write
        change, applied = done.change, done.applied
        series, zone = change.series, applied.plan.timezone
        write(
            self.style.SUCCESS(
                _("Applied to %(series)s: its dates are placed with holidays %(version)s.")
                % {"series": _series_name(series), "version": data_version()}
            )
        )
        names = {item.occurrence.id: item.holiday for item in change.drift}
        # The plan applied was computed under the lock, its bookings counted then.
        planned = {row.id: row for row in applied.plan.drift}
        self._dates(
            pgettext("a list of dates", "Cancelled"),
            [(planned[pk].display, names.get(pk, "")) for pk in applied.cancelled],
            always=True,
        )
        self._dates(
            _("Kept because booked"),
            [
                (date.display, bookings_text(planned[date.id].bookings))
                for date in applied.kept_booked
            ],
        )
        self._dates(
            _("Kept because moved or edited by hand"),
            [(row.display, names[row.id]) for row in applied.kept_modified if row.id in names],
        )
        self._dates(
            _("Left on their day (policy shift: move each by hand to the day shown)"),
            [
                (item.occurrence.display, f"-> {item.moves_to_display}")
                for item in change.drift
                if not item.skipped
            ],
        )
        self._dates(
            pgettext("a list of dates", "Created"),
            [(describe_instant(event.occurrence_start, zone), "") for event in applied.created],
            always=True,
        )

    def _dates(self, title: str, rows: Sequence[tuple[str, str]], *, always: bool = False) -> None:
        if not rows and not always:
            return
        self.stdout.write("  " + _("%(title)s: %(count)d") % {"title": title, "count": len(rows)})
        if rows:
            for line in table(rows):
                self.stdout.write("  " + line)


def _series_name(series: EventSeries) -> str:
    return _("%(name)s (series %(id)s)") % {"name": series.name, "id": series.pk}


def _on_apply(item: HolidayDrift) -> str:
    if item.occurrence.is_modified:
        return _("kept (moved or edited by hand)")
    if not item.skipped:
        return _("kept: moves to %(date)s; move it by hand") % {"date": item.moves_to_display}
    if item.occurrence.booked:
        return _("kept (booked)")
    return _("cancelled")
