"""The admin's "Revert": an operation of a series' history undone as a plan, then confirmed.

``<id>/history/<operation>/revert/`` shows the revert's plan (``plan_revert``): the
dates it puts back or removes with their bookings, the rule and settings it
restores, the continuation a reverted split deletes. Confirming posts the plan's
hash and applies exactly that plan (``apply_revert``); a plan outdated since is
shown again, fresh, with a message; a refusal says why on the series' page.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _

from ..context import acting
from ..exceptions import PlanOutdatedError, RecurrenceError
from ..history import kind_label, series_operations
from ..models import EventSeries, SeriesOperation
from ..services.revert import REVERTIBLE_KINDS, RevertPlan, apply_revert, plan_revert
from ..services.revert.result import REMOVE
from .buttons import SeriesButtonsMixin
from .clock import current_time as _now
from .operations import error_text
from .telling import posted_notify, telling_context

#: The hidden field carrying the hash of the plan shown.
REVERT_HASH = "plan_hash"


class SeriesRevertMixin(SeriesButtonsMixin):
    """``<id>/history/<operation>/revert/``: the revert's plan, and its confirmation."""

    def get_urls(self) -> list[URLPattern]:
        name = f"{self.opts.app_label}_{self.opts.model_name}_revert"
        own = [
            path(
                "<path:object_id>/history/<str:operation_id>/revert/",
                self.admin_site.admin_view(self.revert_view),
                name=name,
            )
        ]
        return own + super().get_urls()

    def revert_view(self, request: HttpRequest, object_id: str, operation_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        record = _operation_of(series, operation_id)
        if record is None:
            messages.error(
                request, _("No such operation in the history of %(name)s.") % {"name": series.name}
            )
            return self._to_history(series)
        now = _now()
        try:
            if request.method == "POST" and "_confirm" in request.POST:
                with acting(request.user, face="admin"):
                    result = apply_revert(
                        record,
                        plan_hash=request.POST.get(REVERT_HASH, ""),
                        notify=posted_notify(request.POST),
                        now=now,
                    )
                messages.success(
                    request, _reverted_text(series, record, result.restored, result.removed)
                )
                return self._to_history(series)
            plan = plan_revert(record, now=now)
        except PlanOutdatedError as exc:
            messages.warning(request, str(exc))
            plan = exc.plan
        except RecurrenceError as exc:
            messages.error(
                request,
                _("%(name)s: %(error)s") % {"name": series.name, "error": error_text(exc)},
            )
            return self._to_history(series)
        return TemplateResponse(
            request,
            "admin/revel_recurring/eventseries/revert.html",
            self._revert_context(request, series, record, plan),
        )

    def _to_history(self, series: EventSeries) -> HttpResponse:
        """Back to the series' history, where the revert was offered."""
        return HttpResponseRedirect(
            reverse(
                f"admin:{self.opts.app_label}_{self.opts.model_name}_history",
                args=[series.pk],
                current_app=self.admin_site.name,
            )
        )

    def _revert_context(
        self, request: HttpRequest, series: EventSeries, record: SeriesOperation, plan: RevertPlan
    ) -> dict[str, Any]:
        return {
            **self.admin_site.each_context(request),
            **telling_context(sum(1 for row in plan.rows if row.booked)),
            "opts": self.opts,
            "series": series,
            "operation": record,
            "operation_label": kind_label(record.kind),
            "plan": plan,
            "restored": [row for row in plan.rows if row.action != REMOVE],
            "removed": [row for row in plan.rows if row.action == REMOVE],
            "hash_name": REVERT_HASH,
            "title": _("Revert “%(kind)s” of %(name)s")
            % {"kind": kind_label(record.kind), "name": series.name},
            "step": _("Revert"),
        }


def revert_links(
    admin_site_name: str, opts: Any, series: EventSeries, operations: list[SeriesOperation]
) -> dict[Any, str]:
    """The revert page of each of ``operations`` that can be offered: a kind that can be
    undone, not reverted yet, the series' own (one query for the page)."""
    candidates = [
        operation.pk
        for operation in operations
        if operation.kind in REVERTIBLE_KINDS and operation.series_ref == series.pk
    ]
    if not candidates:
        return {}
    reverted = set(
        SeriesOperation.objects.filter(reverts_id__in=candidates).values_list(
            "reverts_id", flat=True
        )
    )
    return {
        pk: reverse(
            f"admin:{opts.app_label}_{opts.model_name}_revert",
            args=[series.pk, pk],
            current_app=admin_site_name,
        )
        for pk in candidates
        if pk not in reverted
    }


def _operation_of(series: EventSeries, operation_id: str) -> SeriesOperation | None:
    """An operation of the series' history by id (its own, or one naming it), or None."""
    try:
        key = uuid.UUID(str(operation_id))
    except ValueError:
        return None
    return series_operations(series.pk).filter(pk=key).first()


def _reverted_text(
    series: EventSeries, record: SeriesOperation, restored: list[Any], removed: list[Any]
) -> str:
    return _("%(name)s: “%(kind)s” reverted: %(restored)d dates put back, %(removed)d removed.") % {
        "name": series.name,
        "kind": kind_label(record.kind),
        "restored": len(restored),
        "removed": len(removed),
    }


__all__ = ["REVERT_HASH", "SeriesRevertMixin", "revert_links"]
