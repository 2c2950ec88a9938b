"""System checks, ids ``revel_recurring.E001``... Each id is asserted in tests/test_checks.py."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core import checks
from django.core.exceptions import FieldDoesNotExist
from django.utils.module_loading import import_string

from .conf import recurring_settings
from .notifications import VISIBILITY_AUDIENCES


def check_event_model(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    from .mixins import RecurringEventMixin

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
    return errors


def check_dotted_paths(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    for setting, path in (
        ("REVEL_RECURRING_ADAPTER", recurring_settings.ADAPTER),
        ("REVEL_RECURRING_NOTIFIER", recurring_settings.NOTIFIER),
    ):
        if not path:
            continue
        try:
            import_string(path)
        except ImportError:
            errors.append(
                checks.Error(
                    f"{setting} = '{path}' cannot be imported.",
                    hint="Give the dotted path of an importable class or callable.",
                    id="revel_recurring.E005",
                )
            )
    return errors


_WHOLE_NUMBER_SETTINGS = (
    "DEFAULT_WINDOW_WEEKS",
    "MAX_WINDOW_WEEKS",
    "DISPATCH_CHUNK_SIZE",
    "TASK_MAX_RETRIES",
    "TASK_RETRY_BACKOFF",
    "TASK_RETRY_BACKOFF_MAX",
)


def check_numbers(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    for name in _WHOLE_NUMBER_SETTINGS:
        try:
            value = getattr(recurring_settings, name)
        except (TypeError, ValueError):
            errors.append(
                checks.Error(
                    f"REVEL_RECURRING_{name} must be a whole number, got "
                    f"{recurring_settings._get(name, None)!r}.",
                    id="revel_recurring.E009",
                )
            )
            continue
        minimum = 1 if name == "DISPATCH_CHUNK_SIZE" else 0
        if not name.endswith("WINDOW_WEEKS") and value < minimum:
            errors.append(
                checks.Error(
                    f"REVEL_RECURRING_{name} must be at least {minimum}, got {value}.",
                    id="revel_recurring.E009",
                )
            )
    if errors:
        return errors  # the range checks below would fail on the same values
    default = recurring_settings.DEFAULT_WINDOW_WEEKS
    maximum = recurring_settings.MAX_WINDOW_WEEKS
    if not 1 <= default <= 52:
        errors.append(
            checks.Error(
                f"REVEL_RECURRING_DEFAULT_WINDOW_WEEKS must be 1 to 52, got {default}.",
                id="revel_recurring.E006",
            )
        )
    if maximum < default:
        errors.append(
            checks.Error(
                f"REVEL_RECURRING_MAX_WINDOW_WEEKS ({maximum}) is below the default window "
                f"({default}).",
                id="revel_recurring.E007",
            )
        )
    if len(recurring_settings.BEAT_CRONTAB.split()) != 5:
        errors.append(
            checks.Error(
                f"REVEL_RECURRING_BEAT_CRONTAB must have five fields, got "
                f"'{recurring_settings.BEAT_CRONTAB}'.",
                hint="For example '0 4 * * *' (04:00 UTC daily).",
                id="revel_recurring.E008",
            )
        )
    return errors


def check_visibility_mapping(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The ``RECURRING_VISIBILITY_*`` values must be choices of the visibility field.

    A value the field cannot hold would silently never match, and the digest of
    such a series would reach staff and owners only. Fields without choices, and
    models the E001-E004 checks already reject, are left alone.
    """
    from .mixins import RecurringEventMixin

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
