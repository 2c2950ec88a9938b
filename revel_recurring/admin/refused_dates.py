"""A refused "Add a date" kept for the change page it returns to, with what was typed.

The button posts to its own view, which redirects back to the series (a reload
never posts twice). What the organiser typed and why it was refused travel in the
session to that one page, which shows them on the form, where the page opens
(``#revel-add-date``), instead of a message at the top of a long page.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from ..models import EventSeries
from .forms import AddDateForm

#: The session key that holds one refused date until its page shows it.
SESSION_KEY = "revel_recurring_refused_date"
#: Where the page opens after a refusal: the "Add a date" tool.
ANCHOR = "revel-add-date"


def keep_refused_date(request: HttpRequest, series: EventSeries, form: AddDateForm) -> None:
    """Remember ``form`` (bound and refused) for ``series``' next change page."""
    request.session[SESSION_KEY] = {
        "series": str(series.pk),
        "data": {name: form.data.get(name, "") for name in ("when_0", "when_1")},
        "errors": [str(error) for errors in form.errors.values() for error in errors],
    }


def refused_date_form(request: HttpRequest, series: EventSeries) -> AddDateForm:
    """The "Add a date" form of ``series``' page: the refused one once, else an empty one."""
    kept: Any = request.session.get(SESSION_KEY)
    if not isinstance(kept, dict) or kept.get("series") != str(series.pk):
        return AddDateForm()
    del request.session[SESSION_KEY]
    form = AddDateForm(kept.get("data") or {})
    if form.is_valid():
        # Valid as typed: the service refused it (a date the series already has).
        for error in kept.get("errors") or ():
            form.add_error("when", error)
    return form


__all__ = ["ANCHOR", "SESSION_KEY", "keep_refused_date", "refused_date_form"]
