"""The series viewset: parse, call one service, map its errors, return fresh state.

No domain logic lives here. Domain errors become 4xx (``errors.py``), reads that
show many rows use a constant number of queries per page.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import Http404, HttpResponseBase
from django.utils import timezone
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.parsers import JSONParser
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from ..adapter import get_adapter
from ..host_model import bulky_fields
from ..ical import feed_revision, series_feed
from ..ical_http import deleted_series_response, revision_response
from ..models import DeletedSeries, EventSeries, get_event_model
from ..querysets import upcoming_occurrences
from ..services.bookings import booked_ids
from ..services.cancellation import cancel_occurrence, restore_occurrence
from ..services.drift import cancel_stale_occurrences, detect_cadence_drift
from ..services.generation import generate_series_events
from ..services.lifecycle import (
    create_recurring_series,
    delete_series,
    pause_series,
    resume_series,
    update_series_recurrence,
)
from ..services.propagation import update_template
from ..slots import upcoming_slots
from . import serializers as s
from .errors import create_errors, ical_create_errors, translate, update_errors
from .filters import ActionFilterBackend, OccurrenceFilter, SeriesFilter
from .pagination import OccurrencePagination, SeriesPagination
from .permissions import SeriesPermission
from .reads import SeriesExtras, changed_rows
from .renderers import ICalendarRenderer
from .schema import (
    OCCURRENCE_PARAMETERS,
    READ_ERRORS,
    WRITE_ERRORS,
    error_responses,
    extend_schema,
)

PREVIEW_MAX = 100


def _template_serializer_class() -> type[serializers.Serializer[Any]]:
    return get_adapter().get_template_serializer_class()


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
        request=s.SeriesCreateSerializer,
        responses={201: s.SeriesSerializer, **error_responses(400, 403, 409, 415)},
    ),
    partial_update=extend_schema(
        summary="Change name, description, rule, window or auto-publish",
        request=s.SeriesUpdateSerializer,
        responses={200: s.SeriesUpdateResultSerializer, **WRITE_ERRORS},
    ),
    destroy=extend_schema(
        summary="Delete a series, its template and occurrences (409 while any has bookings)",
        responses={204: None, **error_responses(403, 404, 409)},
    ),
)
class SeriesViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet[EventSeries],
):
    """Recurring event series: a rule, a template event and materialized occurrences."""

    schema = AutoSchema()
    permission_classes = [SeriesPermission]
    parser_classes = [JSONParser]
    pagination_class = SeriesPagination
    filter_backends = [ActionFilterBackend]
    # The list's filters apply to the list only; occurrences/ has its own.
    filterset_classes = {"list": SeriesFilter, "occurrences": OccurrenceFilter}
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
            .select_related("recurrence_rule")
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
        classes: dict[str | None, type[serializers.BaseSerializer[Any]]] = {
            "create": s.SeriesCreateSerializer,
            "partial_update": s.SeriesUpdateSerializer,
            "generate": s.GenerateRequestSerializer,
            "cancel_stale": s.CancelStaleRequestSerializer,
            "cancel_occurrence": s.CancelOccurrenceRequestSerializer,
            "restore_occurrence": s.OccurrenceInstantSerializer,
            "template": _template_serializer_class(),
        }
        return classes.get(self.action, s.SeriesSerializer)

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
                    "detail": f"POST to this page to {posted.replace('_', ' ')} the series.",
                    "series": self.reverse_action("detail", args=[series.pk]),
                }
            )
        return super().http_method_not_allowed(request, *args, **kwargs)

    def handle_exception(self, exc: Exception) -> Response:
        return super().handle_exception(translate(exc))

    # -- representation --------------------------------------------------------

    def _context(self, series: list[EventSeries]) -> dict[str, Any]:
        return {
            **self.get_serializer_context(),
            "extras": SeriesExtras.load([x.pk for x in series]),
        }

    def _fresh(self, series: EventSeries) -> EventSeries:
        return self.get_queryset().get(pk=series.pk)

    def _represent(self, series: EventSeries, **extra: Any) -> dict[str, Any]:
        fresh = self._fresh(series)
        for key, value in extra.items():
            setattr(fresh, key, value)
        serializer_class = s.SeriesUpdateResultSerializer if extra else s.SeriesSerializer
        return dict(serializer_class(fresh, context=self._context([fresh])).data)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        rows = list(page if page is not None else queryset)
        data = s.SeriesSerializer(rows, many=True, context=self._context(rows)).data
        return self.get_paginated_response(data) if page is not None else Response(data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        series = self.get_object()
        return Response(s.SeriesSerializer(series, context=self._context([series])).data)

    # -- writes ----------------------------------------------------------------

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = s.SeriesCreateSerializer(
            data=request.data, context=self.get_serializer_context()
        )
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        try:
            series = create_recurring_series(
                rule_data=dict(data["recurrence"]),
                template_data=dict(data["template"]),
                name=data["name"],
                description=data.get("description", ""),
                auto_publish=data.get("auto_publish", False),
                generation_window_weeks=data.get("generation_window_weeks"),
            )
        except DjangoValidationError as exc:
            sent = request.data.get("recurrence") if isinstance(request.data, dict) else None
            keyed = (
                ical_create_errors if isinstance(sent, dict) and "ical" in sent else create_errors
            )
            raise DRFValidationError(keyed(exc)) from exc
        return Response(self._represent(series), status=status.HTTP_201_CREATED)

    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        series = self.get_object()
        serializer = s.SeriesUpdateSerializer(
            data=request.data, partial=True, context=self.get_serializer_context()
        )
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        cursor_before = series.last_generated_until
        with transaction.atomic():
            try:
                updated = update_series_recurrence(
                    series,
                    rule_changes=dict(data.get("recurrence") or {}),
                    auto_publish=data.get("auto_publish"),
                    generation_window_weeks=data.get("generation_window_weeks"),
                )
            except DjangoValidationError as exc:
                raise DRFValidationError(update_errors(exc)) from exc
            names = [name for name in ("name", "description") if name in data]
            if names:
                # Single-row columns no service owns; update() leaves every other
                # column, which the services write under the series lock, alone.
                EventSeries.objects.filter(pk=series.pk).update(
                    **{name: data[name] for name in names}, updated_at=timezone.now()
                )
        cursor_reset = cursor_before is not None and updated.last_generated_until is None
        return Response(self._represent(series, cursor_reset=cursor_reset))

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        delete_series(self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    # -- actions ---------------------------------------------------------------

    @extend_schema(
        summary="Stop generating occurrences (idempotent)",
        request=None,
        responses={200: s.SeriesSerializer, **error_responses(403, 404)},
    )
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str | None = None) -> Response:
        """Stop generating occurrences; the materialized ones stay."""
        series = self.get_object()
        pause_series(series)
        return Response(self._represent(series))

    @extend_schema(
        summary="Generate again (idempotent); missed past dates are not created",
        request=None,
        responses={200: s.SeriesSerializer, **error_responses(403, 404)},
    )
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        """Generate again; dates missed while paused are not created."""
        series = self.get_object()
        resume_series(series)
        return Response(self._represent(series))

    @extend_schema(
        summary="Materialize the window now (or up to `until`); returns what was created",
        request=s.GenerateRequestSerializer,
        responses={200: s.GenerateResultSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def generate(self, request: Request, pk: str | None = None) -> Response:
        """Materialize the rolling window now, or up to `until`."""
        series = self.get_object()
        body = self._body(s.GenerateRequestSerializer)
        created = generate_series_events(series, until=body.get("until"))
        booked = booked_ids(created)
        return Response(
            {
                "created": s.occurrence_data(
                    s.OccurrenceRow.of(event, booked=event.pk in booked) for event in created
                ),
                "series": self._represent(series),
            }
        )

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

    @extend_schema(
        summary="Future unmodified occurrences that no longer fit the rule",
        responses={200: s.DriftSerializer, **READ_ERRORS},
    )
    @action(detail=True, methods=["get"])
    def drift(self, request: Request, pk: str | None = None) -> Response:
        """Future, unmodified occurrences that no longer fit the rule."""
        series = self.get_object()
        ids = detect_cadence_drift(series)
        light = series.occurrences().defer(*bulky_fields(get_event_model()))
        events = {e.pk: e for e in light.filter(pk__in=ids)}
        booked = booked_ids(events.values())
        rows = [
            s.OccurrenceRow.of(events[pk], drifted=True, booked=pk in booked)
            for pk in ids
            if pk in events
        ]
        return Response({"count": len(rows), "occurrences": s.occurrence_data(rows)})

    @extend_schema(
        summary=(
            "Cancel drifted occurrences (all, or those of `ids` that still drift); booked "
            "ones only with `include_booked`"
        ),
        request=s.CancelStaleRequestSerializer,
        responses={200: s.CancelStaleResultSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="cancel-stale")
    def cancel_stale(self, request: Request, pk: str | None = None) -> Response:
        """Cancel the drifted occurrences (all, or those of `ids`); booked ones are kept
        and named in `kept_booked` unless `include_booked` is true."""
        series = self.get_object()
        body = self._body(s.CancelStaleRequestSerializer)
        result = cancel_stale_occurrences(
            series, ids=body.get("ids"), include_booked=body["include_booked"]
        )
        return Response(
            {
                "cancelled": result.cancelled,
                "kept_booked": s.BookedDateSerializer(result.kept_booked, many=True).data,
                "series": self._represent(series),
            }
        )

    @extend_schema(
        summary=(
            "Cancel one occurrence slot (materialized or not yet); a booked one only with "
            "`include_booked` (409 naming its date otherwise)"
        ),
        request=s.CancelOccurrenceRequestSerializer,
        responses={200: s.OccurrenceActionResultSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="cancel-occurrence")
    def cancel_occurrence(self, request: Request, pk: str | None = None) -> Response:
        """Cancel one slot: `{"occurrence": "<aware ISO datetime>", "include_booked"?}`."""
        series = self.get_object()
        body = self._body(s.CancelOccurrenceRequestSerializer)
        event = cancel_occurrence(series, body["occurrence"], include_booked=body["include_booked"])
        return self._occurrence_result(series, event)

    @extend_schema(
        summary="Undo a cancellation (409 when the slot is not cancelled)",
        request=s.OccurrenceInstantSerializer,
        responses={200: s.OccurrenceActionResultSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="restore-occurrence")
    def restore_occurrence(self, request: Request, pk: str | None = None) -> Response:
        """Undo the cancellation of one slot."""
        series = self.get_object()
        body = self._body(s.OccurrenceInstantSerializer)
        event = restore_occurrence(series, body["occurrence"])
        return self._occurrence_result(series, event)

    @extend_schema(
        methods=["GET"],
        summary="The template event of the series",
        responses={200: _template_serializer_class(), **READ_ERRORS},
    )
    @extend_schema(
        methods=["PATCH"],
        summary="Change the template; `propagate` pushes propagatable fields to occurrences",
        parameters=[
            OpenApiParameter(
                "propagate",
                OpenApiTypes.STR,
                enum=["none", "future_unmodified", "all_future"],
                description=(
                    "`none` (default): the template only. `future_unmodified`: also future "
                    "occurrences not edited on their own. `all_future`: every future one. "
                    "With a scope, every field must be propagatable."
                ),
            )
        ],
        request=_template_serializer_class(),
        responses={
            200: inline_serializer(
                "TemplateUpdateResult",
                {
                    "template": _template_serializer_class()(),
                    "updated_occurrences": serializers.IntegerField(),
                },
            ),
            **WRITE_ERRORS,
        },
    )
    @action(detail=True, methods=["get", "patch"])
    def template(self, request: Request, pk: str | None = None) -> Response:
        """The template event; PATCH with `?propagate=` to reach occurrences."""
        series = self.get_object()
        template = series.get_template()
        if template is None:
            raise NotFound(f"Series {series.pk} has no template.")
        serializer_class = _template_serializer_class()
        context = self.get_serializer_context()
        if request.method == "GET":
            return Response(serializer_class(template, context=context).data)
        query = s.PropagateQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        scope = query.validated_data["propagate"]
        serializer = serializer_class(template, data=request.data, partial=True, context=context)
        serializer.is_valid(raise_exception=True)
        changes = dict(serializer.validated_data)
        # update_template refuses non-propagatable fields itself (keyed by field).
        updated = update_template(series, changes, propagate=scope)
        fresh = series.get_template()
        return Response(
            {
                "template": serializer_class(fresh, context=context).data,
                "updated_occurrences": updated,
            }
        )

    @extend_schema(
        summary="Materialized occurrences, pretix-style filters, tombstones with modified_since",
        parameters=OCCURRENCE_PARAMETERS,
        responses={200: s.OccurrenceSerializer(many=True), **error_responses(400, 403, 404)},
    )
    @action(detail=True, methods=["get"], pagination_class=OccurrencePagination)
    def occurrences(self, request: Request, pk: str | None = None) -> Response:
        """The materialized occurrences, with tombstones under `modified_since`."""
        series = self.get_object()
        now = timezone.now()
        model = get_event_model()
        # A row shows dates and states only: long texts copied from the template
        # stay in the database (memory per request does not grow with them).
        base = series.occurrences().defer(*bulky_fields(model))
        filterset = OccurrenceFilter(request.query_params, queryset=base, request=request)
        if not filterset.is_valid():
            raise DRFValidationError(filterset.errors)
        params = filterset.form.cleaned_data
        drifted = set(detect_cadence_drift(series, now=now))
        start = model.RECURRING_START_FIELD
        since = params.get("modified_since")
        if since is None:
            page = self.paginate_queryset(filterset.qs.order_by(start, "pk"))
            assert page is not None
            booked = booked_ids(page)
            rows = [
                s.OccurrenceRow.of(e, drifted=e.pk in drifted, booked=e.pk in booked) for e in page
            ]
            return self.get_paginated_response(s.occurrence_data(rows))
        rows_by_key = changed_rows(series, filterset, params, since, now)
        keys = self.paginate_queryset(sorted(rows_by_key))
        assert keys is not None
        live = [key[2] for key in keys if key[1] == 0]
        events = {e.pk: e for e in base.filter(pk__in=live)}
        booked = booked_ids(events.values())
        rows = [
            s.OccurrenceRow.of(events[key[2]], drifted=key[2] in drifted, booked=key[2] in booked)
            if key[1] == 0
            else rows_by_key[key]
            for key in keys
            if key[1] == 1 or key[2] in events
        ]
        return self.get_paginated_response(s.occurrence_data(rows))

    @extend_schema(
        summary="The next N slots of the rule from now, each materialized/excluded/pending",
        parameters=[s.PreviewQuerySerializer],
        responses={200: s.PreviewSerializer, **error_responses(400, 403, 404)},
    )
    @action(detail=True, methods=["get"])
    def preview(self, request: Request, pk: str | None = None) -> Response:
        """The next `count` slots of the rule and what became of each."""
        series = self.get_object()
        query = s.PreviewQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        count = min(query.validated_data["count"], PREVIEW_MAX)
        slots = upcoming_slots(series, count=count)
        rule = series.recurrence_rule
        return Response(
            {
                "timezone": rule.timezone if rule is not None else None,
                "count": len(slots),
                "slots": s.PreviewSlotSerializer(slots, many=True).data,
            }
        )

    # -- helpers ---------------------------------------------------------------

    def _body(self, serializer_class: type[serializers.Serializer[Any]]) -> dict[str, Any]:
        serializer = serializer_class(data=self.request.data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def _occurrence_result(self, series: EventSeries, event: Any) -> Response:
        row = (
            s.OccurrenceRow.of(event, booked=bool(booked_ids([event])))
            if event is not None
            else None
        )
        return Response(
            {
                "occurrence": s.OccurrenceSerializer(row).data if row is not None else None,
                "series": self._represent(series),
            }
        )
