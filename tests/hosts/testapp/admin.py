from __future__ import annotations

from django.contrib import admin

from .models import Event

admin.site.register(Event)
