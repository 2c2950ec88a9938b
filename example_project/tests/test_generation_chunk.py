"""The example host's batched clone_related_many under the chunked daily pass."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from example_project.events.models import Event, TicketTier
from revel_recurring.services.generation.chunks import generate_series_chunk_events

from .conftest import MakeTemplate

pytestmark = pytest.mark.django_db


def _templates(make_template: MakeTemplate, prefix: str, count: int) -> list[Event]:
    return [
        make_template(tiers=2, slug=f"{prefix}-{n}", name=f"{prefix} {n}") for n in range(count)
    ]


def _chunk_queries(templates: list[Event], now: dt.datetime) -> int:
    with CaptureQueriesContext(connection) as queries:
        result = generate_series_chunk_events([t.series_id for t in templates], now=now)
    assert result.chunked == len(templates)
    assert result.created == 8 * len(templates)
    return len(queries.captured_queries)


@pytest.mark.postgres
@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL")
def test_chunk_queries_do_not_grow_with_the_series_on_postgresql(
    make_template: MakeTemplate, now: dt.datetime
) -> None:
    few = _chunk_queries(_templates(make_template, "few", 3), now)
    many = _chunk_queries(_templates(make_template, "many", 12), now)

    # SAVEPOINT (the test's transaction is open), the SKIP LOCKED lock, rules,
    # templates with slots and pending exdates, occurrence INSERT, tier SELECT and
    # INSERT, the enrolments of the series (the example books enrolled users; none
    # here, so nothing more), cursor UPDATE, the history's summary of the chunk (one
    # INSERT of its record, one of the series it names), RELEASE. (SQLite and
    # MariaDB lock series one by one, and SQLite splits the inserts by its
    # parameter limit.)
    assert few == many == 12


def test_clone_related_many_copies_every_templates_tiers_in_one_read_and_one_insert(
    make_template: MakeTemplate, now: dt.datetime
) -> None:
    templates = _templates(make_template, "tiers", 4)
    generate_series_chunk_events([t.series_id for t in templates], now=now)

    for template in templates:
        for occurrence in Event.objects.filter(series=template.series, is_template=False):
            tiers = list(occurrence.ticket_tiers.order_by("name"))
            assert [t.name for t in tiers] == ["Tier 1", "Tier 2"]
            assert all(t.quantity_sold == 0 for t in tiers)
            delta = occurrence.start - template.start
            assert (
                tiers[0].sales_start == template.ticket_tiers.get(name="Tier 1").sales_start + delta
            )
    assert TicketTier.objects.filter(event__is_template=False).count() == 4 * 8 * 2
