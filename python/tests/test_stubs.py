"""The type stubs (mpelog/__init__.pyi) against the module as it runs:
mypy's stubtest finds a name, parameter or default the stubs lack or get
wrong, so that what editors complete is what the package takes."""

import importlib.util
import os
import subprocess
import sys

import pytest


def test_stubs_match_the_module(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        if os.environ.get("CI"):
            pytest.fail("mypy is not installed (CI installs it)")
        pytest.skip("mypy is not installed")
    # pandas and pyarrow ship no stubs mypy reads: taken as Any.
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nignore_missing_imports = True\n")
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "mpelog", "--mypy-config-file", str(config)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stdout + r.stderr
