"""The native search core, an optional C extension (everything else is in pyproject.toml).

Built by ``pip install`` (and ``pip install -e``) with the system compiler; where there
is none, or it fails, the install still succeeds and the engine searches in pure Python
(``rules.engine.native.describe()`` says which).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "crownhead.rules.engine._native",
            sources=["rules/engine/_native.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
