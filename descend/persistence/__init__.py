"""Persistence (placeholder docstring, written below)."""
