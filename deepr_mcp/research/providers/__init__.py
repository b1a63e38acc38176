"""Who writes the findings and the report: the local extractive provider, OpenAI-compatible APIs, Anthropic."""
