"""Domain errors carry the input they are about, for forms and serializers."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError

from revel_recurring.exceptions import (
    GenerationWindowError,
    InvalidPropagationError,
    NotAnOccurrenceError,
    NotCancelledError,
    RecurrenceError,
    SeriesHasBookingsError,
)
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.propagation import update_template
from tests.support.factories import NOW, monday, weekly_series

pytestmark = pytest.mark.django_db


def test_cancelling_a_non_occurrence_is_keyed_by_occurrence() -> None:
    series = weekly_series()

    with pytest.raises(NotAnOccurrenceError) as caught:
        cancel_occurrence(series, monday(1) + dt.timedelta(hours=1), now=NOW)

    assert caught.value.field == "occurrence"
    assert caught.value.message_dict == {"occurrence": [str(caught.value)]}
    assert caught.value.as_validation_error().message_dict == caught.value.message_dict


def test_restoring_a_live_occurrence_is_keyed_by_occurrence() -> None:
    series = weekly_series()

    with pytest.raises(NotCancelledError) as caught:
        restore_occurrence(series, monday(1), now=NOW)

    assert list(caught.value.message_dict) == ["occurrence"]


def test_an_unknown_propagation_scope_is_keyed_by_propagate() -> None:
    series = weekly_series()

    with pytest.raises(InvalidPropagationError) as caught:
        update_template(series, {"title": "x"}, propagate="everything", now=NOW)

    assert caught.value.field == "propagate"
    assert list(caught.value.message_dict) == ["propagate"]


def test_bad_propagation_fields_are_keyed_by_their_own_names() -> None:
    series = weekly_series()

    with pytest.raises(InvalidPropagationError) as unknown:
        update_template(series, {"title": "x", "price": 3}, propagate="all_future", now=NOW)
    with pytest.raises(InvalidPropagationError) as local_only:
        update_template(series, {"ends_at": NOW}, propagate="all_future", now=NOW)
    with pytest.raises(InvalidPropagationError) as managed:
        update_template(series, {"state": "on_sale"}, now=NOW)

    assert list(unknown.value.message_dict) == ["price"]
    assert list(local_only.value.message_dict) == ["ends_at"]
    assert "propagate='none'" in local_only.value.message_dict["ends_at"][0]
    assert list(managed.value.message_dict) == ["state"]


def test_a_horizon_too_far_ahead_is_keyed_by_until() -> None:
    series = weekly_series(generate=False)

    with pytest.raises(GenerationWindowError) as caught:
        generate_series_events(series, until=NOW + dt.timedelta(weeks=60), now=NOW)

    assert list(caught.value.message_dict) == ["until"]


def test_errors_about_no_single_input_are_non_field_errors() -> None:
    error = SeriesHasBookingsError("Series 'x' cannot be deleted.")

    assert error.message_dict == {NON_FIELD_ERRORS: ["Series 'x' cannot be deleted."]}
    assert isinstance(error.as_validation_error(), ValidationError)
    assert isinstance(error, RecurrenceError)


def test_cancelling_by_a_date_asks_for_an_aware_datetime() -> None:
    series = weekly_series()

    with pytest.raises(NotAnOccurrenceError) as caught:
        cancel_occurrence(series, dt.date(2026, 3, 9), now=NOW)  # type: ignore[arg-type]

    assert "aware datetime" in str(caught.value)
    assert list(caught.value.message_dict) == ["occurrence"]
