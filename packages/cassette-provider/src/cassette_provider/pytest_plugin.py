"""pytest plugin entry point (`pytest11`): fixtures and marker arrive with the plugin issue."""
