"""Who acts through the API: every change a request makes is recorded as its user's.

The one place the API names itself to the series' history
(:func:`revel_recurring.context.acting`, face "api"): the user is known once DRF
authenticated the request (``initial``), and the block ends with the response
(``finalize_response``, which DRF calls after the action and after an error alike).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from ..context import Acting, acting


class ActingMixin:
    """A viewset whose changes name the request's user and the face "api"."""

    _acting_scope: AbstractContextManager[Acting] | None = None

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # type: ignore[misc]
        scope = acting(request.user, face="api")
        scope.__enter__()
        self._acting_scope = scope

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        scope, self._acting_scope = self._acting_scope, None
        if scope is not None:
            scope.__exit__(None, None, None)
        return super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc,no-any-return]
