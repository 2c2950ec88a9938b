"""The ``text/calendar`` renderer of the API's ``ical`` action."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rest_framework.renderers import BaseRenderer


class ICalendarRenderer(BaseRenderer):
    """Lets ``Accept: text/calendar`` reach the ``ical`` action (no 406).

    The action answers with the calendar bytes itself; what reaches this renderer
    is an error body, which is sent as JSON, as on every other route.
    """

    media_type = "text/calendar"
    format = "ics"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if isinstance(data, bytes):
            return data
        response = (renderer_context or {}).get("response")
        if response is not None:
            response["Content-Type"] = "application/json"
        return json.dumps(data).encode()
