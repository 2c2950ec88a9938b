"""A split's input checked before anything is locked or read, and where it may split.

The date must be an aware instant, a date of the rule still to come and not its
first; the name one line; the template changes only the host's propagatable
fields; the holiday settings only the four a series has. Each refusal is a
``ValidationError`` keyed by the input it is about. A new name given without a
title for the dates becomes their title too (:func:`title_follows_name`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from ... import rules
from ...exceptions import SeriesNotReadyError
from ...holiday_settings import HOLIDAY_KEYS
from ...host_model import single_line_fields, title_field
from ...instants import describe_instant
from ...models import EventSeries, RecurrenceRule, get_event_model
from ...validators import (
    validate_no_nul_characters,
    validate_rule_keys,
    validate_single_line_values,
)


@dataclass(frozen=True)
class SplitRequest:
    """A split's input, checked: where it splits and what changes from there on."""

    #: The split instant (UTC).
    at: dt.datetime
    rule_changes: dict[str, Any]
    template_changes: dict[str, Any]
    name: str | None
    #: The continuation's holiday settings to change (any of the four keys of
    #: :mod:`revel_recurring.holiday_settings`); None: the original's as they are.
    holidays: dict[str, Any] | None = None


def read_request(
    *,
    at: object,
    recurrence: Mapping[str, Any] | None,
    template: Mapping[str, Any] | None,
    name: str | None,
    holidays: Mapping[str, Any] | None = None,
) -> SplitRequest:
    """The arguments of a split or its plan, checked before anything is read."""
    instant = check_at(at)
    rule_changes = dict(recurrence or {})
    validate_rule_keys(rule_changes)
    template_changes = check_template_changes(template or {})
    check_name(name)
    return SplitRequest(
        at=instant,
        rule_changes=rule_changes,
        template_changes=template_changes,
        name=name,
        holidays=check_holiday_keys(holidays),
    )


def check_holiday_keys(holidays: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``holidays`` as a dict (None for none), refused when it names an unknown setting.

    The values are checked against the original's settings once the series is read
    (``normalize_holiday_settings``).
    """
    if not holidays:
        return None
    unknown = sorted(set(holidays) - HOLIDAY_KEYS)
    if unknown:
        raise ValidationError(
            {
                "holidays": [
                    gettext("Unknown holiday setting(s): %(names)s. Use %(known)s.")
                    % {"names": ", ".join(unknown), "known": ", ".join(sorted(HOLIDAY_KEYS))}
                ]
            }
        )
    return dict(holidays)


def title_follows_name(request: SplitRequest, original: EventSeries) -> SplitRequest:
    """``request`` with the dates' title following a new name of the continuation.

    A split that renames the series (``name`` other than ``original``'s) and gives
    no title of its own for the dates (the host's ``title`` or ``name`` field among
    its propagatable ones: :func:`~revel_recurring.host_model.title_field`) gives
    them the new name too: otherwise every new date, and every SUMMARY of the
    continuation's feed, would go on under the old name.
    """
    field = title_field(get_event_model())
    if (
        field is None
        or request.name is None
        or request.name == original.name
        or field in request.template_changes
    ):
        return request
    return replace(request, template_changes={**request.template_changes, field: request.name})


def split_title(
    original: EventSeries, *, name: str | None, template: Mapping[str, Any] | None
) -> str | None:
    """The title each date of the continuation gets from a split with ``name`` and
    ``template`` (as :func:`title_follows_name` decides it); None when the host has no
    title field or ``original`` no template. For the plan a person reads."""
    field = title_field(get_event_model())
    if field is None:
        return None
    if template and field in template:
        return str(template[field])
    if name is not None and name != original.name:
        return name
    current = original.get_template()
    return str(getattr(current, field)) if current is not None else None


def no_rule(series: EventSeries) -> SeriesNotReadyError:
    """The refusal to split ``series``, which has no recurrence rule."""
    return SeriesNotReadyError(
        gettext("%(series)s has no recurrence rule, so it cannot be split.")
        % {"series": series.name}
    )


def check_at(at: object) -> dt.datetime:
    """``at`` as a UTC instant; a ``ValidationError`` on ``at`` unless it is aware."""
    if not isinstance(at, dt.datetime) or not rules.is_aware(at):
        raise ValidationError(
            {"at": [gettext("Give the date to split at as a date and time with a UTC offset.")]}
        )
    return rules.to_utc(at)


def check_name(name: str | None) -> None:
    """Refuse a continuation name of several lines or with NUL characters."""
    if name is not None:
        validate_single_line_values({"name": name}, ["name"])
        validate_no_nul_characters({"name": name})


def check_template_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """``changes`` to the continuation's template, refused unless each names a
    propagatable field of the host and holds a single line where it must."""
    model = get_event_model()
    allowed = set(model.PROPAGATABLE_FIELDS)
    refused = sorted(key for key in changes if key not in allowed)
    if refused:
        names = ", ".join(sorted(allowed)) or "none"
        raise ValidationError(
            {
                key: [
                    gettext(
                        "'%(key)s' cannot change at a split; the template fields that can"
                        " are: %(names)s."
                    )
                    % {"key": key, "names": names}
                ]
                for key in refused
            }
        )
    validate_single_line_values(changes, single_line_fields(model))
    validate_no_nul_characters(changes)
    return dict(changes)


def slots_before(rule: RecurrenceRule, at: dt.datetime) -> list[dt.datetime]:
    """The rule's own dates before ``at`` (UTC, from its start): the original's after a split.

    The last one is where the original ends; their number is what a COUNT rule's
    continuation no longer counts.
    """
    instant = rules.to_utc(at)
    return [
        slot
        for slot in rules.occurrences_between(rule.to_spec(), rule.dtstart, instant, inclusive=True)
        if slot < instant
    ]


def is_split_point(rule: RecurrenceRule, at: dt.datetime, *, now: dt.datetime) -> bool:
    """Whether :func:`~revel_recurring.services.splits.split_series` takes ``at``: a date
    of the rule, to come, not its first."""
    return at >= now and rules.is_occurrence(rule.to_spec(), at) and bool(slots_before(rule, at))


def refuse_bad_slot(
    spec: rules.RuleSpec,
    at: dt.datetime,
    before: list[dt.datetime],
    *,
    zone: str,
    now: dt.datetime,
    extra: frozenset[dt.datetime] = frozenset(),
) -> None:
    """A ``ValidationError`` on ``at`` unless it is a date of ``spec`` to come, not its
    first (``before``: the rule's dates before it) and not an extra date."""
    shown = describe_instant(at, zone)
    if at in extra and not rules.is_occurrence(spec, at):
        # The continuation's rule starts at `at`: an extra date would give it
        # another time of day. Its extra dates from `at` on go with it anyway.
        message = gettext("%(date)s is an extra date; split at a date of the series' rule.") % {
            "date": shown
        }
    elif not rules.is_occurrence(spec, at):
        message = gettext("%(date)s is not a date of this series; split at one of its dates.") % {
            "date": shown
        }
    elif at < now:
        message = gettext("%(date)s is in the past; split at a date still to come.") % {
            "date": shown
        }
    elif not before:
        message = gettext(
            "%(date)s is the series' first date; change the series itself instead."
        ) % {"date": shown}
    else:
        return
    raise ValidationError({"at": [message]})


__all__ = [
    "SplitRequest",
    "check_at",
    "check_holiday_keys",
    "check_name",
    "check_template_changes",
    "is_split_point",
    "no_rule",
    "read_request",
    "refuse_bad_slot",
    "slots_before",
    "split_title",
    "title_follows_name",
]
