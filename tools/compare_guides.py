"""Run the ported guides (examples/ported/, those listed in tests/test_ported_guides.py) under descend and under
TensorFlow/Keras with the harness of tests/guide_harness.py, print how far apart their numbers are, and with
``--update`` store TensorFlow's numbers as the references tests/test_ported_guides.py compares descend with.

    python tools/compare_guides.py [--update] [GUIDE ...]

TensorFlow and Keras must be installed; each guide takes about a minute under TensorFlow.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import test_ported_guides as T  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("guides", nargs="*", help="guide names (default: all)")
    parser.add_argument("--update", action="store_true", help="write tests/golden/ported/<guide>.json")
    args = parser.parse_args(argv)
    names = args.guides or list(T.GUIDES)
    unknown = sorted(set(names) - set(T.GUIDES))
    if unknown:
        parser.error(f"unknown guides {unknown}; known: {sorted(T.GUIDES)}")
    import keras
    import tensorflow as tf

    rows = []
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            ours, drawn = T.run_descend(name, tmp)
            theirs = T.run_tensorflow(name, tmp)
        report = T.compare(name, ours, theirs)
        rows.append((name, report))
        print(f"{name}: {report['values']} values, largest difference {report['worst']:.2e} "
              f"({report['worst_at']}); known differences: {report['known']}")
        if args.update:
            os.makedirs(T.GOLDEN, exist_ok=True)
            with open(os.path.join(T.GOLDEN, f"{name}.json"), "w") as f:
                json.dump({"tensorflow": tf.__version__, "keras": keras.__version__,
                           **({"tf_enable_onednn_opts": 0} if name in T.ONEDNN_OFF else {}), "initial_weights": drawn,
                           "events": theirs}, f)
                f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
