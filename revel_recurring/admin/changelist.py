"""The series list: each page's drifted counts in one query, and the "parked" filter."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.views.main import ChangeList
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy

from ..services.drift import drifted_ids_by_series


def answers_an_action(request: HttpRequest) -> bool:
    """Whether Django's changelist view hands this request to an action.

    Such a request is answered by the action (its page, or a redirect back to the
    list), never by the list itself.
    """
    data = request.POST
    return (
        request.method == "POST"
        and "_save" not in data
        and ("index" in data or ACTION_CHECKBOX_NAME in data)
    )


class SeriesChangeList(ChangeList):
    """Adds each listed series' drifted count, computed for the whole page in one query."""

    def get_results(self, request: HttpRequest) -> None:
        if answers_an_action(request) and self.model_admin.get_actions(request):
            # Django would count the series and read a page of them only to drop
            # both: at 10,000 series that is most of an action request's time.
            self.result_count = 0
            self.full_result_count = None
            self.show_full_result_count = self.model_admin.show_full_result_count
            self.show_admin_actions = True
            self.result_list = []
            self.can_show_all = self.multi_page = False
            self.paginator = self.model_admin.get_paginator(
                request, self.queryset, self.list_per_page
            )
            return
        super().get_results(request)
        page = list(self.result_list)
        drifted = drifted_ids_by_series(page, now=timezone.now())
        for series in page:
            series.revel_drifted_count = len(drifted.get(series.pk, ()))
        self.result_list = page


class ParkedFilter(admin.SimpleListFilter):
    """Series the daily pass parked after a failure, and the others."""

    title = gettext_lazy("parked")
    parameter_name = "parked"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", gettext_lazy("Parked")), ("no", gettext_lazy("Generating"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(parked_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(parked_at__isnull=True)
        return queryset
