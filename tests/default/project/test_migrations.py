"""The app's migrations: none pending, host-independent, and reversible from zero."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from django.core.management import call_command
from django.db import connection, migrations
from django.db.migrations.loader import MigrationLoader

import revel_recurring.migrations
from tests.support.migrations import assert_no_pending_migrations

APP_TABLES = {"revel_recurring_recurrencerule", "revel_recurring_eventseries"}


def app_migration_modules() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.iter_modules(revel_recurring.migrations.__path__)
        if info.name[:4].isdigit()
    )


def load_migration(name: str) -> type[migrations.Migration]:
    module = importlib.import_module(f"revel_recurring.migrations.{name}")
    migration: type[migrations.Migration] = module.Migration
    return migration


@pytest.mark.django_db
@pytest.mark.parametrize("app_label", ["revel_recurring", "testapp"])
def test_no_pending_migrations(app_label: str) -> None:
    assert_no_pending_migrations(app_label)


def test_app_has_migrations() -> None:
    assert app_migration_modules()[0] == "0001_initial"


@pytest.mark.parametrize("name", app_migration_modules())
def test_migration_does_not_depend_on_any_host_app(name: str) -> None:
    migration = load_migration(name)

    foreign = [dep for dep in migration.dependencies if dep[0] != "revel_recurring"]

    assert foreign == [], f"{name} depends on {foreign}; migrations point host -> app only"
    assert list(getattr(migration, "run_before", [])) == []


@pytest.mark.parametrize("name", app_migration_modules())
def test_migration_relations_stay_inside_the_app(name: str) -> None:
    migration = load_migration(name)
    targets = []
    for operation in migration.operations:
        fields = [f for _, f in getattr(operation, "fields", [])]
        if getattr(operation, "field", None) is not None:
            fields.append(operation.field)  # type: ignore[attr-defined]
        targets += [str(f.remote_field.model).lower() for f in fields if f.remote_field is not None]

    assert all(t.startswith("revel_recurring.") for t in targets), targets


def test_migrations_are_linear_and_named() -> None:
    loader = MigrationLoader(None, ignore_no_migrations=True)

    assert len(loader.graph.leaf_nodes("revel_recurring")) == 1
    assert not [n for n in app_migration_modules() if "_auto_" in n], "use makemigrations -n"


def existing_tables() -> set[str]:
    with connection.cursor() as cursor:
        return set(connection.introspection.table_names(cursor))


@pytest.mark.django_db(transaction=True)
def test_migrate_from_zero_and_forward_again() -> None:
    # testapp's Event has an FK to EventSeries (its migration depends on ours),
    # so the host is unapplied first, exactly as a real site would have to.
    try:
        call_command("migrate", "testapp", "zero", verbosity=0)
        call_command("migrate", "revel_recurring", "zero", verbosity=0)

        assert not APP_TABLES & existing_tables()
        assert "testapp_event" not in existing_tables()
    finally:
        call_command("migrate", verbosity=0)

    tables = existing_tables()
    assert tables >= APP_TABLES
    assert "testapp_event" in tables
