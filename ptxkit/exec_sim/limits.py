"""The hardware limits of a launch, one place for ``run``, ``equiv`` and ``explore``.

Launch shape: CUDA C++ Programming Guide, "Compute capabilities" (technical specifications; the same
for every compute capability ptxkit targets): a CTA is at most 1024 × 1024 × 64 threads and at most
1024 in all; a grid is at most (2^31 - 1) × 65535 × 65535 CTAs. Dynamic shared memory: the sm_90 /
sm_100 opt-in maximum of 227 KiB per CTA.

Clusters (sm_90): at most 16 CTAs (8 portably; CUDA guide "Thread block clusters", the non-portable
maximum), and the grid must be a whole number of clusters along each axis.

``%nwarpid`` (PTX ISA §10 "Special registers", %nwarpid): "the maximum number of warp identifiers" —
a constant of the SM, not of the launch: 64 on sm_70 … sm_90 (2048 resident threads / 32).
"""

from __future__ import annotations

MAX_BLOCK = (1024, 1024, 64)
MAX_THREADS_PER_CTA = 1024
MAX_GRID = ((1 << 31) - 1, 65535, 65535)
MAX_DYNAMIC_SHARED = 227 * 1024
NWARPID = 64
MAX_CLUSTER_CTAS = 16
