"""The outer ring and only composition root: settings, CLI, HTTP app."""
