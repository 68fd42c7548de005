"""Dat3M litmus import and litmus -> PTX."""
