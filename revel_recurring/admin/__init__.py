"""The admin of revel-recurring: series with their rule, actions and upcoming dates.

Registered on Django's default admin site when ``django.contrib.admin`` is
installed (autodiscovery imports this module). A site with its own AdminSite
registers ``EventSeriesAdmin`` there itself.
"""

from __future__ import annotations

from django.contrib import admin

from ..models import EventSeries
from .series import EventSeriesAdmin

admin.site.register(EventSeries, EventSeriesAdmin)

__all__ = ["EventSeriesAdmin"]
