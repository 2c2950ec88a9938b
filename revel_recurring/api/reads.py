"""The reads behind the API's lists, each a constant number of queries per page."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q
from django.utils import timezone

from .. import changelog
from ..models import EventSeries, get_event_model
from ..querysets import upcoming_q
from .filters import OccurrenceFilter, slot_matches
from .serializers import OccurrenceRow


@dataclass
class SeriesExtras:
    """The template and the occurrence counts of a page of series (two queries)."""

    templates: dict[int, Any] = field(default_factory=dict)
    counts: dict[int, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, series_ids: list[int]) -> SeriesExtras:
        extras = cls()
        if not series_ids:
            return extras
        model = get_event_model()
        manager = model._default_manager
        for template in manager.filter(series_id__in=series_ids, is_template=True):
            extras.templates[template.series_id] = template  # type: ignore[index]
        status_field = model.RECURRING_STATUS_FIELD
        upcoming = Count("pk", filter=upcoming_q(model, now=timezone.now()))
        rows = (
            manager.filter(series_id__in=series_ids, is_template=False)
            .order_by()
            .values("series_id", status_field)
            .annotate(n=Count("pk"), upcoming=upcoming)
        )
        for row in rows:
            counts = extras.counts.setdefault(
                row["series_id"], {"total": 0, "upcoming": 0, "by_status": {}}
            )
            counts["total"] += row["n"]
            counts["upcoming"] += row["upcoming"]
            counts["by_status"][str(row[status_field])] = row["n"]
        return extras


def changed_rows(
    series: EventSeries, filterset: Any, params: dict[str, Any], since: Any, now: Any
) -> dict[tuple[Any, int, Any], Any]:
    """Sort keys of what changed since ``since``, mapped to None for a live row (the
    view reads the page's rows in one query) or to the tombstone of a deleted one.

    A live row matches every filter; a cancelled one (a tombstone that still has
    its row) only the date filters, so a client syncing open occurrences still
    learns of a cancellation. Deleted rows come from the change log.
    """
    model = get_event_model()
    start, updated = model.RECURRING_START_FIELD, model.RECURRING_UPDATED_FIELD
    if updated:
        changed = Q(pk__in=changelog.changed_pks(series.pk, since))
        changed |= Q(**{f"{updated}__gte": since})
    else:
        changed = Q(pk__isnull=False)  # without a change stamp every row may have changed
    dates_only = OccurrenceFilter(
        {k: v for k, v in filterset.data.items() if k not in ("status", "is_modified")},
        queryset=series.occurrences(),
    ).qs
    cancelled = dates_only.filter(
        **{model.RECURRING_STATUS_FIELD: model.RECURRING_STATUS_CANCELLED}
    )
    matching = (
        series.occurrences()
        .filter(changed)
        .filter(Q(pk__in=filterset.qs.values("pk")) | Q(pk__in=cancelled.values("pk")))
    )
    keys: dict[tuple[Any, int, Any], Any] = {
        (value, 0, pk): None for pk, value in matching.values_list("pk", start)
    }
    for change in changelog.deleted_since(series.pk, since):
        if slot_matches(params, change.recurrence_id, now):
            row = OccurrenceRow.tombstone(change)
            keys[(change.recurrence_id or change.at, 1, row.id)] = row
    return keys
