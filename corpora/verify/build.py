"""Build corpora/verify: compile every kernel to PTX, write the header, check ptxas, write manifest.json.

    python corpora/verify/build.py            # needs nvcc/ptxas (CUDA 13.0) and triton==3.9.0, no GPU

Each kernel: the source (.cu with its header comment, or a function of triton_kernels.py with the header
below), the launch in `ptxkit run` syntax, the expected verdict of `ptxkit verify` (argued in the
header from the PTX ISA) and the witness: regular expressions naming the instruction(s) a report must
point at — two groups for a race (one instruction of each), one group for a misused synchronization.
The witness lines in manifest.json are the 1-based line numbers of the matching lines of the .ptx.
A Triton one-bug variant is the correct kernel's PTX with one textual edit (`edit`), stated in its header.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass
class Kernel:
    name: str
    verdict: str
    args: list[str]
    witness: list[str] = field(default_factory=list)  # regexes: [A, B] race pair, [A] misuse, [] none
    # other verdicts the header argues are also right, each with the witness a report of it must name
    accept: dict[str, list[str]] = field(default_factory=dict)
    arch: str = "sm_80"
    cu: str = ""  # the .cu source (default NAME.cu) for nvcc kernels
    triton: str = ""  # the triton_kernels.py function for Triton kernels
    signature: dict[str, str] = field(default_factory=dict)
    constexprs: dict[str, int] = field(default_factory=dict)
    num_warps: int = 4
    num_stages: int = 3
    aligned: tuple[int, ...] = ()  # Triton kernels: pointer arguments declared 16-byte aligned (tt.divisibility)
    header: str = ""  # Triton kernels: the argued header (the .cu kernels carry theirs in the source)
    edit: tuple[str, str] = ("", "")  # Triton one-bug variants: (regex, replacement), applied once
    note: str = ""


def a(*specs: str) -> list[str]:
    out: list[str] = []
    for s in specs:
        out += s.split(" ", 1) if s.startswith("--") else ["--arg", s]
    return out


ST_SH = r"^\s*st\.shared"
LD_SH = r"^\s*ld\.shared"
TMAP_A = "tmap:f16[8192]:rand:dims=128,64:box=32,64:swizzle=64B"
TMAP_B = "tmap:f16[8192]:rand:dims=64,128:box=64,32:swizzle=128B"
TMA_ARGS = a("0=" + TMAP_A, "1=u32:64", "2=u32:128", "3=u64:128", "4=u64:1",
             "5=" + TMAP_B, "6=u32:128", "7=u32:64", "8=u64:64", "9=u64:1",
             "10=f32[4096]:zeros", "11=null", "12=null", "--block 128")
MM_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "K": "constexpr", "BM": "constexpr",
          "BN": "constexpr", "BK": "constexpr"}
TMA_SIG = {"a_desc": "tensordesc<fp16[64, 32]>", "b_desc": "tensordesc<fp16[32, 64]>", "c_ptr": "*fp32",
           "K": "constexpr", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
MM_K = {"K": 128, "BM": 64, "BN": 64, "BK": 32}

KERNELS: list[Kernel] = [
    # --- nvcc, CUDA C++ -------------------------------------------------------------------------------
    Kernel("reduce_smem", "verified", a("0=f32[64]:rand", "1=f32[1]:zeros", "--block 64")),
    Kernel("reduce_smem_nosync", "race", a("0=f32[64]:rand", "1=f32[1]:zeros", "--block 64"),
           [ST_SH + " ## 2", LD_SH + " ## 2"]),
    Kernel("gemm_tiled", "verified",
           a("0=f32[1024]:rand", "1=f32[1024]:rand", "2=f32[256]:zeros", "3=s32:16", "4=s32:64", "--block 16,16")),
    Kernel("gemm_tiled_nosync1", "race",
           a("0=f32[1024]:rand", "1=f32[1024]:rand", "2=f32[256]:zeros", "3=s32:16", "4=s32:64", "--block 16,16"),
           [ST_SH, LD_SH]),
    Kernel("gemm_tiled_nosync2", "race",
           a("0=f32[1024]:rand", "1=f32[1024]:rand", "2=f32[256]:zeros", "3=s32:16", "4=s32:64", "--block 16,16"),
           [ST_SH, LD_SH]),
    Kernel("lastblock_fence", "verified",
           a("0=f32[96]:rand", "1=f32[3]:zeros", "2=u32[1]:zeros", "3=f32[1]:zeros", "--grid 3", "--block 32")),
    Kernel("lastblock_nofence", "race",
           a("0=f32[96]:rand", "1=f32[3]:zeros", "2=u32[1]:zeros", "3=f32[1]:zeros", "--grid 3", "--block 32"),
           [r"^\s*st\.global\.f32 ## 1", r"^\s*ld\.global\.f32 ## 2-"]),
    Kernel("flag_gpu", "verified", a("0=u32[1]:zeros", "1=u32[1]:zeros", "2=u32[1]:zeros", "--grid 2")),
    Kernel("flag_cta", "race", a("0=u32[1]:zeros", "1=u32[1]:zeros", "2=u32[1]:zeros", "--grid 2"),
           [r"^\s*(st\.global\.u32\s+\[%rd1\]|st\.release\.cta)", r"^\s*(ld\.global\.u32|ld\.acquire\.cta)"]),
    Kernel("flag_fence_relaxed", "verified", a("0=u32[1]:zeros", "1=u32[1]:zeros", "2=u32[1]:zeros", "--grid 2")),
    Kernel("flag_nofence_relaxed", "race", a("0=u32[1]:zeros", "1=u32[1]:zeros", "2=u32[1]:zeros", "--grid 2"),
           [r"^\s*st\.global\.u32\s+\[%rd1\]", r"^\s*ld\.global\.u32"]),
    Kernel("atomic_reduce", "verified", a("0=u32[64]:rand", "1=u32[1]:zeros", "--grid 2", "--block 32")),
    Kernel("shfl_reduce", "verified", a("0=f32[32]:rand", "1=f32[1]:zeros", "--block 32")),
    Kernel("barrier_divergent", "not-well-synchronized", a("0=f32[64]:rand", "--block 64"), [r"^\s*bar\.sync"]),
    Kernel("barrier_count_mismatch", "not-well-synchronized", a("0=f32[64]:rand", "--block 64"),
           [r"^\s*bar\.sync 1, 64;", r"^\s*bar\.sync 1, 32;"]),
    Kernel("ws_named_barriers", "verified", a("0=f32[128]:rand", "1=f32[32]:zeros", "--block 64")),
    Kernel("ws_named_barriers_early_arrive", "race", a("0=f32[128]:rand", "1=f32[32]:zeros", "--block 64"),
           [ST_SH, LD_SH]),
    Kernel("cpasync_double", "verified", a("0=f32[256]:rand", "1=f32[64]:zeros", "--block 64")),
    Kernel("cpasync_nowait", "not-well-synchronized", a("0=f32[256]:rand", "1=f32[64]:zeros", "--block 64"),
           [LD_SH, r"^\s*cp\.async\.ca\.shared\.global"], accept={"race": [LD_SH, r"^\s*cp\.async\.ca\.shared"]}),
    Kernel("mbarrier_pc", "verified", a("0=f32[128]:rand", "1=f32[32]:zeros", "--block 64"), arch="sm_90"),
    Kernel("mbarrier_parity_bug", "race", a("0=f32[128]:rand", "1=f32[32]:zeros", "--block 64"),
           [ST_SH, LD_SH], accept={"not-well-synchronized": [r"^\s*mbarrier\.try_wait\.parity"]}, arch="sm_90"),
    Kernel("bulk_copy", "verified", a("0=f32[64]:rand", "1=f32[32]:zeros", "--block 32"), arch="sm_90"),
    Kernel("bulk_copy_noexpect", "not-well-synchronized", a("0=f32[64]:rand", "1=f32[32]:zeros", "--block 32"),
           [r"^\s*mbarrier\.arrive\.shared", r"^\s*cp\.async\.bulk\.shared"],
           accept={"race": [r"^\s*cp\.async\.bulk\.shared", LD_SH]}, arch="sm_90"),
    Kernel("bulk_store", "verified", a("0=f32[64]:rand", "1=f32[64]:zeros", "--block 64"), arch="sm_90"),
    Kernel("bulk_store_nofence", "race", a("0=f32[64]:rand", "1=f32[64]:zeros", "--block 64"),
           [ST_SH, r"^\s*cp\.async\.bulk\.global\.shared"], arch="sm_90"),
    Kernel("cluster_dsmem", "verified", a("0=f32[64]:rand", "1=f32[64]:zeros", "--grid 2", "--block 32", "--cluster 2"),
           arch="sm_90"),
    Kernel("cluster_dsmem_nobarrier", "race",
           a("0=f32[64]:rand", "1=f32[64]:zeros", "--grid 2", "--block 32", "--cluster 2"),
           [ST_SH, r"^\s*ld\.shared::cluster"], arch="sm_90"),
    Kernel("bulk_copy_nowait", "race", a("0=f32[64]:rand", "1=f32[32]:zeros", "--block 32"),
           [r"^\s*cp\.async\.bulk\.shared", LD_SH], arch="sm_90"),
]

SAME_VALUE = [ST_SH + " ## 1", ST_SH + " ## 1"]  # the warp's same-value partial store, both sides
H_REDUCE = """triton_reduce_{arch}: Triton 3.9 tl.sum of 1024 floats, one program of 4 warps ({arch}).
EXPECTED: verified.
ISA argument: each warp reduces its values with shfl.sync (registers, no memory events), then one lane per
warp stores its partial with st.shared and, after bar.sync 0 (§9.7.13.1), lanes read the 4 partials
with ld.shared. The barrier orders every st.shared before every ld.shared of another warp in causality
order (§8). The output is stored by thread 0 only. No race between different values.
Same-value writes: the 32 lanes of a warp all execute the unpredicated st.shared of the warp's partial
to the same address with the same value. §8's definition is structural: two conflicting weak writes not
ordered by causality order are a data race even when they write equal values. No execution can tell
their order apart (every coherence order leaves the same value and no read sits between them), so the
kernel is deterministic and correct. Also acceptable therefore: `race`, but only with a witness naming
that same-value st.shared on both sides (the ISA's letter); a race witness naming anything else is a
false alarm."""
H_SOFTMAX = """triton_softmax_sm80: Triton 3.9 softmax of a row of 1024 floats, one program of 4 warps (sm_80).
EXPECTED: verified.
ISA argument: the max and the sum are two cross-warp reductions through a shared scratch buffer
(st.shared partials, bar.sync 0, ld.shared); the bar.sync between the two reductions (§9.7.13.1) orders
the loads of the first before the stores of the second into the same scratch (write-after-read), and
each output element is stored by one thread: every conflicting pair of different values is ordered by
causality order (§8). As in triton_reduce, the lanes of a warp store the warp's partial to the same
address with the same value (the unpredicated st.shared): a same-value race by the letter of §8 that no
execution can observe. Also acceptable: `race` naming that st.shared on both sides, nothing else."""
H_ATOMIC = """triton_atomic_sm90: Triton 3.9 tl.atomic_add of int32 values into out[0], 2 programs of 4 warps (sm_90).
EXPECTED: verified.
ISA argument (§8, atom): every access to out[0] is an atom.global.add (Triton: .acq_rel.gpu), morally
strong with every other (same .gpu scope including all threads, same address and size): no data race;
integer addition commutes, so every coherence order of the atomics gives the same final value."""
H_MM80 = """triton_matmul_sm80: Triton 3.9 matmul C[64,64] = A[64,128] @ B[128,64] (f16 → f32), one program of 4
warps, BK = 32, num_stages = 3 (sm_80): the K loop is pipelined with cp.async into a 3-stage shared ring,
ldmatrix/mma.sync compute on the stages.
EXPECTED: verified.
ISA argument (§9.7.9.25 cp.async): before a stage is read, cp.async.wait_group N (N = stages in flight)
makes the issuing thread's copies of that stage complete, and the following bar.sync orders them before
the other threads' ldmatrix/ld.shared (§9.7.13.1, §8); the bar.sync at the top of the next iteration
orders every read of a stage before the cp.async that refills it. No race, no use before wait."""
H_MM80_NOWAIT = """triton_matmul_sm80_nowait: triton_matmul_sm80 with the cp.async.wait_group in the K loop raised
from {old} to {new} (one bug: cp.async data used before wait_group): the stage about to be read may still
have copies in flight.
EXPECTED: not-well-synchronized (a race is also an acceptable report).
ISA argument (§9.7.9.25): cp.async.wait_group N only waits until at most N of the thread's most recent
groups are pending; with N too large the group that fills the stage read next is not known complete,
so its writes are not ordered before the ldmatrix of that stage (no guarantee "unless wait_group"):
the data is used before it is waited for — as memory events a race between that cp.async and the read.
Witness (either verdict): an ldmatrix of the first stage and a cp.async that fills it."""
H_MMTMA = """triton_matmul_tma_sm90: Triton 3.9 matmul C[64,64] = A[64,128] @ B[128,64] (f16 → f32) through TMA tensor
descriptors, one CTA of 128 threads (one warpgroup), BK = 32 (K = 128: 4 steps), num_stages = 3 (sm_90a):
thread 0 arms a stage's mbarrier with mbarrier.arrive.expect_tx(8192) and issues two
cp.async.bulk.tensor loads into it; every thread waits with mbarrier.try_wait.parity on the stage's phase,
wgmma.mma_async reads the stage, wgmma.wait_group 1 before the stage read one step earlier is refilled.
The performance kernel of issue 11's Done line (verify ≤ 60 s).
EXPECTED: verified.
ISA argument: §9.7.9.27 cp.async.bulk.tensor: the copy's writes complete through complete_tx on the
mbarrier; §9.7.13.15 mbarrier: the phase completes only when the arrival (1) and the tx-count (8192 bytes
= both boxes) are consumed, and try_wait.parity on that phase orders the async-proxy writes before the
waiting thread's later accesses — including the wgmma's async-proxy reads of the stage (§8, async proxy).
wgmma.wait_group 1 (§9.7.15 wgmma) waits until at most the newest wgmma group is pending, so the
group that read the stage refilled next (issued one step earlier) has completed its reads before the
bar.sync and the refilling TMA: no write-after-read race. Results: one writer per C element."""
H_MMTMA_REUSE = """triton_matmul_tma_sm90_reuse: triton_matmul_tma_sm90 with the wgmma.wait_group in the K loop raised
from 1 to 2 (one bug: buffer reused while wgmma still reads it).
EXPECTED: race.
ISA argument (§9.7.15 wgmma.wait_group, §9.7.9.27, §8 async proxy): wait_group 2 lets the two newest
wgmma groups stay pending, so the group issued one step earlier may still be reading its stage when
thread 0 re-arms that stage and cp.async.bulk.tensor overwrites it: the TMA's async-proxy write and the
wgmma's async-proxy read of the same shared bytes are not ordered by causality order — a data race.
Witness: a cp.async.bulk.tensor (writer) and a wgmma.mma_async (reader)."""
H_MMTMA_NOEXPECT = """triton_matmul_tma_sm90_noexpect: triton_matmul_tma_sm90 with the expect_tx that arms stage 0 (the first
one, in the prologue) replaced by a plain mbarrier.arrive (one bug: TMA signalled before the write
completes).
EXPECTED: not-well-synchronized (a race is also an acceptable report).
Witness: not-well-synchronized — the edited mbarrier.arrive or one of the two prologue
cp.async.bulk.tensor loads it failed to announce; race — one of those loads and a wgmma.mma_async.
ISA argument (§9.7.13.15 mbarrier tx-count, §9.7.9.27): without expect_tx stage 0's phase 0
completes on thread 0's arrival alone, before the two TMA loads have written; their complete_tx then
decrements a tx-count nobody expects (a transaction-count mismatch), and the consumers' try_wait.parity
succeeds while the async-proxy writes are still unordered with the wgmma's reads of the stage."""
H_REDUCE_NOBAR = """triton_reduce_sm80_nobar: triton_reduce_sm80 with the bar.sync between the per-warp partial stores and
the cross-warp loads deleted (one bug: missing __syncthreads).
EXPECTED: race.
ISA argument (§9.7.13.1, §8): the st.shared of one warp's partial and the ld.shared of it by another
warp are no longer separated by a barrier phase, so they are unordered by causality order, conflict and
are weak: a data race. Witness: that st.shared and ld.shared."""

TRITON: list[Kernel] = [
    Kernel("triton_reduce_sm80", "verified", a("0=f32[1024]:rand", "1=f32[1]:zeros", "2=null", "3=null", "--block 128"),
           triton="reduce_sum", signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "N": "constexpr"},
           constexprs={"N": 1024}, header=H_REDUCE.format(arch="sm_80"), accept={"race": SAME_VALUE}),
    Kernel("triton_reduce_sm90", "verified", a("0=f32[1024]:rand", "1=f32[1]:zeros", "2=null", "3=null", "--block 128"),
           arch="sm_90", triton="reduce_sum", signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "N": "constexpr"},
           constexprs={"N": 1024}, header=H_REDUCE.format(arch="sm_90"), accept={"race": SAME_VALUE}),
    Kernel("triton_reduce_sm80_nobar", "race", a("0=f32[1024]:rand", "1=f32[1]:zeros", "2=null", "3=null", "--block 128"),
           [ST_SH, LD_SH], triton="reduce_sum", signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "N": "constexpr"},
           constexprs={"N": 1024}, header=H_REDUCE_NOBAR, edit=(r"\n\tbar\.sync \t0;\n", "\n")),
    Kernel("triton_softmax_sm80", "verified", a("0=f32[1024]:rand", "1=f32[1024]:zeros", "2=null", "3=null", "--block 128"),
           triton="softmax_row", signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "constexpr"},
           constexprs={"N": 1024}, header=H_SOFTMAX, accept={"race": SAME_VALUE}),
    Kernel("triton_atomic_sm90", "verified",
           a("0=s32[512]:rand", "1=s32[1]:zeros", "2=null", "3=null", "--grid 2", "--block 128"),
           arch="sm_90", triton="atomic_count", signature={"x_ptr": "*i32", "out_ptr": "*i32", "N": "constexpr"},
           constexprs={"N": 256}, header=H_ATOMIC),
    Kernel("triton_matmul_sm80", "verified",
           a("0=f16[8192]:rand", "1=f16[8192]:rand", "2=f32[4096]:zeros", "3=null", "4=null", "--block 128"),
           triton="matmul", signature=MM_SIG, constexprs=MM_K, aligned=(0, 1, 2), header=H_MM80),
    Kernel("triton_matmul_sm80_nowait", "not-well-synchronized",
           a("0=f16[8192]:rand", "1=f16[8192]:rand", "2=f32[4096]:zeros", "3=null", "4=null", "--block 128"),
           [r"^\s*ldmatrix ## 1-4", r"^\s*cp\.async\.cg\.shared\.global ## 1,2"],
           accept={"race": [r"^\s*cp\.async\.cg\.shared\.global ## 1,2", r"^\s*ldmatrix ## 1-4"]},
           triton="matmul", signature=MM_SIG, constexprs=MM_K, aligned=(0, 1, 2),
           header=H_MM80_NOWAIT.format(old=2, new=4),
           edit=(r"cp\.async\.wait_group \t2;", "cp.async.wait_group \t4;")),
    Kernel("triton_matmul_tma_sm90", "verified", TMA_ARGS, arch="sm_90a", triton="matmul_tma",
           signature=TMA_SIG, constexprs=MM_K, header=H_MMTMA),
    Kernel("triton_matmul_tma_sm90_reuse", "race", TMA_ARGS,
           [r"^\s*@%p\d+ cp\.async\.bulk\.tensor ## 5-", r"^\s*wgmma\.mma_async"], arch="sm_90a", triton="matmul_tma",
           signature=TMA_SIG, constexprs=MM_K, header=H_MMTMA_REUSE,
           edit=(r"wgmma\.wait_group\.sync\.aligned 1;", "wgmma.wait_group.sync.aligned 2;")),
    Kernel("triton_matmul_tma_sm90_noexpect", "not-well-synchronized", TMA_ARGS,
           [r"^\s*(@%p\d+ )?mbarrier\.arrive\.shared::cta\.b64 _|^\s*@%p\d+ cp\.async\.bulk\.tensor ## 1-3"],
           accept={"race": [r"^\s*@%p\d+ cp\.async\.bulk\.tensor ## 1,2", r"^\s*wgmma\.mma_async"]}, arch="sm_90a",
           triton="matmul_tma", signature=TMA_SIG, constexprs=MM_K, header=H_MMTMA_NOEXPECT,
           edit=(r"mbarrier\.arrive\.expect_tx\.shared::cta\.b64 _, \[(%r\d+)\], 8192;",
                 r"mbarrier.arrive.shared::cta.b64 _, [\1];")),
]

