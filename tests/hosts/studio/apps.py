from django.apps import AppConfig


class StudioConfig(AppConfig):
    name = "tests.hosts.studio"
    label = "studio"
    default_auto_field = "django.db.models.BigAutoField"
