"""The studio's models: UUID primary keys, e-mail login, schools, lessons, bookings."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.db import models

from revel_recurring.enrolled import BookingAnswer
from revel_recurring.models import RecurringEventMixin
from revel_recurring.people import BookedPerson
from revel_recurring.querysets import RecurringEventQuerySet
from tests.hosts.enrolled import book_in_bulk, release_in_bulk


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def _create(self, email: str, password: str | None, **fields: Any) -> User:
        if not email:
            raise ValueError("An e-mail address is required.")
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
    """Logs in with the e-mail address; no username at all."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    email = models.EmailField(unique=True)
    full_name = models.CharField(max_length=200, blank=True)
    # What the pupil reads messages in: a language code, empty for the site's
    # LANGUAGE_CODE; an IANA zone, empty for the series' zone.
    language = models.CharField(max_length=16, blank=True, default="")
    timezone = models.CharField(max_length=64, blank=True, default="")
    is_staff = models.BooleanField(default=False)
    is_active = models.BooleanField(default=True)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    def __str__(self) -> str:
        return self.email


class School(models.Model):
    """The studio's organisations: its teachers run the school's lessons, its members read them."""

    name = models.CharField(max_length=100)
    slug = models.SlugField(unique=True)
    teachers = models.ManyToManyField(User, related_name="schools", blank=True)
    # May see the school's series (API, admin changelist) but change none of them:
    # the view-but-not-edit case every bulk path must respect.
    members = models.ManyToManyField(User, related_name="member_of", blank=True)

    def __str__(self) -> str:
        return self.name


class Hall(models.Model):
    """Where lessons take place: a table of its own, as a room or venue is on most sites."""

    name = models.CharField(max_length=100)
    street = models.CharField(max_length=200, blank=True, default="")

    def __str__(self) -> str:
        return self.name


class Lesson(RecurringEventMixin, models.Model):
    """The studio's event model: a UUID pk and names of its own for every mapped field."""

    class State(models.TextChoices):
        PENCILLED = "pencilled", "Pencilled in"
        BOOKABLE = "bookable", "Bookable"
        SCRAPPED = "scrapped", "Scrapped"

    # Editable, as most hosts declare it: the API must still treat it as read-only.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4)
    school = models.ForeignKey(School, on_delete=models.CASCADE, related_name="lessons")
    title = models.CharField(max_length=200)
    begins = models.DateTimeField()
    finishes = models.DateTimeField(null=True, blank=True)
    state = models.CharField(max_length=20, choices=State.choices, default=State.PENCILLED)
    room = models.CharField(max_length=100, blank=True, default="")
    # The feed's LOCATION: a related row, loaded for a whole feed by the adapter's
    # prefetch_ical_events, never once per lesson.
    hall = models.ForeignKey(
        Hall, on_delete=models.PROTECT, null=True, blank=True, related_name="lessons"
    )
    # Unbounded and copied onto every lesson: what the size budget and deferred reads are for.
    notes = models.TextField(blank=True, default="")
    # Pupils a lesson takes; empty: unlimited. Enrolled pupils are booked within it.
    capacity = models.PositiveIntegerField(null=True, blank=True)
    changed_at = models.DateTimeField(auto_now=True)

    objects = RecurringEventQuerySet["Lesson"].as_manager()

    RECURRING_START_FIELD = "begins"
    RECURRING_END_FIELD = "finishes"
    RECURRING_STATUS_FIELD = "state"
    RECURRING_UPDATED_FIELD = "changed_at"
    RECURRING_STATUS_DRAFT = State.PENCILLED.value
    RECURRING_STATUS_OPEN = State.BOOKABLE.value
    RECURRING_STATUS_CANCELLED = State.SCRAPPED.value
    RECURRING_UNCOPIED_FIELDS = ("changed_at",)
    PROPAGATABLE_FIELDS = ("title", "room")

    class Meta(RecurringEventMixin.Meta):
        ordering = ("begins", "id")

    def __str__(self) -> str:
        return f"{self.title} @ {self.begins.isoformat()}"

    def has_bookings(self) -> bool:
        return self.bookings.exists()

    @classmethod
    def booked_among(cls, events: Sequence[Lesson]) -> set[Any]:
        # One query over Booking for the whole page or series; rows may hold only pks.
        if not events:
            return set()
        return set(
            Booking.objects.filter(lesson__in=[event.pk for event in events])
            .values_list("lesson_id", flat=True)
            .distinct()
        )

    @classmethod
    def count_bookings_among(cls, events: Sequence[Lesson]) -> dict[Any, int]:
        # One Booking row per pupil.
        if not events:
            return {}
        return dict(
            Booking.objects.filter(lesson__in=[event.pk for event in events])
            .values("lesson_id")
            .annotate(pupils=models.Count("pk"))
            .values_list("lesson_id", "pupils")
        )

    @classmethod
    def people_booked_among(cls, events: Sequence[Lesson]) -> Mapping[Any, Sequence[BookedPerson]]:
        # One query over Booking joined to its pupil; a pupil booked twice is named once.
        if not events:
            return {}
        rows = (
            Booking.objects.filter(lesson__in=[event.pk for event in events])
            .order_by("lesson_id", "pupil__email")
            .values_list(
                "lesson_id",
                "pupil__email",
                "pupil__full_name",
                "pupil__language",
                "pupil__timezone",
            )
        )
        people: dict[Any, dict[str, BookedPerson]] = {}
        for lesson_id, email, name, language, zone in rows:
            person = BookedPerson(address=email, name=name, language=language, timezone=zone)
            people.setdefault(lesson_id, {}).setdefault(person.key, person)
        return {pk: list(named.values()) for pk, named in people.items()}

    @classmethod
    def book_enrolled(
        cls, pairs: Sequence[tuple[Lesson, str]]
    ) -> Mapping[tuple[Any, str], BookingAnswer]:
        # A Booking per (lesson, pupil) within the lesson's capacity: five queries.
        return book_in_bulk(
            pairs, booking=Booking, event_field="lesson", user_field="pupil", full="full"
        )

    @classmethod
    def release_enrolled(cls, pairs: Sequence[tuple[Lesson, str]]) -> None:
        release_in_bulk(pairs, booking=Booking, event_field="lesson", user_field="pupil")


class Booking(models.Model):
    """A pupil's place in one lesson: the paid data a series deletion must not destroy."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="bookings")
    pupil = models.ForeignKey(User, on_delete=models.CASCADE, related_name="bookings")
    booked_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.pupil} in {self.lesson}"
