"""A small calculator: tokens, a recursive-descent parser and an evaluator with variables."""
