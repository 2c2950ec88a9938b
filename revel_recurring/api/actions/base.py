"""What every action of the series viewset shares: reading its body, answering with the series.

An action parses its body with the serializer ``get_serializer_class`` names for it
(:meth:`SeriesViewBase._body`), calls one service and answers with the fresh state
of the series (:meth:`SeriesViewBase._represent`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from rest_framework import exceptions, viewsets
from rest_framework.response import Response

from ...models import EventSeries
from ..errors import hash_mismatch
from ..fields import FORM_BODY, SHOWN
from ..plan_keys import PlanRequest
from ..prefill import form_body
from ..reads import SeriesExtras, occurrence_rows
from ..serializers.occurrences import OccurrenceSerializer
from ..serializers.series import SeriesSerializer, SeriesUpdateResultSerializer


class SeriesViewBase(viewsets.GenericViewSet[EventSeries]):
    """The helpers the series viewset and its action mixins build on."""

    #: The request's body as the action's serializer validated it (``{}`` before):
    #: ``handle_exception`` keys a service's errors by it.
    validated_body: dict[str, Any] = {}
    #: The request an apply's plan answers (set by ``_plan_hash``): ``handle_exception``
    #: hands out the fresh plan's hash of a late apply for it.
    plan_request: PlanRequest | None = None

    def _body(self, *, partial: bool = False, echoes: EventSeries | None = None) -> dict[str, Any]:
        """The request body, validated by the action's serializer (a 400 otherwise).

        ``echoes``: the body may be the representation of this series as read (GET,
        edit, PATCH): its read-only keys are ignored when unchanged.
        """
        context = dict(self.get_serializer_context())
        if echoes is not None:
            context[SHOWN] = functools.cache(lambda: self._represent(echoes))
        serializer = self.get_serializer(data=self.request.data, partial=partial, context=context)
        serializer.is_valid(raise_exception=True)
        self.validated_body = dict(serializer.validated_data)
        return dict(self.validated_body)

    def get_serializer_context(self) -> dict[str, Any]:
        # The browsable API's form of an action shows a body that works as it stands
        # (api/prefill.py), computed only when the form is drawn.
        context = dict(super().get_serializer_context())
        context[FORM_BODY] = lambda: form_body(self.action, self.get_object)
        return context

    def _plan_hash(
        self, request: PlanRequest, body: dict[str, Any], *, plan: Callable[[], object]
    ) -> str | None:
        """The plan's digest in the body's hash, for the services (None without a hash).

        A hash that was not answered for ``request`` (mistyped, or of another change or
        series) is a 400 on the field it came in: it cannot tell whether the series
        changed, so it never gets the 409 of a late plan. ``plan`` plans the request
        first, so a body the plan refuses (a bad rule) gets that answer instead.
        """
        self.plan_request = request
        given = body.get("hash")
        if given is None:
            return None
        digest, issued_here = request.read(given)
        if not issued_here:
            plan()
            raise exceptions.ValidationError({body.get("hash_field", "hash"): [hash_mismatch()]})
        return digest

    def _context(self, series: list[EventSeries]) -> dict[str, Any]:
        """Serializer context for showing ``series``: their templates and counts, read at once."""
        return {
            **self.get_serializer_context(),
            "extras": SeriesExtras.load([x.pk for x in series]),
        }

    def _represent(self, series: EventSeries, **extra: Any) -> dict[str, Any]:
        """The series as the API shows it, read afresh; ``extra`` adds answer-only keys."""
        fresh = self.get_queryset().get(pk=series.pk)
        for key, value in extra.items():
            setattr(fresh, key, value)
        serializer_class = SeriesUpdateResultSerializer if extra else SeriesSerializer
        return dict(serializer_class(fresh, context=self._context([fresh])).data)

    def _occurrence_result(self, series: EventSeries, event: Any) -> Response:
        """The answer of an action on one date: its occurrence (or null) and the series."""
        rows = occurrence_rows([event] if event is not None else [], series=series)
        return Response(
            {
                "occurrence": OccurrenceSerializer(rows[0]).data if rows else None,
                "series": self._represent(series),
            }
        )
