"""Each system check id of the revel_recurring/checks/ package, asserted exactly."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from django.apps.registry import Apps
from django.core import checks
from django.db import OperationalError, models
from django.test.utils import isolate_apps

from revel_recurring import checks as recurring_checks
from revel_recurring.checks import (
    check_dotted_paths,
    check_event_model,
    check_feed_cache,
    check_holiday_data,
    check_installed_apps,
    check_setting_values,
    check_visibility_mapping,
    check_zone_data,
)
from revel_recurring.checks import event_model as event_model_checks
from revel_recurring.checks import holiday_data as holiday_data_checks
from revel_recurring.checks import visibility as visibility_checks
from revel_recurring.conf import recurring_settings
from revel_recurring.holiday_rules import data_version
from revel_recurring.models import EventSeries, RecurringEventMixin
from revel_recurring.services.holiday_data import apply_holiday_data
from revel_recurring.services.lifecycle import create_recurring_series
from revel_recurring.services.zone_data import apply_zone_data
from tests.hosts.testapp.models import Event
from tests.support.factories import VIENNA, holiday_class, occurrences
from tests.support.holidays import OLD_RELEASE, generated_with, newer_holiday_data
from tests.support.zone_shift import ZONE, clocks_change, first_monday, old_zone_data

if TYPE_CHECKING:
    from pytest_django.fixtures import Settings

# Every id asserted below; test_every_check_id_is_tested keeps this honest.
TESTED_IDS = {f"revel_recurring.E0{n:02}" for n in range(1, 16)} | {
    "revel_recurring.W001",
    "revel_recurring.W002",
    "revel_recurring.W003",
    "revel_recurring.E020",
    "revel_recurring.E021",
}


def ids(messages: list[checks.CheckMessage]) -> list[str | None]:
    return [m.id for m in messages]


def test_every_check_id_is_tested() -> None:
    package = Path(recurring_checks.__file__).parent
    source = "".join(path.read_text(encoding="utf-8") for path in package.glob("*.py"))
    declared = set(re.findall(r"""id=["'](revel_recurring\.[EW]\d{3})["']""", source))

    assert declared == TESTED_IDS, (
        "assert each new check id in tests/default/project/test_checks.py"
    )


def test_test_settings_pass_every_check() -> None:
    assert check_event_model() == []
    assert check_dotted_paths() == []
    assert check_setting_values() == []
    assert check_installed_apps() == []
    assert check_feed_cache() == []
    assert check_visibility_mapping() == []


def test_checks_are_registered_with_django(settings: Settings) -> None:
    del settings.REVEL_RECURRING_EVENT_MODEL
    settings.REVEL_RECURRING_BEAT_CRONTAB = "daily"

    found = ids(checks.run_checks())

    assert "revel_recurring.E001" in found
    assert "revel_recurring.E008" in found


# E001 / E002 / E003: REVEL_RECURRING_EVENT_MODEL


def test_e001_event_model_setting_missing(settings: Settings) -> None:
    del settings.REVEL_RECURRING_EVENT_MODEL

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E001"]
    assert errors[0].level == checks.ERROR
    assert "REVEL_RECURRING_EVENT_MODEL is not set" in errors[0].msg


def test_e001_event_model_setting_empty(settings: Settings) -> None:
    settings.REVEL_RECURRING_EVENT_MODEL = ""

    assert ids(check_event_model()) == ["revel_recurring.E001"]


@pytest.mark.parametrize("label", ["events.Event", "testapp.Nope", "not-a-label", "a.b.c"])
def test_e002_event_model_not_installed(label: str, settings: Settings) -> None:
    settings.REVEL_RECURRING_EVENT_MODEL = label

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E002"]
    assert f"'{label}'" in errors[0].msg


def test_e003_event_model_without_the_mixin(settings: Settings) -> None:
    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.Seat"

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E003"]
    assert errors[0].obj.__name__ == "Seat"
    assert "RecurringEventMixin" in errors[0].msg


# E004: the mixin's field-name mapping names fields the model lacks


@pytest.fixture
def isolated_apps(monkeypatch: pytest.MonkeyPatch) -> Iterator[Apps]:
    """A throwaway registry for models defined in a test; the checks look models up in it."""
    with isolate_apps("tests.hosts.testapp") as registry:
        monkeypatch.setattr(event_model_checks, "apps", registry)
        monkeypatch.setattr(visibility_checks, "apps", registry)
        yield registry


def test_e004_default_field_names_missing_on_the_host_model(
    isolated_apps: Apps, settings: Settings
) -> None:
    class BareEvent(RecurringEventMixin):
        title = models.CharField(max_length=50)

        class Meta(RecurringEventMixin.Meta):
            app_label = "testapp"

    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.BareEvent"

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E004"] * 3
    assert [e.msg for e in errors] == [
        "RECURRING_START_FIELD names 'start', which 'testapp.BareEvent' does not have.",
        "RECURRING_END_FIELD names 'end', which 'testapp.BareEvent' does not have.",
        "RECURRING_STATUS_FIELD names 'status', which 'testapp.BareEvent' does not have.",
    ]
    assert all(e.obj is BareEvent for e in errors)


def test_e004_not_raised_for_a_host_mapping_its_own_names(
    isolated_apps: Apps, settings: Settings
) -> None:
    class MappedEvent(RecurringEventMixin):
        begins = models.DateTimeField()
        phase = models.CharField(max_length=10)

        RECURRING_START_FIELD = "begins"
        RECURRING_END_FIELD = None
        RECURRING_STATUS_FIELD = "phase"

        class Meta(RecurringEventMixin.Meta):
            app_label = "testapp"

    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.MappedEvent"

    assert check_event_model() == []


@pytest.mark.parametrize(
    ("attribute", "value", "reported"),
    [
        ("RECURRING_START_FIELD", "start", "RECURRING_START_FIELD"),
        ("RECURRING_END_FIELD", "finish", "RECURRING_END_FIELD"),
        ("RECURRING_STATUS_FIELD", "status", "RECURRING_STATUS_FIELD"),
        ("RECURRING_VISIBILITY_FIELD", "visibility", "RECURRING_VISIBILITY_FIELD"),
        ("RECURRING_SHIFTED_FIELDS", ("doors_open_at", "rsvp_before"), "RECURRING_SHIFTED_FIELDS"),
        ("PROPAGATABLE_FIELDS", ("title", "price"), "PROPAGATABLE_FIELDS"),
    ],
)
def test_e004_each_mapped_attribute_is_checked(
    attribute: str, value: object, reported: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Event, attribute, value)

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E004"]
    assert errors[0].msg.startswith(reported)
    assert errors[0].obj is Event


# E005: dotted paths


@pytest.mark.parametrize(
    ("setting", "path"),
    [
        ("REVEL_RECURRING_ADAPTER", "myhost.adapters.SiteAdapter"),
        ("REVEL_RECURRING_ADAPTER", "revel_recurring.adapter.NoSuchAdapter"),
        ("REVEL_RECURRING_ADAPTER", "noDots"),
        ("REVEL_RECURRING_NOTIFIER", "tests.hosts.testapp.notifier.no_such_callable"),
    ],
)
def test_e005_dotted_path_cannot_be_imported(setting: str, path: str, settings: Settings) -> None:
    setattr(settings, setting, path)

    errors = check_dotted_paths()

    assert ids(errors) == ["revel_recurring.E005"]
    assert errors[0].msg == f"{setting} = '{path}' cannot be imported."


def test_e005_reported_for_each_bad_path(settings: Settings) -> None:
    settings.REVEL_RECURRING_ADAPTER = "nope.Adapter"
    settings.REVEL_RECURRING_NOTIFIER = "nope.notify"

    assert ids(check_dotted_paths()) == ["revel_recurring.E005", "revel_recurring.E005"]


def test_no_notifier_is_allowed(settings: Settings) -> None:
    del settings.REVEL_RECURRING_NOTIFIER

    assert check_dotted_paths() == []


# E006 / E007 / E008: numbers and the crontab


@pytest.mark.parametrize("weeks", [0, -1, 53])
def test_e006_default_window_out_of_range(weeks: int, settings: Settings) -> None:
    settings.REVEL_RECURRING_DEFAULT_WINDOW_WEEKS = weeks
    settings.REVEL_RECURRING_MAX_WINDOW_WEEKS = 60

    errors = check_setting_values()

    assert ids(errors) == ["revel_recurring.E006"]
    assert errors[0].msg == f"REVEL_RECURRING_DEFAULT_WINDOW_WEEKS must be 1 to 52, got {weeks}."


@pytest.mark.parametrize("weeks", [1, 52])
def test_default_window_bounds_are_accepted(weeks: int, settings: Settings) -> None:
    settings.REVEL_RECURRING_DEFAULT_WINDOW_WEEKS = weeks

    assert check_setting_values() == []


def test_e007_max_window_below_default(settings: Settings) -> None:
    settings.REVEL_RECURRING_DEFAULT_WINDOW_WEEKS = 8
    settings.REVEL_RECURRING_MAX_WINDOW_WEEKS = 4

    errors = check_setting_values()

    assert ids(errors) == ["revel_recurring.E007"]
    assert "(4)" in errors[0].msg
    assert "(8)" in errors[0].msg


def test_max_window_equal_to_default_is_accepted(settings: Settings) -> None:
    settings.REVEL_RECURRING_DEFAULT_WINDOW_WEEKS = 8
    settings.REVEL_RECURRING_MAX_WINDOW_WEEKS = 8

    assert check_setting_values() == []


@pytest.mark.parametrize("crontab", ["0 4 * *", "0 4 * * * *", "", "daily"])
def test_e008_crontab_without_five_fields(crontab: str, settings: Settings) -> None:
    settings.REVEL_RECURRING_BEAT_CRONTAB = crontab

    errors = check_setting_values()

    assert ids(errors) == ["revel_recurring.E008"]
    assert errors[0].hint == "For example '0 4 * * *' (04:00 UTC daily)."


def test_number_errors_are_reported_together(settings: Settings) -> None:
    settings.REVEL_RECURRING_DEFAULT_WINDOW_WEEKS = 60
    settings.REVEL_RECURRING_MAX_WINDOW_WEEKS = 52
    settings.REVEL_RECURRING_BEAT_CRONTAB = "0 4"

    assert ids(check_setting_values()) == [
        "revel_recurring.E006",
        "revel_recurring.E007",
        "revel_recurring.E008",
    ]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEFAULT_WINDOW_WEEKS", "eight"),
        ("TASK_MAX_RETRIES", None),
        ("DISPATCH_CHUNK_SIZE", -5),
        ("ADMIN_INLINE_LIMIT", -1),
        ("ADMIN_INLINE_LIMIT", 2.5),
    ],
)
def test_e009_number_settings_must_be_whole_numbers(
    name: str, value: object, settings: Settings
) -> None:
    setattr(settings, f"REVEL_RECURRING_{name}", value)
    errors = check_setting_values()
    assert [e.id for e in errors] == ["revel_recurring.E009"]
    assert f"REVEL_RECURRING_{name}" in errors[0].msg


