"""The execution core: instruction semantics over numpy lanes, schedulers, explorer."""
