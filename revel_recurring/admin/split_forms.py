"""The forms of the admin's split page: the continuation's name and rule, its template
fields, the split date, and where a refusal of the split goes on them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.forms.models import modelform_factory
from django.utils.translation import gettext_lazy

from ..exceptions import RecurrenceError
from ..instants import AwareInstantField
from ..models import EventSeries, RecurrenceRule, get_event_model
from ..services.splits import slots_before
from ..validators import validate_single_line
from .errors import messages_by_key
from .forms import RuleFieldsForm, local_wall_clock, rule_initial

#: The template form's prefix: its fields (a host's ``name``) never meet the series'.
TEMPLATE_PREFIX = "template"


class SplitForm(RuleFieldsForm):
    """The continuation's name and rule; its template fields are a form of their own."""

    name = forms.CharField(
        label=gettext_lazy("Name of the continuation"),
        max_length=EventSeries._meta.get_field("name").max_length,
        validators=[validate_single_line],
        help_text=gettext_lazy("The new series that holds this date and the following ones."),
    )

    field_order = ("name",)


class AtForm(forms.Form):
    """The split date as the change page's link (or the form's hidden input) carries it."""

    at = AwareInstantField(label=gettext_lazy("date"))


def template_form_class() -> type[forms.ModelForm[Any]]:
    """A form over the host's event model with its ``PROPAGATABLE_FIELDS`` only."""
    model = get_event_model()
    return modelform_factory(model, fields=list(model.PROPAGATABLE_FIELDS))


def split_initial(rule: RecurrenceRule, at: dt.datetime, name: str) -> dict[str, Any]:
    """The form's initial values: the series' rule as the continuation would carry it.

    It starts at ``at`` (same time of day); a COUNT rule counts the dates left.
    """
    initial = {**rule_initial(rule), "name": name}
    initial["dtstart"] = local_wall_clock(at, rule.timezone)
    if rule.count is not None:
        initial["count"] = max(rule.count - len(slots_before(rule, at)), 1)
    return initial


def route_split_errors(
    exc: ValidationError | RecurrenceError,
    form: SplitForm,
    template_form: forms.ModelForm[Any] | None,
    template_changes: Mapping[str, Any],
) -> list[str]:
    """Put the service's refusal under the field to change; returns the errors about ``at``."""
    about_at: list[str] = []
    for key, texts in messages_by_key(exc).items():
        if key == "at":
            about_at.extend(texts)
        elif template_form is not None and key in template_changes:
            # The host's field of the same name as the series' ("name"): the
            # template's when the split changes it, else the series'.
            template_form.add_error(key, texts)
        elif key in form.fields:
            form.add_error(key, texts)
        elif template_form is not None and key in template_form.fields:
            template_form.add_error(key, texts)
        else:
            form.add_error(
                None, texts if key == NON_FIELD_ERRORS else [f"{key}: {t}" for t in texts]
            )
    return about_at


__all__ = [
    "TEMPLATE_PREFIX",
    "AtForm",
    "SplitForm",
    "route_split_errors",
    "split_initial",
    "template_form_class",
]
