# Over 400 lines on purpose: one class, the contract a host reads in one place; mostly docstrings.
"""``RecurringEventMixin``: what a host Event model composes in to join a series.

Import it from ``revel_recurring.models``; it lives here, below the models, because
they and ``host_model`` read it.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any, ClassVar, Self

from django.core import checks
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from .backend_checks import without_answered_warnings
from .people import BookedPerson

# Fields the mixin owns per occurrence; they are never copied from the template
# and never propagated.
OCCURRENCE_STATE_FIELDS = frozenset(
    {
        "series",
        "is_template",
        "is_modified",
        "occurrence_index",
        "recurrence_id",
        "status_before_cancellation",
    }
)

VISIBILITY_ATTRIBUTES = (
    "RECURRING_VISIBILITY_PUBLIC",
    "RECURRING_VISIBILITY_MEMBERS_ONLY",
    "RECURRING_VISIBILITY_STAFF_ONLY",
    "RECURRING_VISIBILITY_PRIVATE",
    "RECURRING_VISIBILITY_UNLISTED",
)


#: The name of the mixin's conditional constraint, before Django fills in the model.
ONE_TEMPLATE_PER_SERIES = "%(app_label)s_%(class)s_one_template_per_series"


class RecurringEventMixin(models.Model):
    """Abstract mixin for the host's Event model.

    Override the ``RECURRING_*`` class attributes when the host's field names,
    status values or visibility values differ from the defaults, and the hook
    methods to copy related rows or report bookings (``has_bookings`` for one
    occurrence, ``booked_among`` for a page of them in one query: override both
    when the host sells tickets). A host that declares its own
    ``Meta`` must inherit ``RecurringEventMixin.Meta`` so the per-series
    constraints are kept.
    """

    series = models.ForeignKey(
        "revel_recurring.EventSeries",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="events",
        verbose_name=_("series"),
    )
    is_template = models.BooleanField(default=False, editable=False)
    is_modified = models.BooleanField(default=False)
    occurrence_index = models.PositiveIntegerField(null=True, blank=True, editable=False)
    recurrence_id = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text=_("The occurrence's original slot (UTC); never changes when it is moved."),
    )
    status_before_cancellation = models.CharField(
        max_length=64,
        blank=True,
        default="",
        editable=False,
        help_text=_("The status a cancelled occurrence had; restoring it puts this back."),
    )

    #: Host field holding the start instant.
    RECURRING_START_FIELD: ClassVar[str] = "start"
    #: Host field holding the end instant, or None when the host has none.
    RECURRING_END_FIELD: ClassVar[str | None] = "end"
    #: Host ``DurationField`` holding each event's length, or None. Read when
    #: ``RECURRING_END_FIELD`` is None (or the end is empty): the feeds' DTEND and
    #: the API's ``end`` are the start plus this (:meth:`occurrence_duration`).
    RECURRING_DURATION_FIELD: ClassVar[str | None] = None
    #: The length of an event that has neither an end nor a duration of its own
    #: (no such field, or an empty value), or None: the feeds then write no DTEND
    #: and calendar apps show the event as a moment.
    RECURRING_DEFAULT_DURATION: ClassVar[dt.timedelta | None] = None
    #: Host field holding the status.
    RECURRING_STATUS_FIELD: ClassVar[str] = "status"
    #: Host field holding the visibility, or None (the digest audience reads it).
    RECURRING_VISIBILITY_FIELD: ClassVar[str | None] = None
    #: Host field stamped on every change (``auto_now``), or None. The API's
    #: ``modified_since`` filter reads it; without it every live occurrence is
    #: reported as possibly changed.
    RECURRING_UPDATED_FIELD: ClassVar[str | None] = None
    #: Status values written by generation and cancellation: any value the status
    #: field stores (a str, an int, a ``TextChoices``/``IntegerChoices`` member).
    #: They are compared with the stored status through the field's own
    #: ``to_python`` (:meth:`status_value`), so ``2``, ``"2"`` and ``Status.CANCELLED``
    #: name the same status on an ``IntegerField``.
    RECURRING_STATUS_DRAFT: ClassVar[Any] = "draft"
    RECURRING_STATUS_OPEN: ClassVar[Any] = "open"
    RECURRING_STATUS_CANCELLED: ClassVar[Any] = "cancelled"
    #: Visibility values the digest audience compares the template against. Set
    #: one to None when the host has no such level; a value the template holds
    #: that none of these names reaches staff and owners only (and is logged).
    RECURRING_VISIBILITY_PUBLIC: ClassVar[str | None] = "public"
    RECURRING_VISIBILITY_MEMBERS_ONLY: ClassVar[str | None] = "members_only"
    RECURRING_VISIBILITY_STAFF_ONLY: ClassVar[str | None] = "staff_only"
    RECURRING_VISIBILITY_PRIVATE: ClassVar[str | None] = "private"
    RECURRING_VISIBILITY_UNLISTED: ClassVar[str | None] = "unlisted"
    #: Date/time fields moved by the same delta as the start (rsvp_before, ...).
    RECURRING_SHIFTED_FIELDS: ClassVar[Sequence[str]] = ()
    #: Fields not copied from the template (unique slugs, counters, ...).
    RECURRING_UNCOPIED_FIELDS: ClassVar[Sequence[str]] = ()
    #: Fields a template edit may push onto future occurrences.
    PROPAGATABLE_FIELDS: ClassVar[Sequence[str]] = ()
    #: Groups of propagatable fields that only ever move together.
    PROPAGATION_COUPLED_FIELDS: ClassVar[Sequence[Sequence[str]]] = ()
    #: False (the default): a propagated template edit writes its occurrences with
    #: one UPDATE per 500 rows, which calls no ``save()`` and sends no
    #: ``pre_save``/``post_save``. True: one ``save(update_fields=...)`` per
    #: occurrence instead, for a host whose ``save()`` or save receivers do work
    #: the rows need (a search index, a derived column); it costs a statement per
    #: row (more if the save does more). Validation is the same either way.
    RECURRING_PROPAGATE_WITH_SAVE: ClassVar[bool] = False

    class Meta:
        abstract = True
        constraints = [
            models.UniqueConstraint(
                fields=["series"],
                condition=models.Q(is_template=True),
                name=ONE_TEMPLATE_PER_SERIES,
            ),
            models.UniqueConstraint(
                fields=["series", "recurrence_id"],
                name="%(app_label)s_%(class)s_unique_recurrence_id",
            ),
        ]

    @classmethod
    def check(cls, **kwargs: Any) -> list[checks.CheckMessage]:
        """Django's checks, without its W036 about "one template per series".

        On MariaDB and MySQL that constraint is not created and the series lock
        guards it instead (``revel_recurring.backend_checks``); a W036 about the
        host's own conditional constraints stays.
        """
        # The name as Django interpolates it for this model.
        name = ONE_TEMPLATE_PER_SERIES % {
            "app_label": cls._meta.app_label.lower(),
            "class": cls.__name__.lower(),
        }
        messages: list[checks.CheckMessage] = super().check(**kwargs)
        return without_answered_warnings(cls, messages, constraints=[name])

    @classmethod
    def recurring_visibility_map(cls) -> dict[str, str | None]:
        """Each ``RECURRING_VISIBILITY_*`` attribute name -> the host value (or None)."""
        return {name: getattr(cls, name) for name in VISIBILITY_ATTRIBUTES}

    @property
    def occurrence_start(self) -> dt.datetime:
        """The event's start, read through ``RECURRING_START_FIELD``."""
        value: dt.datetime = getattr(self, self.RECURRING_START_FIELD)
        return value

    def occurrence_duration(self) -> dt.timedelta | None:
        """How long the event lasts, or None when the host cannot say; the one reader of it.

        The feeds (DTEND), the API (``end``) and the duration checks ask this. The
        default: the end minus the start when ``RECURRING_END_FIELD`` holds a value,
        else the ``RECURRING_DURATION_FIELD`` value, else
        ``RECURRING_DEFAULT_DURATION``. Override it when the length lives elsewhere
        (a class type's standard length, say); it must not query the database (a
        feed asks it for every event it reads): name the fields it reads in the
        adapter's ``get_ical_fields``.
        """
        end_field, duration_field = self.RECURRING_END_FIELD, self.RECURRING_DURATION_FIELD
        start = getattr(self, self.RECURRING_START_FIELD)
        end = getattr(self, end_field) if end_field else None
        if end is not None and start is not None:
            length: dt.timedelta = end - start
            return length
        stored = getattr(self, duration_field) if duration_field else None
        if stored is not None:
            return stored  # type: ignore[no-any-return]
        return self.RECURRING_DEFAULT_DURATION

    @property
    def occurrence_end(self) -> dt.datetime | None:
        """The start plus :meth:`occurrence_duration`; None without a start or a length."""
        start = getattr(self, self.RECURRING_START_FIELD)
        duration = self.occurrence_duration()
        if start is None or duration is None:
            return None
        return start + duration  # type: ignore[no-any-return]

    @property
    def occurrence_status(self) -> Any:
        """The event's status, read through ``RECURRING_STATUS_FIELD``, in the field's own type.

        An ``IntegerField`` status is an ``int`` here, a ``CharField`` one a ``str``
        (:meth:`status_value`).
        """
        return self.status_value(getattr(self, self.RECURRING_STATUS_FIELD))

    @classmethod
    def status_value(cls, value: Any) -> Any:
        """``value`` as the status field holds it: the field's ``to_python`` (None stays None).

        Every comparison of statuses goes through this on both sides, so the
        ``RECURRING_STATUS_*`` constants may be written in any form the field
        accepts, and check E013 judges them the same way. Raises Django's
        ``ValidationError`` for a value the field cannot hold.
        """
        if value is None:
            return None
        field: Any = cls._meta.get_field(cls.RECURRING_STATUS_FIELD)
        converted = field.to_python(value)
        # A Choices member is its value (Status.CANCELLED == 2); compare plain values.
        return converted.value if isinstance(converted, Enum) else converted

    @classmethod
    def is_status(cls, value: Any, *constants: Any) -> bool:
        """Whether the status ``value`` is one of ``constants`` (``RECURRING_STATUS_*``).

        Both sides go through :meth:`status_value`; a value the field cannot hold
        is none of them.
        """
        try:
            own = cls.status_value(value)
        except ValidationError:
            return False
        return any(own == cls.status_value(constant) for constant in constants)

    @classmethod
    def status_label(cls, value: Any) -> str:
        """What a page shows for the status ``value``: its choice label, as the host's
        ``get_<status>_display()`` would show it, else the value's text."""
        field: Any = cls._meta.get_field(cls.RECURRING_STATUS_FIELD)
        try:
            own = cls.status_value(value)
        except ValidationError:
            return str(value)
        for choice, label in field.flatchoices:
            if cls.status_value(choice) == own:
                return str(label)
        return "" if own is None else str(own)

    @property
    def is_cancelled(self) -> bool:
        """Whether this event holds ``RECURRING_STATUS_CANCELLED``."""
        own = getattr(self, self.RECURRING_STATUS_FIELD)
        return self.is_status(own, self.RECURRING_STATUS_CANCELLED)

    def move_start(self, start: dt.datetime) -> list[str]:
        """Move this occurrence to ``start``, its end and shifted fields with it; fields changed.

        Not saved. Used when a holiday policy change moves a date the rule still
        has to another day (``keep`` <-> ``shift``): the duration, the doors-open
        time and every ``RECURRING_SHIFTED_FIELDS`` keep their distance to the start.
        """
        delta = start - self.occurrence_start
        if not delta:
            return []
        changed = [self.RECURRING_START_FIELD]
        setattr(self, self.RECURRING_START_FIELD, start)
        names = [self.RECURRING_END_FIELD, *self.RECURRING_SHIFTED_FIELDS]
        for name in names:
            if name and getattr(self, name) is not None:
                setattr(self, name, getattr(self, name) + delta)
                changed.append(name)
        return changed

    def mark_cancelled(self) -> list[str]:
        """Set the cancelled status, remembering the current one; returns fields to save.

        No-op (returns ``[]``) when the occurrence is already cancelled, so a
        second cancellation never overwrites the remembered status.
        """
        if self.is_cancelled:
            return []
        # Stored as text by the field's own value_to_string and read back by its
        # to_python (mark_restored), as Django's serializers round-trip a value:
        # an integer status comes back an integer (docs/decisions/0051-statuses-of-any-type.md).
        field: Any = self._meta.get_field(self.RECURRING_STATUS_FIELD)
        current = getattr(self, self.RECURRING_STATUS_FIELD)
        self.status_before_cancellation = "" if current is None else field.value_to_string(self)
        setattr(self, self.RECURRING_STATUS_FIELD, self.RECURRING_STATUS_CANCELLED)
        return [self.RECURRING_STATUS_FIELD, "status_before_cancellation"]

    def mark_restored(self, *, fallback: Any) -> list[str]:
        """Put back the status from before the cancellation; returns fields to save.

        ``fallback`` is used for an occurrence cancelled without a remembered
        status (e.g. by a host's own code writing the status directly), and for a
        remembered text the status field can no longer read.
        """
        remembered = self.status_before_cancellation
        restored = fallback
        if remembered:
            try:
                restored = self.status_value(remembered)
            except ValidationError:
                restored = fallback
        setattr(self, self.RECURRING_STATUS_FIELD, restored)
        self.status_before_cancellation = ""
        return [self.RECURRING_STATUS_FIELD, "status_before_cancellation"]

    def prepare_occurrence(
        self,
        *,
        start: dt.datetime,
        occurrence_index: int,
        status: Any,
    ) -> Self:
        """Build one unsaved occurrence from this template.

        Copies every concrete field except the primary key, the mixin's
        per-occurrence state and ``RECURRING_UNCOPIED_FIELDS``; sets the start (and
        the end, keeping the template's duration); moves the
        ``RECURRING_SHIFTED_FIELDS`` by the start delta. Override to fill unique
        fields such as slugs; call ``super()`` first. Must not query the database:
        generation builds hundreds of these inside one locked transaction.
        """
        # One value per concrete field, in order, handed to the model's __init__
        # positionally (as Django's own from_db does): the host's __init__ and its
        # pre_init/post_init receivers run, and no field's default is computed
        # only to be overwritten by the template's value.
        values: list[Any] = []
        for field, copied in _copy_plan(type(self)):
            if not copied:
                values.append(models.DEFERRED if field.generated else field.get_default())
                continue
            value = getattr(self, field.attname)
            # Only containers (JSON fields) can be shared by reference and later
            # mutated; deep-copying every str/Decimal/datetime would cost time on
            # the hot path for nothing.
            if isinstance(value, (dict, list)):
                value = copy.deepcopy(value)
            values.append(value)
        occurrence = type(self)(*values)
        delta = start - self.occurrence_start
        setattr(occurrence, self.RECURRING_START_FIELD, start)
        end_field = self.RECURRING_END_FIELD
        if end_field and getattr(self, end_field) is not None:
            setattr(occurrence, end_field, getattr(self, end_field) + delta)
        for name in self.RECURRING_SHIFTED_FIELDS:
            value = getattr(self, name)
            if value is not None:
                setattr(occurrence, name, value + delta)
        setattr(occurrence, self.RECURRING_STATUS_FIELD, status)
        occurrence.series_id = self.series_id
        occurrence.is_template = False
        occurrence.is_modified = False
        occurrence.occurrence_index = occurrence_index
        occurrence.recurrence_id = start
        return occurrence

    def prepare_template(self) -> None:
        """Fill what a new template needs before it is validated; the default does nothing.

        Called on the unsaved template of a new series (made by the service, the
        API, the admin, a split's continuation, or started from an event) once it
        holds the template's data, before ``full_clean()`` runs on it. A host whose
        primary key (or another required field) has no default fills it here, as
        :meth:`prepare_occurrence` fills an occurrence's: for example
        ``if not self.slug: self.slug = f"{slugify(self.title)}-{token_hex(3)}"``.
        A key already set (by :meth:`prepare_template_copy`, or by a host's own
        code passing it in ``template_data``) should be kept. Must not query the
        database per call beyond what the host's own ``full_clean`` would.
        """

    def prepare_template_copy(self, *, start: dt.datetime) -> Self:
        """Build an unsaved draft copy of this event to be the template of a new series.

        Used when a series is started from a one-off event and when a split
        ("this and following") gives its continuation a template copied from the
        original's, starting at ``start``. The default is :meth:`prepare_occurrence`
        with ``occurrence_index=0`` and the draft status. Override it when a unique
        field of the copy must differ from every occurrence's: the continuation's
        template starts at the split date, where a moved occurrence already holds
        the value ``prepare_occurrence`` would give it (the example project's
        slugs). A primary key set on the copy is kept as the new template's key
        (a text key without a default); one left empty is filled by
        :meth:`prepare_template`. Must not query the database.
        """
        return self.prepare_occurrence(
            start=start, occurrence_index=0, status=self.RECURRING_STATUS_DRAFT
        )

    @classmethod
    def clone_related(cls, template: Self, occurrences: Sequence[Self]) -> None:
        """Copy the template's related rows (ticket tiers, ...) onto new occurrences.

        Called once per generated batch, inside the generation transaction, after
        the occurrences were inserted (they have primary keys). The default copies
        nothing; override it with bulk queries whose count does not depend on
        ``len(occurrences)``.
        """

    @classmethod
    def clone_related_many(cls, batches: Sequence[tuple[Self, Sequence[Self]]]) -> None:
        """Copy related rows for several series at once: ``(template, occurrences)`` pairs.

        The daily pass (``generate_series_chunk``) calls this once per chunk of
        series, inside the chunk's transaction, after all occurrences were
        inserted; ``generate_series_events`` (one series) calls
        :meth:`clone_related`. The default calls :meth:`clone_related` for each
        pair, so a host that overrides only that keeps working; override this
        one to read and insert the related rows of the whole chunk in one query
        each (pairs with no occurrences are passed too; skip them).
        """
        for template, occurrences in batches:
            if occurrences:
                cls.clone_related(template, occurrences)

    def has_bookings(self) -> bool:
        """Whether this occurrence holds bookings that deleting or cancelling it would hurt.

        The single-row answer. Everything that asks about several occurrences at
        once (deleting a series, the drift and occurrence lists, cancel-stale)
        calls :meth:`booked_among`, whose default falls back to this method once
        per event. The default is False; hosts selling tickets override it.
        """
        return False

    @classmethod
    def booked_among(cls, events: Sequence[Self]) -> set[Any]:
        """The primary keys of those of ``events`` that hold bookings.

        Asked once per page or per series, never once per row: ``delete_series``
        refuses while the answer is not empty, ``cancel_stale_occurrences`` and
        ``cancel_occurrence`` leave those dates alone unless the caller includes
        them, and the API and admin lists mark them. The default calls
        :meth:`has_bookings` on each event (one query each for a host that reads
        a table there); override it with one query over all of ``events``, e.g.
        ``set(Ticket.objects.filter(event__in=events).values_list("event_id",
        flat=True))``. ``events`` may be empty, and its rows may be loaded with
        only some of their columns (``.only()``): read nothing but ``pk`` from them.
        """
        return {event.pk for event in events if event.has_bookings()}

    @classmethod
    def count_bookings_among(cls, events: Sequence[Self]) -> dict[Any, int]:
        """How many bookings each of ``events`` holds: primary key -> count.

        Only booked events need be in the answer (a missing key counts 0). A change
        plan asks it once for all the dates it looks at, to tell the organiser
        how many people each date that no longer fits would let down. The
        default counts 1 for each event :meth:`booked_among` names (it cannot
        know more); a host that sells tickets overrides it with one aggregate
        query, e.g. ``dict(Ticket.objects.filter(event__in=events)
        .values("event_id").annotate(n=Count("pk")).values_list("event_id", "n"))``.
        The same contract on ``events`` as :meth:`booked_among`: read only ``pk``.
        """
        return {pk: 1 for pk in cls.booked_among(events)}

    @classmethod
    def people_booked_among(cls, events: Sequence[Self]) -> Mapping[Any, Sequence[BookedPerson]]:
        """Who is booked on each of ``events``: primary key -> the people booked on it.

        Asked once per operation that moves, cancels or restores dates (never once
        per row), for the rows the change touches; the answer decides who receives
        a message about their dates (docs/howto/attendees.md). Only booked events
        need be in the answer. A person booked twice on one event is one
        :class:`~revel_recurring.people.BookedPerson` there; people are told apart
        by ``address``. The default answers nobody, so a host without this hook
        sends no message. Override it with one query over all of ``events``, e.g.
        ``Ticket.objects.filter(event__in=events).select_related("user")``. The same
        contract on ``events`` as :meth:`booked_among`: read only ``pk``.
        """
        return {}

    @classmethod
    def book_enrolled(cls, pairs: Sequence[tuple[Self, str]]) -> Mapping[tuple[Any, str], Any]:
        """Book each enrolled user on each event: ``(event, user key)`` -> a ``BookingAnswer``.

        Called once per batch of dates created, restored or un-skipped (a run of
        the daily pass, a new series, an enrolment made), never once per row,
        inside the change's transaction and under the series lock. Create the
        host's own booking or RSVP for each pair and answer
        :meth:`BookingAnswer.booked() <revel_recurring.enrolled.BookingAnswer.booked>`,
        ``.held()`` when the user already holds a live booking on the event (left
        as it is), or ``.refused(reason)`` (full, closed...): a refused date is
        reported to the user, never an error. A pair missing from the answer counts
        as refused. The user key is the user's primary key as text. A host that
        does not override this hook offers no enrolments (docs/howto/enrolments.md).
        """
        return {}

    @classmethod
    def release_enrolled(cls, pairs: Sequence[tuple[Self, str]]) -> None:
        """Release the bookings :meth:`book_enrolled` made for these ``(event, user key)`` pairs.

        Called once per batch: a user skipping a date, an enrolment ended (its
        future dates booked through it). Delete or cancel the host's booking so
        its waitlist can move; a pair without a booking is left alone. The
        default does nothing.
        """


def _copy_plan(model: type[models.Model]) -> list[tuple[Any, bool]]:
    """``model``'s concrete fields in order, each with whether an occurrence copies it.

    Not copied: the primary key, the mixin's per-occurrence state and the model's
    ``RECURRING_UNCOPIED_FIELDS`` (those get their default, as a new instance would).
    """
    skip = OCCURRENCE_STATE_FIELDS | set(getattr(model, "RECURRING_UNCOPIED_FIELDS", ()))
    return [
        (field, not (field.primary_key or field.name in skip))
        for field in model._meta.concrete_fields
    ]
