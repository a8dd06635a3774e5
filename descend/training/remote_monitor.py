"""``RemoteMonitor`` (as Keras' ``keras.callbacks.RemoteMonitor``): posts each epoch's logs to a server.

At the end of every epoch it sends ``{"epoch": epoch, **logs}`` (NumPy scalars and arrays as Python numbers and
lists) by HTTP POST to ``root + path``: as a form field ``field=<that dict as JSON>``
(``application/x-www-form-urlencoded``, Keras' default) or, with ``send_as_json=True``, as a JSON body. The
request uses the standard library (Keras uses ``requests``). A server that cannot be reached, or that answers
with an error status, gives a warning and training goes on, as Keras.

Example:
    >>> import descend as ds
    >>> monitor = ds.callbacks.RemoteMonitor(root="http://localhost:9000", send_as_json=True)
    >>> monitor.root + monitor.path
    'http://localhost:9000/publish/epoch/end/'
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import warnings

import numpy as np

from .callbacks import Callback

__all__ = ["RemoteMonitor"]


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.item() if value.size == 1 else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if hasattr(value, "numpy") and callable(value.numpy):
        return _plain(np.asarray(value.numpy()))
    return value


class RemoteMonitor(Callback):
    """Streams the end-of-epoch logs to a server.

    Args:
        root: the server's root URL (``http://`` or ``https://``; default ``"http://localhost:9000"``).
        path: the path appended to ``root`` (default ``"/publish/epoch/end/"``).
        field: the form field that holds the JSON data (default ``"data"``; unused with ``send_as_json``).
        headers: a dict of extra HTTP headers, or None.
        send_as_json: send the logs as a JSON body instead of a form field.
        timeout: seconds to wait for the server (descend's addition; default 10).
    """

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/", field="data", headers=None,
                 send_as_json=False, timeout=10.0):
        super().__init__()
        for what, value in (("root", root), ("path", path), ("field", field)):
            if not isinstance(value, str):
                raise TypeError(f"RemoteMonitor: `{what}` must be a string. Received: {what}={value!r}")
        if urllib.parse.urlsplit(root).scheme not in ("http", "https"):
            raise ValueError(f"RemoteMonitor: `root` must be an http:// or https:// URL. Received: root={root!r}")
        if headers is not None and (not isinstance(headers, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in headers.items())):
            raise TypeError(f"RemoteMonitor: `headers` must be None or a dict of strings. Received: "
                            f"headers={headers!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"RemoteMonitor: `timeout` must be a positive number. Received: timeout={timeout!r}")
        self.root, self.path, self.field = root, path, field
        self.headers = headers
        self.send_as_json = bool(send_as_json)
        self.timeout = float(timeout)

    def payload(self, epoch, logs=None) -> dict:
        """The dict sent for ``epoch``: ``{"epoch": epoch, **logs}`` with plain Python values."""
        send = {"epoch": epoch}
        for key, value in (logs or {}).items():
            send[key] = _plain(value)
        return send

    def on_epoch_end(self, epoch, logs=None):
        send = self.payload(epoch, logs)
        headers = dict(self.headers or {})
        if self.send_as_json:
            body = json.dumps(send).encode("utf-8")
            headers.setdefault("Content-Type", "application/json")
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode("utf-8")
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        request = urllib.request.Request(self.root + self.path, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 - http(s) only
                response.read()
        except (urllib.error.URLError, OSError, ValueError) as err:
            warnings.warn(f"Could not reach RemoteMonitor root server at {self.root} ({err})", stacklevel=2)