@pytest.mark.parametrize("value", [8.7, "8", True])
@pytest.mark.parametrize("name", ["DEFAULT_WINDOW_WEEKS", "MAX_WINDOW_WEEKS", "TASK_RETRY_BACKOFF"])
def test_e009_values_int_would_accept_are_reported_not_coerced(
    name: str, value: object, settings: Settings
) -> None:
    setattr(settings, f"REVEL_RECURRING_{name}", value)

    errors = check_setting_values()

    assert [e.id for e in errors] == ["revel_recurring.E009"]
    assert errors[0].msg == f"REVEL_RECURRING_{name} must be a whole number, got {value!r}."
    assert getattr(recurring_settings, name) == value


@pytest.mark.parametrize("value", ["no", 0, None])
def test_e009_register_beat_tasks_must_be_true_or_false(value: object, settings: Settings) -> None:
    settings.REVEL_RECURRING_REGISTER_BEAT_TASKS = value

    errors = check_setting_values()

    assert [e.id for e in errors] == ["revel_recurring.E009"]
    assert "REVEL_RECURRING_REGISTER_BEAT_TASKS must be True or False" in errors[0].msg


# E010: the host Meta must keep the mixin's constraints


def test_e010_meta_not_inheriting_the_mixin_meta(isolated_apps: Apps, settings: Settings) -> None:
    class Performance(RecurringEventMixin):
        start = models.DateTimeField()
        end = models.DateTimeField(null=True)  # type: ignore[misc]
        status = models.CharField(max_length=20)

        class Meta:
            app_label = "testapp"
            ordering = ("start",)

    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.Performance"

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E010"]
    assert errors[0].level == checks.ERROR
    assert "testapp_performance_one_template_per_series" in errors[0].msg
    assert "testapp_performance_unique_recurrence_id" in errors[0].msg
    assert "RecurringEventMixin.Meta" in errors[0].hint


