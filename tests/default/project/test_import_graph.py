"""No module of the package imports, directly or through others, a module that imports it.

Read from the import statements themselves (function-level and ``TYPE_CHECKING``
ones included), not from what happens to be imported at run time.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "revel_recurring"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, modules: set[str], tree: ast.AST | None = None) -> set[str]:
    """The package modules ``path`` imports (``from . import x`` names module x when it is one)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    if tree is None:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {module for module in found if module in modules and module != name}


def import_graph() -> dict[str, set[str]]:
    paths = [p for p in PACKAGE.rglob("*.py") if "migrations" not in p.parts]
    modules = {module_name(p) for p in paths}
    # Importing a submodule runs its package's __init__ first. Those implicit edges
    # are left out: an __init__ imports only its own submodules and what they
    # import anyway (services.generation re-exports its public names), so they
    # close no cycle that the statements do not show.
    return {module_name(p): imported_modules(p, modules) for p in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def function_level_imports() -> set[tuple[str, str]]:
    """(module, package module it imports inside a function), for the whole package.

    ``from . import x`` counts as an import of module x, not of the package.
    """
    paths = [p for p in PACKAGE.rglob("*.py") if "migrations" not in p.parts]
    modules = {module_name(p) for p in paths}
    found: set[tuple[str, str]] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            inside = ast.Module(body=node.body, type_ignores=[])
            targets = imported_modules(path, modules, inside)
            found.update(
                (module_name(path), target)
                for target in targets
                if not any(other.startswith(f"{target}.") for other in targets)
            )
    return found


def test_the_graph_sees_relative_and_function_level_imports() -> None:
    graph = import_graph()

    assert "revel_recurring.rules" in graph["revel_recurring.models.rule"]
    assert (
        "revel_recurring.services.toolbox.locking"
        in graph["revel_recurring.services.generation.single"]
    )
    assert "revel_recurring.models" in graph["revel_recurring.services.generation.floor"]


def test_only_the_known_imports_of_the_package_wait_inside_functions() -> None:
    # Each has a comment at the import saying why it cannot be at the top.
    apps_ready = {  # Django imports apps.py while loading apps, before models may be
        ("revel_recurring.apps", f"revel_recurring.{name}")
        for name in ("beat", "changelog", "checks", "receivers")
    }
    assert function_level_imports() == apps_ready


def test_no_import_cycle_inside_the_package() -> None:
    assert cycles(import_graph()) == []


def test_both_generation_paths_stand_on_the_one_floor() -> None:
    graph = import_graph()
    floor = "revel_recurring.services.generation.floor"

    assert floor in graph["revel_recurring.services.generation.single"]
    assert floor in graph["revel_recurring.services.generation.chunks"]
    # The chunk path plans and builds through the floor, not on its own.
    helpers = {
        "revel_recurring.services.generation.plan",
        "revel_recurring.services.generation.rows",
        "revel_recurring.services.toolbox.scheduling",
        "revel_recurring.services.toolbox.exdates",
    }
    assert helpers & graph["revel_recurring.services.generation.chunks"] == set()


def test_the_api_and_the_admin_sit_above_everything_else() -> None:
    # Nothing below them imports them: services, adapter, models, feeds... They
    # import each other only where the admin shows what the API defines (never).
    graph = import_graph()
    for face in ("revel_recurring.api", "revel_recurring.admin"):
        below = {
            module: sorted(t for t in targets if t == face or t.startswith(f"{face}."))
            for module, targets in graph.items()
            if not (module == face or module.startswith(f"{face}."))
        }
        assert {module: found for module, found in below.items() if found} == {}, face


# The floors of docs/architecture.md, lowest first. A module may import from its own
# floor and the floors below it, never from one above. A package (``services``,
# ``api``, ...) stands on one floor with every module inside it, except a subpackage
# or module named on a floor of its own (``services/toolbox``: the steps the verbs
# share; ``ical/responses``: the feeds' HTTP answers, an adapter in the feed's package).
FLOORS: list[tuple[str, frozenset[str]]] = [
    (
        "pure",
        frozenset(
            {
                "revel_recurring",
                "backend_checks",
                "conf",
                "context",
                "exceptions",
                "holiday_placement",
                "holiday_rules",
                "holiday_settings",
                "instants",
                "mixins",
                "enrolled",
                "people",
                "querysets",
                "rules",
                "signals",
                "transient",
                "validators",
            }
        ),
    ),
    ("models", frozenset({"models"})),
    (
        "reads",
        frozenset(
            {
                "adapter",
                "beyond_window",
                "changelog",
                "describe",
                "exclusions",
                "halves",
                "history",
                "holiday_notes",
                "host_model",
                "ical",
                "notices",
                "notifications",
                "records",
                "slots",
            }
        ),
    ),
    ("toolbox", frozenset({"services/toolbox"})),
    ("services", frozenset({"services"})),
    (
        "adapters",
        frozenset(
            {
                "beat",
                "checks",
                "ical/responses",
                "ical_http",
                "management",
                "notices/delivery",
                "receivers",
                "tasks",
                "webhook_sending",
            }
        ),
    ),
    ("faces", frozenset({"admin", "api"})),
    ("wiring", frozenset({"apps"})),
]

# What only the adapters and the faces speak: HTTP, DRF, Celery, the admin.
ADAPTER_ONLY_IMPORTS = (
    "celery",
    "django.contrib.admin",
    "django.http",
    "django.shortcuts",
    "django.views",
    "django_celery_beat",
    "django_filters",
    "drf_spectacular",
    "requests",
    "rest_framework",
)


def floor_of(module: str) -> int:
    """The floor of a package module, by the longest folder path below ``revel_recurring``
    that a floor names (``services/toolbox`` before ``services``)."""
    parts = module.split(".")[1:] or ["revel_recurring"]
    for depth in range(len(parts), 0, -1):
        prefix = "/".join(parts[:depth])
        found = [number for number, (_, names) in enumerate(FLOORS) if prefix in names]
        if found:
            return found[0]
    raise AssertionError(f"{module} stands on no floor: add it to FLOORS and docs/architecture.md")


def test_the_toolbox_stands_under_the_verbs() -> None:
    toolbox = floor_of("revel_recurring.services.toolbox.locking")

    assert floor_of("revel_recurring.services.toolbox") == toolbox
    assert floor_of("revel_recurring.services.lifecycle") == toolbox + 1
    assert floor_of("revel_recurring.services.generation.chunks") == toolbox + 1
    assert floor_of("revel_recurring.services") == toolbox + 1


def test_the_feeds_http_answers_stand_with_the_adapters() -> None:
    adapters = floor_of("revel_recurring.ical_http")

    assert floor_of("revel_recurring.ical.responses") == adapters
    assert floor_of("revel_recurring.ical") == floor_of("revel_recurring.ical.feeds") < adapters
    assert floor_of("revel_recurring.ical.rule_import") == floor_of("revel_recurring.ical")


def test_every_module_stands_on_one_floor() -> None:
    for module in import_graph():
        floor_of(module)


def test_no_module_imports_from_a_floor_above_its_own() -> None:
    graph = import_graph()
    upward = sorted(
        f"{module} ({FLOORS[floor_of(module)][0]}) -> {target} ({FLOORS[floor_of(target)][0]})"
        for module, targets in graph.items()
        for target in targets
        if floor_of(target) > floor_of(module)
    )

    assert upward == []


def external_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
    return found


def test_below_the_adapters_nothing_speaks_http_drf_celery_or_the_admin() -> None:
    adapters = next(n for n, (name, _) in enumerate(FLOORS) if name == "adapters")
    spoken = sorted(
        f"{module_name(path)} imports {name}"
        for path in PACKAGE.rglob("*.py")
        if "migrations" not in path.parts and floor_of(module_name(path)) < adapters
        for name in external_imports(path)
        if any(name == banned or name.startswith(f"{banned}.") for banned in ADAPTER_ONLY_IMPORTS)
    )

    assert spoken == []


def test_the_architecture_page_shows_the_floors_enforced_here() -> None:
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d), (\w+) \| (.+) \|$", page, re.MULTILINE)
    shown = [
        (name, frozenset(m.rstrip("/") for m in re.findall(r"`([\w/]+)`", modules)))
        for _, name, modules in rows
    ]
    enforced = [
        (name, frozenset("__init__" if m == "revel_recurring" else m for m in modules))
        for name, modules in FLOORS
    ]

    assert shown == enforced
