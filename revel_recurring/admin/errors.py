"""A service's refusal as errors on the bound admin form, each under the input to change.

The services say what is wrong in ``message_dict`` (``RecurrenceError``) or
``error_dict`` (``ValidationError``), keyed by the input a person has to change.
The keys the form shows as fields get their messages there, next to what the
organiser typed; the rest (a field of the template event, the series as a whole)
go to one place the form names, led by what they are about.
"""

from __future__ import annotations

from collections.abc import Collection

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, FieldDoesNotExist, ValidationError
from django.utils.translation import gettext as _

from ..exceptions import (
    DuplicateUniqueValueError,
    GenerationTooLargeError,
    RecurrenceError,
    messages_by_key,
)
from ..models import get_event_model

#: Errors keyed by a field of the template event (never a field of this form, even
#: when the names agree, as ``description`` does).
TEMPLATE_FIELD_ERRORS = (GenerationTooLargeError, DuplicateUniqueValueError)


def _template_field_label(name: str) -> str:
    try:
        field = get_event_model()._meta.get_field(name)
    except FieldDoesNotExist:
        return name
    return str(getattr(field, "verbose_name", name))


def add_service_error(
    form: forms.BaseForm,
    exc: RecurrenceError | ValidationError,
    *,
    own_keys: Collection[str],
    elsewhere: str | None = None,
) -> None:
    """Add ``exc`` to ``form``: keys in ``own_keys`` under their field, the rest to ``elsewhere``.

    ``own_keys`` are the service's keys that mean this form's fields (a create
    service's ``name`` may be the template's, not the series'). ``elsewhere`` is a
    field name, or None for the errors above the form; a message about no input
    in particular goes above the form. A ``ValidationError`` about
    a template field leads each message with the field's name ("The template's
    title: ..."); a
    ``RecurrenceError`` names it in its own words.
    """
    about_template = isinstance(exc, TEMPLATE_FIELD_ERRORS)
    for key, messages in messages_by_key(exc).items():
        if key == NON_FIELD_ERRORS:
            form.add_error(None, messages)
        elif key in own_keys and key in form.fields and not about_template:
            form.add_error(key, messages)
        elif isinstance(exc, RecurrenceError):
            form.add_error(elsewhere, messages)
        else:
            label = _template_field_label(key)
            form.add_error(
                elsewhere,
                [
                    _("The template's %(field)s: %(message)s")
                    % {"field": label, "message": message}
                    for message in messages
                ],
            )


__all__ = ["add_service_error", "messages_by_key"]