@pytest.mark.parametrize(
    ("extends_the_mixin_ones", "expected"),
    [(False, ["revel_recurring.E010"]), (True, [])],
    ids=["replacing", "extending"],
)
def test_e010_own_constraints_must_extend_the_mixin_ones(
    extends_the_mixin_ones: bool, expected: list[str], isolated_apps: Apps, settings: Settings
) -> None:
    inherited = list(RecurringEventMixin.Meta.constraints) if extends_the_mixin_ones else []
    own = models.CheckConstraint(
        condition=models.Q(end__gt=models.F("start")), name="perf_end_after_start"
    )

    class Performance(RecurringEventMixin):
        start = models.DateTimeField()
        end = models.DateTimeField(null=True)  # type: ignore[misc]
        status = models.CharField(max_length=20)

        class Meta(RecurringEventMixin.Meta):
            app_label = "testapp"
            constraints = [*inherited, own]

    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.Performance"

    assert ids(check_event_model()) == expected


# E011 / E012: start, end and shifted fields must hold instants


def test_e011_end_field_is_not_a_datetime(isolated_apps: Apps, settings: Settings) -> None:
    class Performance(RecurringEventMixin):
        begins = models.DateTimeField()
        finishes = models.DateField(null=True)  # type: ignore[misc]
        phase = models.CharField(max_length=20)

        RECURRING_START_FIELD = "begins"
        RECURRING_END_FIELD = "finishes"
        RECURRING_STATUS_FIELD = "phase"

        class Meta(RecurringEventMixin.Meta):
            app_label = "testapp"

    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.Performance"

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E011"]
    assert errors[0].msg == (
        "RECURRING_END_FIELD names 'finishes', which is not a DateTimeField of "
        "'testapp.Performance'."
    )


