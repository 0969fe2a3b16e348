"""Optional framework adapters; import `cassette_provider.adapters.<framework>` explicitly.

Nothing here is imported by `cassette_provider` itself, so the frameworks stay optional extras
(`cassette-provider[pydantic-ai]`, `cassette-provider[openai-agents]`).
"""

__all__: list[str] = []
