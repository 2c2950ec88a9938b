"""Serializer building blocks shared by the API's serializers."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from django.core import validators
from django.core.exceptions import ImproperlyConfigured, ObjectDoesNotExist
from django.db import models
from django.db.models.fields import AutoFieldMixin
from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import build_basic_type
from drf_spectacular.types import OpenApiTypes
from rest_framework import serializers

# Re-exported: the schema imports the pattern from here.
from ..instants import ACCEPTED_DATETIME_PATTERN as ACCEPTED_DATETIME_PATTERN
from ..instants import InvalidInstantError, parse_aware_instant
from ..models import get_event_model

UTC = dt.UTC

# The range of the PositiveIntegerField columns behind counts and intervals; a
# larger number would fail in the database instead of in validation.
MAX_POSITIVE_INT = 2_147_483_647


class AwareDateTimeField(serializers.DateTimeField):
    """An ISO 8601 date and time *with* a UTC offset; rendered in UTC with ``Z``.

    DRF would read a naive value in the server's zone; a recurring schedule read an
    hour off is worse than a 400, so naive input is refused. Read by the app's one
    parser (``instants.parse_aware_instant``): its message and code are the 400's.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("default_timezone", UTC)
        super().__init__(**kwargs)

    def to_internal_value(self, value: Any) -> dt.datetime:
        try:
            return parse_aware_instant(value)
        except InvalidInstantError as exc:
            raise serializers.ValidationError(exc.message, code=exc.code) from None


# What reading a field's current value raises when the instance has none: DRF's
# get_attribute (SkipField for a missing optional source, AttributeError/KeyError
# otherwise), a missing related row, a value to_representation cannot take.
_UNREADABLE = (
    serializers.SkipField,
    AttributeError,
    KeyError,
    ObjectDoesNotExist,
    TypeError,
    ValueError,
)


#: The serializer context key of the representation a body may echo: the object as
#: a GET shows it now, or a callable returning it (called at most when needed).
SHOWN = "shown"


#: The serializer context key of the body the browsable API's form of an action shows:
#: a callable answering it (:func:`revel_recurring.api.prefill.form_body`), or None.
FORM_BODY = "form_body"


class PrefilledFormMixin:
    """An action's input serializer whose unbound ``data`` (the browsable API's form) is
    the body under :data:`FORM_BODY` in the context, not DRF's skeleton of every field
    with its empty value (``null`` where the field takes none)."""

    def get_initial(self) -> Any:
        body = self.context.get(FORM_BODY)  # type: ignore[attr-defined]
        answered = body() if body is not None and not hasattr(self, "initial_data") else None
        return answered if answered is not None else super().get_initial()  # type: ignore[misc]


class StrictFieldsMixin:
    """Unknown keys are a 400 naming them, not silently dropped (DRF's default).

    A key naming a read-only field is refused the same way, so a client never
    believes it changed something it cannot change; sent back with its current
    value (GET, edit, PATCH the whole object, as the browsable API's form does),
    it is ignored. The current value is the instance's, or the representation
    in the context under :data:`SHOWN` (at this serializer's place in it), whose
    keys then count as read-only fields too. ``derived_keys`` are keys of the
    representation that the server derives (counts, the cursor, stamps, the rule
    as text): ignored with any value, since they change on their own between a
    GET and the PATCH that echoes them and no client means to set them.
    """

    derived_keys: tuple[str, ...] = ()

    def _shown(self) -> Mapping[str, Any] | None:
        source = self.context.get(SHOWN)  # type: ignore[attr-defined]
        shown = source() if callable(source) else source
        path: list[str] = []
        node: Any = self
        while node.parent is not None:
            path.append(node.field_name)
            node = node.parent
        for name in reversed(path):
            shown = shown.get(name) if isinstance(shown, Mapping) else None
        return shown if isinstance(shown, Mapping) else None

    def _unchanged(self, key: Any, value: Any) -> bool:
        if key in self.derived_keys:
            return True
        field = self.fields.get(key)  # type: ignore[attr-defined]
        if field is not None and not field.read_only:
            return False
        if SHOWN in self.context:  # type: ignore[attr-defined]
            shown = self._shown()
            return shown is not None and key in shown and bool(shown[key] == value)
        instance = getattr(self, "instance", None)
        if instance is None or field is None:
            return False
        try:
            current = field.to_representation(field.get_attribute(instance))
        except _UNREADABLE:  # a field that cannot be read back is not "unchanged"
            return False
        return bool(current == value)

    def to_internal_value(self, data: Any) -> Any:
        errors: dict[str, list[str]] = {}
        if isinstance(data, Mapping):
            fields = self.fields  # type: ignore[attr-defined]
            writable = {name for name, field in fields.items() if not field.read_only}
            for key in data:
                if key in writable or self._unchanged(key, data[key]):
                    continue
                shown = self._shown() if SHOWN in self.context else None  # type: ignore[attr-defined]
                if key in fields or (shown is not None and key in shown):
                    errors[str(key)] = [str(_("This field is read-only; leave it out."))]
                else:
                    accepted = ", ".join(sorted(writable))
                    errors[str(key)] = [
                        str(_("Unknown field. Accepted: %(fields)s.") % {"fields": accepted})
                    ]
        try:
            value = super().to_internal_value(data)  # type: ignore[misc]
        except serializers.ValidationError as exc:
            if errors and isinstance(exc.detail, dict):
                raise serializers.ValidationError({**exc.detail, **errors}) from exc
            raise
        if errors:
            raise serializers.ValidationError(errors)
        return value