def test_e011_start_field_is_not_a_datetime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Event, "RECURRING_START_FIELD", "title")

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E011"]
    assert errors[0].msg.startswith("RECURRING_START_FIELD names 'title'")


def test_e012_shifted_field_is_not_a_datetime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Event, "RECURRING_SHIFTED_FIELDS", ("doors_open_at", "capacity"))

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E012"]
    assert "'capacity'" in errors[0].msg
    assert errors[0].obj is Event


# E013: status values the status field cannot hold


def test_e013_status_value_longer_than_max_length(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Event, "RECURRING_STATUS_CANCELLED", "cancelled_by_the_organiser")

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E013"]
    assert errors[0].msg == (
        "RECURRING_STATUS_CANCELLED = 'cancelled_by_the_organiser' is longer than state's "
        "max_length 20 on 'testapp.Event'."
    )


def test_e013_status_value_not_among_choices(isolated_apps: Apps, settings: Settings) -> None:
    class Performance(RecurringEventMixin):
        start = models.DateTimeField()
        end = models.DateTimeField(null=True)  # type: ignore[misc]
        status = models.CharField(
            max_length=20,
            choices=[("planning", "Planning"), ("selling", "Selling"), ("cancelled", "Off")],
        )

        RECURRING_STATUS_DRAFT = "planning"
        RECURRING_STATUS_OPEN = "on_sale"

        class Meta(RecurringEventMixin.Meta):
            app_label = "testapp"

    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.Performance"

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E013"]
    assert errors[0].msg.startswith("RECURRING_STATUS_OPEN = 'on_sale' is not among the choices")


