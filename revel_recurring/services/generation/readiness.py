"""Whether "generate now" can run for a series, and the sentence that says why not.

The admin's *Generate now* (action and button) and the API's ``POST generate/``
both ask :func:`generation_readiness` before they call
:func:`~revel_recurring.services.generation.generate_series_events`, so a series
that cannot generate gets the same reason in both: a warning in the admin, a 409
with that sentence as ``detail`` in the API (docs/decisions/0031-admin-form-path.md).

A parked series is ready: asking for a run by hand is how an organiser retries
it, and a run that creates occurrences unparks it (docs/decisions/0023-parked-series.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from django.utils.translation import gettext as _

from ...models import EventSeries, get_event_model


class NotReadyReason(StrEnum):
    """Why a series cannot generate (the values are stable: tests and clients may read them)."""

    PAUSED = "paused"
    NO_RULE = "no_rule"
    NO_TEMPLATE = "no_template"


@dataclass(frozen=True)
class GenerationReadiness:
    """The answer of :func:`generation_readiness`.

    ``reason`` is None when the series can generate; otherwise it says why not and
    ``message`` is the sentence shown to a person (it names the series and what to do).
    """

    reason: NotReadyReason | None
    message: str

    @property
    def ready(self) -> bool:
        return self.reason is None


def generation_readiness(series: EventSeries) -> GenerationReadiness:
    """Whether ``series`` can generate now: active, with a rule and a template.

    Reads the series as given (no lock) and asks the database one question, whether
    the template exists. It is a pre-check for the person asking: the generation
    service checks again under the series lock, so a series paused in between
    generates nothing (and answers as if nothing was due).
    """
    name = series.name
    if not series.is_active:
        return GenerationReadiness(
            NotReadyReason.PAUSED,
            _("%(name)s is paused, so nothing was generated. Resume it first.") % {"name": name},
        )
    if series.recurrence_rule_id is None:
        return GenerationReadiness(
            NotReadyReason.NO_RULE,
            _("%(name)s has no recurrence rule, so nothing can be generated.") % {"name": name},
        )
    model = get_event_model()
    if not model._default_manager.filter(series=series, is_template=True).exists():
        return GenerationReadiness(
            NotReadyReason.NO_TEMPLATE,
            _("%(name)s has no template event, so nothing can be generated.") % {"name": name},
        )
    return GenerationReadiness(None, "")


__all__ = ["GenerationReadiness", "NotReadyReason", "generation_readiness"]
