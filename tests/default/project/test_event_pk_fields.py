"""Host event ids are read and written through the host's own primary key field.

Integer, big integer, UUID and text keys (the studio host, ``tests/studio``, runs
the whole API on UUIDs); here the field helper itself, each kind of key.
"""

from __future__ import annotations

import uuid
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import connection, models
from django.test import override_settings
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry
from rest_framework import serializers
from rest_framework.test import APIClient

from revel_recurring.api.fields import EventIdField, UUIDTextField, pk_serializer_field
from revel_recurring.host_model import parse_event_pks
from revel_recurring.models import OccurrenceChange
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event
from tests.support.drift import drift_without_partners
from tests.support.factories import NOW, make_series

INT64 = 2**63 - 1
# The column's range as the database backend states it: SQLite stores every
# integer in 64 bits, PostgreSQL's ``integer`` has 32.
_, AUTO_MAX = connection.ops.integer_field_range("AutoField")
SAMPLE = uuid.UUID("12345678-1234-5678-1234-567812345678")


def model_with(pk: models.Field[Any, Any]) -> Any:
    """Just enough of a model for parse_event_pks: its ``_meta.pk``."""
    return SimpleNamespace(_meta=SimpleNamespace(pk=pk))


def test_an_auto_field_key_is_bounded_by_its_column() -> None:
    field = pk_serializer_field(models.AutoField(primary_key=True))

    assert isinstance(field, serializers.IntegerField)
    assert (field.min_value, field.max_value) == (1, AUTO_MAX)
    assert field.to_representation(7) == 7
    assert field.run_validation("7") == 7
    with pytest.raises(serializers.ValidationError):
        field.run_validation(AUTO_MAX + 1)


def test_a_big_auto_field_key_is_a_64_bit_integer() -> None:
    field = pk_serializer_field(models.BigAutoField(primary_key=True))

    assert isinstance(field, serializers.IntegerField)
    assert (field.min_value, field.max_value) == (1, INT64)
    assert field.run_validation(INT64) == INT64
    for wrong in (INT64 + 1, 0, -3):
        with pytest.raises(serializers.ValidationError):
            field.run_validation(wrong)


def test_a_plain_integer_key_takes_the_whole_column_range() -> None:
    field = pk_serializer_field(models.BigIntegerField(primary_key=True))

    assert (field.min_value, field.max_value) == (-(2**63), INT64)  # type: ignore[attr-defined]
    assert field.run_validation(-3) == -3


def test_a_uuid_key_is_its_text_never_a_number() -> None:
    field = pk_serializer_field(models.UUIDField(primary_key=True))

    assert isinstance(field, UUIDTextField)
    assert field.to_representation(SAMPLE) == "12345678-1234-5678-1234-567812345678"
    assert field.run_validation(str(SAMPLE)) == SAMPLE
    assert field.run_validation(SAMPLE.hex) == SAMPLE
    for wrong in (SAMPLE.int, 12, "12", "not-a-uuid", 1.5):
        with pytest.raises(serializers.ValidationError):
            field.run_validation(wrong)


def test_a_text_key_keeps_its_exact_spelling_and_length() -> None:
    field = pk_serializer_field(models.CharField(primary_key=True, max_length=8))

    assert isinstance(field, serializers.CharField)
    assert field.run_validation(" ab ") == " ab "
    assert field.to_representation("ab") == "ab"
    with pytest.raises(serializers.ValidationError):
        field.run_validation("x" * 9)


def test_a_slug_key_is_text_as_well() -> None:
    field = pk_serializer_field(models.SlugField(primary_key=True, max_length=30))

    assert isinstance(field, serializers.CharField)
    assert field.max_length == 30


@pytest.mark.parametrize(
    ("pk", "posted", "parsed"),
    [
        (models.BigAutoField(primary_key=True), ["3", "x", "", "3", str(INT64 + 1), "-"], [3]),
        (models.BigIntegerField(primary_key=True), ["-2", "0", str(INT64 + 1)], [-2, 0]),
        (models.AutoField(primary_key=True), ["5", str(AUTO_MAX + 1), "4"], [5, 4]),
        (models.UUIDField(primary_key=True), [str(SAMPLE), "12", SAMPLE.hex, "zz"], [SAMPLE]),
        (models.CharField(primary_key=True, max_length=4), ["ab", "", "toolong", "9"], ["ab", "9"]),
    ],
)
def test_form_values_are_parsed_by_the_key_field(
    pk: models.Field[Any, Any], posted: list[str], parsed: list[Any]
) -> None:
    assert parse_event_pks(model_with(pk), posted) == parsed


def test_event_id_field_follows_the_configured_host_model() -> None:
    field = EventIdField()

    assert field.to_representation(12) == 12
    assert field.run_validation("12") == 12
    with pytest.raises(serializers.ValidationError):
        field.run_validation("twelve")
    assert Event._meta.pk is not None
    assert isinstance(Event._meta.pk, models.BigAutoField)


@pytest.mark.parametrize("direction", ["request", "response"])
def test_the_schema_types_big_integer_ids_as_int64(direction: str) -> None:
    # drf-spectacular's own field mapping, as the schema view runs it for every id
    # (the full document of this host is read in the studio suite and the example's).
    schema = AutoSchema()
    schema.registry = ComponentRegistry()

    mapped = schema._map_serializer_field(EventIdField(help_text="The id."), direction)
    listed = schema._map_serializer_field(serializers.ListField(child=EventIdField()), direction)

    assert (mapped["type"], mapped["format"], mapped["maximum"]) == ("integer", "int64", INT64)
    assert mapped["description"] == "The id."
    assert (listed["items"]["type"], listed["items"]["format"]) == ("integer", "int64")


@pytest.mark.django_db
@pytest.mark.urls("tests.api_urls")
def test_cancel_stale_refuses_an_id_beyond_the_key_column(admin_user: Any) -> None:
    series = make_series(name="Yoga")
    generate_series_events(series, now=NOW)
    drift_without_partners(series, now=NOW)
    client = APIClient()
    client.force_authenticate(admin_user)

    response = client.post(
        f"/api/recurring/series/{series.pk}/cancel-stale/", {"ids": [INT64 + 1]}, format="json"
    )

    assert response.status_code == 400
    assert list(response.json()) == ["ids"]
    assert detect_cadence_drift(series, now=NOW)


@pytest.mark.django_db
def test_the_change_log_keeps_a_long_text_key_whole() -> None:
    series = make_series(name="Yoga")
    key = "lesson-" + "k" * 300

    OccurrenceChange.objects.create(series=series, occurrence_pk=key, kind="deleted")

    assert OccurrenceChange.objects.get().occurrence_pk == key


def test_the_schema_types_ids_as_text_while_no_host_model_is_configured() -> None:
    schema = AutoSchema()
    schema.registry = ComponentRegistry()

    with override_settings(REVEL_RECURRING_EVENT_MODEL="nowhere.Event"):
        mapped = schema._map_serializer_field(EventIdField(), "response")

    assert mapped["type"] == "string"