def _integer_status_model(*, cancelled: object) -> type[models.Model]:
    class Status(models.IntegerChoices):
        DRAFT = 0, "Draft"
        OPEN = 1, "Open"
        CANCELLED = 2, "Cancelled"

    class Performance(RecurringEventMixin):
        start = models.DateTimeField()
        end = models.DateTimeField(null=True)  # type: ignore[misc]
        status = models.IntegerField(choices=Status.choices, default=Status.DRAFT)

        RECURRING_STATUS_DRAFT = Status.DRAFT
        RECURRING_STATUS_OPEN = 1
        RECURRING_STATUS_CANCELLED = cancelled

        class Meta(RecurringEventMixin.Meta):
            app_label = "testapp"

    return Performance


def test_e013_accepts_integer_choices_members_ints_and_their_text(
    isolated_apps: Apps, settings: Settings
) -> None:
    model = _integer_status_model(cancelled="2")
    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.Performance"

    assert ids(check_event_model()) == []
    # The run time compares the same way the check judged: "2" is the integer 2.
    assert model.is_status(2, model.RECURRING_STATUS_CANCELLED)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("cancelled", "problem"),
    [
        ("published", "'published' is not a value status can hold"),
        (7, "7 is not among the choices of status (0, 1, 2)"),
    ],
)
def test_e013_refuses_a_status_the_integer_field_cannot_hold(
    isolated_apps: Apps, settings: Settings, cancelled: object, problem: str
) -> None:
    _integer_status_model(cancelled=cancelled)
    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.Performance"

    errors = check_event_model()

    assert ids(errors) == ["revel_recurring.E013"]
    assert errors[0].msg == f"RECURRING_STATUS_CANCELLED = {problem} on 'testapp.Performance'."


# W001: a unique field every occurrence would copy


def _unique_slug_model(*, override: bool) -> type[models.Model]:
    class Performance(RecurringEventMixin):
        start = models.DateTimeField()
        end = models.DateTimeField(null=True)  # type: ignore[misc]
        status = models.CharField(max_length=20)
        slug = models.SlugField(unique=True)

        class Meta(RecurringEventMixin.Meta):
            app_label = "testapp"

    if override:

        def prepare_occurrence(self, **kwargs):
            occurrence = RecurringEventMixin.prepare_occurrence(self, **kwargs)
            occurrence.slug = f"{self.slug}-{kwargs['occurrence_index']}"
            return occurrence

        Performance.prepare_occurrence = prepare_occurrence  # type: ignore[method-assign]
    return Performance


def test_w001_unique_field_copied_without_prepare_occurrence(
    isolated_apps: Apps, settings: Settings
) -> None:
    _unique_slug_model(override=False)
    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.Performance"

    messages = check_event_model()

    assert ids(messages) == ["revel_recurring.W001"]
    assert messages[0].level == checks.WARNING
    assert "slug" in messages[0].msg
    assert "prepare_occurrence" in messages[0].hint


