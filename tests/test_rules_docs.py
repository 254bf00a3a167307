"""The rules pages (docs/rules/miaui.md, docs/rules/octopus.md) against the code: every ruling
R1-R11 and O1-O12 has its own section, each section names the tests that pin it, and every test a
page names exists (a renamed or deleted test fails here). Internal links and anchors are checked
too, with the heading slugs MkDocs makes."""

from __future__ import annotations

import ast
import functools
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"
PAGES = {"miaui.md": ("R", 11), "octopus.md": ("O", 12)}
MAX_PINS = 6  # "at most about six per ruling": the most specific tests, not every test that touches it

TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
HEADING = re.compile(r"^(#{1,6}) +(.+?) *$", re.MULTILINE)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def page(name: str) -> str:
    return (RULES / name).read_text(encoding="utf-8")


def slug(title: str) -> str:
    """The anchor MkDocs (Python-Markdown's toc extension) gives a heading."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def sections(text: str) -> dict[str, str]:
    """Level-2 sections by title: the text up to the next level-2 heading."""
    parts = re.split(r"^## +", text, flags=re.MULTILINE)[1:]
    return {part.split("\n", 1)[0].strip(): part.split("\n", 1)[1] if "\n" in part else "" for part in parts}


def ruling_sections(name: str) -> dict[str, str]:
    """Ruling number ("R7") -> its section's text."""
    letter, _ = PAGES[name]
    found: dict[str, str] = {}
    for title, body in sections(page(name)).items():
        m = re.fullmatch(rf"({letter}\d+) .+", title)
        if m:
            assert m.group(1) not in found, f"{name}: two sections for {m.group(1)}"
            found[m.group(1)] = body
    return found


def pins(body: str) -> list[tuple[str, str]]:
    """The tests listed under a section's "Pinned by:" line."""
    _, marker, rest = body.partition("Pinned by:")
    assert marker, "no 'Pinned by:' line"
    listed = []
    for line in rest.strip().splitlines():
        if not line.startswith("- "):
            break
        m = TEST_REF.fullmatch(line[2:].strip())
        assert m, f"a 'Pinned by' entry is not `tests/file.py::test_name`: {line!r}"
        listed.append((m.group(1), m.group(2)))
    return listed


@functools.cache
def functions_collected(path: str) -> frozenset[str]:
    """The test functions pytest collects from a file, by function name (parametrized ones once)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names.update(
                item.name for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith("test")
            )
    return frozenset(names)


@pytest.mark.parametrize("name", PAGES)
def test_every_ruling_has_its_own_section_in_order(name):
    letter, count = PAGES[name]
    assert list(ruling_sections(name)) == [f"{letter}{i}" for i in range(1, count + 1)]


@pytest.mark.parametrize("name", PAGES)
def test_every_ruling_names_the_tests_that_pin_it(name):
    for ruling, body in ruling_sections(name).items():
        listed = pins(body)
        assert 1 <= len(listed) <= MAX_PINS, f"{name} {ruling}: {len(listed)} tests pinned, want 1 to {MAX_PINS}"
        assert len(set(listed)) == len(listed), f"{name} {ruling}: a test is listed twice"


@pytest.mark.parametrize("name", PAGES)
def test_every_test_a_page_names_exists(name):
    refs = TEST_REF.findall(page(name))
    assert refs
    missing = [f"{path}::{func}" for path, func in refs if not (ROOT / path).is_file() or func not in functions_collected(path)]
    assert not missing, f"{name} names tests that do not exist: {missing}"


@pytest.mark.parametrize("name", PAGES)
def test_internal_links_and_anchors_resolve(name):
    text = page(name)
    anchors = {n: {slug(t) for _, t in HEADING.findall(page(n))} for n in PAGES}
    for target in LINK.findall(text):
        assert "://" not in target, f"{name}: links only to files in the docs, not {target!r}"
        file, _, anchor = target.partition("#")
        file = file or name
        assert (RULES / file).is_file(), f"{name}: link to a missing page {target!r}"
        if anchor:
            assert anchor in anchors.get(file, set()), f"{name}: link to a missing anchor {target!r}"


@pytest.mark.parametrize("name", PAGES)
def test_ruling_anchors_are_the_ruling_numbers(name):
    # Docstrings and other pages link `rules/miaui.md#r7-...`: the slug starts with the number.
    letter, _ = PAGES[name]
    for title in sections(page(name)):
        if re.match(rf"{letter}\d+ ", title):
            assert slug(title).startswith(title.split()[0].lower() + "-")


def test_slug_is_the_mkdocs_one():
    assert slug("R5 Lantern-of-the-Sea") == "r5-lantern-of-the-sea"
    assert slug("Worked example: a reveal with ties") == "worked-example-a-reveal-with-ties"
