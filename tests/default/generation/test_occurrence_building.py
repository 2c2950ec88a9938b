"""Building an occurrence from its template: what is copied, what is fresh, who is told.

``prepare_occurrence`` hands the model's ``__init__`` one value per concrete
field, as Django's own ``from_db`` does: the host's ``__init__`` and its
``pre_init``/``post_init`` receivers run for every occurrence, and the fields an
occurrence does not copy get their default.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db.models.signals import post_init, pre_init

from revel_recurring.host_model import RowSizer
from tests.hosts.testapp.models import Event
from tests.support.factories import DURATION, template_of, weekly_series

pytestmark = pytest.mark.django_db

LATER = dt.timedelta(weeks=20)


def _template() -> Event:
    series = weekly_series(generate=False)
    return template_of(series)


def test_every_built_occurrence_goes_through_init_and_its_receivers() -> None:
    template = _template()
    seen: list[tuple[str, Any]] = []

    def before(sender: Any, args: tuple[Any, ...], **kwargs: Any) -> None:
        seen.append(("pre", len(args)))

    def after(sender: Any, instance: Any, **kwargs: Any) -> None:
        # A host's field tracker reads the values right here.
        seen.append(("post", instance.title))

    pre_init.connect(before, sender=Event)
    post_init.connect(after, sender=Event)
    try:
        built = [
            template.prepare_occurrence(
                start=template.starts_at + LATER * number, occurrence_index=number, status="on_sale"
            )
            for number in (1, 2)
        ]
    finally:
        pre_init.disconnect(before, sender=Event)
        post_init.disconnect(after, sender=Event)

    fields = len(Event._meta.concrete_fields)
    assert seen == [("pre", fields), ("post", template.title)] * 2
    assert [occurrence.pk for occurrence in built] == [None, None]
    assert all(occurrence._state.adding for occurrence in built)


def test_an_occurrence_copies_the_template_but_not_its_own_state() -> None:
    template = _template()
    start = template.starts_at + LATER

    occurrence = template.prepare_occurrence(start=start, occurrence_index=7, status="on_sale")

    assert (occurrence.title, occurrence.venue, occurrence.capacity) == (
        template.title,
        template.venue,
        template.capacity,
    )
    assert occurrence.starts_at == start
    assert occurrence.ends_at == start + DURATION
    assert occurrence.doors_open_at == template.doors_open_at + LATER
    assert occurrence.state == "on_sale"
    assert (occurrence.is_template, occurrence.is_modified) == (False, False)
    assert (occurrence.occurrence_index, occurrence.series_id) == (7, template.series_id)
    assert occurrence.status_before_cancellation == ""


def test_an_uncopied_field_gets_its_default_not_the_templates_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    template = _template()
    template.venue = "Main hall"
    # The test app leaves only created_at uncopied; leave the venue behind too.
    monkeypatch.setattr(Event, "RECURRING_UNCOPIED_FIELDS", ("created_at", "venue"))

    occurrence = template.prepare_occurrence(
        start=template.starts_at + LATER, occurrence_index=1, status="on_sale"
    )

    assert occurrence.venue == ""  # the field's default
    assert occurrence.created_at is None  # auto_now_add fills it on save
    assert occurrence.title == template.title


def test_a_short_string_weighs_the_same_every_time_it_is_weighed() -> None:
    sizer = RowSizer(Event)
    short = "Hall"

    first, again = sizer.value_bytes(short), sizer.value_bytes(short)

    # A short text costs what any small value costs, measured or remembered.
    assert first == again == sizer.value_bytes(12) == 16
    assert sizer.value_bytes("x" * 100) == sizer.value_bytes("x" * 100) == 100
