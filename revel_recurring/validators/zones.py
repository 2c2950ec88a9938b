"""Time zone names: an IANA zone a rule may keep, and a start typed in the rule's zone."""

from __future__ import annotations

import datetime as dt
import functools
import zoneinfo
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

# Keys zoneinfo opens that are not IANA zone names: leap-second ("right/") and
# POSIX copies with other offsets, the POSIX default rules, the host's own
# setting, and the tz database's "Factory" placeholder.
_NOT_IANA_NAMES = frozenset({"posixrules", "localtime", "Factory"})
_NOT_IANA_PREFIXES = ("right/", "posix/")


def validate_timezone(value: object) -> str:
    """Return the IANA zone name or raise a ValidationError.

    ``zoneinfo`` opens files under the tz database path; names with ``..`` or an
    absolute path raise ValueError there, so they are refused before it is asked.
    """
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(_("Give a time zone name such as 'Europe/Vienna'."))
    name = value.strip()
    if name != value:
        # The stored value is used verbatim later; ZoneInfo(" Europe/Vienna") fails.
        raise ValidationError(
            _("Remove the spaces around the time zone name: use '%(name)s'.") % {"name": name}
        )
    if name.startswith("/") or ".." in name.split("/") or "\\" in name or "\x00" in name:
        raise ValidationError(
            _("'%(value)s' is not a time zone name; use one like 'Europe/Vienna'.")
            % {"value": value}
        )
    unknown = ValidationError(
        _("Unknown time zone '%(value)s'; use a name such as 'Europe/Vienna'.") % {"value": value}
    )
    if name in _NOT_IANA_NAMES or name.startswith(_NOT_IANA_PREFIXES):
        raise unknown
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise unknown from None
    if name not in _iana_names():
        raise unknown
    return name


@functools.cache
def _iana_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


# Zones that only say "this is an instant", never a wall clock the organiser meant.
_INSTANT_ZONES = frozenset({"UTC", "Etc/UTC", "Etc/GMT", "GMT", "Zulu", "Etc/Zulu"})


def validate_dtstart_zone(dtstart: dt.datetime, zone_name: str) -> None:
    """Refuse a start typed in another named zone than the rule's (ValidationError on dtstart).

    A rule recurs at dtstart's wall clock *in the rule's zone*: 18:00 Europe/London
    for a Europe/Vienna rule would put every occurrence at 19:00 Vienna, not at the
    hour the organiser typed. UTC and fixed offsets are read as instants (the API
    sends those), and a zone with the same wall clock at that moment is accepted.
    The services call it where an organiser gives a new start; it is not part of
    :func:`validate_rule`, because a stored rule whose zone is changed later keeps
    its instant on purpose.
    """
    errors: list[str] = []
    _check_dtstart_zone(dtstart, zone_name, lambda key, message: errors.append(message))
    if errors:
        raise ValidationError({"dtstart": errors})


def _check_dtstart_zone(dtstart: dt.datetime, zone_name: str, add: Any) -> None:
    zone_name = validate_timezone(zone_name)
    key = getattr(dtstart.tzinfo, "key", None)
    if not key or key == zone_name or key in _INSTANT_ZONES:
        return
    local = dtstart.astimezone(zoneinfo.ZoneInfo(zone_name))
    if local.replace(tzinfo=None) == dtstart.replace(tzinfo=None):
        return  # same wall clock (e.g. Europe/Berlin for Europe/Vienna)
    add(
        "dtstart",
        _(
            "The start is given as %(given)s in %(given_zone)s, but the rule's time zone is "
            "%(zone)s, where that is %(local)s; occurrences would be at %(local)s "
            "%(zone)s. Give the start in %(zone)s (or as UTC), or set the rule's "
            "time zone to %(given_zone)s."
        )
        % {
            "given": f"{dtstart:%H:%M}",
            "given_zone": key,
            "zone": zone_name,
            "local": f"{local:%H:%M}",
        },
    )
