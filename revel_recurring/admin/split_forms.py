"""The forms of the admin's split page: the continuation's name, rule and holiday settings,
its template fields (the title of each date among them), the split date, and where a
refusal of the split goes on them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.forms.models import modelform_factory
from django.utils.translation import gettext_lazy

from ..exceptions import RecurrenceError
from ..host_model import title_field
from ..instants import AwareInstantField
from ..models import EventSeries, RecurrenceRule, get_event_model
from ..services.splits import slots_before
from ..validators import validate_single_line
from .errors import messages_by_key
from .forms import RuleFieldsForm, local_wall_clock, rule_initial
from .holidays import HOLIDAY_FIELDSET, HolidayFieldsForm, holiday_initial

#: The template form's prefix: its fields (a host's ``name``) never meet the series'.
TEMPLATE_PREFIX = "template"

#: Set (to 1) by the page's script once the person types in the title of the dates:
#: from then on the title no longer follows the name.
TITLE_EDITED = "_title_edited"


class SplitForm(RuleFieldsForm, HolidayFieldsForm):
    """The continuation's name, rule and holiday settings (prefilled with the original's);
    its template fields are a form of their own."""

    name = forms.CharField(
        label=gettext_lazy("Name of the continuation"),
        max_length=EventSeries._meta.get_field("name").max_length,
        validators=[validate_single_line],
        help_text=gettext_lazy(
            "The new series that holds this date and the following ones. Its dates take "
            "this name as their title unless you change their title below."
        ),
    )

    field_order = ("name",)

    def series_fields(self) -> list[forms.BoundField]:
        """The name and the rule: the page's first box."""
        return [self[name] for name in self.fields if name not in HOLIDAY_FIELDSET]

    def holiday_fields(self) -> list[forms.BoundField]:
        """The holiday calendar and policy: a box of their own, as on the series page."""
        return [self[name] for name in HOLIDAY_FIELDSET]


class AtForm(forms.Form):
    """The split date as the change page's link (or the form's hidden input) carries it."""

    at = AwareInstantField(label=gettext_lazy("date"))


def template_form_class() -> type[forms.ModelForm[Any]]:
    """A form over the host's event model with its ``PROPAGATABLE_FIELDS`` only; the
    title field (:func:`~revel_recurring.host_model.title_field`) says what it names."""
    model = get_event_model()
    title = title_field(model)
    labels: Any = {title: gettext_lazy("Title of each date")} if title else None
    help_texts: Any = (
        {
            title: gettext_lazy(
                "What each date of the new series is called. It follows the name of the "
                "continuation until you change it here."
            )
        }
        if title
        else None
    )
    return modelform_factory(
        model, fields=list(model.PROPAGATABLE_FIELDS), labels=labels, help_texts=help_texts
    )


def template_changes_of(
    template_form: forms.ModelForm[Any], *, title_edited: bool
) -> dict[str, Any]:
    """The template fields the person changed, as the split service takes them.

    The title of the dates goes with them only when it was changed or typed by hand:
    otherwise the service gives the dates the continuation's new name.
    """
    title = title_field(template_form._meta.model)
    return {
        name: template_form.cleaned_data[name]
        for name in template_form.fields
        if name in template_form.changed_data or (name == title and title_edited)
    }


def split_initial(
    rule: RecurrenceRule, at: dt.datetime, name: str, series: EventSeries | None = None
) -> dict[str, Any]:
    """The form's initial values: the series' rule as the continuation would carry it, and
    ``series``' holiday settings.

    It starts at ``at`` (same time of day); a COUNT rule counts the dates left.
    """
    initial = {**rule_initial(rule), "name": name}
    if series is not None:
        initial.update(holiday_initial(series))
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
    "TITLE_EDITED",
    "AtForm",
    "SplitForm",
    "route_split_errors",
    "split_initial",
    "template_changes_of",
    "template_form_class",
]
