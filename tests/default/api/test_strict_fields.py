"""StrictFieldsMixin: which keys a request body may carry besides the writable fields."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from rest_framework import serializers

from revel_recurring.api.fields import StrictFieldsMixin


class Shelf(StrictFieldsMixin, serializers.Serializer[Any]):
    name = serializers.CharField()
    label = serializers.CharField(read_only=True)  # type: ignore[assignment]
    shelf_mark = serializers.CharField(read_only=True, source="mark")
    audit = serializers.SerializerMethodField()

    def get_audit(self, instance: Any) -> str:
        if getattr(instance, "broken", False):
            raise RuntimeError("a bug in the host's method field")
        return "ok"


def errors_for(instance: Any, body: dict[str, Any]) -> dict[str, Any]:
    serializer = Shelf(instance, data=body, partial=True)
    serializer.is_valid()
    return dict(serializer.errors)


def test_a_read_only_value_sent_back_unchanged_is_ignored() -> None:
    shelf = SimpleNamespace(name="A", label="Top", mark="A-1")

    assert errors_for(shelf, {"name": "B", "label": "Top", "shelf_mark": "A-1"}) == {}


def test_a_read_only_value_that_differs_is_refused() -> None:
    shelf = SimpleNamespace(name="A", label="Top", mark="A-1")

    assert errors_for(shelf, {"label": "Bottom"}) == {
        "label": ["This field is read-only; leave it out."]
    }


def test_a_read_only_field_the_instance_cannot_fill_is_refused_not_an_error() -> None:
    # No ``mark`` on the instance: DRF's get_attribute raises SkipField for an
    # optional field, which means "cannot be read back", so the key is refused.
    shelf = SimpleNamespace(name="A", label="Top")

    assert errors_for(shelf, {"shelf_mark": "A-1"}) == {
        "shelf_mark": ["This field is read-only; leave it out."]
    }


def test_a_failing_method_field_is_not_taken_for_a_changed_value() -> None:
    # A bug in a host's field surfaces instead of becoming a 400 about the key.
    shelf = SimpleNamespace(name="A", label="Top", mark="A-1", broken=True)

    with pytest.raises(RuntimeError, match="host's method field"):
        errors_for(shelf, {"audit": "ok"})
