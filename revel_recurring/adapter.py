"""The host's policy hooks. Subclass and point ``REVEL_RECURRING_ADAPTER`` at it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from email.utils import parseaddr
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils.module_loading import import_string

from .conf import recurring_settings
from .context import once_per_feed
from .models import EventSeries, get_event_model
from .people import BookedPerson

if TYPE_CHECKING:
    from django.db.models import QuerySet


class DefaultRecurringAdapter:
    """Who hears about a series and where it lives; a site overrides the hooks it needs.

    The digest audience policy itself is fixed (``revel_recurring.notifications``):
    staff and owners always; active and paused members too when the template is
    members-only or public; followers who opted in to new events too when it is
    public; a batch of drafts reaches staff and owners only. The hooks below only
    supply the people, their preferences and the link.

    A site must write:

    - ``get_staff_and_owners(series, template)``: the default knows nobody, so
      without it every digest has no recipients.

    Optional (the defaults return nobody, or keep everybody):

    - ``get_members(series, template)``: active and paused members; asked for
      members-only and public templates only.
    - ``get_followers(series, template)``: followers who opted in to new-event
      notifications, of the organisation and, where the site has them, of the
      series itself; asked for public templates only.
    - ``filter_by_preferences(candidates, notification_type)``: drop everyone
      whose preferences refuse this notification type, for all candidates at once.
      The default asks ``wants_notification(person, notification_type)`` per
      person; override one or the other, preferably the batched one.
    - ``get_series_url(series)``: the public page of the series, the digest's link.
      The default is the relative ``/series/<slug>/``; e-mail needs an absolute URL.
    - ``get_series_feed_url(series)``: the series' own calendar feed, absolute; the
      original of a split names its continuation's on its last date. Default: none.
    - ``get_ical_summary``, ``get_ical_description``, ``get_ical_location``,
      ``get_ical_geo``, ``get_ical_url`` (each ``(event, series)``) and
      ``get_ical_uid_domain()``: what the iCalendar feeds say about an event
      (``revel_recurring.ical``). They must not query the database per event:
      ``get_ical_fields()`` names the columns they read and
      ``prefetch_ical_events(events)`` loads related rows for all events at once.
    - ``is_feed_open(series, template)``: whether the feed is open to anyone;
      remembered when a series is deleted (its feed answers empty, then 410).

    The people hooks receive the ``EventSeries`` and its template (an instance of
    the site's Event model, already loaded) and return a QuerySet or any iterable
    of recipients: usually users, in any case objects the site's notifier
    understands. Groups may overlap; recipients are de-duplicated by equality
    (model instances by primary key), so a member who also follows is told once.
    ``filter_by_preferences`` receives that de-duplicated list and returns the
    ones to keep.

    Queries to aim for: one per hook (return a QuerySet rather than building a
    list in a loop) and one for the preferences of all candidates, so a batch costs
    at most four queries for its audience however many people it reaches. The
    hooks run after the generation transaction committed, outside any series lock.
    """

    def get_visible_series(self, user: Any) -> QuerySet[EventSeries]:
        """The series ``user`` may see (API list and detail, admin, feeds).

        Default: every series for a user with the ``revel_recurring.view_eventseries``
        or ``change_eventseries`` permission, none otherwise. Hosts scope it, for
        example to the organisations the user belongs to. Anything outside it is a 404.
        """
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

    def get_template_sources(self, user: Any) -> QuerySet[Any]:
        """One-off host events ``user`` may copy into the template of a new series.

        The admin's add page offers these (and only these) as the source of the
        template. Default: every one-off event (no series) for a user who may create
        series (:meth:`can_create_series`), none otherwise. Hosts scope it the way
        they scope :meth:`get_editable_series`, e.g. to the user's organisations.
        """
        model = get_event_model()
        events = model._default_manager.filter(series__isnull=True)
        return events if self.can_create_series(user) else events.none()

    def get_template_serializer_class(self) -> type[Any] | None:
        """The DRF serializer validating and showing a series' template in the API.

        Default: None, which the API reads as its own default, a ModelSerializer of
        the host event over its editable fields, minus the mixin's per-occurrence
        fields, with the status read-only and the start optional (it defaults to the
        rule's dtstart). Hosts subclass that default
        (``revel_recurring.api.serializers.default_template_serializer_class()``) to
        scope choices to the requesting user (``self.context["request"]``). The
        adapter itself never imports DRF: the API sits above it.
        """
        return None

    def get_series_url(self, series: Any) -> str:
        """Public URL of a series, used as the digest link."""
        return f"/series/{series.slug}/"

    def get_organizer(self, series: Any) -> tuple[str, str]:
        """The organizer of ``series`` as ``(name, address)``: whom people's messages come from.

        The ORGANIZER of the calendar entries sent to the people booked on changed
        dates, and the messages' sender. Default: ``REVEL_RECURRING_ORGANIZER``
        (``"Name <address>"`` or an address), else ``DEFAULT_FROM_EMAIL``.
        """
        return parseaddr(recurring_settings.ORGANIZER or settings.DEFAULT_FROM_EMAIL)

    def get_enrolled_people(self, user_keys: Sequence[str]) -> dict[str, BookedPerson]:
        """The enrolled users ``user_keys`` (primary keys as text) as people to write to.

        Asked once per batch of dates booked for enrolled users. Default: the user
        model's e-mail field and ``get_full_name()``, in the site's language and the
        series' zone; override it to give each their language and time zone
        (docs/howto/enrolments.md). A user missing from the answer gets no message.
        """
        if not user_keys:
            return {}
        model = get_user_model()
        email_field = model.get_email_field_name()
        people = {}
        for user in model._default_manager.filter(pk__in=list(user_keys)):
            address = str(getattr(user, email_field, "") or "")
            full_name = getattr(user, "get_full_name", None)
            name = str(full_name() if callable(full_name) else "")
            people[str(user.pk)] = BookedPerson(address=address, name=name)
        return people

    def get_series_feed_url(self, series: Any) -> str:
        """Address of the series' own calendar feed (absolute: ``https://...``), or "".

        Named where a split series goes on (:mod:`revel_recurring.halves`): on the
        continuation's link from the original's page, and in the DESCRIPTION of the
        original's last date in the feeds, so that a subscriber to the original
        finds the continuation's feed. Default: none.
        """
        return ""

    def get_ical_summary(self, event: Any, series: Any) -> str:
        """SUMMARY of an event in the iCalendar feeds (the template stands for the series).

        Default: the event's ``title`` or ``name`` field when it has one, else the
        series name. (Not ``str(event)``: it often holds the date, which would make
        every occurrence differ from the series and be exported on its own.)
        """
        for name in ("title", "name"):
            value = getattr(event, name, None)
            if isinstance(value, str) and value:
                return value
        return str(series.name)

    def get_ical_description(self, event: Any, series: Any) -> str:
        """DESCRIPTION of an event in the feeds.

        Default: the event's ``description`` field when it has one, else the series
        description.
        """
        value = getattr(event, "description", None)
        if isinstance(value, str) and value:
            return value
        return str(series.description or "")

    def get_ical_location(self, event: Any, series: Any) -> str:
        """LOCATION of an event in the feeds (an address a person reads). Default: none."""
        return ""

    def get_ical_geo(self, event: Any, series: Any) -> tuple[float, float] | None:
        """GEO of an event in the feeds: (latitude, longitude) in degrees. Default: none."""
        return None

    def get_ical_url(self, event: Any, series: Any) -> str:
        """URL of an event in the feeds; must be absolute (``https://...``).

        Default: :meth:`get_series_url` when it is absolute, else none (RFC 5545 URL
        values are absolute URIs; a calendar app cannot resolve ``/series/...``),
        asked once per series in a feed build (``context.once_per_feed``).
        """
        url = once_per_feed(("series-url", series.pk), lambda: self.get_series_url(series))
        return url if url.startswith(("https://", "http://")) else ""

    def get_ical_fields(self, model: type[Any]) -> Sequence[str]:
        """The event fields the iCal hooks read, beyond what the export needs itself.

        A feed reads only these columns of the host's events (plus the start, end,
        status, visibility and slot), so a wide event table costs a feed little. A
        field a hook reads that is not named here is still correct, but Django
        then loads it with one query per event. Name a foreign key here and load
        its rows in :meth:`prefetch_ical_events`. Default: whichever of ``title``,
        ``name`` and ``description`` the model has (what the default hooks read).
        """
        concrete = {field.name for field in model._meta.concrete_fields}
        return [name for name in ("title", "name", "description") if name in concrete]

    def prefetch_ical_events(self, events: Sequence[Any]) -> None:
        """Load what the iCal hooks need from other tables, for all of a feed's events at once.

        Called once per feed build with every template and occurrence it read,
        before any hook runs. A host whose location is a room's name does
        ``prefetch_related_objects(events, "room")`` here (one query for the
        whole feed, not one per event). Default: nothing.
        """

    def get_ical_uid_domain(self) -> str:
        """The domain in every feed UID (``series-7@<domain>``); keep it stable.

        Calendar apps recognise an event by its UID: a changed domain makes every
        subscriber see each series twice. Default: the first concrete entry of
        ``ALLOWED_HOSTS``, else ``"localhost"``; sites should return their own domain.
        """
        for host in settings.ALLOWED_HOSTS:
            name = host.lstrip(".")
            if name and "*" not in name:
                return name
        return "localhost"

    def is_ical_exported(self, event: Any, series: Any, template: Any | None) -> bool:
        """Whether an occurrence shown on the site appears in the feeds of its series.

        A feed is chosen by its series (the template's visibility) and may be open
        (calendar apps cannot sign in), so an occurrence whose own visibility
        differs from the template's appears only when that visibility is public
        (``RECURRING_VISIBILITY_PUBLIC``): a members-only date of a public series, or
        a private one of an unlisted series, is left out and its slot excluded.
        Draft and cancelled occurrences are never exported, whatever this says.
        Every occurrence of a model without ``RECURRING_VISIBILITY_FIELD`` is.
        Must not query the database per event.
        """
        model = type(event)
        field_name = getattr(model, "RECURRING_VISIBILITY_FIELD", None)
        if not field_name or template is None:
            return True
        own = getattr(event, field_name)
        if own == getattr(template, field_name):
            return True
        public = getattr(model, "RECURRING_VISIBILITY_PUBLIC", None)
        return public is not None and own == public

    def is_feed_open(self, series: Any, template: Any | None) -> bool:
        """Whether anyone may read the series' feed without signing in.

        Asked once when the series is deleted and remembered (``DeletedSeries``):
        the feed of a deleted series then answers an empty calendar to strangers
        only when its feed was open, so a feed URL never tells a stranger that a
        members-only series existed. Default: the template's visibility is public
        or unlisted (``RECURRING_VISIBILITY_PUBLIC`` / ``_UNLISTED``); False for a
        model without ``RECURRING_VISIBILITY_FIELD``.
        """
        if template is None:
            return False
        model = type(template)
        field_name = getattr(model, "RECURRING_VISIBILITY_FIELD", None)
        if not field_name:
            return False
        open_values = {
            getattr(model, "RECURRING_VISIBILITY_PUBLIC", None),
            getattr(model, "RECURRING_VISIBILITY_UNLISTED", None),
        } - {None}
        return getattr(template, field_name) in open_values

    def get_staff_and_owners(self, series: Any, template: Any) -> Iterable[Any]:
        """People who run the series; told about every batch, drafts included."""
        return ()

    def get_members(self, series: Any, template: Any) -> Iterable[Any]:
        """Active and paused members of the organisation behind the series."""
        return ()

    def get_followers(self, series: Any, template: Any) -> Iterable[Any]:
        """Followers (of the organisation or of the series) who opted in to new events."""
        return ()

    def wants_notification(self, recipient: Any, notification_type: str) -> bool:
        """One recipient's own preferences; False drops them from the digest."""
        return True

    def filter_by_preferences(
        self, candidates: Sequence[Any], notification_type: str
    ) -> Iterable[Any]:
        """The candidates whose preferences allow ``notification_type``, in their order.

        The default calls :meth:`wants_notification` per candidate. Override it to
        read every candidate's preferences in one query.
        """
        return [c for c in candidates if self.wants_notification(c, notification_type)]

    def get_webhook_scope(self, user: Any) -> str | None:
        """The scope of the webhook endpoints ``user`` registers and sees; None: none at all.

        A scope is the site's key of an organisation (any text); ``""`` is the whole
        site, whose endpoints receive every series' operations and whose users see
        every endpoint. Default: ``""`` for a user with the
        ``revel_recurring.change_eventseries`` permission, None otherwise. A site with
        organisations answers the organisation the user runs (API ``webhooks/``,
        the admin's endpoint pages).
        """
        if user.is_authenticated and user.has_perm("revel_recurring.change_eventseries"):
            return ""
        return None

    def get_series_webhook_scope(self, series: Any) -> str:
        """The scope whose endpoints receive ``series``' operations (besides the site's).

        Called once per operation, inside its transaction. Default: ``""`` (only
        the site-wide endpoints). Answer the same key as :meth:`get_webhook_scope`
        gives the organisation's people, so one organisation's endpoints never
        receive another's operations.
        """
        return ""


@lru_cache(maxsize=8)
def _adapter_class(path: str) -> type[DefaultRecurringAdapter]:
    cls: type[DefaultRecurringAdapter] = import_string(path)
    return cls


def get_adapter() -> DefaultRecurringAdapter:
    """An instance of the class named by ``REVEL_RECURRING_ADAPTER``."""
    return _adapter_class(recurring_settings.ADAPTER)()
