"""Queued bulk actions: the series list's "Recent bulk actions", and their read-only admin.

An action over more series than ``REVEL_RECURRING_ADMIN_INLINE_LIMIT`` answers
at once and goes on in the background; its record
(:class:`~revel_recurring.models.QueuedAction`) says who queued what over how many
series, how many are done and how many failed (each failure named, with its
reason), and when it finished. The series list shows the latest records of the
person looking (:func:`recent_queued_actions`), and *Bulk actions* lists them all
(:class:`QueuedActionAdmin`, which changes nothing).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db.models import Prefetch, QuerySet, prefetch_related_objects
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from ..conf import recurring_settings
from ..models import QueuedAction, QueuedActionFailure

#: The records the series list shows, newest first.
RECENT_ACTIONS = 5
#: The failures named per record on the series list (the others are counted).
NAMED_FAILURES = 10
#: The failures named on a record's own page.
LISTED_FAILURES = 100

if TYPE_CHECKING:
    _Base = admin.ModelAdmin[QueuedAction]
else:
    _Base = admin.ModelAdmin


def _when(value: dt.datetime) -> str:
    return formats.date_format(timezone.localtime(value), "DATETIME_FORMAT")


def progress_text(record: QueuedAction) -> str:
    """ "Running: 120 of 300 series done, 2 failed." or "Finished <when>: ..."."""
    counts = {"done": record.done, "count": record.series_count, "failed": record.failed}
    if record.finished_at is None:
        return (
            ngettext(
                "Running: %(done)d of %(count)d series done, %(failed)d failed.",
                "Running: %(done)d of %(count)d series done, %(failed)d failed.",
                record.series_count,
            )
            % counts
        )
    return ngettext(
        "Finished %(when)s: %(done)d of %(count)d series done, %(failed)d failed.",
        "Finished %(when)s: %(done)d of %(count)d series done, %(failed)d failed.",
        record.series_count,
    ) % {**counts, "when": _when(record.finished_at)}


def queued_text(record: QueuedAction) -> str:
    """ "Pause, 300 series, queued <when> by alice"."""
    values = {
        "action": record.get_action_display(),
        "count": record.series_count,
        "when": _when(record.queued_at),
        "user": record.user_name,
    }
    if record.user_name:
        return (
            ngettext(
                "%(action)s, %(count)d series, queued %(when)s by %(user)s",
                "%(action)s, %(count)d series, queued %(when)s by %(user)s",
                record.series_count,
            )
            % values
        )
    return (
        ngettext(
            "%(action)s, %(count)d series, queued %(when)s",
            "%(action)s, %(count)d series, queued %(when)s",
            record.series_count,
        )
        % values
    )


@dataclass(frozen=True)
class RecentAction:
    """One record as the series list shows it."""

    record: QueuedAction
    heading: str
    progress: str
    failures: list[QueuedActionFailure]
    more_failures: int
    url: str | None

    @property
    def finished(self) -> bool:
        return self.record.finished_at is not None


def _visible(request: HttpRequest) -> QuerySet[QueuedAction]:
    """The records ``request.user`` may read: their own; a superuser's, everyone's."""
    records = QueuedAction.objects.all()
    user: Any = request.user
    if getattr(user, "is_superuser", False):
        return records
    return records.filter(user_pk=str(user.pk))


def _kept_since() -> dt.datetime:
    return timezone.now() - dt.timedelta(days=recurring_settings.QUEUED_ACTION_DAYS)


def _record_url(site_name: str, record: QueuedAction | None = None) -> str | None:
    opts = QueuedAction._meta
    try:
        if record is None:
            return reverse(f"{site_name}:{opts.app_label}_{opts.model_name}_changelist")
        return reverse(f"{site_name}:{opts.app_label}_{opts.model_name}_change", args=(record.pk,))
    except NoReverseMatch:  # a site that does not register QueuedActionAdmin
        return None


def recent_queued_actions(request: HttpRequest, *, site_name: str = "admin") -> dict[str, Any]:
    """What the series list shows of the queued actions ``request.user`` started.

    The :data:`RECENT_ACTIONS` newest records kept (``QUEUED_ACTION_DAYS``), each
    with its first :data:`NAMED_FAILURES` failures: one query, and one more when
    one of them has failures, whatever the size of the actions. Answers
    ``{"actions": [RecentAction, ...], "all_url": ...}``.
    """
    first_failures = QueuedActionFailure.objects.order_by("pk")[:NAMED_FAILURES]
    records = list(
        QueuedAction.objects.filter(
            user_pk=str(request.user.pk), queued_at__gte=_kept_since()
        ).order_by("-queued_at", "-pk")[:RECENT_ACTIONS]
    )
    failing = [record for record in records if record.failed]
    prefetch_related_objects(
        failing, Prefetch("failures", queryset=first_failures, to_attr="first_failures")
    )
    actions = []
    for record in records:
        failures: list[QueuedActionFailure] = getattr(record, "first_failures", [])
        actions.append(
            RecentAction(
                record=record,
                heading=queued_text(record),
                progress=progress_text(record),
                failures=failures,
                more_failures=max(0, record.failed - len(failures)),
                url=_record_url(site_name, record),
            )
        )
    return {"actions": actions, "all_url": _record_url(site_name) if actions else None}


class QueuedActionAdmin(_Base):
    """The records of queued bulk actions, read-only: nothing here changes or starts one.

    A person reads their own records; a superuser reads everyone's. Anyone who
    may change series may read them (their view permission is not needed).
    """

    list_display = (
        "action",
        "user_name",
        "series_count",
        "done",
        "failed",
        "queued_at",
        "progress",
    )
    list_filter = ("action",)
    date_hierarchy = None
    ordering = ("-queued_at", "-pk")
    fields = (
        "action",
        "user_name",
        "series_count",
        "done",
        "failed",
        "queued_at",
        "finished_at",
        "progress",
        "failure_list",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[QueuedAction]:
        return _visible(request).filter(queued_at__gte=_kept_since())

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        user: Any = request.user
        return bool(
            super().has_view_permission(request, obj)
            or user.has_perm("revel_recurring.change_eventseries")
        )

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=gettext_lazy("progress"))
    def progress(self, record: QueuedAction) -> str:
        return progress_text(record)

    @admin.display(description=gettext_lazy("failed series"))
    def failure_list(self, record: QueuedAction) -> str:
        failures = list(record.failures.order_by("pk")[:LISTED_FAILURES])
        if not failures:
            return _("No series failed.")
        items = format_html_join(
            "",
            "<li>{}: {}</li>",
            ((failure.series_name, failure.reason) for failure in failures),
        )
        more = record.failed - len(failures)
        tail = (
            format_html(
                "<li>{}</li>",
                ngettext("and %(count)d more", "and %(count)d more", more) % {"count": more},
            )
            if more > 0
            else ""
        )
        return format_html("<ul>{}{}</ul>", items, tail)
