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


def test_pallas_gpu_is_refused_with_its_reason():
    athene = os.environ.get("ATHENE", os.path.join(A.ROOT, "build", "athene"))
    r = subprocess.run([athene, "emit", os.path.join(A.EXAMPLES, "strided.ath"), "--target", "pallas-gpu"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "pallas-gpu is not implemented yet" in r.stderr, r.stderr
