"""The series viewset: parse, call one service, map its errors, return fresh state.

No domain logic lives here. The actions come from small mixins in
:mod:`revel_recurring.api.actions` (lifecycle, occurrences, plans, splits,
template, enrolments, history); this module holds the series' own routes and names each action's
input serializer once, in :mod:`revel_recurring.api.bodies` beside the keys of its
errors: :meth:`SeriesViewSet.get_serializer_class` reads it for the views' ``_body()``
and drf-spectacular, :meth:`SeriesViewSet.handle_exception` (the only place a service
error becomes an answer, through ``errors.py``) reads the keys. Every action
validates its body, calls one service and serializes the result; reads that show
many rows use a constant number of queries per page.
"""

from __future__ import annotations

from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery
from django.http import Http404, HttpResponseBase
from django.utils import timezone
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema_view
from rest_framework import mixins, serializers, status
from rest_framework.decorators import action
from rest_framework.parsers import JSONParser
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from ..adapter import get_adapter
from ..ical import feed_revision, series_feed
from ..ical.responses import deleted_series_response, revision_response
from ..models import DeletedSeries, EventSeries, get_event_model
from ..querysets import upcoming_occurrences
from ..services.editing import update_series
from ..services.extra_dates import EXTRA_DATES_KEY
from ..services.lifecycle import create_recurring_series, delete_series
from . import serializers as s
from .acting import ActingMixin
from .actions.beyond_window import BeyondWindowActionsMixin
from .actions.enrolments import EnrolmentActionsMixin
from .actions.extra_dates import ExtraDateActionsMixin
from .actions.history import HistoryActionsMixin
from .actions.lifecycle import LifecycleActionsMixin
from .actions.occurrences import PREVIEW_MAX, OccurrenceActionsMixin
from .actions.plans import PlanActionsMixin
from .actions.revert import RevertActionsMixin
from .actions.splits import SplitActionsMixin
from .actions.template import TemplateActionMixin
from .bodies import ACTION_BODIES
from .errors import translate
from .filters import ActionFilterBackend, OccurrenceFilter, OperationFilter, SeriesFilter
from .metadata import ActionMetadata
from .pages import action_sentence, description_html
from .pagination import SeriesPagination
from .permissions import SeriesPermission
from .reads import moved_rows, occurrence_rows
from .renderers import ICalendarRenderer
from .schema import READ_ERRORS, error_responses, extend_schema


