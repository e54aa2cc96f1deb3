"""The review page (package data)."""
