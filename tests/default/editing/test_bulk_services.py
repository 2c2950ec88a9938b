"""services.bulk: many series a chunk at a time, each through its own service; the chunk tasks."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from revel_recurring import tasks
from revel_recurring.exceptions import SeriesBusyError
from revel_recurring.models import EventSeries
from revel_recurring.services import bulk
from revel_recurring.services.bulk import StaleChoice
from revel_recurring.services.drift import detect_cadence_drift
from tests.default.admin.test_admin_queued import book, cancelled, drifting
from tests.support.admin import generated_series
from tests.support.factories import occurrences

pytestmark = pytest.mark.django_db


def test_stale_choice_without_rest_cancels_only_the_ticked_dates() -> None:
    choice = StaleChoice(ticked=frozenset({1, 3}), listed=frozenset({1, 2, 3}))

    assert choice.to_cancel(7, [1, 2, 3, 4, 5]) == [1, 3]


def test_stale_choice_with_rest_adds_the_unlisted_dates_but_not_of_a_complete_series() -> None:
    choice = StaleChoice(
        ticked=frozenset({1}), listed=frozenset({1, 2}), complete=frozenset({8}), rest=True
    )

    assert choice.to_cancel(7, [1, 2, 4, 5]) == [1, 4, 5]  # 2 listed, left unticked: kept
    assert choice.to_cancel(8, [1, 2, 4, 5]) == [1]  # every date listed: ticks alone


def test_pause_many_reports_each_series_and_the_missing_ones() -> None:
    yoga, pilates = generated_series(name="Yoga"), generated_series(name="Pilates")
    bulk.pause_series(pilates)  # type: ignore[attr-defined]

    result = bulk.pause_many([yoga.pk, pilates.pk, 999_999])

    assert (result.changed, result.unchanged, result.missing) == (
        [yoga.pk],
        [pilates.pk],
        [999_999],
    )
    assert not EventSeries.objects.filter(is_active=True).exists()


def test_one_refused_series_never_stops_the_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second, third = (generated_series(name=n) for n in ("A", "B", "C"))
    real = bulk.resume_series  # type: ignore[attr-defined]

    def busy_for_b(series: EventSeries, **options: Any) -> bool:
        if series.name == "B":
            raise SeriesBusyError("B is being changed elsewhere; try again.")
        if series.name == "C":
            raise RuntimeError("a host hook broke")
        return real(series, **options)

    monkeypatch.setattr(bulk, "resume_series", busy_for_b)
    for series in (first, second, third):
        bulk.pause_series(series)  # type: ignore[attr-defined]

    result = bulk.resume_many([first.pk, second.pk, third.pk])

    assert result.changed == [first.pk]
    assert result.failed == {
        second.pk: "B is being changed elsewhere; try again.",
        third.pk: "RuntimeError: a host hook broke",
    }


def test_delete_many_keeps_a_booked_series_and_names_its_dates() -> None:
    yoga, pilates = generated_series(name="Yoga"), generated_series(name="Pilates")
    book(occurrences(pilates)[0].pk)

    result = bulk.delete_many([yoga.pk, pilates.pk])

    assert result.changed == [yoga.pk]
    assert list(result.kept) == [pilates.pk]
    assert "cannot be deleted" in result.kept[pilates.pk]
    assert list(EventSeries.objects.values_list("pk", flat=True)) == [pilates.pk]


def test_cancel_stale_many_locks_only_series_with_something_to_cancel() -> None:
    stale, fine = drifting("Stale"), generated_series(name="Fine")
    dates = detect_cadence_drift(stale)
    book(dates[0])

    result = bulk.cancel_stale_many([stale.pk, fine.pk], choice=StaleChoice(rest=True))

    assert result.unchanged == [fine.pk]
    assert result.changed == [stale.pk]
    assert result.cancelled == len(dates) - 1
    assert list(result.kept) == [stale.pk]
    assert cancelled(stale) == set(dates[1:])


def test_the_fan_out_refuses_a_task_that_is_not_an_admin_chunk() -> None:
    with pytest.raises(ValueError, match="not one of the admin's chunk tasks"):
        tasks.fan_out_series_chunks("revel_recurring.generate_all_series", [1])


def test_the_fan_out_sends_one_chunk_task_per_chunk(settings: Any) -> None:
    settings.REVEL_RECURRING_GENERATION_CHUNK_SIZE = 2
    series = [generated_series(name=f"Yoga {n}") for n in range(5)]

    result = tasks.fan_out_series_chunks(
        "revel_recurring.pause_series_chunk",
        [s.pk for s in series],
        {"now": timezone.now().isoformat()},
    )

    assert result == {"task": "revel_recurring.pause_series_chunk", "series": 5, "chunks": 3}
    assert not EventSeries.objects.filter(is_active=True).exists()  # eager: the chunks ran


def test_a_chunk_task_names_its_ids_by_count_and_bounds() -> None:
    assert tasks.ids_repr([4, 9, 7]) == "[3 series 4..9]"
    assert tasks.ids_repr([]) == "[]"