def test_w001_not_raised_when_prepare_occurrence_is_overridden(
    isolated_apps: Apps, settings: Settings
) -> None:
    _unique_slug_model(override=True)
    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.Performance"

    assert check_event_model() == []


def test_w001_unique_together_of_copied_fields(isolated_apps: Apps, settings: Settings) -> None:
    class Performance(RecurringEventMixin):
        start = models.DateTimeField()
        end = models.DateTimeField(null=True)  # type: ignore[misc]
        status = models.CharField(max_length=20)
        hall = models.CharField(max_length=20)
        code = models.CharField(max_length=20)

        class Meta(RecurringEventMixin.Meta):
            app_label = "testapp"
            constraints = [
                *RecurringEventMixin.Meta.constraints,
                models.UniqueConstraint(fields=["hall", "code"], name="perf_hall_code"),
                models.UniqueConstraint(fields=["hall", "start"], name="perf_hall_start"),
            ]

    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.Performance"

    messages = check_event_model()

    assert ids(messages) == ["revel_recurring.W001"]
    assert "hall, code" in messages[0].msg


# E015: the feed cache is one of CACHES


def test_e015_feed_cache_must_name_a_configured_cache(settings: Settings) -> None:
    settings.REVEL_RECURRING_FEED_CACHE = "feeds"

    errors = check_feed_cache()

    assert ids(errors) == ["revel_recurring.E015"]
    assert "'default'" in errors[0].hint
    settings.REVEL_RECURRING_FEED_CACHE = "default"
    assert check_feed_cache() == []
    settings.REVEL_RECURRING_FEED_CACHE = None
    assert check_feed_cache() == []


# E014: django_celery_beat must be installed


def test_e014_django_celery_beat_not_installed(settings: Settings) -> None:
    settings.INSTALLED_APPS = [a for a in settings.INSTALLED_APPS if a != "django_celery_beat"]

    errors = check_installed_apps()

    assert ids(errors) == ["revel_recurring.E014"]
    assert "REVEL_RECURRING_REGISTER_BEAT_TASKS = False" in errors[0].hint


def test_e014_not_raised_when_beat_registration_is_off(settings: Settings) -> None:
    settings.INSTALLED_APPS = [a for a in settings.INSTALLED_APPS if a != "django_celery_beat"]
    settings.REVEL_RECURRING_REGISTER_BEAT_TASKS = False

    assert check_installed_apps() == []


# E020 / E021: the RECURRING_VISIBILITY_* values against the visibility field's choices


def _team_event(**mapping: str | None) -> type[RecurringEventMixin]:
    """A host whose visibility values are "everyone" / "team" (defined in isolated apps)."""

    class TeamEvent(RecurringEventMixin):
        start = models.DateTimeField()
        end = models.DateTimeField()
        status = models.CharField(max_length=10)
        audience = models.CharField(
            max_length=10, choices=[("everyone", "Everyone"), ("team", "The team")]
        )

        RECURRING_VISIBILITY_FIELD = "audience"

        class Meta(RecurringEventMixin.Meta):
            app_label = "testapp"

    for attribute, value in mapping.items():
        setattr(TeamEvent, f"RECURRING_VISIBILITY_{attribute}", value)
    return TeamEvent


def test_e020_default_visibility_values_are_not_choices_of_the_field(
    isolated_apps: Apps, settings: Settings
) -> None:
    model = _team_event()
    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.TeamEvent"

    errors = check_visibility_mapping()

    assert ids(errors) == ["revel_recurring.E020"] * 5
    assert errors[0].msg == (
        "RECURRING_VISIBILITY_PUBLIC is 'public', which is not a choice of "
        "TeamEvent.audience ('everyone', 'team')."
    )
    assert all(e.obj is model for e in errors)


