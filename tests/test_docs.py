"""Every documented snippet runs as written, and the docs site builds with warnings as errors.

The README and every page under docs/ are read: each ```python block runs in a fresh namespace
from the repository root; a ```bash block runs (bash -euo pipefail, from the root) when the line
just before it is `<!-- snippet: run -->`, the mark a page puts on its cheap shell commands.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # trains, spawns commands or builds: out of the fast loop (docs/contributing.md)

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_PYTHON = re.compile(r"^```python\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)
_MARKED_BASH = re.compile(r"^<!-- snippet: run -->\n```bash\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)


def snippets(pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    """(page:line, code) of every block `pattern` finds in the README and the docs."""
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{page.relative_to(ROOT)}:{line}", match.group(1)))
    return found


PYTHON_SNIPPETS = snippets(_PYTHON)
BASH_SNIPPETS = snippets(_MARKED_BASH)


def test_the_docs_have_snippets_of_both_kinds():
    assert len(PYTHON_SNIPPETS) >= 10 and len(BASH_SNIPPETS) >= 3


@pytest.mark.parametrize("code", [code for _, code in PYTHON_SNIPPETS], ids=[where for where, _ in PYTHON_SNIPPETS])
def test_python_snippet_runs(code, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(code, "snippet", "exec"), {"__name__": "snippet"})
    capsys.readouterr()


@pytest.mark.parametrize("code", [code for _, code in BASH_SNIPPETS], ids=[where for where, _ in BASH_SNIPPETS])
def test_marked_shell_snippet_runs(code):
    bin_dir = str(Path(sys.executable).parent)  # the commands of this environment (python, mkdocs, ...)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", f'export PATH="{bin_dir}:$PATH"\n{code}'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{code}\n--- stdout\n{done.stdout[-2000:]}\n--- stderr\n{done.stderr[-2000:]}"


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "envs" / "miaui" / "index.html").exists()
    # What users look up first shows its docstring, not a bare signature: env(), parallel_env() and the env's calls.
    import html
    import re

    page = (tmp_path / "site" / "reference" / "envs" / "index.html").read_text()
    words = " ".join(re.findall(r"\w+", html.unescape(re.sub(r"<[^>]+>", " ", page))))
    from miaui_env.games.miaui import env as miaui
    from miaui_env.games.octopus import env as octopus

    for documented in (
        miaui.env,
        miaui.parallel_env,
        miaui.raw_env.reset,
        miaui.raw_env.observe,
        miaui.raw_env.step,
        miaui.MiauiParallelEnv.step,
        octopus.env,
        octopus.raw_env.step,
    ):
        first_words = " ".join(re.findall(r"\w+", (documented.__doc__ or "").strip().splitlines()[0])[:6])
        assert first_words and first_words in words, documented.__qualname__


def test_a_generated_part_is_the_code_s_own_text():
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import hooks
    finally:
        sys.path.remove(str(ROOT / "docs"))
    from miaui_env.games.miaui.observation import OBSERVATION_LAYOUT

    card = hooks.expand("<!-- generate: docstring miaui_env.games.miaui.env -->")
    assert card.startswith("Miaui as a PettingZoo environment") and OBSERVATION_LAYOUT.index_table() in card
    keys = hooks.expand("<!-- generate: config-keys selfplay -->")
    assert "| `opponents.pool_size` | `8` | integer ≥ 1 ≤ 1,000,000,000,000,000 |" in keys
    with pytest.raises(hooks.GenerateError, match="no generator 'nothing'"):
        hooks.expand("<!-- generate: nothing -->")


def test_the_contributors_layout_names_every_module():
    layout = (ROOT / "docs" / "contributing.md").read_text()
    layout = layout[layout.index("## Layout") :]
    for package in ("miaui_env", "training"):
        for path in sorted((ROOT / package).rglob("*")):
            if path.name.startswith(("_", ".")) or path.suffix not in (".py", "") or "__pycache__" in path.parts:
                continue
            if path.is_dir() and not (path / "__init__.py").exists():
                continue
            name = path.name + "/" if path.is_dir() else path.name
            assert name in layout, f"docs/contributing.md's Layout section does not name {path.relative_to(ROOT)}"


def test_every_user_facing_torch_install_names_the_cpu_index():
    # One documented choice: a plain `pip install torch` on Linux pulls the CUDA build's gigabytes; only CI's own script
    # (whose machine caches the CPU wheel) and the GPU lines may name torch without the CPU index.
    import re

    lines = [(page, line) for page in PAGES for line in page.read_text().splitlines() if re.search(r"pip install (-U )?torch\b", line)]
    plain = [
        f"{page.relative_to(ROOT)}: {line.strip()}"
        for page, line in lines
        if "download.pytorch.org/whl/cpu" not in line and "GPU" not in line and "CUDA" not in line and "cached" not in line
    ]
    assert len(lines) >= 5 and plain == []
