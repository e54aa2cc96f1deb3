"""The stages as library functions: each takes a typed options model and returns a typed result."""
