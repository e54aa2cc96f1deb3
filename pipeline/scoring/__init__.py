"""SURGE's metrics and output extraction: one home (issue 13). The audit imports from here."""
