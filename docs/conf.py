"""Sphinx configuration of the revel-recurring documentation (``make docs``).

The pages are Markdown (MyST) so the documents that live in docs/ since before the
site (lifecycle, upgrading, decisions) are pages as they are
(docs/decisions/0041-docs-sphinx-myst.md). The reference is generated from the code:
autodoc, and ``docs/_ext/revel_reference.py`` for the settings, the checks, the
management commands and the REST endpoints (from drf-spectacular's schema).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(ROOT), str(DOCS / "_ext")]

# The example project is the host the reference describes (its API mount, its
# event model). Its SQLite file is never opened while building; keep it out of the
# checkout all the same.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "example_project.settings")
os.environ.setdefault("EXAMPLE_DB_PATH", str(Path(tempfile.gettempdir()) / "revel-docs.sqlite3"))
os.environ.pop("DATABASE_URL", None)

import django  # noqa: E402

django.setup()

import revel_recurring  # noqa: E402

project = "revel-recurring"
author = "revel-recurring developers"
copyright = "revel-recurring developers"
release = revel_recurring.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.intersphinx",
    "sphinx.ext.napoleon",
    "sphinxcontrib.httpdomain",
    "revel_reference",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_ext"]
# Headings get anchors so pages can link to a section: [text](<page>.md#a-heading).
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]
# Straight quotes and "--" as typed: option names and code-like text stay as written.
smartquotes = False

# Every cross-reference must resolve: with -W a broken link fails the build.
nitpicky = True
# Pages, headings, settings and checks are checked; Python names in docstrings are
# not: they also name the internal modules (locking, plumbing, ...) and the
# standard library, Django and DRF, which the reference does not document and
# whose inventories would be fetched from the network.
nitpick_ignore_regex = [(r"py:.*", r".*")]
# No intersphinx inventories are fetched: the build reads nothing from the network.
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}

autodoc_default_options: dict[str, object] = {}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True

html_theme = "furo"
html_title = f"revel-recurring {release}"
html_static_path: list[str] = []
# Furo bundles its fonts and scripts in the theme (no CDN); the search index is
# Sphinx's own.
html_theme_options = {"navigation_with_keys": True}
html_show_sourcelink = False
