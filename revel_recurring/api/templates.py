"""The default serializer of a series' template: a ModelSerializer of the host event.

:func:`template_serializer_class` is the one the API uses: the adapter's
``get_template_serializer_class()`` when it names one, else this default. The
adapter never imports the API (it sits below it). ``revel_recurring.api.serializers``
re-exports these names.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.db import models
from rest_framework import serializers

from ..adapter import get_adapter
from ..host_model import single_line_fields
from ..mixins import OCCURRENCE_STATE_FIELDS
from ..models import get_event_model
from ..validators import validate_single_line
from .fields import AwareDateTimeField, StrictFieldsMixin


class DefaultTemplateSerializer(StrictFieldsMixin, serializers.ModelSerializer[Any]):
    """Base of the default template serializer; ``Meta`` is filled per host model."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        model: Any = self.Meta.model
        single_line = single_line_fields(model)
        for name, field in list(fields.items()):
            if isinstance(field, serializers.DateTimeField):
                fields[name] = _aware_copy(field)
            elif name in single_line and not field.read_only:
                # A title is one line: refused here, and stated in the schema (pattern).
                field.validators.append(validate_single_line)
        start = fields.get(model.RECURRING_START_FIELD)
        if start is not None:
            start.required = False
        return fields


def _aware_copy(field: serializers.DateTimeField) -> AwareDateTimeField:
    # The host's datetimes read and render like every other instant of the API.
    if field.read_only:
        return AwareDateTimeField(read_only=True, help_text=field.help_text, label=field.label)
    return AwareDateTimeField(
        required=field.required,
        allow_null=field.allow_null,
        help_text=field.help_text,
        label=field.label,
        validators=list(field.validators),
    )


def template_fields(model: type[models.Model]) -> list[str]:
    """The host fields a template serializer offers: editable, concrete, not the mixin's."""
    # The primary key first, whatever its name and type; it is always read-only.
    names = [model._meta.pk.name] if model._meta.pk else []
    for field in model._meta.concrete_fields:
        if field.primary_key or field.name in OCCURRENCE_STATE_FIELDS:
            continue
        names.append(field.name)
    return names


@lru_cache(maxsize=4)
def _template_serializer_for(model: type[models.Model]) -> type[DefaultTemplateSerializer]:
    status_field = getattr(model, "RECURRING_STATUS_FIELD", "status")
    read_only = tuple(
        f.name
        for f in model._meta.concrete_fields
        if not f.editable or f.primary_key or f.name == status_field
    )
    meta = type(
        "Meta",
        (),
        {"model": model, "fields": template_fields(model), "read_only_fields": read_only},
    )
    return type(
        f"{model.__name__}TemplateSerializer",
        (DefaultTemplateSerializer,),
        {"Meta": meta, "__module__": __name__},
    )


def default_template_serializer_class() -> type[DefaultTemplateSerializer]:
    """A ModelSerializer of the host event for templates (see the adapter hook)."""
    return _template_serializer_for(get_event_model())


def template_serializer_class() -> type[Any]:
    """The API's template serializer: the adapter's, else the default one."""
    return get_adapter().get_template_serializer_class() or default_template_serializer_class()


@lru_cache(maxsize=4)
def _split_template_serializer_for(base: type[Any], propagatable: tuple[str, ...]) -> type[Any]:
    def get_fields(self: Any) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super(serializer, self).get_fields()
        kept = {
            name: field
            for name, field in fields.items()
            if name in propagatable and not field.read_only
        }
        for field in kept.values():
            field.required = False
        return kept

    def get_validators(self: Any) -> list[Any]:
        # The changes are not a whole event: the service validates the new
        # template (the original's copy plus these) with the host's full_clean().
        return []

    # Strict whatever the host's serializer is: a key silently dropped would be a
    # change the client believes the split made.
    bases = (base,) if issubclass(base, StrictFieldsMixin) else (StrictFieldsMixin, base)
    serializer: type[Any] = type(
        f"Split{base.__name__}",
        bases,
        {
            "get_fields": get_fields,
            "get_validators": get_validators,
            "__module__": __name__,
            "__doc__": "Changes of the continuation's template: propagatable fields only.",
        },
    )
    return serializer


def split_template_serializer_class() -> type[Any]:
    """The ``template`` of a split's body: the API's template serializer reduced to the
    host's ``PROPAGATABLE_FIELDS``, each optional; any other key is a 400 naming it."""
    propagatable = tuple(get_event_model().PROPAGATABLE_FIELDS)
    base: Any = template_serializer_class()
    return _split_template_serializer_for(base, propagatable)


__all__ = [
    "DefaultTemplateSerializer",
    "default_template_serializer_class",
    "split_template_serializer_class",
    "template_fields",
    "template_serializer_class",
]
