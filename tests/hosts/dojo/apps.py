from django.apps import AppConfig


class DojoConfig(AppConfig):
    name = "tests.hosts.dojo"
    label = "dojo"
    default_auto_field = "django.db.models.BigAutoField"
