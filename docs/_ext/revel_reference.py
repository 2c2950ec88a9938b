"""The reference pages' generated parts, read from the code at build time.

Directives:

- ``revel-settings``: one ``setting`` entry per property of
  ``revel_recurring.conf.RecurringSettings``: its default as the property computes
  it with the setting absent, and its docstring.
- ``revel-checks``: one ``check`` entry per system check id in
  ``revel_recurring/checks.py``, with every message and hint the code words for it
  (read from the source, so a new check or a changed message shows at once).
- ``revel-commands``: the ``revel_recurring_*`` management commands, their help and
  the options each adds to Django's own.
- ``revel-openapi``: the REST endpoints, from the OpenAPI document the mounted app
  serves (``GET <mount>/schema/``), rendered by sphinxcontrib-openapi.

Settings and checks become cross-reference targets: ``{setting}`REVEL_RECURRING_X```
and ``{check}`revel_recurring.E001``` in a page fail the build (nitpicky, ``-W``)
when the name is not in the code.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

SETTING_PREFIX = "REVEL_RECURRING_"
CHECK_LEVELS = {"Debug", "Info", "Warning", "Error", "Critical"}


def setting_defaults() -> dict[str, tuple[Any, str]]:
    """Name -> (default, docstring) of every setting, as conf.py defines them."""
    from revel_recurring.conf import RecurringSettings

    class Absent(RecurringSettings):
        # Every property asks _get for its value with its default: answer the
        # default, so what is shown is what a site that sets nothing gets.
        def _get(self, name: str, default: Any) -> Any:
            return default

    absent = Absent()
    return {
        name: (getattr(absent, name), inspect.cleandoc(member.__doc__ or ""))
        for name, member in vars(RecurringSettings).items()
        if name.isupper() and isinstance(member, property)
    }


@dataclass
class CheckEntry:
    id: str
    level: str
    functions: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)


def _template(node: ast.expr | None) -> str | None:
    """The text of a message as the code writes it, ``{placeholders}`` kept."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                assert isinstance(value, ast.FormattedValue)
                parts.append("{" + ast.unparse(value.value) + "}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _template(node.left), _template(node.right)
        if left is not None and right is not None:
            return left + right
    return "{" + ast.unparse(node) + "}"


def system_checks() -> list[CheckEntry]:
    """Every ``checks.<Level>(..., id="revel_recurring.X000")`` in checks.py, by id."""
    import revel_recurring.checks as module

    tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
    entries: dict[str, CheckEntry] = {}
    for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
            level = getattr(call.func, "attr", getattr(call.func, "id", None))
            keywords = {k.arg: k.value for k in call.keywords}
            ident = keywords.get("id")
            if level not in CHECK_LEVELS or not isinstance(ident, ast.Constant):
                continue
            entry = entries.setdefault(ident.value, CheckEntry(ident.value, level))
            if function.name not in entry.functions:
                entry.functions.append(function.name)
            message = _template(call.args[0] if call.args else keywords.get("msg"))
            hint = _template(keywords.get("hint"))
            if message and message not in entry.messages:
                entry.messages.append(message)
            if hint and hint not in entry.hints:
                entry.hints.append(hint)
    return sorted(entries.values(), key=lambda e: e.id)


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


class SettingsDirective(GeneratedDirective):
    def lines(self) -> list[str]:
        self.env.note_dependency(importlib.import_module("revel_recurring.conf").__file__)
        out: list[str] = []
        for name, (default, doc) in setting_defaults().items():
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
        self.env.note_dependency(importlib.import_module("revel_recurring.checks").__file__)
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


def management_commands() -> list[tuple[str, Any]]:
    """(name, command instance) of every command the app ships, by name."""
    import revel_recurring.management.commands as package

    found = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found.append((info.name, module.Command()))
    return sorted(found, key=lambda pair: pair[0])


class CommandsDirective(GeneratedDirective):
    def lines(self) -> list[str]:
        from django.core.management.base import BaseCommand

        django_dests = {
            a.dest for a in BaseCommand().create_parser("manage.py", "x")._actions
        }
        out: list[str] = []
        for name, command in management_commands():
            parser = command.create_parser("manage.py", name)
            own = [a for a in parser._actions if a.dest not in django_dests]
            usage = " ".join(
                (a.option_strings[0] if a.option_strings else a.metavar or a.dest)
                + ("" if not a.option_strings or a.nargs == 0 else f" {a.metavar or a.dest.upper()}")
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


def openapi_document(path: str) -> dict[str, Any]:
    """The OpenAPI document as the site serves it at ``path``."""
    from django.test import Client

    response = Client().get(path, {"format": "json"}, HTTP_HOST="localhost")
    if response.status_code != 200:
        raise RuntimeError(f"GET {path} answered {response.status_code}")
    document: dict[str, Any] = json.loads(response.content)
    return document


class OpenApiDirective(SphinxDirective):
    """The endpoints of the schema at the argument's path, rendered by sphinxcontrib-openapi."""

    required_arguments = 1

    def run(self) -> list[Any]:
        from sphinxcontrib.openapi.renderers import HttpdomainRenderer

        self.env.note_dependency(importlib.import_module("revel_recurring.api.viewsets").__file__)
        document = openapi_document(self.arguments[0])
        options = {"uri": "file:///openapi.json", "examples": False}
        return list(HttpdomainRenderer(self.state, options).render(document))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_object_type(
        "setting", "setting", indextemplate="pair: %s; setting", objname="setting"
    )
    app.add_object_type(
        "check", "check", indextemplate="pair: %s; system check", objname="system check"
    )
    app.add_directive("revel-settings", SettingsDirective)
    app.add_directive("revel-checks", ChecksDirective)
    app.add_directive("revel-commands", CommandsDirective)
    app.add_directive("revel-openapi", OpenApiDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
