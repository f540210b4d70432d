# Seed directory for fuzz_npy: a few arrays as numpy writes them (float16, int8, uint8; 0-d, 1-D,
# 3-D; versions 1.0 and 2.0), written under $BUILD/fuzz-seeds/fuzz_npy.
out="${BUILD:-build}/fuzz-seeds/fuzz_npy"
mkdir -p "$out" || exit 0
"${PYTHON:-/usr/bin/python3}" - "$out" <<'PY' 2>/dev/null
import sys, numpy as np
from numpy.lib import format as fmt
d = sys.argv[1]
np.save(d + "/f16_3d.npy", np.arange(24, dtype=np.float16).reshape(2, 3, 4))
np.save(d + "/i8_1d.npy", np.arange(-5, 5, dtype=np.int8))
np.save(d + "/u8_0d.npy", np.array(7, dtype=np.uint8))
with open(d + "/f16_v2.npy", "wb") as f:
    fmt.write_array(f, np.ones((1, 1, 77), np.float16), version=(2, 0))
PY
echo "$out"
exit 0
