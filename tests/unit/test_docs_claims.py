"""The docs claim only what a test shows. Every product of another project that README.md or a page
of docs/ names has an entry in ``docs_claims.yaml`` beside this file, each page naming it is one of
its claims' pages, and each claim names tests that exist. A word of the pages' prose written as a
product's name is (JupyterLab, vLLM) must be one the file knows, and products no page names yet
are listed there too, so the page that first names one fails here until a test shows what it says."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = Path(__file__).with_name("docs_claims.yaml")
PAGES = sorted((ROOT / "docs").rglob("*.md"))


def _page_name(path: Path) -> str:
    """``README.md`` or a page's path under docs/ (``guide/models.md``)."""
    return "README.md" if path == ROOT / "README.md" else str(path.relative_to(ROOT / "docs"))


@functools.cache
def registry() -> dict[str, Any]:
    loaded = yaml.safe_load(REGISTRY.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict) and set(loaded) == {"products", "not_claimed", "not_products"}, (
        f"{REGISTRY.name} holds 'products', 'not_claimed' and 'not_products'"
    )
    return loaded


def products() -> dict[str, dict[str, Any]]:
    return dict(registry()["products"])


def spellings(name: str, entry: dict[str, Any] | None = None) -> list[str]:
    """How pages write a product: its entry's ``names``, else its key."""
    return list((entry or {}).get("names") or [name])


SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.MULTILINE)


def _with_snippets(text: str) -> str:
    """A page as the site shows it: each ``--8<-- "FILE"`` line replaced by the file it includes."""
    return SNIPPET.sub(lambda m: (ROOT / m.group(1)).read_text(encoding="utf-8"), text)


@functools.cache
def texts() -> dict[str, str]:
    """Each page's text (README.md's and those of docs/, with the files they include)."""
    return {
        _page_name(p): _with_snippets(p.read_text(encoding="utf-8")) for p in [ROOT / "README.md", *PAGES]
    }


def naming(words: list[str]) -> set[str]:
    """The pages that name one of ``words`` (whole words, as written)."""
    patterns = [re.compile(rf"(?<![\w.-]){re.escape(word)}(?![\w])") for word in words]
    return {page for page, text in texts().items() if any(p.search(text) for p in patterns)}


