"""Sandbox backends: each one turns RunRequests into RunResults behind the same small interface."""
