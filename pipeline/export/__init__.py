"""surge export: the store as SURGE-format files with their prompts, or a Hugging Face dataset and card."""
