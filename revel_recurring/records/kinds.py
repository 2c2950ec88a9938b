"""Every kind of operation a series' history records, with the label a person reads.

Kinds are short stable strings, stored in ``SeriesOperation.kind`` and sent as
the ``kind`` of ``series_dates_changed``; the labels are for the admin and the
API (read through :func:`revel_recurring.history.kind_label`). A new kind is
added here (and in docs/howto/history.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

#: Kind -> its label. In the order a reader meets them in a series' life.
KINDS: Mapping[str, Promise] = {
    "create": pgettext_lazy("operation", "created"),
    "generate": pgettext_lazy("operation", "dates generated"),
    "edit": pgettext_lazy("operation", "settings edited"),
    "move": pgettext_lazy("operation", "dates moved"),
    "plan": pgettext_lazy("operation", "plan applied"),
    "holidays": pgettext_lazy("operation", "holiday policy"),
    "holiday_data": pgettext_lazy("operation", "holiday data applied"),
    "zone_data": pgettext_lazy("operation", "time-zone data applied"),
    "split": pgettext_lazy("operation", "split"),
    "cancel": pgettext_lazy("operation", "date cancelled"),
    "restore": pgettext_lazy("operation", "date restored"),
    "cancel_stale": pgettext_lazy("operation", "stale dates cancelled"),
    "extra_date": pgettext_lazy("operation", "extra dates"),
    "materialize": pgettext_lazy("operation", "date made ahead of the window"),
    "pause": pgettext_lazy("operation", "paused"),
    "resume": pgettext_lazy("operation", "resumed"),
    "template": pgettext_lazy("operation", "template propagated"),
    "delete": pgettext_lazy("operation", "deleted"),
    "revert": pgettext_lazy("operation", "reverted"),
    "enrolment": pgettext_lazy("operation", "enrolled users booked"),
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
    "api": _("API"),
    "admin": _("admin"),
    "command": _("command"),
    "task": _("task"),
    "code": _("code"),
}


__all__ = ["FACES", "KINDS", "ROW_CHANGES"]
