"""A series' occurrences: list them (with tombstones), find and cancel drift, cancel or
restore one slot, preview the next slots of the rule."""

from __future__ import annotations

from django.utils import timezone
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from ... import changelog
from ...host_model import bulky_fields
from ...models import get_event_model
from ...services.cancellation import cancel_occurrence, restore_occurrence
from ...services.drift import cancel_stale_occurrences, detect_cadence_drift, enrolled_on_drift
from ...slots import upcoming_slots
from ..filters import OccurrenceFilter
from ..pagination import OccurrencePagination
from ..reads import changed_rows, listed_rows, occurrence_rows, page_rows, rows_with_beyond
from ..schema import (
    OCCURRENCE_PARAMETERS,
    READ_ERRORS,
    WRITE_ERRORS,
    error_responses,
    extend_schema,
)
from ..serializers.actions import (
    BookedDateSerializer,
    CancelStaleResultSerializer,
    OccurrenceActionResultSerializer,
)
from ..serializers.occurrences import (
    DriftSerializer,
    OccurrenceSerializer,
    PreviewQuerySerializer,
    PreviewSerializer,
    PreviewSlotSerializer,
    occurrence_data,
)
from .base import SeriesViewBase

PREVIEW_MAX = 100


class OccurrenceActionsMixin(SeriesViewBase):
    """``occurrences/``, ``drift/``, ``cancel-stale/``, ``cancel-occurrence/``,
    ``restore-occurrence/`` and ``preview/``."""

    @extend_schema(
        summary=(
            "Materialized occurrences, pretix-style filters, tombstones with modified_since; "
            "the dates beyond the window with beyond_window"
        ),
        parameters=OCCURRENCE_PARAMETERS,
        responses={200: OccurrenceSerializer(many=True), **error_responses(400, 403, 404)},
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
            raise ValidationError(filterset.errors)
        params = filterset.form.cleaned_data
        drifted = set(detect_cadence_drift(series, now=now))
        since = params.get("modified_since")
        if since is None:
            ordered = filterset.qs.order_by(model.RECURRING_START_FIELD, "pk")
            page = self.paginate_queryset(rows_with_beyond(ordered, series, params, now))
            assert page is not None
            rows = listed_rows(page, drifted=drifted, series=series)
        else:
            changes = self.paginate_queryset(changed_rows(series, filterset, params, since, now))
            assert changes is not None
            rows = page_rows(
                changes,
                base,
                drifted=drifted,
                series=series,
                rescheduled=changelog.rescheduled_since(series.pk, since),
            )
        return self.get_paginated_response(occurrence_data(rows))

    @extend_schema(
        summary="Future unmodified occurrences that no longer fit the rule",
        responses={200: DriftSerializer, **READ_ERRORS},
    )
    @action(detail=True, methods=["get"])
    def drift(self, request: Request, pk: str | None = None) -> Response:
        """Future, unmodified occurrences that no longer fit the rule."""
        series = self.get_object()
        ids = detect_cadence_drift(series)
        light = series.occurrences().defer(*bulky_fields(get_event_model()))
        events = {e.pk: e for e in light.filter(pk__in=ids)}
        rows = occurrence_rows(
            (events[pk] for pk in ids if pk in events), drifted=events.keys(), series=series
        )
        enrolled = enrolled_on_drift([series.pk], ids)
        return Response(
            {"count": len(rows), "occurrences": occurrence_data(rows), "enrolled": enrolled}
        )

    @extend_schema(
        summary=(
            "Cancel drifted occurrences (all, or those of `ids` that still drift); booked "
            "ones only with `include_booked`"
        ),
        responses={200: CancelStaleResultSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="cancel-stale")
    def cancel_stale(self, request: Request, pk: str | None = None) -> Response:
        """Cancel the drifted occurrences (all, or those of `ids`); booked ones are kept
        and named in `kept_booked` unless `include_booked` is true."""
        series = self.get_object()
        body = self._body()
        result = cancel_stale_occurrences(
            series,
            ids=body.get("ids"),
            include_booked=body["include_booked"],
            notify=body.get("notify"),
        )
        return Response(
            {
                "cancelled": result.cancelled,
                "kept_booked": BookedDateSerializer(result.kept_booked, many=True).data,
                "series": self._represent(series),
            }
        )

    @extend_schema(
        summary=(
            "Cancel one occurrence slot (materialized or not yet); a booked one only with "
            "`include_booked` (409 naming its date otherwise)"
        ),
        responses={200: OccurrenceActionResultSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="cancel-occurrence")
    def cancel_occurrence(self, request: Request, pk: str | None = None) -> Response:
        """Cancel one slot: `{"occurrence": "<aware ISO datetime>", "include_booked"?}`."""
        series = self.get_object()
        body = self._body()
        event = cancel_occurrence(
            series,
            body["occurrence"],
            include_booked=body["include_booked"],
            notify=body.get("notify"),
        )
        return self._occurrence_result(series, event)

    @extend_schema(
        summary="Undo a cancellation (409 when the slot is not cancelled)",
        responses={200: OccurrenceActionResultSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="restore-occurrence")
    def restore_occurrence(self, request: Request, pk: str | None = None) -> Response:
        """Undo the cancellation of one slot."""
        series = self.get_object()
        body = self._body()
        event = restore_occurrence(series, body["occurrence"], notify=body.get("notify"))
        return self._occurrence_result(series, event)

    @extend_schema(
        summary="The next N slots of the rule from now, each materialized/excluded/pending",
        parameters=[PreviewQuerySerializer],
        responses={200: PreviewSerializer, **error_responses(400, 403, 404)},
    )
    @action(detail=True, methods=["get"])
    def preview(self, request: Request, pk: str | None = None) -> Response:
        """The next `count` slots of the rule and what became of each."""
        series = self.get_object()
        query = PreviewQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        count = min(query.validated_data["count"], PREVIEW_MAX)
        slots = upcoming_slots(series, count=count)
        rule = series.recurrence_rule
        return Response(
            {
                "timezone": rule.timezone if rule is not None else None,
                "count": len(slots),
                "slots": PreviewSlotSerializer(slots, many=True).data,
            }
        )
