"""The generation digest: its audience and its delivery after commit.

One ``SERIES_EVENTS_GENERATED`` digest per generated batch. Who receives it is
decided here (:func:`digest_audience`, :func:`collect_recipients`); the people
come from the site's adapter (``REVEL_RECURRING_ADAPTER``), the delivery from its
notifier (``REVEL_RECURRING_NOTIFIER``).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.module_loading import import_string
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .adapter import DefaultRecurringAdapter, get_adapter
from .conf import recurring_settings

# The batch flag lives with the other context flags; hosts' notifiers and
# receivers import it from here (README, "Notifications"), so it stays importable.
from .context import event_notifications_suppressed as event_notifications_suppressed
from .context import suppress_event_notifications as suppress_event_notifications
from .instants import describe_instant
from .mixins import RecurringEventMixin
from .models import EventSeries
from .signals import series_events_generated

logger = logging.getLogger(__name__)

SERIES_EVENTS_GENERATED = "SERIES_EVENTS_GENERATED"


class Audience(enum.Enum):
    """How far a digest reaches; each level includes the ones before it."""

    STAFF = "staff"  # staff and owners
    MEMBERS = "members"  # + active and paused members
    PUBLIC = "public"  # + followers who opted in to new events


@dataclass(frozen=True)
class SeriesDigest:
    """One notification for one generated batch, as the notifier receives it.

    ``occurrences`` are the new host events in start order; ``recipients`` what the
    adapter's hooks returned, de-duplicated and filtered by preferences;
    ``timezone`` the series' IANA zone, for showing the dates as organisers set them.
    """

    series: EventSeries
    occurrences: Sequence[RecurringEventMixin]
    notification_type: str = SERIES_EVENTS_GENERATED
    recipients: Sequence[Any] = field(default_factory=tuple)
    url: str = ""
    audience: Audience = Audience.STAFF
    timezone: str = "UTC"

    @property
    def count(self) -> int:
        """How many occurrences the batch created."""
        return len(self.occurrences)

    # Read in the active language, so that a notifier writes to each recipient in
    # theirs: ``with translation.override(person.language): digest.subject``.
    @property
    def subject(self) -> str:
        """ "8 new events scheduled for Yoga", in the active language."""
        return ngettext(
            "%(count)d new event scheduled for %(name)s",
            "%(count)d new events scheduled for %(name)s",
            self.count,
        ) % {"count": self.count, "name": self.series.name}

    @property
    def body(self) -> str:
        """The new dates, each in the series' zone, and the link, in the active language."""
        lines = [
            ngettext(
                "%(name)s has %(count)d new date:",
                "%(name)s has %(count)d new dates:",
                self.count,
            )
            % {"count": self.count, "name": self.series.name}
        ]
        lines += [
            f"- {describe_instant(event.occurrence_start, self.timezone)}"
            for event in self.occurrences
        ]
        if self.url:
            lines += ["", _("All dates: %(url)s") % {"url": self.url}]
        return "\n".join(lines)


#: Each ``RECURRING_VISIBILITY_*`` attribute of the host model -> the audience it
#: means, widest first.
VISIBILITY_AUDIENCES: dict[str, Audience] = {
    "RECURRING_VISIBILITY_PUBLIC": Audience.PUBLIC,
    "RECURRING_VISIBILITY_MEMBERS_ONLY": Audience.MEMBERS,
    "RECURRING_VISIBILITY_STAFF_ONLY": Audience.STAFF,
    "RECURRING_VISIBILITY_PRIVATE": Audience.STAFF,
    "RECURRING_VISIBILITY_UNLISTED": Audience.STAFF,
}


def _visibility_levels(model: Any) -> dict[Any, Audience]:
    # Widest first, so that a value mapped to two levels ends up at the narrower
    # (check E021 reports such a mapping).
    levels: dict[Any, Audience] = {}
    for attribute, audience in VISIBILITY_AUDIENCES.items():
        value = getattr(model, attribute, None)
        if value is not None:
            levels[value] = audience
    return levels


#: How far each audience reaches, to compare them (each includes the narrower ones).
_REACH = {Audience.STAFF: 0, Audience.MEMBERS: 1, Audience.PUBLIC: 2}


def visibility_audience(model: Any, value: Any) -> Audience | None:
    """The audience a template visibility ``value`` of the host ``model`` means.

    The one visibility policy: the digest's audience is built on it, and a host's
    read scope should be too (:func:`visibilities_reaching`), so that whoever is
    told about a series may read it and nobody reads what the digest keeps from
    them. None for a value none of the model's ``RECURRING_VISIBILITY_*`` names, or
    a model without a visibility field; callers treat that as staff-only.
    """
    if not getattr(model, "RECURRING_VISIBILITY_FIELD", None):
        return None
    return _visibility_levels(model).get(value)


def visibilities_reaching(model: Any, audience: Audience) -> list[Any]:
    """The visibility values of ``model`` whose audience includes ``audience``.

    For a host's read scope: members may read the series whose template has one of
    ``visibilities_reaching(Event, Audience.MEMBERS)`` (public and members-only
    with the default names), everyone those of ``Audience.PUBLIC``; staff and
    owners read all. Empty without a visibility field: then every series is
    staff-only, as its digest is.
    """
    if not getattr(model, "RECURRING_VISIBILITY_FIELD", None):
        return []
    return [
        value
        for value, level in _visibility_levels(model).items()
        if _REACH[level] >= _REACH[audience]
    ]


