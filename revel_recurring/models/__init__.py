"""RecurrenceRule, EventSeries, the host mixin and ``get_event_model()``.

The app's models, one module each (``rule``, ``series``, ``changes``, ``pending``,
``deleted``, ``queued``, ``notices``, ``enrolments``, ``webhooks``), and the host's side:
``RecurringEventMixin`` (from ``revel_recurring.mixins``) and ``get_event_model()``
(``event_model``). Import from here.
"""

from __future__ import annotations

from ..mixins import RecurringEventMixin
from ..rules import RULE_FIELDS  # kept importable from here
from .changes import OccurrenceChange
from .deleted import DeletedSeries
from .enrolments import Enrolment, EnrolmentDate
from .event_model import get_event_model
from .notices import (
    CalendarCopy,
    OperationRow,
    OperationSeries,
    PersonNotice,
    SeriesOperation,
)
from .pending import PendingExdate
from .queued import QueuedAction, QueuedActionFailure
from .rule import RecurrenceRule
from .series import EventSeries, EventSeriesManager, HolidayPolicyChoices
from .webhooks import WebhookDelivery, WebhookEndpoint

__all__ = [
    "RULE_FIELDS",
    "CalendarCopy",
    "DeletedSeries",
    "Enrolment",
    "EnrolmentDate",
    "EventSeries",
    "EventSeriesManager",
    "HolidayPolicyChoices",
    "OccurrenceChange",
    "OperationRow",
    "OperationSeries",
    "PendingExdate",
    "PersonNotice",
    "QueuedAction",
    "QueuedActionFailure",
    "RecurrenceRule",
    "RecurringEventMixin",
    "SeriesOperation",
    "WebhookDelivery",
    "WebhookEndpoint",
    "get_event_model",
]
