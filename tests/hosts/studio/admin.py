from __future__ import annotations

from django.contrib import admin

from .models import Booking, Lesson, School, User


@admin.register(User)
class UserAdmin(admin.ModelAdmin):
    list_display = ("email", "full_name", "is_staff", "is_active")
    search_fields = ("email", "full_name")
    exclude = ("password",)


@admin.register(School)
class SchoolAdmin(admin.ModelAdmin):
    list_display = ("name", "slug")


@admin.register(Lesson)
class LessonAdmin(admin.ModelAdmin):
    list_display = ("title", "begins", "state", "series")
    list_filter = ("state",)


@admin.register(Booking)
class BookingAdmin(admin.ModelAdmin):
    list_display = ("lesson", "pupil", "booked_at")
