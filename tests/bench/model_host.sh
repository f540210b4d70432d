#!/usr/bin/env bash
# The engine model's speed on the host beside numpy's float32 matmul of the same shape, measured
# in the same run (make bench runs it after the target's figures). A measurement, not a test.
# Usage: tests/bench/model_host.sh ANEFW_TOOL [PYTHON]
set -eu
tool=$1
py=${2:-/usr/bin/python3}
"$tool" bench-model --repeat 5
# numpy with the machine's OpenBLAS tuning variables unset (issue 13: they skew the figure)
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$py" - <<'PY'
import time
import numpy as np
a = np.ones((512, 512), np.float32)
b = np.ones((512, 64), np.float32)
best = 1e30
for _ in range(20):
    t = time.perf_counter()
    a @ b
    best = min(best, time.perf_counter() - t)
print("numpy float32 matmul 512x512 by 512x64: %d MACs, best %.6f s, %.3g MAC/s"
      % (512 * 512 * 64, best, 512 * 512 * 64 / best))
PY
