"""E020, E021: the host's visibility values, as the digest audience reads them."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core import checks
from django.core.exceptions import FieldDoesNotExist

from ..conf import recurring_settings
from ..mixins import RecurringEventMixin
from ..notifications import VISIBILITY_AUDIENCES


def check_visibility_mapping(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The ``RECURRING_VISIBILITY_*`` values must be choices of the visibility field.

    A value the field cannot hold would silently never match, and the digest of
    such a series would reach staff and owners only. Fields without choices, and
    models the E001-E004 checks already reject, are left alone.
    """
    label = recurring_settings.EVENT_MODEL
    try:
        model = apps.get_model(label) if label else None
    except (ValueError, LookupError):
        return []
    if model is None or not issubclass(model, RecurringEventMixin):
        return []
    field_name = model.RECURRING_VISIBILITY_FIELD
    if not field_name:
        return []
    try:
        field = model._meta.get_field(field_name)
    except FieldDoesNotExist:
        return []
    choices = [value for value, _ in getattr(field, "flatchoices", None) or ()]
    if not choices:
        return []
    errors: list[checks.CheckMessage] = []
    mapped: dict[object, str] = {}
    for attribute, value in model.recurring_visibility_map().items():
        if value is None:
            continue
        if value not in choices:
            errors.append(
                checks.Error(
                    f"{attribute} is {value!r}, which is not a choice of "
                    f"{model.__name__}.{field_name} ({', '.join(map(repr, choices))}).",
                    hint=f"Set {attribute} to one of the field's values, or to None when "
                    "the site has no such visibility.",
                    obj=model,
                    id="revel_recurring.E020",
                )
            )
            continue
        other = mapped.setdefault(value, attribute)
        if VISIBILITY_AUDIENCES[other] is not VISIBILITY_AUDIENCES[attribute]:
            errors.append(
                checks.Error(
                    f"{other} and {attribute} both name {value!r} but reach different "
                    "audiences; the digest would use the narrower one.",
                    hint="Map each visibility value to one level; set the others to None.",
                    obj=model,
                    id="revel_recurring.E021",
                )
            )
    return errors
