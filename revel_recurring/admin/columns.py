"""What the series list and the change page show of a series beside its fields."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from ..describe import describe_series
from ..models import EventSeries
from ..services.drift import detect_cadence_drift
from .operations import local_label

if TYPE_CHECKING:
    _Base = admin.ModelAdmin[EventSeries]
else:
    _Base = admin.ModelAdmin


class SeriesColumnsMixin(_Base):
    """The computed columns and read-only fields, each in the series' own zone."""

    @admin.display(description=gettext_lazy("rule"))
    def rule_description(self, obj: EventSeries) -> str:
        rule = obj.recurrence_rule
        # The series' dates: the rule with its extra dates and holidays.
        return describe_series(obj, rule) if rule is not None else "—"

    @admin.display(description=gettext_lazy("rule as iCalendar text (RRULE)"))
    def rrule_string(self, obj: EventSeries) -> str:
        rule = obj.recurrence_rule
        return format_html("<code>{}</code>", rule.rrule_string) if rule is not None else "—"

    @admin.display(description=gettext_lazy("dates numbered so far (a number is never reused)"))
    def occurrence_numbers(self, obj: EventSeries) -> int:
        return int(obj.last_occurrence_index)

    def _local(self, obj: EventSeries, value: dt.datetime | None) -> str:
        return "—" if value is None else local_label(obj, value)

    @admin.display(description=gettext_lazy("dates created up to"))
    def cursor(self, obj: EventSeries) -> str:
        return self._local(obj, obj.last_generated_until)

    @admin.display(description=gettext_lazy("next dates added on"), ordering="next_due_at")
    def next_due_local(self, obj: EventSeries) -> str:
        return self._local(obj, obj.next_due_at)

    @admin.display(description=gettext_lazy("cancelled dates"))
    def exdates_local(self, obj: EventSeries) -> str:
        instants = sorted(obj.exdate_instants)
        if not instants:
            return "—"
        return format_html_join(
            ", ", "<span>{}</span>", ((self._local(obj, value),) for value in instants)
        )

    @admin.display(description=gettext_lazy("next occurrence"), ordering="revel_next")
    def next_occurrence(self, obj: EventSeries) -> str:
        return self._local(obj, getattr(obj, "revel_next", None))

    @admin.display(description=gettext_lazy("upcoming"), ordering="revel_upcoming")
    def upcoming_count(self, obj: EventSeries) -> int:
        return int(getattr(obj, "revel_upcoming", 0))

    @admin.display(
        description=pgettext_lazy("the series list's column", "state"), ordering="is_active"
    )
    def state(self, obj: EventSeries) -> str:
        """Active or paused; parked (since when and why, cut for the list) when parked.

        One column for both: at a laptop's width the list has no room for two.
        """
        if obj.parked_at is None:
            return _("Active") if obj.is_active else _("Paused")
        reason = obj.parked_reason
        short = reason if len(reason) <= 80 else reason[:79] + "…"
        return _("Parked since %(when)s: %(reason)s") % {
            "when": self._local(obj, obj.parked_at),
            "reason": short,
        }

    @admin.display(description=gettext_lazy("drifted"))
    def drifted_count(self, obj: EventSeries) -> int:
        count = getattr(obj, "revel_drifted_count", None)
        return len(detect_cadence_drift(obj)) if count is None else int(count)