def test_e020_names_only_the_unknown_value(isolated_apps: Apps, settings: Settings) -> None:
    _team_event(
        PUBLIC="everyone", MEMBERS_ONLY="members", STAFF_ONLY=None, PRIVATE=None, UNLISTED=None
    )
    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.TeamEvent"

    errors = check_visibility_mapping()

    assert ids(errors) == ["revel_recurring.E020"]
    assert errors[0].msg.startswith("RECURRING_VISIBILITY_MEMBERS_ONLY is 'members'")


def test_a_site_mapping_its_own_visibility_values_passes(
    isolated_apps: Apps, settings: Settings
) -> None:
    _team_event(
        PUBLIC="everyone", MEMBERS_ONLY="team", STAFF_ONLY=None, PRIVATE=None, UNLISTED=None
    )
    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.TeamEvent"

    assert check_visibility_mapping() == []


def test_e021_one_value_mapped_to_two_audiences(isolated_apps: Apps, settings: Settings) -> None:
    _team_event(
        PUBLIC="everyone", MEMBERS_ONLY="team", STAFF_ONLY="team", PRIVATE=None, UNLISTED=None
    )
    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.TeamEvent"

    errors = check_visibility_mapping()

    assert ids(errors) == ["revel_recurring.E021"]
    assert "RECURRING_VISIBILITY_MEMBERS_ONLY and RECURRING_VISIBILITY_STAFF_ONLY" in errors[0].msg


def test_one_value_for_two_staff_levels_is_allowed(isolated_apps: Apps, settings: Settings) -> None:
    _team_event(
        PUBLIC="everyone", MEMBERS_ONLY=None, STAFF_ONLY="team", PRIVATE="team", UNLISTED=None
    )
    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.TeamEvent"

    assert check_visibility_mapping() == []


def test_visibility_field_without_choices_is_not_checked(
    isolated_apps: Apps, settings: Settings
) -> None:
    class FreeTextEvent(RecurringEventMixin):
        start = models.DateTimeField()
        end = models.DateTimeField()
        status = models.CharField(max_length=10)
        visibility = models.CharField(max_length=10)

        RECURRING_VISIBILITY_FIELD = "visibility"

        class Meta(RecurringEventMixin.Meta):
            app_label = "testapp"

    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.FreeTextEvent"

    assert check_visibility_mapping() == []


def test_visibility_check_is_registered_with_django(
    isolated_apps: Apps, settings: Settings
) -> None:
    _team_event()
    settings.REVEL_RECURRING_EVENT_MODEL = "testapp.TeamEvent"

    assert ids(checks.run_checks()).count("revel_recurring.E020") == 5


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "must be at least 1, got 0."),
        (1001, "must be at most 1000, got 1001."),
        ("50", "must be a whole number, got '50'."),
    ],
)
def test_e009_generation_chunk_size_is_a_whole_number_from_1_to_1000(
    value: object, message: str, settings: Settings
) -> None:
    settings.REVEL_RECURRING_GENERATION_CHUNK_SIZE = value

    errors = check_setting_values()

    assert [(e.id, e.msg) for e in errors] == [
        ("revel_recurring.E009", f"REVEL_RECURRING_GENERATION_CHUNK_SIZE {message}")
    ]


@pytest.mark.parametrize("value", [1, 1000])
def test_e009_generation_chunk_size_accepts_its_bounds(value: int, settings: Settings) -> None:
    settings.REVEL_RECURRING_GENERATION_CHUNK_SIZE = value
    assert check_setting_values() == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "must be at least 1, got 0."),
        (-3, "must be at least 1, got -3."),
        ("30", "must be a whole number, got '30'."),
        (7.5, "must be a whole number, got 7.5."),
    ],
)
def test_e009_queued_action_days_is_a_whole_number_of_one_or_more(
    value: object, message: str, settings: Settings
) -> None:
    # 0 days would remove a queued action's record before the organiser could read it.
    settings.REVEL_RECURRING_QUEUED_ACTION_DAYS = value

    errors = check_setting_values()

    assert [(e.id, e.msg) for e in errors] == [
        ("revel_recurring.E009", f"REVEL_RECURRING_QUEUED_ACTION_DAYS {message}")
    ]


