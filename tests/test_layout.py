"""The package's layout, as the development section of the README draws it: folders in the
order the data flows, leaves at the bottom, no circle, small modules.

Imports are read from the source with `ast`, every one of them: at the top, under
``TYPE_CHECKING`` and inside functions, since each is a dependency someone reading the code
must follow.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "sitemapgen"
MAX_TOP_MODULES = 12
MAX_LINES = 400
#: Only these may import the package face (`import sitemapgen`, `from sitemapgen import ...`).
FACE_USERS = ("sitemapgen.__main__", "sitemapgen.cli.", "sitemapgen.integrations.", "sitemapgen.sphinx")


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: Every module, a compiled one (`pages/_scan.c`) by its stub.
MODULES = {_name(path): path for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyi")])}


def _imports(name: str) -> Iterator[str]:
    """Every module of ours that `name` imports: a package's face counts as the package."""
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.split(".")[0] == "sitemapgen")
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "sitemapgen":
            assert node.level == 0, f"{name}: a relative import; the package's imports are absolute"
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                yield sub if sub in MODULES else node.module


def _folder(name: str) -> str:
    """The node of the folder graph: a subpackage, or a module standing in sitemapgen/."""
    return ".".join(name.split(".")[:2])


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of `graph`, as the nodes on it, or None."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_circle_finder_finds_one() -> None:
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_module_imports_itself_back() -> None:
    graph = {name: {imported for imported in _imports(name) if imported != name} for name in MODULES}
    # A package's face imports its own modules; a module reaching its own folder's face is
    # the folder's business (Python finds the module it asks for), so it is not an edge here.
    for name in graph:
        graph[name] = {m for m in graph[name] if not (MODULES[m].name == "__init__.py" and name.startswith(m + "."))}
    assert _circle(graph) is None


def test_the_folders_import_one_way() -> None:
    """Folder by folder, imports run one way: a folder never needs one that needs it."""
    graph: dict[str, set[str]] = {}
    for name in MODULES:
        if name == "sitemapgen":
            continue
        graph.setdefault(_folder(name), set()).update(
            _folder(m) for m in _imports(name) if m != "sitemapgen" and _folder(m) != _folder(name)
        )
    assert _circle(graph) is None


@pytest.mark.parametrize("leaf", ["sitemapgen.protocol", "sitemapgen._version", "sitemapgen._types"])
def test_the_leaves_import_nothing_of_ours(leaf: str) -> None:
    assert list(_imports(leaf)) == []


def test_only_the_cli_and_the_integrations_import_the_package_face() -> None:
    users = {name for name in MODULES if "sitemapgen" in set(_imports(name))}
    assert {name for name in users if not name.startswith(FACE_USERS)} == set()


def test_few_modules_stand_at_the_top() -> None:
    top = [path.name for path in PACKAGE.glob("*.py")]
    assert len(top) <= MAX_TOP_MODULES, sorted(top)


def test_every_folder_has_a_face_that_says_what_it_holds() -> None:
    for folder in sorted(p for p in PACKAGE.iterdir() if p.is_dir() and p.name not in ("schemas", "__pycache__")):
        face = folder / "__init__.py"
        assert face.is_file(), folder
        assert ast.get_docstring(ast.parse(face.read_text(encoding="utf-8"))), face


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_long(name: str) -> None:
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{MODULES[name]}: {lines} lines"


def test_no_function_is_of_rank_d() -> None:
    """radon's ranks: A to C are up to 20 paths through a function; D and worse are not kept."""
    from radon.complexity import cc_rank, cc_visit

    ranked = [
        (f"{name}:{block.lineno} {block.name}", cc_rank(block.complexity), block.complexity)
        for name, path in MODULES.items()
        for block in cc_visit(path.read_text(encoding="utf-8"))
    ]
    assert [item for item in ranked if item[1] not in "ABC"] == []


def test_the_faces_import_no_more_than_a_build_needs() -> None:
    """The command line starts without what only some commands use: HTTP (verify, a previous
    deploy, IndexNow) and lxml (validate) load when those run, not with every face that names them."""
    import subprocess
    import sys

    faces = "sitemapgen.cli, sitemapgen.util, sitemapgen.deploy, sitemapgen.commands"
    code = f"import sys, {faces}; print(*sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert {"urllib3", "urllib.request", "http.client", "lxml", "lxml.etree"} & set(loaded) == set()
    code = "import sys, sitemapgen.commands.validate; print(*sorted(sys.modules))"  # a local file needs no HTTP
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert {"urllib3", "urllib.request", "http.client"} & set(loaded) == set()


#: The order the README's development section draws: each folder imports only what comes before it.
DATA_ORDER = (
    *("protocol", "_version", "_types", "errors", "urls", "hrefs", "skips", "entry"),
    *("util", "config", "deploy", "hosts", "pages", "lastmod", "pipeline", "output", "live", "commands"),
    *("cli", "integrations", "__main__", "sphinx", "pelican"),
)


def test_the_folders_import_in_the_order_the_readme_draws() -> None:
    place = {f"sitemapgen.{name}": i for i, name in enumerate(DATA_ORDER)}
    assert set(place) == {_folder(name) for name in MODULES if name != "sitemapgen"}
    upward = {
        (name, imported)
        for name in MODULES
        if name != "sitemapgen"
        for imported in _imports(name)
        if imported != "sitemapgen" and place[_folder(imported)] > place[_folder(name)]
    }
    assert upward == set()


def _drawing(doc: str) -> str:
    """The layout drawn in `doc` (a path from the repository's top): the block that starts `sitemapgen/`."""
    text = (PACKAGE.parent / doc).read_text(encoding="utf-8")
    start = text.index("```\nsitemapgen/") + len("```\n")
    return text[start : text.index("```", start)]


def test_the_readme_and_the_development_page_draw_this_order() -> None:
    """One drawing, in both places, whose folders are the folders of DATA_ORDER in its order."""
    import re

    drawing = _drawing("README.md")
    assert _drawing("docs/development.md") == drawing
    drawn = re.findall(r"\b(\w+)/", drawing)
    assert drawn == ["sitemapgen", *(name for name in DATA_ORDER if (PACKAGE / name).is_dir())]


def test_listing_a_folder_needs_nothing_of_head_reading() -> None:
    # The walk lists directories through `pages.lister`, which needs only the compiled module's
    # loader and the URL rules' names: not the head scanner, nor the signal table.
    assert set(_imports("sitemapgen.pages.lister")) <= {"sitemapgen.pages.compiled", "sitemapgen.urls"}
    assert "sitemapgen.pages.scanner" not in set(_imports("sitemapgen.pages.walk"))


MAX_POSITIONAL = 5


def test_no_function_takes_more_than_five_positional_parameters() -> None:
    """Past a few parameters a call is read by their names: the rest are keyword-only (a
    method's `self` or `cls` is not counted)."""
    crowded = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                positional = [arg.arg for arg in [*node.args.posonlyargs, *node.args.args]]
                if positional[:1] in (["self"], ["cls"]):
                    positional = positional[1:]
                if len(positional) > MAX_POSITIONAL:
                    crowded.append(f"{name}:{node.lineno} {node.name} ({len(positional)})")
    assert crowded == []
