from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from example_project.events.models import Event, TicketTier

from .conftest import MakeTemplate
from .helpers import materialize, weekly_starts

pytestmark = pytest.mark.django_db


def _clone_queries(template: Event, count: int) -> int:
    occurrences = materialize(template, weekly_starts(template, count))
    with CaptureQueriesContext(connection) as queries:
        Event.clone_related(template, occurrences)
    assert TicketTier.objects.filter(event__in=occurrences).count() == count * 2
    return len(queries.captured_queries)


def test_clone_related_query_count_does_not_grow_with_occurrences(
    make_template: MakeTemplate,
) -> None:
    few = _clone_queries(make_template(tiers=2, slug="few", name="Few"), 4)
    many = _clone_queries(make_template(tiers=2, slug="many", name="Many"), 50)

    # One SELECT of the template's tiers and one bulk INSERT (50 x 2 rows stay well
    # inside SQLite's parameter limit, so it is not split into batches).
    assert few == many == 2


def test_clone_related_resets_sales_and_shifts_the_sales_window(
    make_template: MakeTemplate,
) -> None:
    template = make_template(tiers=2)
    occurrences = materialize(template, weekly_starts(template, 3))

    Event.clone_related(template, occurrences)

    originals = {tier.name: tier for tier in template.ticket_tiers.all()}
    for occurrence in occurrences:
        delta = occurrence.start - template.start
        clones = list(occurrence.ticket_tiers.all())
        assert sorted(tier.name for tier in clones) == sorted(originals)
        for clone in clones:
            original = originals[clone.name]
            assert clone.quantity_sold == 0
            assert clone.price == original.price
            assert clone.quantity == original.quantity
            assert clone.sales_start == original.sales_start + delta
            assert clone.sales_end == original.sales_end + delta


def test_clone_related_without_tiers_only_reads(make_template: MakeTemplate) -> None:
    template = make_template(tiers=0)
    occurrences = materialize(template, weekly_starts(template, 4))

    with CaptureQueriesContext(connection) as queries:
        Event.clone_related(template, occurrences)

    assert len(queries.captured_queries) == 1
    assert not TicketTier.objects.filter(event__in=occurrences).exists()