@pytest.mark.parametrize("value", [1, 365])
def test_e009_queued_action_days_accepts_a_day_and_more(value: int, settings: Settings) -> None:
    settings.REVEL_RECURRING_QUEUED_ACTION_DAYS = value
    assert check_setting_values() == []


# W002: series generated with another holidays release whose dates would change


def _second_date(series: EventSeries) -> dt.date:
    return occurrences(series)[1].starts_at.astimezone(VIENNA).date()


@pytest.mark.django_db
def test_w002_series_generated_with_another_release_whose_dates_change() -> None:
    series = holiday_class()
    holiday_class("Evening class")  # generated with the installed release: not named
    generated_with(series)

    with newer_holiday_data([_second_date(series)]):
        warnings = check_holiday_data(databases=["default"])

        assert ids(warnings) == ["revel_recurring.W002"]
        assert warnings[0].level == checks.WARNING
        assert warnings[0].msg == (
            f"1 series were generated with holidays {OLD_RELEASE}; under the installed "
            f"{data_version()}, 1 of their dates would change (a holiday now skips or moves "
            f"them, or no longer does): Monday yoga ({series.pk})."
        )
        assert "revel_recurring_holidays --apply" in (warnings[0].hint or "")
        assert "revel_recurring.W002" in ids(checks.run_checks(databases=["default"]))
        assert "revel_recurring.W002" not in ids(checks.run_checks())

        apply_holiday_data(series)

        assert check_holiday_data(databases=["default"]) == []


@pytest.mark.django_db
def test_w002_not_raised_when_no_date_changes(django_assert_num_queries: Any) -> None:
    series = holiday_class()
    with django_assert_num_queries(1):
        assert check_holiday_data(databases=["default"]) == []
    generated_with(series)

    assert check_holiday_data(databases=["default"]) == []


def test_w002_runs_only_with_the_database_checks() -> None:
    # No database access is allowed here: the check must not query one.
    assert check_holiday_data() == []
    assert check_holiday_data(databases=["other"]) == []


@pytest.mark.django_db
def test_w002_says_nothing_before_the_tables_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("no such column: revel_recurring_eventseries.holidays_version")

    monkeypatch.setattr(holiday_data_checks, "series_changed_by_holiday_data", missing)

    assert check_holiday_data(databases=["default"]) == []


def test_e009_zone_data_auto_apply_names_a_mode(settings: Settings) -> None:
    settings.REVEL_RECURRING_ZONE_DATA_AUTO_APPLY = "booked"
    errors = check_setting_values()
    assert [e.id for e in errors] == ["revel_recurring.E009"]
    assert "REVEL_RECURRING_ZONE_DATA_AUTO_APPLY" in errors[0].msg


# W003: series whose dates the time-zone data loaded now puts at another wall clock
# (the moves themselves: tests/default/zones/test_zone_data.py).
@pytest.mark.django_db
def test_w003_names_the_series_a_tz_release_moves_until_applied(tmp_path: Path) -> None:
    with old_zone_data(tmp_path):
        series = create_recurring_series(
            rule_data={"frequency": "WEEKLY", "dtstart": first_monday(), "timezone": ZONE},
            template_data={"title": "Evening class"},
            name="Evening class",
        )
        assert check_zone_data(databases=["default"]) == []
        clocks_change(tmp_path)

        warnings = check_zone_data(databases=["default"])

        assert ids(warnings) == ["revel_recurring.W003"]
        assert f"Evening class ({series.pk})" in warnings[0].msg
        assert "revel_recurring_data --apply" in (warnings[0].hint or "")
        assert check_zone_data() == []
        apply_zone_data(series)
        assert check_zone_data(databases=["default"]) == []
