"""SURGE's metrics and output extraction: one home. The audit imports from here."""
