"""What the browsable API's pages say: each action's page sentence, descriptions as HTML.

A POST-only action opened in a browser answers its page (``http_method_not_allowed``
of the viewset) with :func:`action_sentence`, which says what posting does, in the
organiser's words. The description under a page's title is the action's docstring,
whose `code spans` are drawn as code (:func:`description_html`), with or without the
``markdown`` package DRF would use.
"""

from __future__ import annotations

import re

from django.utils.functional import Promise
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

#: What posting to each POST-only action's page does.
_SENTENCES: dict[str, Promise] = {
    "pause": _("POST to this page to pause the series: no new dates are added; those there stay."),
    "resume": _("POST to this page to resume the series: new dates are added again."),
    "generate": _("POST to this page to add the series' dates of the weeks ahead now."),
    "cancel_stale": _("POST to this page to cancel the dates that no longer fit the series' rule."),
    "cancel_occurrence": _("POST to this page to cancel one date of the series."),
    "restore_occurrence": _("POST to this page to restore a cancelled date of the series."),
    "add_date": _("POST to this page to add an extra date to the series."),
    "remove_date": _("POST to this page to remove an extra date from the series."),
    "recurrence_plan": _(
        "POST a change of the series' schedule to this page to see what it would do to its "
        "dates. Nothing is changed."
    ),
    "recurrence_apply": _(
        "POST the change and the hash of its plan to this page to apply that plan to the series."
    ),
    "split_plan": _(
        "POST a date to this page to see what splitting the series there would do. Nothing is "
        "changed."
    ),
    "split": _("POST a date to this page to split the series there: a new series goes on from it."),
}

_CODE = re.compile(r"`([^`\n]+)`")


def action_sentence(action: str) -> str:
    """What posting to the page of ``action`` does, in the active language."""
    sentence = _SENTENCES.get(action)
    if sentence is None:
        return gettext("POST to this page to run this action on the series.")
    return str(sentence)


def description_html(text: str) -> SafeString:
    """``text`` (a docstring) as HTML: escaped, `code spans` as ``<code>``, blank lines
    between paragraphs."""
    paragraphs = [part.strip() for part in re.split(r"\n\s*\n", text) if part.strip()]
    rendered = []
    for paragraph in paragraphs:
        escaped = escape(" ".join(line.strip() for line in paragraph.splitlines()))
        rendered.append("<p>" + _CODE.sub(r"<code>\1</code>", escaped) + "</p>")
    return mark_safe("\n".join(rendered))


__all__ = ["action_sentence", "description_html"]
