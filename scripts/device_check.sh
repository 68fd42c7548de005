#!/usr/bin/env bash
# The GPU check, run from the repository root on a machine with CuPy and an NVIDIA GPU (docs/DEVELOPING.md,
# "The device check"). Prepared where Triton is installed:
#   python -m ptxkit.corpus.gpubundle pack .gpu/bundle --seeds 0-199 --matrix && tar czf .gpu/bundle.tgz -C .gpu bundle
#   mkdir -p .gpu/shared/corpora/ptx && cp -r ../shared/corpora/ptx/triton_fpsan .gpu/shared/corpora/ptx/
# Wheels under .whl/ (lark, where the machine lacks it) are installed to /tmp/site first.
# Writes the logs and JSON rows to $OUT (default /tmp/device_check).
set -u
OUT=${OUT:-/tmp/device_check}
mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 CUDA_CACHE_MAXSIZE=4294967296
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        && export PYTHONPATH=/tmp/site:$PWD || exit 1
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'driver', cupy.cuda.runtime.driverGetVersion(), 'numpy', numpy.__version__)" | tee -a "$OUT/gpu.txt"
rc=0
if [ -f .gpu/bundle.tgz ]; then
    rm -rf /tmp/bundle && tar xzf .gpu/bundle.tgz -C /tmp
    t=$SECONDS
    python3 -m ptxkit.corpus.gpubundle check /tmp/bundle --jobs 12 --json "$OUT/gpubundle.json" 2>&1 \
        | tee "$OUT/gpubundle.log"
    rc=$((rc | PIPESTATUS[0]))
    echo "gpubundle: $((SECONDS - t)) s" | tee -a "$OUT/gpubundle.log"
fi
t=$SECONDS  # one-instruction probes: the bits come back to $OUT/probe (gpuprobe compare there, docs/DEVELOPING.md)
python3 -m ptxkit.corpus.gpuprobe gpu "$OUT/probe" --integer --jobs 14 2>&1 | tee "$OUT/gpuprobe.log"
rc=$((rc | PIPESTATUS[0]))
echo "gpuprobe: $((SECONDS - t)) s" | tee -a "$OUT/gpuprobe.log"
if [ -d .gpu/shared ]; then
    t=$SECONDS
    python3 -m ptxkit.corpus.gpucheck .gpu/shared --json "$OUT/gpucheck.json" 2>&1 | tee "$OUT/gpucheck.log"
    rc=$((rc | PIPESTATUS[0]))
    echo "gpucheck: $((SECONDS - t)) s" | tee -a "$OUT/gpucheck.log"
    PTXKIT_SHARED=$PWD/.gpu/shared python3 -m pytest -q -p no:cacheprovider -k gpu tests/test_sim_gpu.py \
        tests/test_sim_cli.py 2>&1 | tee "$OUT/pytest.log"
    rc=$((rc | PIPESTATUS[0]))
fi
echo "device_check: exit $rc"
exit $rc