ALL = KERNELS + TRITON
TRITON_VERSION = "3.9.0"


def _comment(text: str) -> str:
    return "".join(f"// {ln}".rstrip() + "\n" for ln in text.strip().splitlines())


def _nvcc(k: Kernel) -> tuple[str, str, int]:
    src = k.cu or f"{k.name}.cu"
    cmd = ["nvcc", f"-arch={k.arch}", "-ptx", src, "-o", "-"]
    ptx = subprocess.run(cmd, cwd=HERE, check=True, capture_output=True, text=True).stdout
    lead = []
    for ln in (HERE / src).read_text().splitlines():
        if not ln.startswith("//"):
            break
        lead.append(ln)
    text = "\n".join(lead) + "\n"
    text += f"// source: {src} (CUDA C++; inline PTX where the source has asm)\n"
    text += f"// generated: nvcc -arch={k.arch} -ptx {src} -o {k.name}.ptx (CUDA 13.0, V13.0.88)\n"
    return text, ptx, 0


def _triton(k: Kernel) -> tuple[str, str, int]:
    import triton  # only the Triton kernels need it
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    assert triton.__version__ == TRITON_VERSION, triton.__version__
    # Triton picks the PTX ISA version from its ptxas: CUDA 13.0's (PTX 9.0, on PATH) for every arch
    os.environ["TRITON_PTXAS_PATH"] = os.environ["TRITON_PTXAS_BLACKWELL_PATH"] = str(shutil.which("ptxas"))
    spec = importlib.util.spec_from_file_location("triton_kernels", HERE / "triton_kernels.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cap = int(re.sub(r"\D", "", k.arch))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        attrs = {(i,): [["tt.divisibility", 16]] for i in k.aligned}
        c = triton.compile(ASTSource(getattr(mod, k.triton), k.signature, k.constexprs, attrs),
                           target=GPUTarget("cuda", cap, 32),
                           options={"num_warps": k.num_warps, "num_stages": k.num_stages, "enable_fp_fusion": True})
    ptx = c.asm["ptx"]
    text = _comment(k.header)
    text += (f"// source: triton_kernels.py:{k.triton} (Triton {TRITON_VERSION}), signature {k.signature}, "
             f"constexprs {k.constexprs}" + (f", 16-byte aligned args {list(k.aligned)}" if k.aligned else "") + "\n")
    text += (f"// generated: triton.compile(target=GPUTarget('cuda', {cap}, 32), num_warps={k.num_warps}, "
             f"num_stages={k.num_stages}, enable_fp_fusion=True); metadata shared={c.metadata.shared}\n")
    if k.edit[0]:
        new, n = re.subn(k.edit[0], k.edit[1], ptx, count=1)
        assert n == 1, (k.name, k.edit)
        text += f"// one-bug edit of the compiled PTX: re.sub({k.edit[0]!r}, {k.edit[1]!r}, count=1)\n"
        ptx = new
    return text, ptx, int(c.metadata.shared)


ASCII = {"§": "ISA ", "→": "->", "×": "x", "—": "--", "–": "-", "·": "*", "≤": "<=", "≥": ">=", "…": "...",
         "←": "<-", "⊆": "<=", "’": "'", "“": '"', "”": '"'}


def ascii_only(text: str) -> str:
    """ptxas accepts only ASCII (comments included): the headers' ISA signs are spelled out."""
    for k, v in ASCII.items():
        text = text.replace(k, v)
    assert text.isascii(), [c for c in text if not c.isascii()]
    return text


def _lines(text: str, spec: str) -> list[int]:
    """Lines matching ``spec``: a regex, optionally followed by `` ## OCC`` choosing matches by 1-based
    occurrence (``2``, ``1,3``, ``1-4`` or ``2-`` for the second on)."""
    regex, _, occ = spec.partition(" ## ")
    r = re.compile(regex)
    hits = [i for i, ln in enumerate(text.splitlines(), 1) if r.search(ln)]
    if not occ:
        return hits
    if "-" in occ:
        lo, hi = occ.split("-")
        return hits[int(lo) - 1:int(hi) if hi else None]
    return [hits[int(o) - 1] for o in occ.split(",")]


def _ptxas(text: str) -> str:
    """CUDA 13.0's ptxas reads PTX up to ISA 9.0; Triton 3.9 emits .version 9.4 for sm_90a and ships the
    ptxas that accepts it (triton/backends/nvidia/bin/ptxas)."""
    v = re.search(r"^\.version\s+(\d+)\.(\d+)", text, re.M)
    assert v is not None
    if (int(v.group(1)), int(v.group(2))) <= (9, 0):
        return "ptxas"
    import triton

    return str(Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas")


def build(names: list[str]) -> None:
    manifest = json.loads((HERE / "manifest.json").read_text()) if (HERE / "manifest.json").is_file() else {}
    for k in ALL:
        if names and k.name not in names:
            continue
        head, ptx, shared = _triton(k) if k.triton else _nvcc(k)
        args = k.args + (["--shared", str(shared)] if shared else [])  # Triton's dynamic shared memory
        launch = " ".join(args)
        head += f"// launch: ptxkit verify {k.name}.ptx {launch}\n"
        head += f"// expected verdict: {k.verdict}" + (f" (also acceptable: {', '.join(k.accept)})" if k.accept else "")
        witness = {k.verdict: k.witness, **k.accept}
        text = ascii_only(head) + "\n" + ptx
        groups = {v: [_lines(text, rx) for rx in rxs] for v, rxs in witness.items()}
        for v, rxs in witness.items():
            for rx, g in zip(rxs, groups[v]):
                assert g, f"{k.name}: witness regex {rx!r} ({v}) matches no line"
        out = HERE / f"{k.name}.ptx"
        out.write_text(text)
        target = re.search(r"^\.target\s+(\w+)", text, re.M)
        assert target is not None
        subprocess.run([_ptxas(text), f"-arch={target.group(1)}", str(out), "-o", "/dev/null"], check=True)
        manifest[k.name] = {
            "file": f"{k.name}.ptx", "source": k.cu or (f"{k.name}.cu" if not k.triton else f"triton_kernels.py:{k.triton}"),
            "kind": "triton" if k.triton else "nvcc", "arch": target.group(1), "args": args,
            "verdict": k.verdict, "accept": sorted(k.accept), "witness": groups,
            "edited": bool(k.edit[0]),
        }
        print(f"{k.name}: {target.group(1)} {k.verdict} witness {groups}")
    (HERE / "manifest.json").write_text(json.dumps(dict(sorted(manifest.items())), indent=1) + "\n")


if __name__ == "__main__":
    build(sys.argv[1:])
