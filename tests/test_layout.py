"""The layout a newcomer reads: sim/ by role, and docs/architecture.md true to it."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIM = ROOT / "sim"
DOC = ROOT / "docs" / "architecture.md"


def sim_packages() -> list[Path]:
    return sorted(p.parent for p in SIM.glob("*/__init__.py"))


def test_sim_has_few_top_level_modules():
    modules = sorted(p.name for p in SIM.glob("*.py"))
    assert len(modules) <= 8, modules


def test_every_sim_package_says_its_purpose_in_one_line():
    for pkg in [SIM, *sim_packages()]:
        doc = ast.get_docstring(ast.parse((pkg / "__init__.py").read_text()))
        assert doc and "\n" not in doc.strip(), f"{pkg.relative_to(ROOT)}/__init__.py: one-line docstring"


def test_architecture_doc_names_only_paths_that_exist():
    text = DOC.read_text()
    paths = set(re.findall(r"`((?:sim|firmware|host|tests|docs)/[\w./-]*)", text))
    assert paths, "docs/architecture.md names no paths"
    missing = sorted(p for p in paths if not (ROOT / p.rstrip("/")).exists())
    assert missing == [], missing
    # bare file names in a package's row are files of that package
    for row in re.findall(r"^\| `(sim/\w+/)`[^|]*\| (.*) \|$", text, flags=re.M):
        for name in re.findall(r"`([\w]+\.(?:py|mjs))`", row[1]):
            assert (ROOT / row[0] / name).exists(), f"{row[0]}{name} (docs/architecture.md)"


def test_architecture_doc_covers_every_sim_package():
    text = DOC.read_text()
    for pkg in sim_packages():
        assert f"`sim/{pkg.name}/`" in text, f"docs/architecture.md does not mention sim/{pkg.name}/"
