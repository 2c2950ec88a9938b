"""A series' enrolments: ``GET`` lists them, ``POST`` enrols a user (``series/{id}/enrolments/``).

The organiser of the series (``get_editable_series``) sees every enrolment and
enrols any user who may see the series; any other user who may see it sees and
creates only their own. A site without the ``book_enrolled`` hook answers 404.
"""

from __future__ import annotations

from typing import Any, cast

from django.utils.translation import gettext
from rest_framework import exceptions, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ...models import Enrolment
from ...services.enrolments import enrol
from ..bodies import ACTION_BODIES
from ..enrolments import (
    EnrolmentPagination,
    enrolled_user,
    organises,
    require_enrolments,
    user_key,
)
from ..schema import error_responses, extend_schema
from ..serializers.enrolments import EnrolmentResultSerializer, EnrolmentSerializer
from .base import SeriesViewBase


class EnrolmentActionsMixin(SeriesViewBase):
    """``enrolments/``: the series' enrolments, and enrolling in it."""

    #: Actions a user who may only see the series may still post to: they change
    #: nothing of the series but the user's own enrolment (checked by the action).
    self_service_actions = frozenset({"enrolments"})

    @extend_schema(
        methods=["GET"],
        summary=(
            "The series' enrolments: all of them for its organisers, your own for anyone "
            "else who may see it"
        ),
        responses={200: EnrolmentSerializer(many=True), **error_responses(400, 403, 404)},
    )
    @extend_schema(
        methods=["POST"],
        summary=(
            "Enrol yourself (or, as an organiser, the `user` given) from `starts_on`, "
            "optionally until `ends_on`: booked at once on every open date to come, and on "
            "each date created later; again for an enrolled user, changes its days"
        ),
        responses={
            200: EnrolmentResultSerializer,
            201: EnrolmentResultSerializer,
            **ACTION_BODIES["enrolments"].responses(),
        },
    )
    @action(detail=True, methods=["get", "post"], pagination_class=EnrolmentPagination)
    def enrolments(self, request: Request, pk: str | None = None) -> Response:
        """The series' enrolments (`GET`), or enrol a user (`POST`,
        `{"user"?, "starts_on"?, "ends_on"?}`; 201 when new, 200 when it existed)."""
        require_enrolments()
        series = self.get_object()
        user = request.user
        manages = organises(user, series)
        if request.method == "GET":
            rows = Enrolment.objects.filter(series=series).order_by("starts_on", "pk")
            if not manages:
                rows = rows.filter(user_pk=user_key(user))
            # Another model than the viewset's: the paginator pages any queryset.
            page: list[Enrolment] | None = self.paginate_queryset(cast(Any, rows))
            assert page is not None
            return self.get_paginated_response(EnrolmentSerializer(page, many=True).data)
        body = self._body()
        key = body.get("user")
        if key is None or key.strip() == user_key(user):
            who = user
        elif not manages:
            raise exceptions.PermissionDenied(
                gettext(
                    "Only an organiser of the series enrols someone else; leave out `user` "
                    "to enrol yourself."
                )
            )
        else:
            who = enrolled_user(key, series)
        existed = Enrolment.objects.filter(series=series, user_pk=user_key(who)).exists()
        result = enrol(
            series, who, starts_on=body.get("starts_on"), ends_on=body.get("ends_on"), by=user
        )
        booked = result.batch.booked.get(series.pk, {}).get(user_key(who), [])
        refused = result.batch.refused.get(series.pk, {}).get(user_key(who), [])
        data = EnrolmentResultSerializer(
            {
                "enrolment": result.enrolment,
                "booked": [row.pk for row in booked],
                "refused": [{"occurrence": row.pk, "reason": why} for row, why in refused],
            }
        ).data
        return Response(data, status=status.HTTP_200_OK if existed else status.HTTP_201_CREATED)
