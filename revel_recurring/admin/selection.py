"""What an admin bulk path may touch: the editable part of a changelist selection.

The changelist lists every series the user may *see*; the model permission the
admin checks for an action (``change`` / ``delete``) says nothing about which
series. Every bulk path (the actions, "delete selected" and its confirmation page)
keeps only what the adapter's ``get_editable_series`` allows and names the rest.

A selection larger than ``REVEL_RECURRING_ADMIN_INLINE_LIMIT`` is *queued*: its
ids go to Celery in chunks and the request answers at once. The ids are read
here, in the request, under the user's scope, so queued work changes exactly
the series the user may change, and no series object is loaded to find them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..adapter import get_adapter
from ..conf import recurring_settings
from ..exceptions import QueueUnavailableError
from ..models import EventSeries
from ..services.queued_actions import drop_queued_action, open_queued_action
from ..tasks import send_fan_out

#: At most this many series are named in a message; the others are counted.
NAMED_SERIES_MAX = 10

#: The confirmation pages ("Cancel stale dates", "delete selected") list at most
#: this many series, and of each at most ``LISTED_DATES`` dates; the rest is counted.
LISTED_SERIES = 20
LISTED_DATES = 10

#: The hidden field a confirmation page re-posts when the selection was "select
#: all": the highest id it was shown, so a series created since is not included.
UP_TO_FIELD = "revel_up_to"


def names_phrase(names: list[str], total: int) -> str:
    """The first names, and how many more: "Yoga, Pilates and 9998 more"."""
    shown = ", ".join(names[:NAMED_SERIES_MAX])
    more = total - min(len(names), NAMED_SERIES_MAX)
    if more <= 0:
        return shown
    return ngettext("%(names)s and %(count)d more", "%(names)s and %(count)d more", more) % {
        "names": shown,
        "count": more,
    }


@dataclass(frozen=True)
class Selection:
    """The selected series the user may change, by id, ascending."""

    ids: list[int]
    #: Chosen with the list's "select all": the pages re-post that, not every id.
    across: bool = False
    #: The same series as a query (no id list), for reads over all of them.
    scope: QuerySet[EventSeries] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def queued(self) -> bool:
        """Whether the action goes to Celery instead of running in the request."""
        return len(self.ids) > recurring_settings.ADMIN_INLINE_LIMIT

    @property
    def up_to(self) -> int | None:
        return self.ids[-1] if self.ids else None

    def rows(self) -> QuerySet[EventSeries]:
        """The selected series as a queryset to filter by, without sending their ids."""
        if self.scope is not None:
            return self.scope
        return EventSeries.objects.filter(pk__in=self.ids)

    def series(self, ids: list[int] | None = None) -> list[EventSeries]:
        """The series (of ``ids``, default all of them) with their rules, in id order."""
        wanted = self.ids if ids is None else ids
        return list(
            EventSeries.objects.filter(pk__in=wanted)
            .select_related("recurrence_rule")
            .order_by("pk")
        )


def selected(request: HttpRequest, queryset: QuerySet[EventSeries]) -> Selection:
    """The selected series ``request.user`` may change; a warning names the others.

    One query whatever the size of the selection (each selected id with whether
    the adapter's ``get_editable_series`` holds it, as a subquery, so no id list
    is sent to the database), and one more for the first names of those left
    out, when some are. A confirmation page of a "select all" re-posts the
    highest id it showed (``UP_TO_FIELD``): series created since are not part of
    its selection.
    """
    across = request.POST.get("select_across") == "1"
    up_to = request.POST.get(UP_TO_FIELD, "")
    if across and up_to.isdigit():
        queryset = queryset.filter(pk__lte=int(up_to))
    editable = get_adapter().get_editable_series(request.user).values("pk")
    rows = (
        queryset.order_by("pk")
        .annotate(revel_editable=ExpressionWrapper(Q(pk__in=editable), output_field=BooleanField()))
        .values_list("pk", "revel_editable")
        .distinct()
    )
    ids: list[int] = []
    skipped: list[int] = []
    for pk, allowed in rows:
        (ids if allowed else skipped).append(pk)
    if skipped:
        first = skipped[:NAMED_SERIES_MAX]
        names = dict(EventSeries.objects.filter(pk__in=first).values_list("pk", "name"))
        messages.warning(
            request,
            _("Skipped %(names)s: you may view but not change them; nothing done to them.")
            % {"names": names_phrase([names[pk] for pk in first], len(skipped))},
        )
    scope = queryset.order_by().filter(pk__in=editable)
    return Selection(ids, across=across, scope=scope)


def editable_selection(request: HttpRequest, queryset: QuerySet[EventSeries]) -> list[EventSeries]:
    """The selected series ``request.user`` may change, in id order (see :func:`selected`)."""
    return selected(request, queryset).series()


def queue_action(
    request: HttpRequest,
    selection: Selection,
    task: Any,
    text: Any,
    *,
    label: str,
    action: str,
    **options: Any,
) -> bool:
    """Hand a selection over the inline limit to Celery; whether it was over the limit.

    One message whatever the size of the selection: ``fan_out_series_chunks``
    sends ``task`` once per chunk of ``REVEL_RECURRING_GENERATION_CHUNK_SIZE``
    ids, each with ``options`` and the id of the action's record (``action``, a
    ``QueuedAction.Action``; see :func:`open_record`), which the chunks complete
    and the series list shows. ``text`` (``%(count)d``: the series queued) is
    the message. When the broker cannot be reached nothing is sent, the record is
    dropped and an error message names the action (``label``) and the series that
    were not queued (:func:`report_not_queued`). A selection within the limit is
    left to the caller, which runs the action in the request.
    """
    if not selection.queued:
        return False
    record = open_record(request, selection, action)
    try:
        send_fan_out(task, selection.ids, queued_action=record, **options)
    except QueueUnavailableError:
        drop_queued_action(record)
        report_not_queued(request, selection, label)
        return True
    messages.info(request, text % {"count": len(selection)})
    return True


def open_record(request: HttpRequest, selection: Selection, action: str) -> int:
    """The id of a new record of ``action`` over ``selection``, queued by ``request.user``."""
    return open_queued_action(action, user=request.user, series_count=len(selection)).pk


def report_not_queued(request: HttpRequest, selection: Selection, label: str) -> None:
    """The error message of an action whose message the broker did not take.

    Names the action and the series (the first ten, the rest counted), and says
    that nothing was done to them: each queued action sends one message, so a
    refused one started nothing. The broker's address is in the log, not here.
    """
    first = selection.ids[:NAMED_SERIES_MAX]
    names = dict(EventSeries.objects.filter(pk__in=first).values_list("pk", "name"))
    count = len(selection)
    messages.error(
        request,
        ngettext(
            "Nothing was queued: the task queue could not be reached. “%(action)s” was "
            "not started for %(count)d series: %(names)s. Nothing was done to it; try "
            "again later.",
            "Nothing was queued: the task queue could not be reached. “%(action)s” was "
            "not started for %(count)d series: %(names)s. Nothing was done to them; try "
            "again later.",
            count,
        )
        % {
            "action": label,
            "count": count,
            "names": names_phrase([names[pk] for pk in first if pk in names], count),
        },
    )


def reposted(selection: Selection) -> dict[str, Any]:
    """What a confirmation page posts back to name the same selection."""
    if selection.across:
        return {"across": True, "up_to": selection.up_to, "ids": selection.ids[:1]}
    return {"across": False, "up_to": None, "ids": selection.ids}
