"""The admin's split form: the title of the dates follows a new name, the holiday settings
are offered prefilled and reach the continuation, the plan shows both."""

from __future__ import annotations

from typing import Any

import pytest

from revel_recurring import rules
from revel_recurring.models import EventSeries
from tests.support.admin import generated_series
from tests.support.factories import occurrences
from tests.support.forms import confirm_split, split_data, split_url
from tests.support.split_flow import titles

pytestmark = pytest.mark.django_db


def _yoga() -> tuple[EventSeries, Any]:
    series = generated_series(name="Yoga")
    EventSeries.objects.filter(pk=series.pk).update(
        holiday_country="AT", holiday_subdivision="9", holiday_policy="shift"
    )
    series.refresh_from_db()
    return series, rules.to_utc(occurrences(series)[2].starts_at)


def test_the_form_names_the_title_of_the_dates_and_offers_the_holidays_prefilled(
    admin_client: Any,
) -> None:
    series, at = _yoga()

    page = admin_client.get(split_url(series, at))

    assert page.status_code == 200
    form, template_form = page.context["form"], page.context["template_form"]
    assert str(template_form["title"].label) == "Title of each date"
    assert template_form["title"].value() == "Yoga"
    assert str(form["name"].label) == "Name of the continuation"
    prefilled = {name: form[name].value() for name in form.fields if name.startswith("holiday_")}
    assert prefilled == {
        "holiday_country": "AT",
        "holiday_subdivision": "9",
        "holiday_categories": "",
        "holiday_policy": "shift",
    }
    text = page.content.decode()
    assert 'id="revel-split-holidays"' in text
    assert 'id="id_template-title"' in text


def test_changing_only_the_name_gives_the_dates_the_new_name(admin_client: Any) -> None:
    series, at = _yoga()

    shown = admin_client.post(split_url(series), split_data(series, at, name="Evening yoga"))

    assert shown.status_code == 200
    assert (shown.context["old_title"], shown.context["new_title"]) == ("Yoga", "Evening yoga")
    assert 'id="revel-split-new-title">Evening yoga<' in shown.content.decode()
    confirm_split(admin_client, shown)
    continuation = EventSeries.objects.get(split_from=series)
    assert continuation.name == "Evening yoga"
    assert len(titles(continuation)) > 3
    assert set(titles(continuation)) == {"Evening yoga"}
    # The holiday settings went on as the form showed them.
    assert (continuation.holiday_country, continuation.holiday_policy) == ("AT", "shift")


def test_a_title_typed_by_hand_is_kept_even_when_it_is_the_old_one(admin_client: Any) -> None:
    series, at = _yoga()
    data = split_data(series, at, name="Evening yoga", _title_edited="1")

    shown = admin_client.post(split_url(series), data)

    assert shown.context["new_title"] == "Yoga"
    confirm_split(admin_client, shown)
    continuation = EventSeries.objects.get(split_from=series)
    assert set(titles(continuation)) == {"Yoga"}


def test_holiday_settings_changed_in_the_form_reach_the_continuation(admin_client: Any) -> None:
    series, at = _yoga()
    data = split_data(series, at, holiday_policy="keep", holiday_subdivision="")

    shown = admin_client.post(split_url(series), data)

    assert shown.status_code == 200
    assert shown.context["old_holidays"] != shown.context["new_holidays"]
    assert "Keep" in shown.context["new_holidays"]
    confirm_split(admin_client, shown)
    continuation = EventSeries.objects.get(split_from=series)
    assert (continuation.holiday_country, continuation.holiday_subdivision) == ("AT", "")
    assert continuation.holiday_policy == "keep"
    series.refresh_from_db()
    assert (series.holiday_subdivision, series.holiday_policy) == ("9", "shift")


def test_a_wrong_holiday_setting_is_shown_under_its_field(admin_client: Any) -> None:
    series, at = _yoga()

    shown = admin_client.post(split_url(series), split_data(series, at, holiday_country="XX"))

    assert shown.status_code == 200
    assert shown.context["form"].errors["holiday_country"]
    assert not EventSeries.objects.filter(split_from=series).exists()
