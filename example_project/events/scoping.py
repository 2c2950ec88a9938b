"""Who runs which organisation: shared by the adapter and the API's template serializer."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from .models import Organization


def organizations_run_by(user: Any) -> QuerySet[Organization]:
    """Organisations ``user`` owns or is staff of (all of them for a superuser)."""
    if not user.is_authenticated:
        return Organization.objects.none()
    if user.is_superuser:
        return Organization.objects.all()
    return Organization.objects.filter(Q(owner=user) | Q(staff=user)).distinct()