def _concrete_pk(model: type[models.Model]) -> models.Field[Any, Any]:
    """The column behind ``model``'s primary key (a parent link resolves to its target)."""
    field: Any = model._meta.pk
    while field.remote_field is not None and field.target_field is not field:
        field = field.target_field
    return field  # type: ignore[no-any-return]


def _limit(field: models.Field[Any, Any], kind: type[validators.BaseValidator]) -> Any:
    return next((v.limit_value for v in field.validators if isinstance(v, kind)), None)


class UUIDTextField(serializers.UUIDField):
    """A UUID given as its text. DRF also reads a JSON number as a 128-bit integer,
    which the schema (a ``uuid`` string) does not offer; refused here."""

    def to_internal_value(self, data: Any) -> uuid.UUID:
        if not isinstance(data, (str, uuid.UUID)):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)


@lru_cache(maxsize=16)
def pk_serializer_field(
    model_field: models.Field[Any, Any],
) -> serializers.Field[Any, Any, Any, Any]:
    """A DRF field that reads and writes values of the primary key ``model_field``.

    UUIDs are strings in canonical form, integers are bounded by the column's range
    (so an out-of-range id is a 400, not a database error; auto-incremented keys
    from 1), text keeps its exact
    spelling (no trimming: ``" a"`` and ``"a"`` are different keys). Other key types
    go through DRF's own model field mapping. The field is shared (cached per model
    field): use it unbound, for ``to_representation`` and ``run_validation`` only.
    """
    if isinstance(model_field, models.UUIDField):
        return UUIDTextField()
    if isinstance(model_field, models.IntegerField):
        # The integer fields: Django derives the range validators from the database
        # backend. Auto-incremented keys start at 1, so 0 and below name no row.
        low = _limit(model_field, validators.MinValueValidator)
        if isinstance(model_field, AutoFieldMixin):
            low = 1
        return serializers.IntegerField(
            min_value=low, max_value=_limit(model_field, validators.MaxValueValidator)
        )
    if isinstance(model_field, (models.CharField, models.TextField)):
        return serializers.CharField(
            max_length=getattr(model_field, "max_length", None), trim_whitespace=False
        )
    field_class, kwargs = serializers.ModelSerializer().build_standard_field(
        model_field.name, model_field
    )
    for key in ("read_only", "required", "allow_null", "label", "help_text", "validators"):
        kwargs.pop(key, None)
    return field_class(**kwargs)


def event_pk_field() -> serializers.Field[Any, Any, Any, Any]:
    """:func:`pk_serializer_field` of the host event model's primary key."""
    return pk_serializer_field(_concrete_pk(get_event_model()))


class EventIdField(serializers.Field[Any, Any, Any, Any]):
    """A host event's id, typed as the host's own primary key (int, big int, UUID, text).

    The concrete field is resolved when a value is read or written, not when the
    serializer class is defined: serializer modules may be imported before the
    host's model is known, and the tests switch hosts with ``override_settings``.
    The OpenAPI schema describes the same concrete field (see the extension below).
    """

    def concrete(self) -> serializers.Field[Any, Any, Any, Any]:
        return event_pk_field()

    def to_representation(self, value: Any) -> Any:
        return self.concrete().to_representation(value)

    def to_internal_value(self, data: Any) -> Any:
        # run_validation, not to_internal_value: the range validators of an integer
        # key live on the concrete field.
        return self.concrete().run_validation(data)


class EventIdFieldExtension(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    """drf-spectacular: an event id has the schema of the host's primary key field."""

    target_class: type[Any] = EventIdField

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> Any:
        try:
            concrete = self.target.concrete()
        except ImproperlyConfigured:  # no host event model yet: checks E001-E003 report it
            return build_basic_type(OpenApiTypes.STR)
        return auto_schema._map_serializer_field(concrete, direction)


class EventStatusField(serializers.Field[Any, Any, Any, Any]):
    """A host event's status, in the type of the host's own status field (int, text, ...).

    An ``IntegerField`` status stays a number in every answer, a ``CharField`` one a
    string; the value shown is the stored one (``status_value``), never its label.
    Resolved when a value is written, like :class:`EventIdField`; read-only.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def concrete(self) -> serializers.Field[Any, Any, Any, Any]:
        model = get_event_model()
        return pk_serializer_field(model._meta.get_field(model.RECURRING_STATUS_FIELD))

    def to_representation(self, value: Any) -> Any:
        return self.concrete().to_representation(get_event_model().status_value(value))


class EventStatusFieldExtension(EventIdFieldExtension):  # type: ignore[no-untyped-call]
    """drf-spectacular: a status has the schema of the host's status field."""

    target_class = EventStatusField


#: What each ``notify`` value does, as the schema's enum and OPTIONS list it.
NOTIFY_LABELS = {
    "all": _("all: everyone booked on a changed date gets one message"),
    "none": _("none: nobody is told"),
}


def notify_field() -> serializers.ChoiceField:
    """``notify``: who is told of the dates a write changes; absent, the site's default."""
    return serializers.ChoiceField(
        choices=list(NOTIFY_LABELS.items()),
        required=False,
        help_text=_(
            "Who is told: `all` (everyone booked on a date this changes gets one message "
            "listing their dates, with calendar entries) or `none`. Absent: the site's "
            "REVEL_RECURRING_NOTIFY_PEOPLE."
        ),
    )
