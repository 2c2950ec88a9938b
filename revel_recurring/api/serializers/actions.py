"""The bodies of the series' actions: what each one reads and what it answers."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from ...services.plans import CANCEL_DRIFT_MODES
from ...validators import WINDOW_WEEKS_MAX, WINDOW_WEEKS_MIN, validate_single_line
from ..errors import RULE_ERROR_CODE
from ..fields import (
    AwareDateTimeField,
    EventIdField,
    PrefilledFormMixin,
    StrictFieldsMixin,
    notify_field,
)
from ..plan_keys import HASH_PATTERN
from ..plans import PlannedOccurrenceSerializer
from ..templates import split_template_serializer_class
from .holidays import HolidaySettingsSerializer
from .occurrences import OccurrenceSerializer
from .recurrence import RecurrenceChangeSerializer, RecurrencePlanChangeSerializer
from .series import SeriesSerializer


class GenerateRequestSerializer(PrefilledFormMixin, StrictFieldsMixin, serializers.Serializer[Any]):
    until = AwareDateTimeField(
        required=False,
        allow_null=True,
        help_text=_(
            "Generate up to here instead of the rolling window; at most "
            "REVEL_RECURRING_MAX_WINDOW_WEEKS ahead."
        ),
    )


class GenerateResultSerializer(serializers.Serializer[Any]):
    created = OccurrenceSerializer(many=True)
    series = SeriesSerializer()


class OccurrenceInstantSerializer(
    PrefilledFormMixin, StrictFieldsMixin, serializers.Serializer[Any]
):
    occurrence = AwareDateTimeField(
        help_text=_("The slot or the current start of the occurrence, any UTC offset.")
    )


class ExtraDateRequestSerializer(
    PrefilledFormMixin, StrictFieldsMixin, serializers.Serializer[Any]
):
    """``add-date/`` and ``remove-date/``: one extra date (RFC 5545 RDATE)."""

    instant = AwareDateTimeField(
        help_text=_("The extra date, any UTC offset; read to the whole second and stored in UTC.")
    )


class MaterializeDateRequestSerializer(
    PrefilledFormMixin, StrictFieldsMixin, serializers.Serializer[Any]
):
    """``materialize-date/``: one date of the series, however far ahead."""

    start = AwareDateTimeField(
        help_text=_(
            "The date, any UTC offset: a date of the rule (or an extra date), or the day "
            "a holiday moved one to, as `occurrences/?beyond_window=true` lists it."
        )
    )


class MaterializeDateResultSerializer(serializers.Serializer[Any]):
    occurrence = OccurrenceSerializer(help_text=_("The row of the date, new or as it was."))
    created = serializers.BooleanField(
        help_text=_("False when a row held the date already (nothing was written).")
    )
    series = SeriesSerializer()


class RestoreOccurrenceSerializer(OccurrenceInstantSerializer):
    """``restore-occurrence/``: the slot, and who is told."""

    notify = notify_field()


class CancelOccurrenceRequestSerializer(OccurrenceInstantSerializer):
    notify = notify_field()
    include_booked = serializers.BooleanField(
        required=False,
        default=False,
        help_text=_(
            "Cancel the occurrence even though it holds bookings. Without it a booked "
            "occurrence is refused with a 409 naming its date."
        ),
    )


class OccurrenceActionResultSerializer(serializers.Serializer[Any]):
    occurrence = OccurrenceSerializer(
        allow_null=True, help_text=_("Null when the slot was not materialized.")
    )
    series = SeriesSerializer()


class CancelStaleRequestSerializer(
    PrefilledFormMixin, StrictFieldsMixin, serializers.Serializer[Any]
):
    ids = serializers.ListField(
        child=EventIdField(),
        required=False,
        max_length=1000,
        help_text=_("Only these occurrences, and only if they drift; omit for every drifted one."),
    )
    notify = notify_field()
    include_booked = serializers.BooleanField(
        required=False,
        default=False,
        help_text=_(
            "Also cancel drifted occurrences that hold bookings. Without it they are "
            "kept and named in `kept_booked`."
        ),
    )


class BookedDateSerializer(serializers.Serializer[Any]):
    """A booked occurrence an action left alone, named for a person."""

    id = EventIdField(help_text=_("The host event's id."))
    start = AwareDateTimeField(help_text=_("Its current start, UTC."))
    display = serializers.CharField(
        help_text=_('The start in the rule\'s zone: "Thu 3 Dec 2026 18:30 (Europe/Berlin)".')
    )


class CancelStaleResultSerializer(serializers.Serializer[Any]):
    cancelled = serializers.ListField(child=EventIdField())
    kept_booked = BookedDateSerializer(
        many=True,
        help_text=_(
            "Drifted occurrences kept because they hold bookings (empty with `include_booked`)."
        ),
    )
    series = SeriesSerializer()


class RecurrencePlanRequestSerializer(
    PrefilledFormMixin, StrictFieldsMixin, serializers.Serializer[Any]
):
    """``recurrence-plan/``: the change, as ``PATCH series/{id}/`` takes it."""

    recurrence = RecurrencePlanChangeSerializer(
        required=False,
        help_text=_("The rule fields to change (any subset), and the new set of extra dates."),
    )
    generation_window_weeks = serializers.IntegerField(
        min_value=WINDOW_WEEKS_MIN, max_value=WINDOW_WEEKS_MAX, required=False
    )
    holidays = HolidaySettingsSerializer(
        required=False, help_text=_("The holiday settings to change (any subset).")
    )
    # The plan shown is the one applied with the same ``notify``: with people told,
    # booked dates that can move are planned moving.
    notify = notify_field()


#: What each ``cancel_drift`` value does, as the schema's enum and OPTIONS list it.
CANCEL_DRIFT_LABELS = {
    "none": _("none: nothing is cancelled; dates without bookings move where they can (default)"),
    "unbooked": _(
        "unbooked: also cancel the drifted dates without bookings that cannot move; booked "
        "ones stay"
    ),
    "all": _("all: booked dates move or are cancelled too"),
}


def _hash_field(help_text: Any) -> serializers.CharField:
    return serializers.CharField(
        required=False,
        # Sent back exactly as received: the hash is compared, never edited.
        trim_whitespace=False,
        validators=[
            RegexValidator(
                HASH_PATTERN,
                message=_(
                    "This is not the hash of a plan: copy the plan's `hash` exactly "
                    "(80 characters 0-9 and a-f)."
                ),
            )
        ],
        help_text=help_text,
    )


class PlanHashMixin:
    """``hash`` (the name the plan answers with) and ``plan_hash`` (its earlier name):
    one of them; both only when equal, else a 400 naming ``plan_hash``.

    The validated body holds the hash under ``hash`` and the name it came by under
    ``hash_field``.
    """

    #: Whether a body without a hash is refused (``recurrence-apply/``) or applies to
    #: the series as it is (``split/``).
    hash_required = True

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)  # type: ignore[misc]
        given = attrs.pop("plan_hash", None)
        named = attrs.get("hash")
        if given is not None and named is not None and given != named:
            raise serializers.ValidationError(
                {
                    "plan_hash": [
                        ErrorDetail(
                            gettext(
                                "`hash` and `plan_hash` differ; they are two names of one "
                                "value: send the plan's hash once, as `hash`."
                            ),
                            code=RULE_ERROR_CODE,
                        )
                    ]
                }
            )
        if named is None and given is None:
            if self.hash_required:
                raise serializers.ValidationError(
                    {
                        "hash": [
                            ErrorDetail(
                                gettext(
                                    "Give the `hash` of the plan you looked at "
                                    "(from recurrence-plan/)."
                                ),
                                code=RULE_ERROR_CODE,
                            )
                        ]
                    }
                )
            return attrs
        attrs["hash_field"] = "hash" if named is not None else "plan_hash"
        attrs["hash"] = named if named is not None else given
        return attrs


class RecurrenceApplyRequestSerializer(PlanHashMixin, RecurrencePlanRequestSerializer):
    """``recurrence-apply/``: the same change, the hash of its plan, what to do with drift."""

    hash = _hash_field(
        _(
            "The `hash` of the plan you showed, as `recurrence-plan/` answered it for this "
            "same body. The series changed since: 409 with the fresh plan. A hash that "
            "does not match this request (mistyped, or of another change): 400."
        )
    )
    plan_hash = _hash_field(_("The same as `hash`, under its earlier name; give one of the two."))
    cancel_drift = serializers.ChoiceField(
        choices=[(mode, CANCEL_DRIFT_LABELS.get(mode, mode)) for mode in CANCEL_DRIFT_MODES],
        required=False,
        default="none",
        help_text=_(
            "What happens to the drifted dates. Those without bookings that have a date "
            "to move to (`moves_to`) move under every value. `none` (default): nothing "
            "is cancelled, booked dates stay where they are. `unbooked`: cancel the "
            "drifted dates without bookings that cannot move (booked ones are kept and "
            "named in `kept_booked`). `all`: booked ones move or are cancelled too. "
            "Dates edited by hand are never moved or cancelled here."
        ),
    )


class RecurrenceApplyResultSerializer(serializers.Serializer[Any]):
    changed = serializers.ListField(
        child=serializers.CharField(),
        help_text=_("The rule and window fields that changed, and `extra_dates`."),
    )
    cursor_reset = serializers.BooleanField()
    created = OccurrenceSerializer(many=True, help_text=_("The new dates, materialized at once."))
    cancelled = serializers.ListField(
        child=EventIdField(), help_text=_("Ids of the drifted occurrences cancelled.")
    )
    moved = serializers.ListField(
        child=EventIdField(),
        help_text=_(
            "Ids of the drifted occurrences moved (same rows) to `moves_to` in the plan: "
            "the new rule's date in the same period, or where a holiday now places "
            "their date."
        ),
    )
    kept_booked = BookedDateSerializer(
        many=True,
        help_text=_(
            "Drifted occurrences kept because they hold bookings (`cancel_drift=unbooked`)."
        ),
    )
    kept_modified = PlannedOccurrenceSerializer(
        many=True,
        help_text=_("Drifted occurrences kept because they were moved or edited by hand."),
    )
    series = SeriesSerializer()


class SplitPlanRequestSerializer(
    PrefilledFormMixin, StrictFieldsMixin, serializers.Serializer[Any]
):
    """``split-plan/``: where to split and what the continuation changes."""

    at = AwareDateTimeField(
        help_text=_(
            "The date to split at: one of the series' dates (its slot), still to come and "
            "not its first. The original ends before it, the continuation starts on it."
        )
    )
    recurrence = RecurrenceChangeSerializer(
        required=False,
        help_text=_(
            "The continuation's rule changes (any subset, as a PATCH reads them); "
            "a `dtstart` must not be before `at`."
        ),
    )
    name = serializers.CharField(
        max_length=255,
        required=False,
        validators=[validate_single_line],
        help_text=_(
            "The continuation's name; the original's by default. A new name is also the "
            "title of its dates unless `template` gives one."
        ),
    )
    holidays = HolidaySettingsSerializer(
        required=False,
        help_text=_(
            "The continuation's holiday settings to change (any subset); the original's "
            "go on otherwise."
        ),
    )
    notify = notify_field()

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["template"] = split_template_serializer_class()(
            required=False,
            help_text=_(
                "Changes of the continuation's template: the host's propagatable fields "
                "only. Moved dates that fit the continuation's rule and were not edited "
                "by hand get them too."
            ),
        )
        return fields


class SplitRequestSerializer(PlanHashMixin, SplitPlanRequestSerializer):
    """``split/``: the same body, and optionally the hash of its plan."""

    hash_required = False

    hash = _hash_field(
        _(
            "The `hash` of the `split-plan/` you showed for this same body: a series "
            "changed since answers 409 and writes nothing; a hash that does not match "
            "this request (mistyped, or of another split) 400. Without it the split "
            "applies to the series as it is."
        )
    )
    plan_hash = _hash_field(_("The same as `hash`, under its earlier name; give one of the two."))
    cancel_drift = serializers.ChoiceField(
        choices=[(mode, CANCEL_DRIFT_LABELS.get(mode, mode)) for mode in CANCEL_DRIFT_MODES],
        required=False,
        default="none",
        help_text=_(
            "As for `recurrence-apply/`: moved dates the continuation's rule does not "
            "hold go to its date in the same period when they have no bookings; "
            "`unbooked` also cancels those that cannot move, `all` booked ones too."
        ),
    )


class SplitResultSerializer(serializers.Serializer[Any]):
    original = SeriesSerializer(help_text=_("The series split, now ending at `last_before`."))
    continuation = SeriesSerializer(help_text=_("The new series, starting at `at`."))
    at = AwareDateTimeField(help_text=_("The split date, UTC."))
    last_before = AwareDateTimeField(help_text=_("The original's last date before it, UTC."))
    moved = serializers.ListField(
        child=EventIdField(),
        help_text=_(
            "Ids of the occurrences that moved to the continuation (same ids, bookings "
            "kept), in start order."
        ),
    )
    created = OccurrenceSerializer(
        many=True, help_text=_("The continuation's dates generated at once.")
    )
    moved_cancelled = serializers.ListField(
        child=EventIdField(),
        help_text=_("Ids among `moved` of dates that were already cancelled."),
    )
    rescheduled = serializers.ListField(
        child=EventIdField(),
        help_text=_(
            "Ids of the moved dates the continuation's rule does not hold that went on to "
            "its date in the same period (same rows, new date and `recurrence_id`)."
        ),
    )
    cancelled = serializers.ListField(
        child=EventIdField(),
        help_text=_("Ids of the moved dates without a new date cancelled per `cancel_drift`."),
    )
    kept_booked = BookedDateSerializer(
        many=True,
        help_text=_(
            "Moved dates that hold bookings and that the continuation's rule does not "
            "hold, neither moved nor cancelled: kept as they are (drift)."
        ),
    )


class PropagateQuerySerializer(serializers.Serializer[Any]):
    propagate = serializers.ChoiceField(
        choices=("none", "future_unmodified", "all_future"), required=False, default="none"
    )


class ErrorSerializer(serializers.Serializer[Any]):
    detail = serializers.CharField()
