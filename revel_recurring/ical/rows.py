"""What a calendar feed reads: its rows and its revision stamps, in a fixed number of queries.

:mod:`revel_recurring.ical` turns these into iCalendar text. Reading is bounded
three ways, so a poll costs the same whatever the number of series and however
long their history:

- rows: one query for the templates of every listed series, one for their
  occurrences, from ``REVEL_RECURRING_FEED_PAST_DAYS`` ago onwards, one for
  their excluded slots (:func:`~revel_recurring.exclusions.excluded_for_series`);
- columns: the ones the export needs (start, end or duration, status, visibility,
  slot) and
  the ones the adapter says its iCal hooks read (``get_ical_fields``); related
  rows come from ``prefetch_ical_events``, once for the whole feed;
- continuations: one query for the series that continue any of them (a split);
- stamps: one aggregate gives each series' last change (series row, rule, any of
  its events' ``RECURRING_UPDATED_FIELD``, last ``OccurrenceChange``), the same
  query :func:`series_revisions` answers a 304 from.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.db import connections, models
from django.db.models import Exists, F, Max, OuterRef, Subquery, Value
from django.db.models.functions import MD5

from ..adapter import DefaultRecurringAdapter
from ..conf import recurring_settings
from ..exclusions import Exclusions, excluded_for_series
from ..host_model import bulky_fields
from ..models import EventSeries, OccurrenceChange, get_event_model

# Occurrences whose long texts differ from the template's are read this many at a
# time: a feed of hand-edited descriptions holds only what it prints.
DIFFERING_BATCH = 100


def past_cutoff(now: dt.datetime) -> dt.datetime:
    """The earliest start a feed shows: ``REVEL_RECURRING_FEED_PAST_DAYS`` before ``now``."""
    return now - dt.timedelta(days=recurring_settings.FEED_PAST_DAYS)


def series_revisions(series: models.QuerySet[EventSeries]) -> dict[Any, dt.datetime]:
    """Each series' last change, by primary key, in one query.

    The latest of the series row's stamps, its rule's, the ``RECURRING_UPDATED_FIELD``
    of any of its events (all of them, not only the ones a feed shows) and its last
    ``OccurrenceChange``. Read as aggregates: no event row is loaded.
    """
    model = get_event_model()
    updated = model.RECURRING_UPDATED_FIELD
    events_at: Any = Value(None, output_field=models.DateTimeField())
    if updated:
        events_at = Subquery(
            model._default_manager.filter(series=OuterRef("pk"))
            .order_by()
            .values("series")
            .annotate(_at=Max(updated))
            .values("_at")
        )
    change_at = Subquery(
        OccurrenceChange.objects.filter(series=OuterRef("pk")).order_by("-at").values("at")[:1]
    )
    rows = (
        EventSeries.objects.filter(pk__in=series.values("pk"))
        .order_by()
        .annotate(_rule_at=F("recurrence_rule__updated_at"), _events_at=events_at)
        .annotate(_change_at=change_at)
        .values_list("pk", "created_at", "updated_at", "_rule_at", "_events_at", "_change_at")
    )
    return {pk: max(stamp for stamp in stamps if stamp is not None) for pk, *stamps in rows}


def export_field_names(model: type[Any], adapter: DefaultRecurringAdapter) -> list[str]:
    """The event columns a feed reads: what the export needs plus the adapter's hooks' fields."""
    names = {"series", "is_template", "recurrence_id", model.RECURRING_START_FIELD}
    names.add(model.RECURRING_STATUS_FIELD)
    optional_fields = (
        model.RECURRING_END_FIELD,
        model.RECURRING_DURATION_FIELD,
        model.RECURRING_VISIBILITY_FIELD,
    )
    for optional in optional_fields:
        if optional:
            names.add(optional)
    names.update(adapter.get_ical_fields(model))
    concrete = {field.name for field in model._meta.concrete_fields}
    unknown = names - concrete
    if unknown:
        raise ValueError(
            f"get_ical_fields() names {sorted(unknown)}, not concrete fields of {model.__name__}."
        )
    return sorted(names)


class FeedRows:
    """The rows of every series of a feed, in a number of queries that does not grow with them.

    One query reads the templates, one the occurrences of all the series (only
    the columns the export reads, only from the past cutoff on), one aggregate
    their revisions, one their excluded slots; the adapter's
    ``prefetch_ical_events`` runs once on all of them. Only occurrences whose
    long texts were edited on their own add queries, one per ``DIFFERING_BATCH``.

    Long texts (``host_model.bulky_fields``) are read once, from the template:
    an occurrence whose texts equal its template's (the database compares them)
    shares the template's values instead of a copy of its own, so the memory of
    a feed does not grow with a description copied onto every occurrence.
    """

    def __init__(
        self,
        series_list: Sequence[EventSeries],
        adapter: DefaultRecurringAdapter,
        *,
        now: dt.datetime,
    ) -> None:
        self.model = get_event_model()
        self.cutoff = past_cutoff(now)
        self.templates: dict[Any, Any] = {}
        self.occurrences: dict[Any, list[Any]] = {}
        self.revisions: dict[Any, dt.datetime] = {}
        self.excluded: dict[Any, Exclusions] = {}
        #: The continuation of each series that was split, by the original's key.
        self.continuations: dict[Any, EventSeries] = {}
        series_pks = [series.pk for series in series_list]
        if not series_pks:
            return
        manager = self.model._default_manager
        fields = export_field_names(self.model, adapter)
        templates = manager.filter(series_id__in=series_pks, is_template=True).only(*fields)
        # Ordered so that the first template (by key) wins, as ``.first()`` did.
        for template in templates.order_by("-pk"):
            self.templates[template.series_id] = template
        occurrences = self._light_occurrences(series_pks, fields)
        for occurrence in occurrences:
            self.occurrences.setdefault(occurrence.series_id, []).append(occurrence)
        self.revisions = series_revisions(EventSeries.objects.filter(pk__in=series_pks))
        # Whole series, not from the past cutoff on: a moved row may keep the
        # exported rule starting before it.
        self.excluded = excluded_for_series(series_list)
        # The original's last date names where the series goes on (halves.py).
        for continuation in EventSeries.objects.filter(split_from_id__in=series_pks).select_related(
            "recurrence_rule"
        ):
            self.continuations[continuation.split_from_id] = continuation
        adapter.prefetch_ical_events([*self.templates.values(), *occurrences])

    def _light_occurrences(self, series_pks: list[Any], fields: list[str]) -> list[Any]:
        manager = self.model._default_manager
        start = self.model.RECURRING_START_FIELD
        rows = manager.filter(
            series_id__in=series_pks, is_template=False, **{f"{start}__gte": self.cutoff}
        )
        names = set(bulky_fields(self.model)) & set(fields)
        bulky = [field for field in self.model._meta.concrete_fields if field.name in names]
        if not bulky:
            return list(rows.only(*fields))
        light = [name for name in fields if name not in names]
        same = Exists(self._template_with_texts_of(bulky))
        occurrences = list(rows.only(*light).annotate(_revel_same_texts=same))
        differing = []
        for occurrence in occurrences:
            template = self.templates.get(occurrence.series_id)
            if occurrence._revel_same_texts and template is not None:
                for field in bulky:
                    setattr(occurrence, field.attname, getattr(template, field.attname))
            else:
                differing.append(occurrence)
        attnames = [field.attname for field in bulky]
        for first in range(0, len(differing), DIFFERING_BATCH):
            batch = {o.pk: o for o in differing[first : first + DIFFERING_BATCH]}
            for pk, *values in manager.filter(pk__in=list(batch)).values_list("pk", *attnames):
                for attname, value in zip(attnames, values, strict=True):
                    setattr(batch[pk], attname, value)
        return occurrences

    def _template_with_texts_of(self, bulky: list[Any]) -> Any:
        """The outer row's template, when each of its ``bulky`` values equals the outer row's."""
        template = self.model._default_manager.filter(
            series_id=OuterRef("series_id"), is_template=True
        )
        if connections[template.db].vendor != "mysql":
            return template.filter(**{field.name: OuterRef(field.name) for field in bulky})
        # MySQL and MariaDB compare text under the column's collation, where "Hall"
        # equals "hall": compare the texts' MD5 (of their bytes) instead. Their JSON
        # and blob columns compare bytes already.
        exact: dict[str, Any] = {}
        for field in bulky:
            if isinstance(field, models.TextField):
                template = template.alias(**{f"_revel_md5_{field.name}": MD5(field.name)})
                exact[f"_revel_md5_{field.name}"] = MD5(OuterRef(field.name))
            else:
                exact[field.name] = OuterRef(field.name)
        return template.filter(**exact)
