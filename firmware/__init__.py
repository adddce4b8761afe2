"""The controller: move tracker, modes, LED policy, persistence and the command line."""
