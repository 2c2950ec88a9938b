"""E001-E004, E010-E013, W001: the host's event model, its fields, constraints and statuses."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core import checks
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models

from ..conf import recurring_settings
from ..host_model import copied_unique_fields, mixin_constraint_names, overrides_prepare_occurrence
from ..mixins import RecurringEventMixin


def check_event_model(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """E001-E004: REVEL_RECURRING_EVENT_MODEL names an installed model using the mixin."""
    label = recurring_settings.EVENT_MODEL
    if not label:
        return [
            checks.Error(
                "REVEL_RECURRING_EVENT_MODEL is not set.",
                hint="Name your Event model, e.g. REVEL_RECURRING_EVENT_MODEL = 'events.Event'.",
                id="revel_recurring.E001",
            )
        ]
    try:
        model = apps.get_model(label)
    except (ValueError, LookupError):
        return [
            checks.Error(
                f"REVEL_RECURRING_EVENT_MODEL refers to '{label}', which is not installed.",
                hint="Use 'app_label.ModelName' of a model in an app listed in INSTALLED_APPS.",
                id="revel_recurring.E002",
            )
        ]
    if not issubclass(model, RecurringEventMixin):
        return [
            checks.Error(
                f"'{label}' does not inherit revel_recurring.models.RecurringEventMixin.",
                hint="Add RecurringEventMixin to the model's bases and make a migration.",
                obj=model,
                id="revel_recurring.E003",
            )
        ]
    errors: list[checks.CheckMessage] = []
    names = {
        "RECURRING_START_FIELD": model.RECURRING_START_FIELD,
        "RECURRING_END_FIELD": model.RECURRING_END_FIELD,
        "RECURRING_DURATION_FIELD": model.RECURRING_DURATION_FIELD,
        "RECURRING_STATUS_FIELD": model.RECURRING_STATUS_FIELD,
        "RECURRING_VISIBILITY_FIELD": model.RECURRING_VISIBILITY_FIELD,
    }
    names.update({f"RECURRING_SHIFTED_FIELDS[{n}]": n for n in model.RECURRING_SHIFTED_FIELDS})
    names.update({f"PROPAGATABLE_FIELDS[{n}]": n for n in model.PROPAGATABLE_FIELDS})
    for attribute, field_name in names.items():
        if field_name is None:
            continue
        try:
            model._meta.get_field(field_name)
        except FieldDoesNotExist:
            errors.append(
                checks.Error(
                    f"{attribute} names '{field_name}', which '{label}' does not have.",
                    hint=f"Set {attribute} on {model.__name__} to one of its field names.",
                    obj=model,
                    id="revel_recurring.E004",
                )
            )
    if errors:
        return errors  # the checks below read those fields
    return [
        *_check_mixin_constraints(model, label),
        *_check_datetime_fields(model, label),
        *_check_status_values(model, label),
        *_check_copied_unique_fields(model, label),
    ]


def _check_mixin_constraints(model: Any, label: str) -> list[checks.CheckMessage]:
    present = {constraint.name for constraint in model._meta.constraints}
    missing = [name for name in mixin_constraint_names(model) if name not in present]
    if not missing:
        return []
    return [
        checks.Error(
            f"'{label}' lacks the constraints {', '.join(missing)} of RecurringEventMixin.Meta; "
            "without them the database does not stop duplicate occurrences or templates.",
            hint=(
                f"Declare 'class Meta(RecurringEventMixin.Meta):' on {model.__name__}, and "
                "when it sets its own constraints, start the list with "
                "*RecurringEventMixin.Meta.constraints. Then make a migration."
            ),
            obj=model,
            id="revel_recurring.E010",
        )
    ]


def _check_datetime_fields(model: Any, label: str) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    single = {
        "RECURRING_START_FIELD": model.RECURRING_START_FIELD,
        "RECURRING_END_FIELD": model.RECURRING_END_FIELD,
    }
    for attribute, name in single.items():
        if name is not None and not _is_datetime(model, name):
            errors.append(
                checks.Error(
                    f"{attribute} names '{name}', which is not a DateTimeField of '{label}'.",
                    hint="Point it at a models.DateTimeField (occurrences store instants).",
                    obj=model,
                    id="revel_recurring.E011",
                )
            )
    duration = model.RECURRING_DURATION_FIELD
    if duration is not None and not isinstance(
        model._meta.get_field(duration), models.DurationField
    ):
        errors.append(
            checks.Error(
                f"RECURRING_DURATION_FIELD names '{duration}', which is not a DurationField "
                f"of '{label}'.",
                hint="Point it at a models.DurationField, or override occurrence_duration().",
                obj=model,
                id="revel_recurring.E011",
            )
        )
    for name in model.RECURRING_SHIFTED_FIELDS:
        if not _is_datetime(model, name):
            errors.append(
                checks.Error(
                    f"RECURRING_SHIFTED_FIELDS names '{name}', which is not a DateTimeField "
                    f"of '{label}'; it cannot be moved by the start's delta.",
                    hint="List only models.DateTimeField names there.",
                    obj=model,
                    id="revel_recurring.E012",
                )
            )
    return errors


def _is_datetime(model: Any, name: str) -> bool:
    return isinstance(model._meta.get_field(name), models.DateTimeField)


def _check_status_values(model: Any, label: str) -> list[checks.CheckMessage]:
    # Judged as the run time compares statuses: through the field's own to_python
    # (RecurringEventMixin.status_value), so Status.CANCELLED, 2 and "2" are the
    # same value of an IntegerField.
    field = model._meta.get_field(model.RECURRING_STATUS_FIELD)
    errors: list[checks.CheckMessage] = []
    for attribute in (
        "RECURRING_STATUS_DRAFT",
        "RECURRING_STATUS_OPEN",
        "RECURRING_STATUS_CANCELLED",
    ):
        raw = getattr(model, attribute)
        problem = None
        try:
            value = model.status_value(raw)
        except ValidationError:
            value = raw
            problem = f"is not a value {model.RECURRING_STATUS_FIELD} can hold"
        else:
            allowed = (
                [model.status_value(choice) for choice, _ in field.flatchoices]
                if field.choices
                else None
            )
            if value is None:
                problem = "is None"
            elif field.max_length is not None and len(str(value)) > field.max_length:
                problem = (
                    f"is longer than {model.RECURRING_STATUS_FIELD}'s max_length {field.max_length}"
                )
            elif allowed is not None and value not in allowed:
                choices = ", ".join(sorted(str(choice) for choice in allowed))
                problem = f"is not among the choices of {model.RECURRING_STATUS_FIELD} ({choices})"
        if problem:
            errors.append(
                checks.Error(
                    f"{attribute} = {value!r} {problem} on '{label}'.",
                    hint=f"Set {attribute} to a value the status field accepts.",
                    obj=model,
                    id="revel_recurring.E013",
                )
            )
    return errors


def _check_copied_unique_fields(model: Any, label: str) -> list[checks.CheckMessage]:
    if overrides_prepare_occurrence(model):
        return []
    return [
        checks.Warning(
            f"'{label}' has the unique {'field' if len(group) == 1 else 'fields'} "
            f"{', '.join(group)}, which every occurrence copies from its template: the "
            "first generation would fail.",
            hint=(
                f"Override {model.__name__}.prepare_occurrence(self, *, start, "
                "occurrence_index, status), call super() and give each occurrence its own "
                "value (e.g. a slug with the start date), or list the field in "
                "RECURRING_UNCOPIED_FIELDS."
            ),
            obj=model,
            id="revel_recurring.W001",
        )
        for group in copied_unique_fields(model)
    ]
