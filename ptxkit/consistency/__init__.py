"""The PTX memory consistency model (PTX ISA chapter 8): events, relations, axioms, models."""
