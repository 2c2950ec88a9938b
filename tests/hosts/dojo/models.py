"""The dojo's models: one studio, trainings keyed by readable slugs, an integer status.

Shaped unlike the other two hosts on purpose: the primary key is a ``CharField``
with no default (the host fills it in the mixin's hooks), the length of a training
is a ``DurationField`` (there is no end field), the status is an ``IntegerField``
with ``IntegerChoices`` and the constants are enum members, there is no
organisation and no visibility field, and people log in by e-mail.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.db import models
from django.utils.text import slugify

from revel_recurring.enrolled import BookingAnswer
from revel_recurring.models import RecurringEventMixin
from revel_recurring.people import BookedPerson
from revel_recurring.querysets import RecurringEventQuerySet
from tests.hosts.enrolled import book_in_bulk, release_in_bulk


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def _create(self, email: str, password: str | None, **fields: Any) -> User:
        if not email:
            raise ValueError("Eine E-Mail-Adresse ist nötig.")
        user = self.model(email=self.normalize_email(email), **fields)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_user(self, email: str, password: str | None = None, **fields: Any) -> User:
        fields.setdefault("is_staff", False)
        fields.setdefault("is_superuser", False)
        return self._create(email, password, **fields)

    def create_superuser(self, email: str, password: str | None = None, **fields: Any) -> User:
        fields.update(is_staff=True, is_superuser=True)
        return self._create(email, password, **fields)


class User(AbstractBaseUser, PermissionsMixin):
    """Logs in with the e-mail address; an ordinary integer key."""

    email = models.EmailField("E-Mail", unique=True)
    name = models.CharField("Name", max_length=200, blank=True)
    # A German dojo: members read German unless they chose otherwise. The zone is
    # empty for the training's own (Europe/Berlin).
    language = models.CharField("Sprache", max_length=16, blank=True, default="de")
    timezone = models.CharField("Zeitzone", max_length=64, blank=True, default="")
    is_staff = models.BooleanField(default=False)
    is_active = models.BooleanField(default=True)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    def __str__(self) -> str:
        return self.email


def _stem(title: str) -> str:
    return slugify(title)[:60] or "training"


class Training(RecurringEventMixin, models.Model):
    """The dojo's event model."""

    class Status(models.IntegerChoices):
        ENTWURF = 0, "Entwurf"
        BUCHBAR = 1, "Buchbar"
        ABGESAGT = 2, "Abgesagt"

    # Readable and without a default: the key is made from the title and the date
    # (occurrences, in prepare_occurrence), or from the title and a short random
    # tail (templates, in prepare_template and prepare_template_copy).
    slug = models.CharField("Kürzel", max_length=120, primary_key=True)
    title = models.CharField("Titel", max_length=200)
    begins_at = models.DateTimeField("Beginn")
    duration = models.DurationField("Dauer", default=dt.timedelta(minutes=90))
    status = models.IntegerField("Status", choices=Status.choices, default=Status.ENTWURF)
    mat = models.CharField("Matte", max_length=100, blank=True, default="")
    # Places on the mat; empty: unlimited. Enrolled members are booked within it.
    capacity = models.PositiveIntegerField("Plätze", null=True, blank=True)
    changed_at = models.DateTimeField(auto_now=True)

    objects = RecurringEventQuerySet["Training"].as_manager()

    RECURRING_START_FIELD = "begins_at"
    RECURRING_END_FIELD = None
    # The length of a training: the feeds' DTEND and the API's end are start + duration.
    RECURRING_DURATION_FIELD = "duration"
    RECURRING_STATUS_FIELD = "status"
    RECURRING_UPDATED_FIELD = "changed_at"
    RECURRING_STATUS_DRAFT = Status.ENTWURF
    RECURRING_STATUS_OPEN = Status.BUCHBAR
    RECURRING_STATUS_CANCELLED = Status.ABGESAGT
    RECURRING_UNCOPIED_FIELDS = ("changed_at",)
    PROPAGATABLE_FIELDS = ("title", "mat", "duration")

    class Meta(RecurringEventMixin.Meta):
        ordering = ("begins_at", "slug")
        verbose_name = "Training"
        verbose_name_plural = "Trainings"

    def __str__(self) -> str:
        return f"{self.title} ({self.slug})"

    def prepare_template(self) -> None:
        if not self.slug:
            self.slug = f"{_stem(self.title)}-serie-{secrets.token_hex(3)}"

    def prepare_occurrence(self, *, start: dt.datetime, occurrence_index: int, status: Any) -> Self:
        occurrence = super().prepare_occurrence(
            start=start, occurrence_index=occurrence_index, status=status
        )
        moment = start.astimezone(dt.UTC)
        occurrence.slug = f"{_stem(self.title)}-{self.series_id}-{moment:%Y%m%d-%H%M}"
        return occurrence

    def prepare_template_copy(self, *, start: dt.datetime) -> Self:
        # The occurrence at ``start`` already holds the key prepare_occurrence gives.
        copy = super().prepare_template_copy(start=start)
        copy.slug = f"{_stem(self.title)}-ab-{start:%Y%m%d}-{secrets.token_hex(3)}"
        return copy

    def has_bookings(self) -> bool:
        return self.bookings.exists()

    @classmethod
    def booked_among(cls, events: Sequence[Training]) -> set[Any]:
        if not events:
            return set()
        return set(
            Booking.objects.filter(training__in=[event.pk for event in events])
            .values_list("training_id", flat=True)
            .distinct()
        )

    @classmethod
    def count_bookings_among(cls, events: Sequence[Training]) -> dict[Any, int]:
        if not events:
            return {}
        return dict(
            Booking.objects.filter(training__in=[event.pk for event in events])
            .values("training_id")
            .annotate(people=models.Count("pk"))
            .values_list("training_id", "people")
        )

    @classmethod
    def people_booked_among(
        cls, events: Sequence[Training]
    ) -> Mapping[Any, Sequence[BookedPerson]]:
        # One query over Booking joined to its member; a member booked twice is named once.
        if not events:
            return {}
        rows = (
            Booking.objects.filter(training__in=[event.pk for event in events])
            .order_by("training_id", "member__email")
            .values_list(
                "training_id",
                "member__email",
                "member__name",
                "member__language",
                "member__timezone",
            )
        )
        people: dict[Any, dict[str, BookedPerson]] = {}
        for training_id, email, name, language, zone in rows:
            person = BookedPerson(address=email, name=name, language=language, timezone=zone)
            people.setdefault(training_id, {}).setdefault(person.key, person)
        return {pk: list(named.values()) for pk, named in people.items()}

    @classmethod
    def book_enrolled(
        cls, pairs: Sequence[tuple[Training, str]]
    ) -> Mapping[tuple[Any, str], BookingAnswer]:
        # A Booking per (training, member) within the places on the mat: five queries.
        return book_in_bulk(
            pairs, booking=Booking, event_field="training", user_field="member", full="ausgebucht"
        )

    @classmethod
    def release_enrolled(cls, pairs: Sequence[tuple[Training, str]]) -> None:
        release_in_bulk(pairs, booking=Booking, event_field="training", user_field="member")


class Booking(models.Model):
    """A member's place on the mat of one training."""

    training = models.ForeignKey(Training, on_delete=models.CASCADE, related_name="bookings")
    member = models.ForeignKey(User, on_delete=models.CASCADE, related_name="bookings")
    booked_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.member} in {self.training}"
