"""The change page's buttons (generate, pause, resume, cancel / restore a date, add /
remove an extra date, and "Cancel stale dates", whose page ``stale.py`` shares with
the changelist action)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path, reverse
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_POST

from ..models import EventSeries
from .clock import current_time as _now
from .operations import add_date, change_date, generate_now, pause, remove_date, resume
from .refused_dates import ANCHOR as REFUSED_ANCHOR
from .refused_dates import keep_refused_date
from .selection import Selection
from .stale import CancelStaleMixin
from .telling import posted_notify


class SeriesButtonsMixin(CancelStaleMixin):
    """Per-series views behind the change page's buttons; each runs one operation."""

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        routes = [
            ("generate", self.generate_view),
            ("pause", self.pause_view),
            ("resume", self.resume_view),
            ("cancel-stale", self.cancel_stale_view),
            ("cancel-date", self.cancel_date_view),
            ("restore-date", self.restore_date_view),
            ("add-date", self.add_date_view),
            ("remove-date", self.remove_date_view),
        ]
        own = [
            path(f"<path:object_id>/{route}/", wrap(view), name=f"{name}_{route.replace('-', '_')}")
            for route, view in routes
        ]
        return own + super().get_urls()

    def _series_for_operation(self, request: HttpRequest, object_id: str) -> EventSeries:
        series = get_object_or_404(
            self.get_queryset(request).select_related("recurrence_rule"), pk=object_id
        )
        if not self.has_change_permission(request, series):
            raise PermissionDenied
        return series

    def _back(self, series: EventSeries, *, anchor: str = "") -> HttpResponse:
        url = reverse(
            f"admin:{self.opts.app_label}_{self.opts.model_name}_change",
            args=[series.pk],
            current_app=self.admin_site.name,
        )
        return HttpResponseRedirect(f"{url}#{anchor}" if anchor else url)

    @method_decorator(require_POST)
    def generate_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        generate_now(request, series, now=_now())
        return self._back(series)

    @method_decorator(require_POST)
    def pause_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        pause(request, series, now=_now())
        return self._back(series)

    @method_decorator(require_POST)
    def resume_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        resume(request, series, now=_now())
        return self._back(series)

    def cancel_stale_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        response = self._cancel_stale(request, Selection([series.pk]), from_action=False)
        return response if response is not None else self._back(series)

    @method_decorator(require_POST)
    def cancel_date_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self._change_date(request, object_id, cancel=True)

    @method_decorator(require_POST)
    def restore_date_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self._change_date(request, object_id, cancel=False)

    def _change_date(self, request: HttpRequest, object_id: str, *, cancel: bool) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        change_date(
            request,
            series,
            request.POST.get("instant", ""),
            cancel=cancel,
            include_booked=cancel and request.POST.get("include_booked") == "yes",
            notify=posted_notify(request.POST),
            now=_now(),
        )
        return self._back(series)

    @method_decorator(require_POST)
    def add_date_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        form = add_date(request, series, request.POST, now=_now())
        if form.errors:
            keep_refused_date(request, series, form)
            return self._back(series, anchor=REFUSED_ANCHOR)
        return self._back(series)

    @method_decorator(require_POST)
    def remove_date_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        remove_date(request, series, request.POST.get("instant", ""), now=_now())
        return self._back(series)
