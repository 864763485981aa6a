"""The wheel carries firmware/ as package data (hauntbox_fw/_firmware); the rest is pyproject.toml."""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildPyWithFirmware(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's firmware/ in place
        dst = Path(self.build_lib) / "hauntbox_fw" / "_firmware"
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(HERE / "firmware", dst,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".*"))


setup(cmdclass={"build_py": BuildPyWithFirmware})
