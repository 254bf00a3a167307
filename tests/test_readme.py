"""Every Python snippet in the README runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = (Path(__file__).parent.parent / "README.md").read_text()
SNIPPETS = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)


def test_the_readme_has_snippets():
    assert len(SNIPPETS) >= 4


@pytest.mark.parametrize("code", SNIPPETS, ids=[f"snippet{i}" for i in range(len(SNIPPETS))])
def test_readme_snippet_runs(code, capsys):
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    capsys.readouterr()


def test_the_layout_section_names_every_module():
    layout = README[README.index("## Layout") :]
    root = Path(__file__).parent.parent
    for package in ("miaui_env", "training"):
        for path in sorted((root / package).iterdir()):
            if path.name.startswith(("_", ".")) or path.suffix not in (".py", ""):
                continue
            name = path.name + "/" if path.is_dir() else path.name
            assert name in layout, f"README's Layout section does not name {package}/{name}"
