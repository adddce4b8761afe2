"""The package's layout and its native search core (everything else is in pyproject.toml).

Everything installs under one package, ``crownhead``, while the folders stay where the
design card puts them: ``rules/`` is ``crownhead.rules``, ``firmware/`` is
``crownhead.firmware`` and so on, mapped by ``package_dir`` (which the editable install's
finder follows too). Generic names such as ``rules`` or ``hal`` belong to other projects
on the package index; installed beside them, Crownhead must overwrite none of their files.

The native search core is an optional C extension, built by ``pip install`` (and
``pip install -e``) with the system compiler; where there is none, or it fails, the install
still succeeds and the engine searches in pure Python
(``crownhead.rules.engine.native.describe()`` says which).
"""

from setuptools import Extension, find_namespace_packages, setup

#: The checkout's folders that are subpackages of ``crownhead``, each under its own name.
FOLDERS = ("squares", "rules", "hal", "sim", "firmware")

setup(
    packages=[
        "crownhead",
        # Namespace packages too: the folders of data (web/static, egdb/tables...) ship.
        *(f"crownhead.{name}" for name in find_namespace_packages(include=[p for f in FOLDERS for p in (f, f"{f}.*")])),
    ],
    package_dir={"crownhead": "crownhead", **{f"crownhead.{folder}": folder for folder in FOLDERS}},
    ext_modules=[
        Extension(
            "crownhead.rules.engine._native",
            sources=["rules/engine/_native.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ],
)
