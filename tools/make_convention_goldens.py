"""Record PyTorch's and optax's values for the convention cases (``tests/convention_cases.py``).

Run it where torch (2.13) and optax (with jax) are installed, from the repository root::

    PYTHONPATH=. python tools/make_convention_goldens.py      # writes tests/data/convention_goldens.npz

For every case and dtype it runs the reference framework and keeps the variables' values after the
steps in ``GOLDEN_STEPS``; ``tests/test_conventions.py`` compares descend with them (and, where the
frameworks are installed, checks that they still give these values).
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

import convention_cases as cc  # noqa: E402


def main() -> None:
    import optax
    import torch

    out = {}
    for case in cc.CASES:
        for dtype in cc.DTYPES:
            values = cc.run_reference(case, dtype)
            for k in range(len(case.shapes)):
                out[cc.golden_key(case, dtype, k)] = np.stack([values[step][k] for step in cc.GOLDEN_STEPS])
    out["versions/torch"] = np.array(torch.__version__)
    out["versions/optax"] = np.array(optax.__version__)
    os.makedirs(os.path.dirname(cc.GOLDENS), exist_ok=True)
    np.savez_compressed(cc.GOLDENS, **out)
    print(f"{len(out) - 2} arrays from {len(cc.CASES)} cases -> {cc.GOLDENS} "
          f"({os.path.getsize(cc.GOLDENS) // 1024} KiB; torch {torch.__version__}, optax {optax.__version__})")


if __name__ == "__main__":
    main()
