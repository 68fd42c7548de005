"""A ``tl.where`` of a comparison between its own arms that LLVM made a ``max``/``min``
(``ptxkit.fpsan.fold_select_extremum``): ``where(x >= 1e-3, x, 1e-3) * 3.0`` is ``max.f32 d, x, 1e-3``. Triton's FPSan
compares the ring value's float bits natively and selects; sanitizing the op as the ring's max (a signed order of the
payloads) was silent. User-style probes found it on the kernel's own type, on f64 widenings narrowed back (LLVM's
``min.f32``), in a helper whose ``max.f16`` carries the call's location, and two helpers deep, the bound a parameter
of each (``HintsBase.call_arguments`` maps it through every inlined call)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from ptxkit.fpsan_ptx import sanitize_text
from tests.test_fpsan_libdevice import DATA, SPECS, _assert_bit_exact

PAIRS = {"k_where_floor_times_three_f32": "max.f32", "k_where_floor_times_three_f16": "max.f16",
         "k_where_wide_min_narrowed_f32": "min.f32", "k_helper_floor_narrowed_f16": "max.f16",
         "k_nested_helper_floor_f32": "max.f32"}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_llvms_extremum_of_a_where_is_its_native_comparison(name):
    """Bit for bit against Triton's FPSan build, nothing reported."""
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_plain_build_has_the_extremum_and_no_select(name):
    """The shape LLVM gives the where (so the test above is about the fold)."""
    text = (DATA / f"{name}.plain.ptx").read_text()
    assert re.search(rf"^\s*{re.escape(PAIRS[name])}\s", text, re.M)
    assert not re.search(r"^\s*selp\.b(16|32)\s", text, re.M)


def _sanitized(name: str, source: str) -> tuple[str, list]:
    text = (DATA / f"{name}.plain.ptx").read_text()
    m = re.search(r'^\s*\.file\s+\d+\s+"([^"]+)"', text, re.M)
    assert m is not None
    with tempfile.TemporaryDirectory() as root:
        src = Path(root) / Path(m.group(1)).parent.name / Path(m.group(1)).name
        src.parent.mkdir(parents=True)
        src.write_text(source)
        res = sanitize_text(text, f"{name}.plain.ptx", folds=(), source_root=root)
    return res.text, res.report.items


def test_a_tl_maximum_at_the_location_stays_the_rings():
    """The same PTX under ``tl.maximum(x0, 1e-3) * 3.0`` (the call at the where's column) is Triton's ring max: no
    native comparison is replayed."""
    name = "k_where_floor_times_three_f32"
    source = SPECS[name].source.replace("tl.where(x0 >= 1e-3, x0, 1e-3)", "tl.maximum(x0, 1e-3)")
    assert source != SPECS[name].source
    out, items = _sanitized(name, source)
    assert not re.search(r"^\s*setp\.ge\.f32\s", out, re.M)
    assert not any("chooses between" in i.reason for i in items)
    _, items = _sanitized(name, SPECS[name].source)
    assert any("chooses between" in i.reason for i in items)
