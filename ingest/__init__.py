"""Deterministic batch import of ready-made concept pages. Depends only on `substrate`."""
