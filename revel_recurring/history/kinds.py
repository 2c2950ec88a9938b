"""Every kind of operation a series' history records, with the label a person reads.

Kinds are short stable strings, stored in ``SeriesOperation.kind`` and sent as
the ``kind`` of ``series_dates_changed``; the labels are for the admin and the
API. A new kind is added here (and in docs/howto/history.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.functional import Promise
from django.utils.translation import pgettext_lazy

#: Kind -> its label. In the order a reader meets them in a series' life.
KINDS: Mapping[str, Promise] = {
    "create": pgettext_lazy("operation kind", "Series created"),
    "generate": pgettext_lazy("operation kind", "Dates generated"),
    "edit": pgettext_lazy("operation kind", "Settings edited"),
    "move": pgettext_lazy("operation kind", "Schedule changed"),
    "plan": pgettext_lazy("operation kind", "Plan applied"),
    "holidays": pgettext_lazy("operation kind", "Holiday settings changed"),
    "holiday_data": pgettext_lazy("operation kind", "Holiday data applied"),
    "zone_data": pgettext_lazy("operation kind", "Time zone data applied"),
    "split": pgettext_lazy("operation kind", "Series split"),
    "cancel": pgettext_lazy("operation kind", "Date cancelled"),
    "restore": pgettext_lazy("operation kind", "Date restored"),
    "cancel_stale": pgettext_lazy("operation kind", "Dates off the schedule cancelled"),
    "extra_date": pgettext_lazy("operation kind", "Extra dates changed"),
    "pause": pgettext_lazy("operation kind", "Series paused"),
    "resume": pgettext_lazy("operation kind", "Series resumed"),
    "template": pgettext_lazy("operation kind", "Template changes copied to dates"),
    "delete": pgettext_lazy("operation kind", "Series deleted"),
    "revert": pgettext_lazy("operation kind", "Operation reverted"),
    "enrolment": pgettext_lazy("operation kind", "Enrolled users booked"),
}

#: What an :class:`~revel_recurring.models.OperationRow` says happened to its row.
ROW_CHANGES: Mapping[str, Promise] = {
    "created": pgettext_lazy("row change", "created"),
    "moved": pgettext_lazy("row change", "moved"),
    "cancelled": pgettext_lazy("row change", "cancelled"),
    "restored": pgettext_lazy("row change", "restored"),
    "published": pgettext_lazy("row change", "published"),
    "renamed": pgettext_lazy("row change", "renamed"),
    "edited": pgettext_lazy("row change", "edited"),
    "deleted": pgettext_lazy("row change", "deleted"),
}

#: The faces a change is made through (``SeriesOperation.face``).
FACES: Mapping[str, Promise] = {
    "api": pgettext_lazy("operation face", "API"),
    "admin": pgettext_lazy("operation face", "admin"),
    "command": pgettext_lazy("operation face", "command"),
    "task": pgettext_lazy("operation face", "task"),
    "code": pgettext_lazy("operation face", "code"),
}


def kind_label(kind: str) -> str:
    """The label of ``kind``; the kind itself when it is unknown (a newer version wrote it)."""
    label = KINDS.get(kind)
    return kind if label is None else str(label)


__all__ = ["FACES", "KINDS", "ROW_CHANGES", "kind_label"]
