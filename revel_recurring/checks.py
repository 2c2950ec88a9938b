"""System checks, ids ``revel_recurring.E001``...

Each id is asserted in tests/default/project/test_checks.py.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import DatabaseError, models, router
from django.utils.module_loading import import_string

from .conf import recurring_settings
from .host_model import copied_unique_fields, mixin_constraint_names, overrides_prepare_occurrence
from .mixins import RecurringEventMixin
from .models import EventSeries
from .notifications import VISIBILITY_AUDIENCES
from .services.holiday_data import series_changed_by_holiday_data
from .validators import WINDOW_WEEKS_MAX, WINDOW_WEEKS_MIN


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


def check_installed_apps(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """E014: django_celery_beat is installed while the beat rows are to be registered."""
    if apps.is_installed("django_celery_beat") or not recurring_settings.REGISTER_BEAT_TASKS:
        return []
    return [
        checks.Error(
            "'django_celery_beat' is not in INSTALLED_APPS: migrate cannot create the daily "
            "generation task and revel_recurring_beat fails.",
            hint=(
                "Add 'django_celery_beat' to INSTALLED_APPS, or set "
                "REVEL_RECURRING_REGISTER_BEAT_TASKS = False when generation runs from cron "
                "(manage.py revel_recurring_generate)."
            ),
            id="revel_recurring.E014",
        )
    ]


def check_feed_cache(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """E015: REVEL_RECURRING_FEED_CACHE names a cache of ``CACHES``."""
    alias = recurring_settings.FEED_CACHE
    if alias is None or (isinstance(alias, str) and alias in settings.CACHES):
        return []
    return [
        checks.Error(
            f"REVEL_RECURRING_FEED_CACHE is {alias!r}, which is not a cache of CACHES.",
            hint=f"Use one of {sorted(settings.CACHES)}, or None to build every feed anew.",
            id="revel_recurring.E015",
        )
    ]


def check_dotted_paths(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """E005: the adapter and notifier dotted paths import."""
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


GENERATION_CHUNK_SIZE_MAX = 1000

_WHOLE_NUMBER_SETTINGS = (
    "DEFAULT_WINDOW_WEEKS",
    "MAX_WINDOW_WEEKS",
    "DISPATCH_CHUNK_SIZE",
    "GENERATION_CHUNK_SIZE",
    "ADMIN_INLINE_LIMIT",
    "TASK_MAX_RETRIES",
    "TASK_RETRY_BACKOFF",
    "TASK_RETRY_BACKOFF_MAX",
    "INSERT_BATCH_BYTES",
    "MAX_GENERATION_BYTES",
    "FEED_PAST_DAYS",
    "DELETED_FEED_DAYS",
)


def _is_whole_number(value: object) -> bool:
    # bool is a subclass of int, and True is not a number of weeks.
    return isinstance(value, int) and not isinstance(value, bool)


def check_setting_values(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """E006-E009: the plain settings hold values the app can use.

    E009 judges the raw values first (conf.py never coerces them): the whole-number
    settings are whole numbers in range and ``REGISTER_BEAT_TASKS`` is a bool. Then,
    when those pass, E006-E008: the default window lies in 1..52 weeks, the maximum
    window is not below it, and the beat crontab has five fields.
    """
    errors: list[checks.CheckMessage] = []
    for name in _WHOLE_NUMBER_SETTINGS:
        value = getattr(recurring_settings, name)
        if not _is_whole_number(value):
            errors.append(
                checks.Error(
                    f"REVEL_RECURRING_{name} must be a whole number, got {value!r}.",
                    id="revel_recurring.E009",
                )
            )
            continue
        minimum = 1 if name.endswith(("CHUNK_SIZE", "_BYTES")) else 0
        if not name.endswith("WINDOW_WEEKS") and value < minimum:
            errors.append(
                checks.Error(
                    f"REVEL_RECURRING_{name} must be at least {minimum}, got {value}.",
                    id="revel_recurring.E009",
                )
            )
        elif name == "GENERATION_CHUNK_SIZE" and value > GENERATION_CHUNK_SIZE_MAX:
            # One transaction holds every series lock of its chunk until it commits.
            errors.append(
                checks.Error(
                    f"REVEL_RECURRING_GENERATION_CHUNK_SIZE must be at most "
                    f"{GENERATION_CHUNK_SIZE_MAX}, got {value}.",
                    id="revel_recurring.E009",
                )
            )
    flag = recurring_settings.REGISTER_BEAT_TASKS
    if not isinstance(flag, bool):
        errors.append(
            checks.Error(
                f"REVEL_RECURRING_REGISTER_BEAT_TASKS must be True or False, got {flag!r}.",
                id="revel_recurring.E009",
            )
        )
    if errors:
        return errors  # the range checks below would fail on the same values
    default = recurring_settings.DEFAULT_WINDOW_WEEKS
    maximum = recurring_settings.MAX_WINDOW_WEEKS
    if not WINDOW_WEEKS_MIN <= default <= WINDOW_WEEKS_MAX:
        errors.append(
            checks.Error(
                f"REVEL_RECURRING_DEFAULT_WINDOW_WEEKS must be {WINDOW_WEEKS_MIN} to "
                f"{WINDOW_WEEKS_MAX}, got {default}.",
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


#: How many series W002 names before it says "and N more".
HOLIDAY_DATA_NAMED = 5


def check_holiday_data(
    app_configs: Any = None, databases: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """W002: series whose generated dates the installed ``holidays`` release would change.

    A database check: it runs when Django asks for those (``manage.py check
    --database default``, and ``migrate``, a deploy's step after upgrading
    packages), not at every command. Its first query reads the active series
    generated with another ``holidays`` release (none: nothing more is read);
    their dates are then compared in two more queries for all of them
    (:func:`~revel_recurring.services.holiday_data.series_changed_by_holiday_data`,
    no booking hook). Series whose dates do not change are not warned about.
    Before the tables exist (``migrate`` checks first) it says nothing.
    """
    alias = router.db_for_read(EventSeries)
    if not databases or alias not in databases:
        return []
    if any(message.is_serious() for message in check_event_model()):
        return []
    try:
        changed = [
            change
            for change in series_changed_by_holiday_data(bookings=False)
            if change.changes_dates
        ]
    except DatabaseError:
        # Tables or columns not migrated yet: migrate runs its checks before it migrates.
        return []
    if not changed:
        return []
    dates = sum(len(change.drift) + len(change.appearing) for change in changed)
    versions = sorted({change.stored_version or "an unknown release" for change in changed})
    names = [f"{change.series.name} ({change.series.pk})" for change in changed]
    more = len(names) - HOLIDAY_DATA_NAMED
    named = ", ".join(names[:HOLIDAY_DATA_NAMED]) + (f" and {more} more" if more > 0 else "")
    return [
        checks.Warning(
            f"{len(changed)} series were generated with holidays {', '.join(versions)}; "
            f"under the installed {changed[0].installed_version}, {dates} of their dates "
            f"would change (a holiday now skips or moves them, or no longer does): {named}.",
            hint=(
                "Run manage.py revel_recurring_holidays to see the dates, then "
                "manage.py revel_recurring_holidays --apply to apply the difference "
                "(booked dates are kept and named)."
            ),
            id="revel_recurring.W002",
        )
    ]
