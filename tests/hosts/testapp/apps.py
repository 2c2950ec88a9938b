from django.apps import AppConfig
from django.db.models.signals import post_save


class TestAppConfig(AppConfig):
    name = "tests.hosts.testapp"
    label = "testapp"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from .models import Event
        from .notifier import on_event_created

        post_save.connect(on_event_created, sender=Event, dispatch_uid="testapp.event_created")