def digest_audience(template: Any, occurrences: Sequence[Any]) -> Audience:
    """The audience of a batch, from the template's visibility and the batch's status.

    Staff-only, private and unlisted templates reach staff and owners; members-only
    adds members; public adds followers. A batch that is not entirely open (drafts,
    ``auto_publish`` off) reaches staff and owners only, as does a model without a
    visibility field. A visibility value none of the model's
    ``RECURRING_VISIBILITY_*`` attributes names is logged and treated as staff-only:
    an unknown value never widens the audience.
    """
    model = type(template)
    open_status = model.RECURRING_STATUS_OPEN
    if not occurrences or any(
        not model.is_status(o.occurrence_status, open_status) for o in occurrences
    ):
        return Audience.STAFF
    field_name = model.RECURRING_VISIBILITY_FIELD
    if not field_name:
        return Audience.STAFF
    value = getattr(template, field_name)
    audience = visibility_audience(model, value)
    if audience is None:
        logger.warning(
            "revel_recurring: series %s has template visibility %r, which none of "
            "%s.RECURRING_VISIBILITY_* names; the digest goes to staff and owners only",
            getattr(template, "series_id", None),
            value,
            model.__name__,
        )
        return Audience.STAFF
    return audience


def _unique(groups: Iterable[Iterable[Any] | None]) -> list[Any]:
    # A dict keeps the first-seen order; model instances compare and hash by pk.
    seen: dict[Any, None] = {}
    for group in groups:
        for person in group or ():
            seen.setdefault(person, None)
    return list(seen)


def collect_recipients(
    adapter: DefaultRecurringAdapter,
    series: Any,
    template: Any,
    audience: Audience,
    *,
    notification_type: str = SERIES_EVENTS_GENERATED,
) -> list[Any]:
    """Everyone ``audience`` reaches, once each, filtered by their preferences.

    Each hook is asked once (and only when the audience needs it); a QuerySet is
    evaluated once. Preferences are checked for all candidates in one call to
    ``adapter.filter_by_preferences``.
    """
    groups: list[Iterable[Any] | None] = [adapter.get_staff_and_owners(series, template)]
    if audience in (Audience.MEMBERS, Audience.PUBLIC):
        groups.append(adapter.get_members(series, template))
    if audience is Audience.PUBLIC:
        groups.append(adapter.get_followers(series, template))
    candidates = _unique(groups)
    if not candidates:
        return []
    return list(adapter.filter_by_preferences(candidates, notification_type))


def _series_timezone(series: Any) -> str:
    if getattr(series, "recurrence_rule_id", None) is None:
        return "UTC"
    return str(series.recurrence_rule.timezone)


def build_series_digest(
    series: Any,
    occurrences: Sequence[Any],
    *,
    template: Any = None,
    adapter: DefaultRecurringAdapter | None = None,
) -> SeriesDigest:
    """The digest of one generated batch: audience, recipients and link.

    ``template`` saves a query when the caller has it; ``adapter`` defaults to
    the configured one. A series without a template gets a digest without
    recipients.
    """
    adapter = adapter or get_adapter()
    template = template if template is not None else series.get_template()
    audience = digest_audience(template, occurrences) if template is not None else Audience.STAFF
    recipients = (
        collect_recipients(adapter, series, template, audience) if template is not None else []
    )
    return SeriesDigest(
        series=series,
        occurrences=tuple(occurrences),
        recipients=tuple(recipients),
        url=adapter.get_series_url(series),
        audience=audience,
        timezone=_series_timezone(series),
    )


def send_series_digest(
    series: Any, occurrences: Sequence[Any], *, template: Any = None
) -> SeriesDigest | None:
    """Build the batch's digest, send ``series_events_generated``, hand it to the notifier.

    Generation calls this from ``transaction.on_commit``: the occurrences are
    committed, so nothing here may raise into the caller. A failing adapter hook,
    receiver or notifier is logged with the series id; returns the digest, or None
    when it could not be built. With no notifier and no receiver nobody would read
    it, so it is not built and the adapter is not asked.
    """
    if not recurring_settings.NOTIFIER and not series_events_generated.has_listeners(EventSeries):
        return None
    try:
        digest = build_series_digest(series, occurrences, template=template)
    # Everything, on purpose: the adapter's hooks are the host's code, and this
    # runs after commit, where no error may reach the caller.
    except Exception:
        logger.exception("revel_recurring could not build the digest for series %s", series.pk)
        return None
    for receiver, result in series_events_generated.send_robust(
        sender=EventSeries, series=series, occurrences=list(occurrences), digest=digest
    ):
        if isinstance(result, Exception):
            logger.error(
                "series_events_generated receiver %r failed for series %s",
                receiver,
                series.pk,
                exc_info=result,
            )
    dispatch_digest(digest)
    return digest


def dispatch_digest(digest: SeriesDigest) -> None:
    """Hand the digest to ``REVEL_RECURRING_NOTIFIER``; a failing notifier is logged only.

    Called after commit: the occurrences already exist, so no notifier error may
    undo them or propagate into the caller (a beat task, an API request).
    """
    path = recurring_settings.NOTIFIER
    if not path:
        return
    try:
        notifier = import_string(path)
        notifier(digest)
    except Exception:  # the host's notifier, after commit: logged, never raised
        logger.exception(
            "revel_recurring notifier %s failed for series %s (%d occurrences)",
            path,
            getattr(digest.series, "pk", None),
            digest.count,
        )
