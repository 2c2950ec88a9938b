"""The example site's template serializer: organisations limited to those the user runs."""

from __future__ import annotations

from typing import Any

from revel_recurring.api.serializers import default_template_serializer_class

from .scoping import organizations_run_by


class EventTemplateSerializer(default_template_serializer_class()):  # type: ignore[misc]
    """The default template serializer, with ``organization`` choices scoped to the user.

    A series created (or a template moved) for an organisation the user does not run
    is a 400 on ``template.organization``, before anything is written.
    """

    def get_fields(self) -> dict[str, Any]:
        fields = super().get_fields()
        request = self.context.get("request")
        user = getattr(request, "user", None)
        organization = fields.get("organization")
        if organization is not None and user is not None:
            organization.queryset = organizations_run_by(user)
        return fields
