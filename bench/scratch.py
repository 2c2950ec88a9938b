"""The scratch PostgreSQL database every benchmark starts from.

Each benchmark names its own database (so two can run side by side) on the server
``DATABASE_URL`` names; this module drops and recreates it, points Django at it
with the example project's settings and migrates. What a benchmark changes on top
(DEBUG, the notifier, the test environment) stays in the benchmark.
"""

from __future__ import annotations

import os
from urllib.parse import urlparse, urlunparse

SERVER_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")


def fresh_database(name: str, server_url: str = SERVER_URL) -> str:
    """Drop and create database ``name`` on the server; its URL."""
    import psycopg

    parts = urlparse(server_url)
    with psycopg.connect(urlunparse(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return urlunparse(parts._replace(path=f"/{name}"))


def migrated_example_project(name: str, server_url: str = SERVER_URL) -> None:
    """A fresh database ``name``, Django set up on it (eager Celery) and migrated."""
    os.environ["DATABASE_URL"] = fresh_database(name, server_url)
    os.environ["DJANGO_SETTINGS_MODULE"] = "example_project.settings"
    os.environ.pop("CELERY_BROKER_URL", None)  # eager mode
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
