"""Serializers of the REST API: shapes only. The rules of a recurrence (``validators/``)
and of the host's event (``full_clean``) are applied by the services, whose errors the
views key by field.

Every datetime is read with its UTC offset (naive values are refused) and written
in UTC with ``Z``. Write serializers refuse unknown and read-only keys by name.

One module per concern: :mod:`.recurrence` (the rule), :mod:`.series` (a series and
the bodies that create and change it), :mod:`.occurrences` (occurrence rows, drift,
the preview) and :mod:`.actions` (the actions' bodies and answers). Every name is
importable from here, as it was before the split.
"""

from __future__ import annotations

from ..errors import RULE_ERROR_CODE, drf_errors
from ..fields import AwareDateTimeField
from ..plans import (
    ExcludedDateSerializer,
    PlannedDateSerializer,
    PlannedOccurrenceSerializer,
    PlanOutdatedSerializer,
    RecurrencePlanSerializer,
    SplitOutdatedSerializer,
    plan_data,
)
from ..templates import (
    DefaultTemplateSerializer,
    default_template_serializer_class,
    template_fields,
)
from .actions import (
    BookedDateSerializer,
    CancelOccurrenceRequestSerializer,
    CancelStaleRequestSerializer,
    CancelStaleResultSerializer,
    ErrorSerializer,
    ExtraDateRequestSerializer,
    GenerateRequestSerializer,
    GenerateResultSerializer,
    MaterializeDateRequestSerializer,
    MaterializeDateResultSerializer,
    OccurrenceActionResultSerializer,
    OccurrenceInstantSerializer,
    PropagateQuerySerializer,
    RecurrenceApplyRequestSerializer,
    RecurrenceApplyResultSerializer,
    RecurrencePlanRequestSerializer,
    RestoreOccurrenceSerializer,
    SplitPlanRequestSerializer,
    SplitRequestSerializer,
    SplitResultSerializer,
)
from .occurrences import (
    DriftSerializer,
    OccurrenceRow,
    OccurrenceSerializer,
    PreviewQuerySerializer,
    PreviewSerializer,
    PreviewSlotSerializer,
    occurrence_data,
)
from .recurrence import (
    RecurrenceChangeSerializer,
    RecurrenceCreateSerializer,
    RecurrencePlanChangeSerializer,
    RecurrenceSerializer,
    RecurrenceUpdateSerializer,
)
from .series import (
    OccurrenceCountsSerializer,
    SeriesCreateSerializer,
    SeriesLinkSerializer,
    SeriesSerializer,
    SeriesUpdateResultSerializer,
    SeriesUpdateSerializer,
    TemplateSummarySerializer,
)

__all__ = [
    "RULE_ERROR_CODE",
    "AwareDateTimeField",
    "BookedDateSerializer",
    "CancelOccurrenceRequestSerializer",
    "CancelStaleRequestSerializer",
    "CancelStaleResultSerializer",
    "DefaultTemplateSerializer",
    "DriftSerializer",
    "ErrorSerializer",
    "ExcludedDateSerializer",
    "ExtraDateRequestSerializer",
    "GenerateRequestSerializer",
    "GenerateResultSerializer",
    "MaterializeDateRequestSerializer",
    "MaterializeDateResultSerializer",
    "OccurrenceActionResultSerializer",
    "OccurrenceCountsSerializer",
    "OccurrenceInstantSerializer",
    "OccurrenceRow",
    "OccurrenceSerializer",
    "PlanOutdatedSerializer",
    "PlannedDateSerializer",
    "PlannedOccurrenceSerializer",
    "PreviewQuerySerializer",
    "PreviewSerializer",
    "PreviewSlotSerializer",
    "PropagateQuerySerializer",
    "RecurrenceApplyRequestSerializer",
    "RecurrenceApplyResultSerializer",
    "RecurrenceChangeSerializer",
    "RecurrenceCreateSerializer",
    "RecurrencePlanChangeSerializer",
    "RecurrencePlanRequestSerializer",
    "RecurrencePlanSerializer",
    "RecurrenceSerializer",
    "RecurrenceUpdateSerializer",
    "RestoreOccurrenceSerializer",
    "SeriesCreateSerializer",
    "SeriesLinkSerializer",
    "SeriesSerializer",
    "SeriesUpdateResultSerializer",
    "SeriesUpdateSerializer",
    "SplitOutdatedSerializer",
    "SplitPlanRequestSerializer",
    "SplitRequestSerializer",
    "SplitResultSerializer",
    "TemplateSummarySerializer",
    "default_template_serializer_class",
    "drf_errors",
    "occurrence_data",
    "plan_data",
    "template_fields",
]
