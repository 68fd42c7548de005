"""The oracle-driven explorer: concurrent programs (from litmus tests or .ptx kernels), per-thread
oracles, and the enumeration of executions decided by :mod:`ptxkit.consistency`."""
