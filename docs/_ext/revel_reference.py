"""The reference pages' generated parts, read from the code at build time.

Directives:

- ``revel-settings``: one ``setting`` entry per property of
  ``revel_recurring.conf.RecurringSettings``: its default as the property computes
  it with the setting absent, and its docstring.
- ``revel-checks``: one ``check`` entry per system check id in
  ``revel_recurring/checks/``, with every message and hint the code words for it
  (read from the source, so a new check or a changed message shows at once).
- ``revel-commands``: the ``revel_recurring_*`` management commands, their help and
  the options each adds to Django's own.
- ``revel-signals``: every ``Signal`` in ``revel_recurring.signals``, by autodoc.
- after an HTML build, any page or static file that would load a script, a
  stylesheet, an image or a font from another host fails the build (no CDN).
- ``revel-openapi``: the REST endpoints, from the OpenAPI document the mounted app
  serves (``GET <mount>/schema/``), rendered by sphinxcontrib-openapi.

Settings and checks become cross-reference targets: ``{setting}`REVEL_RECURRING_X```
and ``{check}`revel_recurring.E001``` in a page fail the build (nitpicky, ``-W``)
when the name is not in the code.
"""

from __future__ import annotations

import importlib
import re
import textwrap
from pathlib import Path
from typing import Any

from docutils.statemachine import StringList
from revel_code_facts import (
    SETTING_PREFIX,
    check_sources,
    management_commands,
    openapi_document,
    setting_defaults,
    system_checks,
)
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles


def _literal(text: str) -> str:
    # An inline literal in reST may not start or end with a space, nor hold a backtick pair.
    return "``" + text.replace("``", "`\u200b`").strip() + "``"


class GeneratedDirective(SphinxDirective):
    """A directive that writes reST and parses it in place."""

    has_content = False

    def lines(self) -> list[str]:
        raise NotImplementedError

    def run(self) -> list[Any]:
        source = self.get_source_info()[0] or ""
        content = StringList()
        for line in self.lines():
            content.append(line, source)
        container = self._container()
        nested_parse_with_titles(self.state, content, container)
        return list(container.children)

    @staticmethod
    def _container() -> Any:
        from docutils import nodes

        return nodes.section()


# "check E009", "checks E006, E009" in a docstring: each id becomes a link, and an
# id that is no check fails the build.
CHECK_ID = re.compile(r"\b([EW]\d{3})\b")


class SettingsDirective(GeneratedDirective):
    def lines(self) -> list[str]:
        self.env.note_dependency(importlib.import_module("revel_recurring.conf").__file__)
        out: list[str] = []
        for name, (default, doc) in setting_defaults().items():
            doc = CHECK_ID.sub(r":check:`revel_recurring.\1`", doc)
            out += [
                f".. setting:: {SETTING_PREFIX}{name}",
                "",
                f"   Default: {_literal(repr(default))}",
                "",
                *("   " + line if line else "" for line in doc.splitlines()),
                "",
            ]
        return out


class ChecksDirective(GeneratedDirective):
    def lines(self) -> list[str]:
        for path in check_sources():
            self.env.note_dependency(str(path))
        out: list[str] = []
        for entry in system_checks():
            functions = ", ".join(f"``{f}``" for f in entry.functions)
            out += [f".. check:: {entry.id}", "", f"   {entry.level}, from {functions}.", ""]
            for message in entry.messages:
                out += [f"   - {_literal(message)}"]
            out.append("")
            for hint in entry.hints:
                out += [f"   Hint: {_literal(hint)}", ""]
        return out


class CommandsDirective(GeneratedDirective):
    def lines(self) -> list[str]:
        from django.core.management.base import BaseCommand

        django_dests = {a.dest for a in BaseCommand().create_parser("manage.py", "x")._actions}
        out: list[str] = []
        for name, command in management_commands():
            parser = command.create_parser("manage.py", name)
            own = [a for a in parser._actions if a.dest not in django_dests]
            usage = " ".join(
                (a.option_strings[0] if a.option_strings else a.metavar or a.dest)
                + (
                    ""
                    if not a.option_strings or a.nargs == 0
                    else f" {a.metavar or a.dest.upper()}"
                )
                for a in own
            )
            out += [
                name,
                "-" * len(name),
                "",
                textwrap.dedent(str(command.help)).strip(),
                "",
                ".. code-block:: text",
                "",
                f"   python manage.py {name} {usage}".rstrip(),
                "",
            ]
            for action in own:
                names = ", ".join(action.option_strings) or action.metavar or action.dest
                helptext = (action.help or "").replace("%(default)s", str(action.default))
                out += [f"``{names}``", f"   {helptext or '(no help text)'}", ""]
        return out


class OpenApiDirective(SphinxDirective):
    """The endpoints of the schema at the argument's path, rendered by sphinxcontrib-openapi."""

    required_arguments = 1

    def run(self) -> list[Any]:
        from sphinxcontrib.openapi.renderers import HttpdomainRenderer

        self.env.note_dependency(importlib.import_module("revel_recurring.api.viewsets").__file__)
        document = openapi_document(self.arguments[0])
        options = {"uri": "file:///openapi.json", "examples": False}
        return list(HttpdomainRenderer(self.state, options).render(document))


class SignalsDirective(GeneratedDirective):
    """Every ``Signal`` of ``revel_recurring.signals``, its ``#:`` comment as its text."""

    def lines(self) -> list[str]:
        from django.dispatch import Signal

        import revel_recurring.signals as module

        self.env.note_dependency(module.__file__)
        out: list[str] = []
        for name, value in vars(module).items():
            if isinstance(value, Signal):
                out += [f".. autodata:: {module.__name__}.{name}", "   :no-value:", ""]
        return out


# What a browser would fetch from another host while showing a page: a script, a
# stylesheet, an image or a frame, or a CSS url(). Hyperlinks (<a href>) are fine.
REMOTE_RESOURCE = re.compile(
    r"""<(?:script|img|iframe)\b[^>]*\bsrc=["'](?:https?:)?//"""
    r"""|<link\b[^>]*\bhref=["'](?:https?:)?//"""
    r"""|url\(\s*["']?(?:https?:)?//""",
    re.IGNORECASE,
)


def refuse_remote_resources(app: Sphinx, exception: Exception | None) -> None:
    """Fail an HTML build whose pages or static files would load from another host."""
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    found = [
        str(path.relative_to(outdir))
        for pattern in ("**/*.html", "_static/**/*.css", "_static/**/*.js")
        for path in outdir.glob(pattern)
        if REMOTE_RESOURCE.search(path.read_text(encoding="utf-8", errors="replace"))
    ]
    if found:
        raise ExtensionError(
            "these files load a resource from another host (no CDN at view time): "
            + ", ".join(sorted(found))
        )


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_object_type("setting", "setting", indextemplate="pair: %s; setting", objname="setting")
    app.add_object_type(
        "check", "check", indextemplate="pair: %s; system check", objname="system check"
    )
    app.add_directive("revel-settings", SettingsDirective)
    app.add_directive("revel-checks", ChecksDirective)
    app.add_directive("revel-commands", CommandsDirective)
    app.add_directive("revel-openapi", OpenApiDirective)
    app.add_directive("revel-signals", SignalsDirective)
    app.connect("build-finished", refuse_remote_resources)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
