"""The label a page shows for a host status value: the field's choice, not the stored value.

A host's status field stores what it likes (``"published"``, ``2``, an enum
member) and names each value in its own ``choices``, in the site's languages;
the admin shows that name, as ``get_FOO_display`` does for the host's own pages.
"""

from __future__ import annotations

from typing import Any


def status_label(model: Any, value: Any) -> str:
    """The choice label of ``value`` in ``model``'s status field, or the value itself.

    Compared through the field's ``to_python`` (``RecurringEventMixin.status_label``):
    a value read back through another path (a remembered status, a setting) may be
    ``"2"`` where the field's choices hold ``2``.
    """
    label: str = model.status_label(value)
    return label
