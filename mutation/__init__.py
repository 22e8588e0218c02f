"""Mutation testing of the project's SQL models and macros (python -m mutation, make mutate)."""