@functools.cache
def defined_tests(path: Path) -> frozenset[str]:
    """``name`` and ``Class::name`` of every test function a test module defines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            found.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            found |= {
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith("test")
            }
    return frozenset(found)


def missing_test(node_id: str) -> str | None:
    """Why ``tests/...py::name`` (a node id, parameters left out) names no test, or None."""
    path, _, name = node_id.partition("::")
    module = ROOT / path
    if not (path.startswith("tests/") and module.name.startswith("test_") and module.suffix == ".py"):
        return f"{node_id}: not a test module under tests/"
    if not module.is_file():
        return f"{node_id}: no such file"
    if re.sub(r"\[.*\]$", "", name) not in defined_tests(module):
        return f"{node_id}: {path} defines no such test"
    return None


def claims() -> list[tuple[str, dict[str, Any]]]:
    return [(name, claim) for name, entry in products().items() for claim in entry.get("claims") or []]


def test_the_registry_holds_many_products_and_claims() -> None:
    assert len(products()) > 30 and len(claims()) > 50
    assert len(registry()["not_claimed"]) > 10


@pytest.mark.parametrize("name", sorted(products()))
def test_every_page_naming_a_product_is_one_of_its_claims_pages(name: str) -> None:
    entry = products()[name]
    named = naming(spellings(name, entry))
    covered = {page for claim in entry.get("claims") or [] for page in claim["pages"]}
    assert named, f"no page names {name} any more: take its entry out of {REGISTRY.name}"
    assert not named - covered, f"{sorted(named - covered)} name {name}, and no claim of its entry says what"
    assert not covered - named, f"{name}'s claims list {sorted(covered - named)}, which do not name it"


@pytest.mark.parametrize(("name", "claim"), claims(), ids=[f"{n}: {c['says'][:40]}" for n, c in claims()])
def test_every_claim_says_what_and_names_tests_that_exist(name: str, claim: dict[str, Any]) -> None:
    assert set(claim) == {"says", "pages", "shown_by"}, f"{name}: a claim has says, pages and shown_by"
    assert claim["says"].strip() and claim["pages"], f"{name}: a claim says what, on which pages"
    assert claim["shown_by"], f"{name}: '{claim['says']}' names no test: add one, or reword the docs"
    wrong = [why for node_id in claim["shown_by"] if (why := missing_test(node_id))]
    assert not wrong, wrong


def test_a_product_not_claimed_is_named_on_no_page() -> None:
    named = {name: sorted(naming([name])) for name in registry()["not_claimed"]}
    named = {name: pages for name, pages in named.items() if pages}
    assert not named, (
        f"the docs name {named}: give each an entry under 'products' in {REGISTRY.name}, "
        "with the tests that show what the pages say of it"
    )


PRODUCT_LIKE = re.compile(r"(?<![\w./-])(?:[A-Z]?[a-z]+[A-Z]\w*|[A-Z]{2,}[a-z]\w*)")
"""A word written as product names are (JupyterLab, vLLM, OpenAI, PostgreSQL, DeepSeek)."""
NOT_PROSE = re.compile(r"```.*?```|`[^`]*`|\]\([^)]*\)|https?://\S+", re.DOTALL)


def product_like_words() -> dict[str, set[str]]:
    """Each word of the pages' prose (code, link targets and addresses left out) written as a
    product's name is, with the pages it is on."""
    found: dict[str, set[str]] = {}
    for page, text in texts().items():
        for word in PRODUCT_LIKE.findall(NOT_PROSE.sub(" ", text)):
            found.setdefault(word, set()).add(page)
    return found


def test_every_word_written_like_a_product_is_one_the_registry_knows() -> None:
    """A product named for the first time (say "LlamaIndex works too") fails here until the
    registry lists it: under ``products`` with its tests, or ``not_products`` when it is none."""
    known = {s for name, entry in products().items() for s in spellings(name, entry)}
    known |= set(registry()["not_claimed"]) | set(registry()["not_products"])
    unknown = {w: sorted(pages) for w, pages in product_like_words().items() if w not in known}
    assert not unknown, f"the pages name {unknown}: list each in {REGISTRY.name}"


def test_a_name_that_is_not_a_product_is_still_on_a_page() -> None:
    gone = sorted(set(registry()["not_products"]) - set(product_like_words()))
    assert not gone, f"no page writes {gone} any more: take them out of not_products in {REGISTRY.name}"


def test_no_product_is_both_claimed_and_not() -> None:
    both = {s for name, entry in products().items() for s in spellings(name, entry)}
    assert not both & set(registry()["not_claimed"])


def test_the_check_finds_a_named_product_and_a_missing_test() -> None:
    """The checks above can fail: a page's product is found, and a test that is not there is named."""
    assert "guide/models.md" in naming(["vLLM"]) and "guide/models.md" not in naming(["LLM"])
    assert "## The trust model" in _with_snippets('--8<-- "SECURITY.md"')  # an included file is read
    assert PRODUCT_LIKE.findall("LlamaIndex and vLLM, not Python or `CodeName`") == [
        "LlamaIndex",
        "vLLM",
        "CodeName",
    ]
    assert PRODUCT_LIKE.findall(NOT_PROSE.sub(" ", "Plain `CodeName` [Mu](https://x.io/LlamaIndex)")) == []
    assert missing_test("tests/unit/test_docs_claims.py::test_no_product_is_both_claimed_and_not") is None
    assert missing_test("tests/unit/test_docs_claims.py::test_nothing[x]") == (
        "tests/unit/test_docs_claims.py::test_nothing[x]: tests/unit/test_docs_claims.py defines no such test"
    )
    assert "no such file" in str(missing_test("tests/unit/test_gone.py::test_x"))
