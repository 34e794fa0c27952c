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


def test_pallas_gpu_module_from_the_command_line():
    """--target pallas-gpu: Triton's compiler params, no TPU module; a statement Triton cannot
    lower runs in XLA and says why."""
    athene = os.environ.get("ATHENE", os.path.join(A.ROOT, "build", "athene"))
    r = subprocess.run([athene, "emit", os.path.join(A.EXAMPLES, "reduce.ath"), "--target", "pallas-gpu"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "not emitted" not in r.stdout + r.stderr, r.stderr
    assert "def argmax_strided_pure(" in r.stdout and "pltriton.CompilerParams()" in r.stdout
    assert "pltpu" not in r.stdout and "(target pallas-gpu)" in r.stdout
    assert "# in XLA: a product reduction: Pallas's Triton lowering has no reduce_prod" in r.stdout
