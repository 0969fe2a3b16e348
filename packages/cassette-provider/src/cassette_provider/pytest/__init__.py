"""The pytest plugin (entry point `cassette`): modes, markers, fixtures, reports, network guard.

Importing `cassette_provider.pytest.plugin` loads nothing else of the stack until a fixture runs.
"""
