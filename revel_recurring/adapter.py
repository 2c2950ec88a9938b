"""The host's policy hooks. Subclass and point ``REVEL_RECURRING_ADAPTER`` at it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from django.utils.module_loading import import_string

from .conf import recurring_settings
from .notifications import SERIES_EVENTS_GENERATED, SeriesDigest

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from .models import EventSeries


class DefaultRecurringAdapter:
    """Who hears about a series and where it lives; hosts override the ``get_*`` hooks.

    The digest audience policy (``get_digest_recipients``) is fixed: staff and owners
    always; active and paused members when the template is members-only or public;
    followers who opted in to new events when it is public. Drafts reach staff and
    owners only. The hooks below supply the people; the default knows none.
    """

    #: Host visibility values the audience policy compares the template against.
    VISIBILITY_PUBLIC = "public"
    VISIBILITY_MEMBERS_ONLY = "members_only"

    def get_visible_series(self, user: Any) -> QuerySet[EventSeries]:
        """The series ``user`` may see (API list and detail, admin, feeds).

        Default: every series for a user with the ``revel_recurring.view_eventseries``
        or ``change_eventseries`` permission, none otherwise. Hosts scope it, for
        example to the organisations the user belongs to. Anything outside it is a 404.
        """
        from .models import EventSeries

        if user.has_perm("revel_recurring.view_eventseries") or user.has_perm(
            "revel_recurring.change_eventseries"
        ):
            return EventSeries.objects.all()
        return EventSeries.objects.none()

    def get_editable_series(self, user: Any) -> QuerySet[EventSeries]:
        """The series ``user`` may change, pause, generate, cancel in and delete.

        Default: every series with ``revel_recurring.change_eventseries``, none
        otherwise. It should lie within :meth:`get_visible_series`; a series that is
        visible but not editable answers writes with 403.
        """
        from .models import EventSeries

        if user.has_perm("revel_recurring.change_eventseries"):
            return EventSeries.objects.all()
        return EventSeries.objects.none()

    def can_create_series(self, user: Any) -> bool:
        """Whether ``user`` may create series at all (API ``POST series/``).

        Default: the ``revel_recurring.add_eventseries`` permission. Which
        organisation (or other owner) a new series may belong to is the template
        serializer's business: restrict its choices there.
        """
        return bool(user.has_perm("revel_recurring.add_eventseries"))

    def get_template_serializer_class(self) -> type[Any]:
        """The DRF serializer validating and showing a series' template in the API.

        Default: a ModelSerializer of the host event over its editable fields, minus
        the mixin's per-occurrence fields, with the status read-only and the start
        optional (it defaults to the rule's dtstart). Hosts subclass it to scope
        choices to the requesting user (``self.context["request"]``). Only the API
        calls this, so DRF is imported here and nowhere else in the adapter.
        """
        from .api.serializers import default_template_serializer_class

        return default_template_serializer_class()

    def get_series_url(self, series: Any) -> str:
        """Public URL of a series, used as the digest link."""
        return f"/series/{series.slug}/"

    def get_staff_and_owners(self, series: Any, template: Any) -> Iterable[Any]:
        """People who run the series (always told)."""
        return ()

    def get_members(self, series: Any, template: Any) -> Iterable[Any]:
        """Active and paused members of the organisation behind the series."""
        return ()

    def get_followers(self, series: Any, template: Any) -> Iterable[Any]:
        """Followers who opted in to new-event notifications."""
        return ()

    def wants_notification(self, recipient: Any, notification_type: str) -> bool:
        """The recipient's own preferences; False drops them from the digest."""
        return True

    def get_digest_recipients(
        self, series: Any, template: Any, occurrences: Sequence[Any]
    ) -> list[Any]:
        model = type(template)
        field = model.RECURRING_VISIBILITY_FIELD
        visibility = getattr(template, field) if field else None
        published = any(
            getattr(o, model.RECURRING_STATUS_FIELD) == model.RECURRING_STATUS_OPEN
            for o in occurrences
        )
        groups: list[Iterable[Any]] = [self.get_staff_and_owners(series, template)]
        if published and visibility in (self.VISIBILITY_MEMBERS_ONLY, self.VISIBILITY_PUBLIC):
            groups.append(self.get_members(series, template))
        if published and visibility == self.VISIBILITY_PUBLIC:
            groups.append(self.get_followers(series, template))
        seen: dict[Any, None] = {}
        for group in groups:
            for person in group:
                seen.setdefault(person, None)
        return [p for p in seen if self.wants_notification(p, SERIES_EVENTS_GENERATED)]

    def build_digest(
        self, series: Any, occurrences: Sequence[Any], *, template: Any = None
    ) -> SeriesDigest:
        """The one digest for a generated batch (``template`` saves a lookup)."""
        template = template if template is not None else series.get_template()
        recipients = self.get_digest_recipients(series, template, occurrences) if template else []
        return SeriesDigest(
            series=series,
            occurrences=tuple(occurrences),
            recipients=tuple(recipients),
            url=self.get_series_url(series),
        )


@lru_cache(maxsize=8)
def _adapter_class(path: str) -> type[DefaultRecurringAdapter]:
    cls: type[DefaultRecurringAdapter] = import_string(path)
    return cls


def get_adapter() -> DefaultRecurringAdapter:
    """An instance of the configured adapter class."""
    return _adapter_class(recurring_settings.ADAPTER)()
