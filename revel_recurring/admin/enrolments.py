"""Enrolments in the admin: their own list (add, end), and who is enrolled on the series page.

``EnrolmentAdmin`` lists the enrolments of the series a person may see (the
adapter's ``get_visible_series``), adds one through the ``enrol`` service and ends
one through ``end_enrolment`` (its change page, or the list's action), for the
series they may edit; nothing is written around the services, and a refusal shows
on the form beside the input. It is registered only on a site whose event model
books enrolled users (``book_enrolled``): :func:`register_enrolments`.

The series page shows who is enrolled (:func:`enrolled_people`) and, on each
upcoming date, who skipped it and who could not be booked (:func:`with_enrolled_notes`):
a fixed number of queries and one call of the adapter's ``get_enrolled_people``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import AdminSite
from django.contrib.admin.widgets import AdminDateWidget
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from ..adapter import get_adapter
from ..exceptions import RecurrenceError
from ..instants import describe_instant
from ..models import Enrolment, EnrolmentDate, EventSeries
from ..services.enrolments import (
    EnrolmentResult,
    end_enrolment,
    enrol,
    host_enrols,
)
from ..services.toolbox.bookings import series_zone
from .clock import current_time
from .errors import add_service_error
from .upcoming import UpcomingRow

if TYPE_CHECKING:
    _Base = admin.ModelAdmin[Enrolment]
else:
    _Base = admin.ModelAdmin

#: At most this many enrolled users are named on the series page.
ENROLLED_LISTED = 100
#: At most this many dates are listed on an enrolment's page.
DATES_LISTED = 100


def _person_label(key: str, people: dict[str, Any]) -> str:
    person = people.get(key)
    if person is None:
        return key
    return person.name or person.address or key


@dataclass(frozen=True)
class EnrolledRow:
    """One enrolled user as the series page lists them."""

    key: str
    label: str
    starts_on: dt.date
    ends_on: dt.date | None
    ended: bool
    admin_url: str | None


def enrolled_people(
    series: EventSeries, *, admin_site: AdminSite, request: HttpRequest
) -> tuple[list[EnrolledRow], int]:
    """The series' enrolments (at most :data:`ENROLLED_LISTED`, first by start) and their count.

    Two queries and one call of ``get_enrolled_people`` for the names.
    """
    enrolments = Enrolment.objects.filter(series=series).order_by("starts_on", "pk")
    total = enrolments.count()
    listed = list(enrolments[:ENROLLED_LISTED])
    people = get_adapter().get_enrolled_people([e.user_pk for e in listed]) if listed else {}
    linked = admin_site.is_registered(Enrolment)
    return [
        EnrolledRow(
            key=enrolment.user_pk,
            label=_person_label(enrolment.user_pk, people),
            starts_on=enrolment.starts_on,
            ends_on=enrolment.ends_on,
            ended=enrolment.ended_at is not None,
            admin_url=(
                reverse(
                    "admin:revel_recurring_enrolment_change",
                    args=[enrolment.pk],
                    current_app=admin_site.name,
                )
                if linked
                else None
            ),
        )
        for enrolment in listed
    ], total


def with_enrolled_notes(series: EventSeries, rows: Sequence[UpcomingRow]) -> list[UpcomingRow]:
    """``rows`` with the enrolled users who skipped each date and those it refused (and why).

    One query for the dates' states and one call of ``get_enrolled_people``.
    """
    by_row = {str(row.event_id): row for row in rows if row.event_id is not None}
    if not by_row:
        return list(rows)
    states = list(
        EnrolmentDate.objects.filter(
            series=series,
            occurrence_pk__in=list(by_row),
            state__in=[EnrolmentDate.State.SKIPPED, EnrolmentDate.State.REFUSED],
        )
        .order_by("starts_at", "user_pk")
        .values_list("occurrence_pk", "user_pk", "state", "reason")
    )
    if not states:
        return list(rows)
    people = get_adapter().get_enrolled_people(sorted({user for _pk, user, _s, _r in states}))
    skipped: dict[str, list[str]] = {}
    refused: dict[str, list[str]] = {}
    for pk, user, state, reason in states:
        label = _person_label(user, people)
        if state == EnrolmentDate.State.SKIPPED:
            skipped.setdefault(pk, []).append(label)
        else:
            refused.setdefault(pk, []).append(f"{label} ({reason})" if reason else label)
    return [
        replace(
            row,
            skipped_by=tuple(skipped.get(str(row.event_id), ())),
            refused_for=tuple(refused.get(str(row.event_id), ())),
        )
        if str(row.event_id) in skipped or str(row.event_id) in refused
        else row
        for row in rows
    ]


def enrolled_context(
    series: EventSeries, *, admin_site: AdminSite, request: HttpRequest
) -> dict[str, Any]:
    """What the series page shows of enrolments: nothing on a site without them."""
    if not host_enrols():
        return {"offers_enrolments": False}
    rows, total = enrolled_people(series, admin_site=admin_site, request=request)
    changelist = None
    if admin_site.is_registered(Enrolment):
        changelist = (
            reverse("admin:revel_recurring_enrolment_changelist", current_app=admin_site.name)
            + f"?series__id__exact={series.pk}"
        )
    return {
        "offers_enrolments": True,
        "enrolled": rows,
        "enrolled_total": total,
        "enrolled_more": total - len(rows),
        "enrolments_url": changelist,
    }


def _user_by_key(key: str) -> Any:
    model = get_user_model()
    try:
        pk = model._meta.pk.to_python(key.strip())
    except ValidationError:
        return None
    return model._default_manager.filter(pk=pk).first()


class EnrolmentAddForm(forms.ModelForm):  # type: ignore[type-arg]
    """Enrol a user: the series (of those the organiser may edit), the user's key, the days."""

    user = forms.CharField(
        label=gettext_lazy("user id"),
        max_length=64,
        help_text=gettext_lazy("The primary key of the user to enrol."),
    )
    #: Set by the admin: who is adding (the series they may edit).
    request_user: Any = None

    class Meta:
        model = Enrolment
        fields = ("series", "starts_on", "ends_on")
        help_texts = {
            "starts_on": gettext_lazy(
                "The first day booked, on the series' clock (default: today)."
            ),
            "ends_on": gettext_lazy("The last day booked; empty: every date to come."),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["series"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = get_adapter().get_editable_series(self.request_user).order_by("name", "pk")
        self.fields["starts_on"].required = False
        self.outcome: EnrolmentResult | None = None

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        series, key = data.get("series"), data.get("user")
        if self.errors or series is None or key is None:
            return data
        user = _user_by_key(key)
        if user is None:
            self.add_error("user", _("No user has this key."))
            return data
        if not get_adapter().get_visible_series(user).filter(pk=series.pk).exists():
            self.add_error("user", _("This user may not see this series, so cannot be enrolled."))
            return data
        try:
            self.outcome = enrol(
                series,
                user,
                starts_on=data.get("starts_on"),
                ends_on=data.get("ends_on"),
                by=self.request_user,
                now=current_time(),
            )
        except (RecurrenceError, ValidationError) as exc:
            add_service_error(self, exc, own_keys=("starts_on", "ends_on", "user"))
        return data


class EnrolmentEndForm(forms.ModelForm):  # type: ignore[type-arg]
    """End an enrolment: ticked, it books nothing after the day given (default: yesterday)."""

    end = forms.BooleanField(
        label=gettext_lazy("End this enrolment"),
        required=False,
        help_text=gettext_lazy(
            "The dates still to come that it booked after the last day are released."
        ),
    )
    last_day = forms.DateField(
        label=gettext_lazy("last day booked"),
        required=False,
        widget=AdminDateWidget,
        help_text=gettext_lazy("On the series' clock; empty: yesterday (today's dates released)."),
    )

    class Meta:
        model = Enrolment
        fields: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outcome: EnrolmentResult | None = None

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors or not data.get("end"):
            return data
        try:
            self.outcome = end_enrolment(self.instance, on=data.get("last_day"), now=current_time())
        except (RecurrenceError, ValidationError) as exc:
            add_service_error(self, exc, own_keys=("last_day",), elsewhere="last_day")
        return data


class EnrolmentAdmin(_Base):
    """Enrolments of the series the person may see; added and ended through the services."""

    list_display = ("series", "user_pk", "starts_on", "ends_on", "ended_at", "created_at")
    # No filter by series (a site has thousands): the series page links its own list.
    list_filter = (("ended_at", admin.EmptyFieldListFilter),)
    list_select_related = ("series",)
    search_fields = ("user_pk", "series__name")
    actions = ("end_action",)
    readonly_fields = (
        "series",
        "user_pk",
        "starts_on",
        "ends_on",
        "created_at",
        "created_by_pk",
        "ended_at",
        "dates",
    )

    @admin.display(description=gettext_lazy("dates"))
    def dates(self, obj: Enrolment) -> str:
        """What became of each date for the user, first the next ones (two queries)."""
        rows = list(
            EnrolmentDate.objects.filter(series_id=obj.series_id, user_pk=obj.user_pk)
            .order_by("starts_at", "pk")
            .values_list("starts_at", "state", "reason")[:DATES_LISTED]
        )
        if not rows:
            return "—"
        zone = series_zone(
            EventSeries.objects.select_related("recurrence_rule").get(pk=obj.series_id)
        )
        labels = dict(EnrolmentDate.State.choices)
        return format_html(
            '<ul class="revel-enrolled-dates">{}</ul>',
            format_html_join(
                "",
                "<li>{}: {}</li>",
                (
                    (
                        describe_instant(start, zone),
                        f"{labels.get(state, state)} ({reason})"
                        if reason
                        else labels.get(state, state),
                    )
                    for start, state, reason in rows
                ),
            ),
        )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Enrolment]:
        visible = get_adapter().get_visible_series(request.user).values("pk")
        return super().get_queryset(request).filter(series__in=visible)

    def get_form(
        self, request: Any, obj: Enrolment | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        base = EnrolmentAddForm if obj is None else EnrolmentEndForm
        kwargs["form"] = type(base.__name__, (base,), {"request_user": request.user})
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Enrolment | None = None) -> Any:
        if obj is None:
            return ("series", "user", "starts_on", "ends_on")
        if obj.ended_at is not None or not self.has_change_permission(request, obj):
            return self.readonly_fields
        return (*self.readonly_fields, "end", "last_day")

    def get_readonly_fields(self, request: HttpRequest, obj: Enrolment | None = None) -> Any:
        return self.readonly_fields if obj is not None else ()

    def _editable(self, request: HttpRequest, series_id: Any) -> bool:
        known: dict[Any, bool] = request.__dict__.setdefault("_revel_enrolment_editable", {})
        if series_id not in known:
            editable = get_adapter().get_editable_series(request.user)
            known[series_id] = editable.filter(pk=series_id).exists()
        return known[series_id]

    def has_change_permission(self, request: HttpRequest, obj: Enrolment | None = None) -> bool:
        allowed = super().has_change_permission(request, obj)
        return allowed and (obj is None or self._editable(request, obj.series_id))

    def has_delete_permission(self, request: HttpRequest, obj: Enrolment | None = None) -> bool:
        # Deleting would leave the host's bookings behind: an enrolment is ended.
        return False

    def save_form(self, request: Any, form: Any, change: bool) -> Any:
        # The form saved through its service when it validated.
        outcome = form.outcome
        return outcome.enrolment if outcome is not None else form.instance

    def save_related(self, request: Any, form: Any, formsets: Any, change: bool) -> None:
        """Nothing related to save: an enrolment has no many-to-many fields or inlines."""

    def save_model(self, request: Any, obj: Enrolment, form: Any, change: bool) -> None:
        """Nothing left to write; say what the service did."""
        outcome = form.outcome
        if outcome is None:
            return
        if change:
            messages.info(request, _ended_text(1, outcome.released))
            return
        booked = outcome.batch.count()
        refused = sum(
            len(dates) for users in outcome.batch.refused.values() for dates in users.values()
        )
        messages.info(
            request,
            ngettext(
                "%(count)d date booked for the user.",
                "%(count)d dates booked for the user.",
                booked,
            )
            % {"count": booked}
            + (
                " "
                + ngettext(
                    "%(count)d date could not be booked.",
                    "%(count)d dates could not be booked.",
                    refused,
                )
                % {"count": refused}
                if refused
                else ""
            ),
        )

    @admin.action(description=gettext_lazy("End the selected enrolments (today's dates released)"))
    def end_action(self, request: HttpRequest, queryset: QuerySet[Enrolment]) -> None:
        editable = get_adapter().get_editable_series(request.user).values("pk")
        chosen = list(queryset.filter(series__in=editable, ended_at__isnull=True).order_by("pk"))
        released = 0
        for enrolment in chosen:
            try:
                released += end_enrolment(enrolment, now=current_time()).released
            except RecurrenceError as exc:
                messages.error(request, f"{enrolment}: {exc}")
        messages.info(request, _ended_text(len(chosen), released))


def _ended_text(ended: int, released: int) -> str:
    return (
        ngettext("%(count)d enrolment ended;", "%(count)d enrolments ended;", ended)
        % {"count": ended}
        + " "
        + ngettext("%(count)d date released.", "%(count)d dates released.", released)
        % {"count": released}
    )


def register_enrolments(site: AdminSite) -> bool:
    """Register :class:`EnrolmentAdmin` on ``site`` when the host books enrolled users.

    Answers whether it did: a site whose event model has no ``book_enrolled`` hook
    has no enrolments to administer.
    """
    if not host_enrols():
        return False
    site.register(Enrolment, EnrolmentAdmin)
    return True


__all__ = [
    "DATES_LISTED",
    "ENROLLED_LISTED",
    "EnrolledRow",
    "EnrolmentAddForm",
    "EnrolmentAdmin",
    "EnrolmentEndForm",
    "enrolled_context",
    "enrolled_people",
    "register_enrolments",
    "with_enrolled_notes",
]
