"""``.sync`` warp collectives after divergence (PTX ISA §9.7.9.6 shfl.sync, §9.7.13.7 vote.sync,
§9.7.13.10 redux.sync): on sm_70+ "shfl.sync causes the executing thread to wait until all non-exited
threads corresponding to membermask have executed shfl.sync with the same qualifiers" — so a shuffle
at a join block exchanges the values every member lane carries *after* its arm of the branch, wherever
the compiler laid the arms out. Triton/LLVM put cold arms after ``ret`` (seed 181 of the triton_gen
corpus: ``tl.max`` of ``libdevice.pow``, whose special-case blocks rejoin the shuffle tree from below);
min-pc scheduling used to run the join's shuffle with only the lanes that had arrived, which read the
late lanes' stale registers. Expected values below follow from the ISA definitions alone."""

from __future__ import annotations

import pytest

from ptxkit.exec_sim import parse_arg_specs, parse_text, run_kernel

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def _run(body: str, block: int = 32) -> list[int]:
    text = HEAD + ".visible .entry k(.param .u64 out)\n{\n" + body + "\n}\n"
    m = parse_text(text, "t.ptx")
    r = run_kernel(m, None, parse_arg_specs([f"out=u32[{block}]:zeros"], m.entries()[0], 0), 1, block, 0)
    return [int(v) for v in r.buffers["out"]]


PRO = """
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.b32 %r2, 1;
  and.b32 %r3, %r1, 1;
  setp.eq.b32 %p1, %r3, 1;
"""


def test_shfl_at_a_join_laid_out_before_the_cold_arm():
    # odd lanes take the arm placed after ret (r2 = 100 + lane), even lanes go straight to the join
    # (r2 = 1); bfly 1 pairs lane 2k with 2k+1, so every lane ends with 1 + 100 + (2k+1)
    body = PRO + """
  @%p1 bra COLD;
JOIN:
  shfl.sync.bfly.b32 %r4, %r2, 1, 31, -1;
  add.s32 %r5, %r2, %r4;
  st.global.u32 [%rd3], %r5;
  ret;
COLD:
  add.s32 %r2, %r1, 100;
  bra.uni JOIN;
"""
    assert _run(body) == [1 + 100 + (t | 1) for t in range(32)]


@pytest.mark.parametrize("warps", [1, 2])
def test_vote_ballot_and_redux_after_a_cold_arm(warps):
    # the ballot of (r2 > 50) is the odd lanes (0xAAAAAAAA) whatever the layout; redux.sync.add sums
    # 16 ones and the odd lanes' 100 + t: 16 + sum(100 + t for odd t < 32)
    body = PRO + """
  @%p1 bra COLD;
JOIN:
  setp.gt.u32 %p2, %r2, 50;
  vote.sync.ballot.b32 %r6, %p2, -1;
  redux.sync.add.u32 %r7, %r2, -1;
  setp.eq.b32 %p3, %r6, -1431655766;
  selp.u32 %r8, %r7, 0, %p3;
  st.global.u32 [%rd3], %r8;
  ret;
COLD:
  and.b32 %r9, %r1, 31;
  add.s32 %r2, %r9, 100;
  bra.uni JOIN;
"""
    want = 16 + sum(100 + t for t in range(1, 32, 2))
    assert _run(body, 32 * warps) == [want] * (32 * warps)



def test_starved_warp_turn_waits_for_the_shuffle_too():
    # warp 0 spins 400 times at the lowest pcs, so warp 1 only runs on the scheduler's fairness turns
    # (FAIR_EVERY/STARVE_STEPS); such a turn must not run warp 1's shuffle before its odd lanes have
    # left the cold arm: bfly 1 pairs even lane 2k (r2 = 1) with odd lane 2k+1 (r2 = 100 + 2k+1)
    body = PRO + """
  shr.u32 %r10, %r1, 5;
  setp.ne.u32 %p2, %r10, 0;
  @%p2 bra W1;
  mov.u32 %r11, 0;
SPIN:
  add.u32 %r11, %r11, 1;
  setp.lt.u32 %p3, %r11, 400;
  @%p3 bra SPIN;
  st.global.u32 [%rd3], %r11;
  ret;
W1:
  @%p1 bra COLD;
JOIN:
  shfl.sync.bfly.b32 %r4, %r2, 1, 31, -1;
  add.s32 %r5, %r2, %r4;
  st.global.u32 [%rd3], %r5;
  ret;
COLD:
  and.b32 %r9, %r1, 31;
  add.s32 %r2, %r9, 100;
  bra.uni JOIN;
"""
    assert _run(body, 64) == [400] * 32 + [1 + 100 + (t | 1) for t in range(32)]


def test_mma_sync_aligned_at_a_join_runs_with_the_whole_warp():
    # mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 (ISA §9.7.14.5 integer m8n8k16 fragments: lane 4g+q holds
    # A[g][4q..4q+3] and B[4q..4q+3][g], and D[g][2q], D[g][2q+1]). Odd lanes set their A bytes to 2 in a
    # cold arm after ret, even lanes keep 1; B is all ones, so each D[g][j] sums row g of A:
    # lanes 4g..4g+3 give 4·(1 + 2 + 1 + 2) = 24. The .aligned op runs only with the converged warp.
    body = PRO + """
  mov.b32 %r12, 0x01010101;
  mov.b32 %r13, 0x01010101;
  mov.b32 %r14, 0;
  @%p1 bra COLD;
JOIN:
  mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r15, %r16}, {%r12}, {%r13}, {%r14, %r14};
  add.s32 %r17, %r15, %r16;
  st.global.u32 [%rd3], %r17;
  ret;
COLD:
  mov.b32 %r12, 0x02020202;
  bra.uni JOIN;
"""
    assert _run(body) == [48] * 32
