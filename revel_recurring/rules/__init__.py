"""Pure recurrence maths: rule fields and bounds in, UTC instants out.

No ORM imports live here, so every function can be tested (and fuzzed) without a
database. The DST policy of the whole app is implemented in :func:`localize`.

Occurrences are computed on the *wall clock* of the rule's zone with dateutil
working on naive datetimes, then each wall-clock time is turned into an instant:

* a time inside a spring-forward gap is shifted forward by the gap (RFC 5545
  §3.3.5: 02:30 on the gap day becomes 03:30) and still counts as an instance;
* an ambiguous time on a fall-back day takes the first instant (``fold=0``).

Every comparison (bounds, UNTIL, exdates) is then made on UTC instants.

The rule's fields and :class:`RuleSpec` are in ``spec``, the DST policy in
``clock``, the rule in dateutil's and RFC 5545's terms in ``rrule``, its dates in
``occurrences``, the stored form of an instant in ``stored``, the period an instant falls in in
``periods``. Import from here.
"""

from __future__ import annotations

from .clock import UTC, fold_twin, is_aware, localize, to_utc
from .occurrences import (
    first_occurrence_after,
    is_occurrence,
    iter_occurrences,
    occurrences_between,
    rule_only,
    window_and_next,
    with_extra_dates,
)
from .periods import SPAN_CAP, period_of, period_span
from .rrule import _DU_WEEKDAYS as _DU_WEEKDAYS  # the iCalendar import reads a BYDAY
from .rrule import _ICAL_WEEKDAYS as _ICAL_WEEKDAYS  # with the same two tables
from .rrule import build_rrule, to_rrule_string
from .spec import (
    FIELDS_USED_BY,
    OPTIONAL_RULE_FIELDS,
    RULE_FIELDS,
    UNSET_RULE_VALUES,
    Frequency,
    MonthlyType,
    RuleSpec,
)
from .stored import exdate_instants, format_instant, normalize_exdates, parse_instant, split_stored

__all__ = [
    "FIELDS_USED_BY",
    "OPTIONAL_RULE_FIELDS",
    "RULE_FIELDS",
    "SPAN_CAP",
    "UNSET_RULE_VALUES",
    "UTC",
    "Frequency",
    "MonthlyType",
    "RuleSpec",
    "build_rrule",
    "exdate_instants",
    "first_occurrence_after",
    "fold_twin",
    "format_instant",
    "is_aware",
    "is_occurrence",
    "iter_occurrences",
    "localize",
    "normalize_exdates",
    "occurrences_between",
    "parse_instant",
    "period_of",
    "period_span",
    "rule_only",
    "split_stored",
    "to_rrule_string",
    "to_utc",
    "window_and_next",
    "with_extra_dates",
]
