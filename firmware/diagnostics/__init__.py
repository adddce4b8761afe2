"""Wiring checks for people building a board: the live switch view and the self-test."""
