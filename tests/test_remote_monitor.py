"""``RemoteMonitor``: what it posts (form field or JSON, headers) to a local HTTP server during ``fit``, a server
that cannot be reached gives a warning only, and refusals. Not a layer or op: nothing to compare numerically."""

import json
import threading
import urllib.parse
import warnings
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

import descend as ds


class _Recorder(BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):  # noqa: N802 - the http.server name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((self.path, dict(self.headers), body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Recorder.received = []
    httpd = HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", _Recorder.received
    httpd.shutdown()
    httpd.server_close()


def _fit(callback, epochs=2):
    model = ds.Sequential([ds.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((4, 2), np.float32)
    model.fit(x, x[:, :1], epochs=epochs, verbose=0, callbacks=[callback])


def test_posts_each_epoch_as_a_form_field(server):
    root, received = server
    _fit(ds.callbacks.RemoteMonitor(root=root, path="/epochs", field="payload", headers={"X-Run": "7"}))
    assert len(received) == 2
    for epoch, (path, headers, body) in enumerate(received):
        assert path == "/epochs" and headers["X-Run"] == "7"
        form = urllib.parse.parse_qs(body.decode())
        sent = json.loads(form["payload"][0])
        assert sent["epoch"] == epoch and isinstance(sent["loss"], float)


def test_posts_json_when_asked(server):
    root, received = server
    monitor = ds.callbacks.RemoteMonitor(root=root, send_as_json=True)
    monitor.on_epoch_end(3, {"loss": np.float32(0.5), "acc": np.array(0.25), "vec": np.array([1, 2])})
    path, headers, body = received[0]
    assert path == "/publish/epoch/end/" and headers["Content-Type"] == "application/json"
    assert json.loads(body) == {"epoch": 3, "loss": 0.5, "acc": 0.25, "vec": [1, 2]}


def test_an_unreachable_server_warns_and_training_goes_on():
    monitor = ds.callbacks.RemoteMonitor(root="http://127.0.0.1:9", timeout=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _fit(monitor, epochs=1)
    assert any("Could not reach RemoteMonitor root server" in str(w.message) for w in caught)


@pytest.mark.parametrize("kwargs, error", [(dict(root="ftp://x"), ValueError), (dict(root=3), TypeError),
                                           (dict(headers={"a": 1}), TypeError), (dict(timeout=0), ValueError),
                                           (dict(field=None), TypeError)])
def test_bad_arguments_are_refused(kwargs, error):
    with pytest.raises(error):
        ds.callbacks.RemoteMonitor(**kwargs)


def test_same_arguments_as_keras():
    keras = pytest.importorskip("keras")
    import inspect

    theirs = set(inspect.signature(keras.callbacks.RemoteMonitor).parameters)
    assert theirs <= set(inspect.signature(ds.callbacks.RemoteMonitor).parameters)