@extend_schema_view(
    list=extend_schema(
        summary="List the series you may see",
        responses={200: s.SeriesSerializer(many=True), **error_responses(400, 403, 404)},
    ),
    retrieve=extend_schema(
        summary="A series: rule, cursor, template summary, counts",
        responses={200: s.SeriesSerializer, **READ_ERRORS},
    ),
    create=extend_schema(
        summary="Create a series with its rule and template; generates the first window",
        responses={201: s.SeriesSerializer, **ACTION_BODIES["create"].responses()},
    ),
    partial_update=extend_schema(
        summary=(
            "Change name, description, rule, window, holidays or auto-publish; a rule, "
            "window or holiday change generates the new dates at once and names the "
            "drifted ones"
        ),
        responses={
            200: s.SeriesUpdateResultSerializer,
            **ACTION_BODIES["partial_update"].responses(),
        },
    ),
    destroy=extend_schema(
        summary="Delete a series, its template and occurrences (409 while any has bookings)",
        responses={204: None, **error_responses(403, 404, 409)},
    ),
)
class SeriesViewSet(
    ActingMixin,
    LifecycleActionsMixin,
    OccurrenceActionsMixin,
    ExtraDateActionsMixin,
    BeyondWindowActionsMixin,
    PlanActionsMixin,
    SplitActionsMixin,
    RevertActionsMixin,
    TemplateActionMixin,
    EnrolmentActionsMixin,
    HistoryActionsMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
):
    """Recurring event series: a rule, a template event and materialized occurrences."""

    schema = AutoSchema()
    metadata_class = ActionMetadata
    permission_classes = [SeriesPermission]
    parser_classes = [JSONParser]
    pagination_class = SeriesPagination
    filter_backends = [ActionFilterBackend]
    # The list's filters apply to the list only; occurrences/ has its own.
    filterset_classes = {
        "list": SeriesFilter,
        "occurrences": OccurrenceFilter,
        "operations": OperationFilter,
    }
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    # Any id reaches the view, which answers a JSON 404 for one it cannot find.
    lookup_value_regex = "[^/]+"

    def get_queryset(self) -> QuerySet[EventSeries]:
        model = get_event_model()
        start = model.RECURRING_START_FIELD
        upcoming = (
            upcoming_occurrences(
                model._default_manager.filter(series_id=OuterRef("pk")), now=timezone.now()
            )
            .order_by(start)
            .values(start)[:1]
        )
        return (
            get_adapter()
            .get_visible_series(self.request.user)
            # The halves of a split are shown as links: no query per row.
            .select_related("recurrence_rule", "split_from", "continued_by")
            .annotate(next_occurrence=Subquery(upcoming))
            .order_by("name", "pk")
        )

    def filter_queryset(self, queryset: QuerySet[EventSeries, Any]) -> QuerySet[EventSeries, Any]:
        if self.action != "list":
            # A detail route finds its series by id alone: `PATCH series/1/?is_active=false`
            # changes series 1 whatever its flags, and occurrences/ filters occurrences.
            return queryset
        filtered = super().filter_queryset(queryset)
        # The pk breaks ties (and stands in for an empty ?ordering=,), so pages never
        # overlap or skip rows.
        fields = [str(f) for f in filtered.query.order_by if f] or ["name"]
        return filtered.order_by(*fields, "pk")

    def get_serializer_class(self) -> type[serializers.BaseSerializer[Any]]:
        # The one place each action's input is named (api/bodies.py, beside the keys
        # of its errors): the views read their body through get_serializer()
        # (``_body()``) and drf-spectacular documents it from here. Everything else
        # shows the series.
        body = ACTION_BODIES.get(self.action or "")
        return body.serializer_class() if body is not None else s.SeriesSerializer

    def http_method_not_allowed(self, request: Any, *args: Any, **kwargs: Any) -> Response:
        # A person opening a POST-only action in the browsable API gets its page with
        # the POST form (200), as for every other page; JSON clients still get 405.
        posted = self.action_map.get("post")
        if (
            request.method == "GET"
            and posted
            and "get" not in self.action_map
            and isinstance(getattr(request, "accepted_renderer", None), BrowsableAPIRenderer)
        ):
            series = self.get_object()
            return Response(
                {
                    "detail": action_sentence(posted),
                    "series": self.reverse_action("detail", args=[series.pk]),
                }
            )
        return super().http_method_not_allowed(request, *args, **kwargs)

    def get_view_description(self, html: bool = False) -> str:
        # The action's docstring; on a page, its `code spans` drawn as code.
        text = super().get_view_description(html=False)
        return description_html(text) if html else text

    def handle_exception(self, exc: Exception) -> Response:
        # The only place a service error gets its status and body: no action
        # catches one. A ValidationError is keyed where the action's body sent it.
        body = ACTION_BODIES.get(self.action or "")
        keys = body.keys if body is not None else None
        return super().handle_exception(
            translate(
                exc,
                keys=keys,
                body=self.validated_body,
                plan=self.plan_request,
            )
        )

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        rows = list(page if page is not None else queryset)
        data = s.SeriesSerializer(rows, many=True, context=self._context(rows)).data
        return self.get_paginated_response(data) if page is not None else Response(data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        series = self.get_object()
        return Response(s.SeriesSerializer(series, context=self._context([series])).data)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self._body()
        rule_data = dict(data["recurrence"])
        extra_dates = rule_data.pop(EXTRA_DATES_KEY, None) or ()
        series = create_recurring_series(
            rule_data=rule_data,
            template_data=dict(data["template"]),
            name=data["name"],
            description=data.get("description", ""),
            auto_publish=data.get("auto_publish", False),
            generation_window_weeks=data.get("generation_window_weeks"),
            holidays=data.get("holidays"),
            extra_dates=extra_dates,
        )
        return Response(self._represent(series), status=status.HTTP_201_CREATED)

    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        series = self.get_object()
        data = self._body(partial=True, echoes=series)
        rule_changes = dict(data.get("recurrence") or {})
        extra_dates = rule_changes.pop(EXTRA_DATES_KEY, None)
        result = update_series(
            series,
            name=data.get("name"),
            description=data.get("description"),
            rule_changes=rule_changes,
            extra_dates=extra_dates,
            auto_publish=data.get("auto_publish"),
            generation_window_weeks=data.get("generation_window_weeks"),
            holidays=data.get("holidays"),
            generate=True,
            notify=data.get("notify"),
        )
        return Response(
            self._represent(
                series,
                cursor_reset=result.cursor_reset,
                created=occurrence_rows(result.created, series=series),
                moved=occurrence_rows(moved_rows(result.moved), series=series),
                drift=result.drift,
                generation_error=result.generation_error,
            )
        )

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        delete_series(self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="The series as an iCalendar (RFC 5545) file; drafts and cancellations left out",
        responses={
            (200, "text/calendar"): OpenApiResponse(
                OpenApiTypes.STR,
                description=(
                    "A VCALENDAR: the rule as one recurring VEVENT with its VTIMEZONE, "
                    "EXDATE lines for hidden slots, RECURRENCE-ID overrides for moved or "
                    "edited occurrences. ETag and Last-Modified are set; a conditional "
                    "GET of an unchanged series answers 304. For a series deleted less "
                    "than REVEL_RECURRING_DELETED_FEED_DAYS ago: a calendar without "
                    "events, so calendar apps remove its dates."
                ),
            ),
            410: OpenApiResponse(
                description=(
                    "The series was deleted more than REVEL_RECURRING_DELETED_FEED_DAYS ago."
                )
            ),
            **READ_ERRORS,
        },
    )
    @action(detail=True, methods=["get"], renderer_classes=[JSONRenderer, ICalendarRenderer])
    def ical(self, request: Request, pk: str | None = None) -> HttpResponseBase:
        """The series as iCalendar text (`text/calendar`), for calendar apps."""
        try:
            series = self.get_object()
        except Http404:
            # A deleted series' feed empties subscribers' calendars, then is gone.
            deleted = DeletedSeries.latest(series_pk=pk)
            if deleted is None:
                raise
            return deleted_series_response(request, deleted, filename=f"{deleted.slug}.ics")
        # A poll of an unchanged series is answered from one aggregate query.
        revision = feed_revision(EventSeries.objects.filter(pk=series.pk), name=series.name)
        return revision_response(
            request, revision, lambda: series_feed(series), filename=f"{series.slug}.ics"
        )


__all__ = ["PREVIEW_MAX", "SeriesViewSet"]
