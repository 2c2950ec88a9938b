from __future__ import annotations

from django.contrib import admin

from .models import Booking, Training, User


@admin.register(User)
class UserAdmin(admin.ModelAdmin):
    list_display = ("email", "name", "is_staff", "is_active")
    search_fields = ("email", "name")
    exclude = ("password",)


@admin.register(Training)
class TrainingAdmin(admin.ModelAdmin):
    list_display = ("title", "begins_at", "status", "series")
    list_filter = ("status",)


@admin.register(Booking)
class BookingAdmin(admin.ModelAdmin):
    list_display = ("training", "member", "booked_at")
