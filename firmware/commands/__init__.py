"""Subcommands of ``crownhead``.

Each module here defines ``register(subparsers)``, which adds one subcommand whose
``func`` default takes the parsed arguments and returns the process exit code. The
command line finds them by scanning this package, so adding a command touches no other
file.
"""
