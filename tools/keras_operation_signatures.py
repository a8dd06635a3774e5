"""One-off helper (issue 37): print, per family of ``keras.src.ops``, each Operation subclass Keras defines with the
function that builds it and the parameter names its ``__init__`` takes (besides ``name``), as Python rows for
``descend/keras/operations/_tables.py``. The committed table is reviewed data; this tool only drafts it.

Usage: python tools/keras_operation_signatures.py   (needs Keras 3 installed)
"""

from __future__ import annotations

import inspect
import re


def _rows(family: str):
    import importlib

    from keras.src.ops.operation import Operation

    module = importlib.import_module(f"keras.src.ops.{family}")
    source = inspect.getsource(module)
    for cls_name, cls in sorted(vars(module).items()):
        if not (inspect.isclass(cls) and issubclass(cls, Operation) and cls.__module__ == module.__name__):
            continue
        # the public function whose body builds the class: `return ClassName(...)`
        fn = None
        for m in re.finditer(r"^def (\w+)\(", source, re.M):
            body = source[m.end():source.find("\ndef ", m.end()) if "\ndef " in source[m.end():] else None]
            body = body.split("\nclass ")[0]
            if re.search(rf"\b{cls_name}\(", body) and not m.group(1).startswith("_"):
                fn = m.group(1)
                break
        init = [p for p in inspect.signature(cls.__init__).parameters.values()
                if p.name not in ("self", "name") and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
        call = [("*" if p.kind == p.VAR_POSITIONAL else "") + p.name
                for p in inspect.signature(cls.call).parameters.values()
                if p.name != "self" and p.kind != p.VAR_KEYWORD]
        yield cls_name, fn, tuple(p.name for p in init), tuple(call)


if __name__ == "__main__":
    for family in ("core", "image", "linalg", "math", "nn", "numpy"):
        print(f"# {family}")
        for row in _rows(family):
            print(f"    {row!r},")
