"""What an admin bulk path may touch: the editable part of a changelist selection.

The changelist lists every series the user may *see*; the model permission the
admin checks for an action (``change`` / ``delete``) says nothing about which
series. Every bulk path (the actions, "delete selected" and its confirmation page)
keeps only what the adapter's ``get_editable_series`` allows and names the rest.
"""

from __future__ import annotations

from django.contrib import messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _

from ..adapter import get_adapter
from ..models import EventSeries


def editable_selection(request: HttpRequest, queryset: QuerySet[EventSeries]) -> list[EventSeries]:
    """The selected series ``request.user`` may change, in id order.

    A warning names every selected series left out. Two queries whatever the size of
    the selection: the selection, and its editable ids.
    """
    selected = list(queryset.select_related("recurrence_rule").order_by("pk"))
    editable = set(
        get_adapter()
        .get_editable_series(request.user)
        .filter(pk__in=[series.pk for series in selected])
        .values_list("pk", flat=True)
    )
    skipped = [series.name for series in selected if series.pk not in editable]
    if skipped:
        messages.warning(
            request,
            _("Skipped %(names)s: you may view but not change them; nothing done to them.")
            % {"names": ", ".join(skipped)},
        )
    return [series for series in selected if series.pk in editable]
