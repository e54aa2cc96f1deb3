"""Iterative refactor: an LLM turns an upstream item into a runnable, leak-free, executed program."""
