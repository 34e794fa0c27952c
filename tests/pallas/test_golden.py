"""The golden modules: `sh tests/pallas/run_emit.sh ATHENE` must find every example's emitted
module equal to tests/pallas/golden/FILE.py (`--update` regenerates them; review the diff)."""
import os
import subprocess

import athene_lib as A


def test_emitted_modules_match_their_golden_files():
    athene = os.environ.get("ATHENE", os.path.join(A.ROOT, "build", "athene"))
    r = subprocess.run(["sh", "tests/pallas/run_emit.sh", athene], cwd=A.ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]


def test_pallas_gpu_names_the_kernels_it_leaves_out():
    """--target pallas-gpu: a kernel whose plan does not fit Triton is left out, with its reason in
    the module and on stderr; naming it with --kernel is an error."""
    athene = os.environ.get("ATHENE", os.path.join(A.ROOT, "build", "athene"))
    reduce_ath = os.path.join(A.EXAMPLES, "reduce.ath")
    r = subprocess.run([athene, "emit", reduce_ath, "--target", "pallas-gpu"], capture_output=True, text=True,
                       timeout=60)
    why = "prod_strided_f64: not emitted for pallas-gpu: a product reduction"
    assert r.returncode == 0 and why in r.stderr and "# ---- kernel " + why in r.stdout, r.stderr
    assert "def argmax_strided_pure(" in r.stdout and "pltriton.CompilerParams()" in r.stdout
    r = subprocess.run([athene, "emit", reduce_ath, "--target", "pallas-gpu", "--kernel", "prod_strided_f64"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "error: " + why in r.stderr, r.stderr
