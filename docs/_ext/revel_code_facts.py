"""Facts the reference pages show, read from the code (no Sphinx needed).

``revel_reference`` renders them; ``tests/default/project/test_docs.py`` checks them against the
code's own definitions, in every test env (the docs extra is not needed there).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


def check_sources() -> list[Path]:
    """The modules of the ``revel_recurring.checks`` package, in name order."""
    import revel_recurring.checks as package

    return sorted(Path(package.__file__ or "").parent.glob("*.py"))


def system_checks() -> list[CheckEntry]:
    """Every ``checks.<Level>(..., id="revel_recurring.X000")`` in the checks package, by id."""
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in check_sources()]
    entries: dict[str, CheckEntry] = {}
    functions = (n for tree in trees for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    for function in functions:
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


def management_commands() -> list[tuple[str, Any]]:
    """(name, command instance) of every command the app ships, by name."""
    import revel_recurring.management.commands as package

    found = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found.append((info.name, module.Command()))
    return sorted(found, key=lambda pair: pair[0])


def openapi_document(path: str) -> dict[str, Any]:
    """The OpenAPI document as the site serves it at ``path``."""
    from django.test import Client

    response = Client().get(path, {"format": "json"}, HTTP_HOST="localhost")
    if response.status_code != 200:
        raise RuntimeError(f"GET {path} answered {response.status_code}")
    document: dict[str, Any] = json.loads(response.content)
    return document
