"""The package list, discovered: every folder pyproject's `package-dir` maps into `benchledger`,
and every package below it (`setuptools.find_packages`), so a new benchmark folder is in the wheel
without a line anywhere. Everything else about the build is in pyproject.toml."""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
MAPPED = tomllib.loads((HERE / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]

packages = []
for name, folder in MAPPED.items():
    packages.append(name)
    packages += [f"{name}.{sub}" for sub in find_packages(str(HERE / folder))]

setup(packages=sorted(packages))
