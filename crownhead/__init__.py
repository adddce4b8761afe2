"""Crownhead: the software inside an electronic checkers board.

One installed package; the folders of the checkout are its subpackages:

* :mod:`crownhead.squares`: the 32 squares, their names and geometry (imports nothing);
* :mod:`crownhead.rules`: the rules of the game and the engine, pure logic with no I/O;
* :mod:`crownhead.hal`: the hardware's interfaces and backends, which know squares only;
* :mod:`crownhead.sim`: simulated twins of the hardware behind the same interfaces;
* :mod:`crownhead.firmware`: the controller and everything on top of it, and the
  ``crownhead`` command (:mod:`crownhead.firmware.cli`).

>>> import crownhead
>>> crownhead.__version__ == __import__("importlib.metadata").metadata.version("crownhead")
True
"""

#: The release, read by the build (pyproject.toml's dynamic version) and by ``--version``.
__version__ = "0.1.0"
