"""Shared test support: paths to ../shared and hypothesis strategies."""
