"""The dense gradient exchange's two algorithms (one packed ``Allreduce``; the scattered reduce) on 1 to 5
ranks played by threads: every rank receives the same bits, the sum in rank order, and the caller's
gradients are never written. The same code over MPI is tested in test_distribute_mpi.py."""

from __future__ import annotations

import collections
import threading

import numpy as np
import pytest

from descend.distribute import collectives, comm


class _Hub:
    def __init__(self, n):
        self.n = n
        self.barrier = threading.Barrier(n, timeout=30)
        self.cv = threading.Condition()
        self.box = collections.defaultdict(collections.deque)  # (source, dest, tag) -> messages, in order
        self.slots = [None] * n
        self.calls = collections.Counter()


class ThreadGroup(comm.Group):
    """A rank of a group of threads: messages are copied through a mailbox, collectives through a barrier."""

    def __init__(self, hub, rank):
        self.hub, self.rank, self.size = hub, rank, hub.n

    def _gather(self, value):
        hub = self.hub
        hub.barrier.wait()
        hub.slots[self.rank] = value
        hub.barrier.wait()
        out = list(hub.slots)
        hub.barrier.wait()
        return out

    def sendrecv(self, sends, recvs):
        hub = self.hub
        hub.calls["sendrecv", self.rank] += 1
        with hub.cv:
            for p, t, a in sends:
                assert 0 <= p < self.size and p != self.rank and a.flags.c_contiguous
                hub.box[self.rank, p, t].append(np.array(a, copy=True))
            hub.cv.notify_all()
        for p, t, a in recvs:
            with hub.cv:
                assert hub.cv.wait_for(lambda: hub.box[p, self.rank, t], timeout=30), "a message never came"
                data = hub.box[p, self.rank, t].popleft()
            assert data.dtype == a.dtype and data.size == a.size, (data.shape, a.shape)
            a[...] = data.reshape(a.shape)

    def allgather_parts(self, buf):
        part = buf.size // self.size
        parts = self._gather(buf[self.rank * part:(self.rank + 1) * part].copy())
        for p, x in enumerate(parts):
            buf[p * part:(p + 1) * part] = x

    def allreduce_sum(self, buf):
        self.hub.calls["allreduce", self.rank] += 1
        parts = self._gather(buf.copy())
        total = parts[0].copy()
        for x in parts[1:]:
            total += x
        buf[...] = total

    def allgather_object(self, obj):
        return self._gather(obj)

    def barrier(self):
        self.hub.barrier.wait()


def _run(n, fn):
    """``fn(group)`` on ``n`` threads; their results in rank order (an exception on any is raised here)."""
    hub = _Hub(n)
    results, errors = [None] * n, []

    def work(r):
        try:
            results[r] = fn(ThreadGroup(hub, r))
        except BaseException as e:  # noqa: BLE001 (re-raised below)
            errors.append(e)
            hub.barrier.abort()

    threads = [threading.Thread(target=work, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    if errors:
        raise errors[0]
    return results, hub


def _gradients(rank):
    """Small and large, float32 and float64, a transposed (non-contiguous) one, a read-only one, an empty one
    and a scalar: sizes that do not divide by the number of ranks."""
    rng = np.random.default_rng(rank)
    ro = rng.standard_normal((333, 401)).astype(np.float32)
    ro.setflags(write=False)
    return [rng.standard_normal(7).astype(np.float32), rng.standard_normal((411, 300)).astype(np.float32).T, ro,
            np.array(3.5 + rank, np.float32), rng.standard_normal((200, 171)), rng.standard_normal(5),
            np.zeros((0, 3), np.float32), rng.standard_normal(20011).astype(np.float32)]


def _rank_order_sum(all_grads, k, average):
    total = np.array(all_grads[0][k], copy=True)
    for g in all_grads[1:]:
        total = total + g[k]
    return total / total.dtype.type(len(all_grads)) if average else total


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("scatter_bytes", [0, 1 << 20, 1 << 40])
@pytest.mark.parametrize("average", [False, True])
def test_every_rank_gets_the_rank_order_sum_and_the_inputs_are_untouched(n, scatter_bytes, average):
    names = [f"g{k}" for k in range(8)]

    def rank_fn(group):
        grads = _gradients(group.rank)
        before = [np.array(g, copy=True) for g in grads]
        ex = collectives.GradientExchange(group, scatter_bytes=scatter_bytes)
        out = [ex.exchange(grads, names, average=average, reuse=reuse) for reuse in (False, True, True)]
        out = [[np.array(r, copy=True) for r in o] for o in out]
        assert all(np.array_equal(a, b) for a, b in zip(grads, before))  # read, never written
        return out, ex.stats

    results, hub = _run(n, rank_fn)
    all_grads = [_gradients(r) for r in range(n)]
    for k in range(8):
        want = _rank_order_sum(all_grads, k, average)
        for out, _ in results:
            for res in out:
                assert res[k].shape == want.shape and res[k].dtype == want.dtype
                np.testing.assert_array_equal(res[k], want)
    if n > 1:
        scattered = scatter_bytes <= (1 << 20)
        # the float32 bucket is 1.11 MB and the float64 one 274 kB: 1 MiB scatters the first only
        assert sum(v for (kind, _), v in hub.calls.items() if kind == "sendrecv") == (
            n * 3 * (2 if scatter_bytes == 0 else 1) if scattered else 0)
        assert results[0][1]["collectives"] == 3 * (4 if scatter_bytes == 0 else 3 if scattered else 2)


def test_the_scattered_reduce_sends_the_large_gradients_from_their_own_memory():
    """Only the small gradients are copied before sending; a large one's parts are views of it."""
    seen = []

    class Recording(ThreadGroup):
        def sendrecv(self, sends, recvs):
            seen.extend((self.rank, a) for _, _, a in sends)
            super().sendrecv(sends, recvs)

    grads_of = {r: [np.full(300_000, r + 1.0, np.float32), np.full(10, r + 1.0, np.float32)] for r in range(2)}
    hub = _Hub(2)
    results = [None, None]

    def work(r):
        results[r] = collectives.GradientExchange(Recording(hub, r)).exchange(grads_of[r], ["w", "b"])

    threads = [threading.Thread(target=work, args=(r,)) for r in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for r in range(2):
        np.testing.assert_array_equal(results[r][0], np.full(300_000, 3.0, np.float32))
        np.testing.assert_array_equal(results[r][1], np.full(10, 3.0, np.float32))
    large = [(r, a) for r, a in seen if a.size > 10]
    assert large and all(np.shares_memory(a, grads_of[r][0]) for r, a in large)


def test_reuse_keeps_one_buffer_per_bucket_and_fresh_results_otherwise():
    def rank_fn(group):
        ex = collectives.GradientExchange(group, scatter_bytes=0)
        g = [np.ones(1000) * (group.rank + 1), np.ones(3)]
        a = ex.exchange(g, ["w", "b"], reuse=True)
        b = ex.exchange(g, ["w", "b"], reuse=True)
        c = ex.exchange(g, ["w", "b"])
        d = ex.exchange(g, ["w", "b"])
        return np.shares_memory(a[0], b[0]), np.shares_memory(c[0], d[0]), np.shares_memory(a[0], c[0]), c[0][0]

    results, _ = _run(2, rank_fn)
    assert results == [(True, False, False, 3.0)] * 2


def test_a_gradient_as_large_as_a_bucket_and_many_buckets():
    def rank_fn(group):
        ex = collectives.GradientExchange(group, bucket_bytes=4000, scatter_bytes=2420)
        g = [np.arange(k * 100.0, k * 100.0 + 300 + k) * (group.rank + 1) for k in range(6)] + [np.ones(2000)]
        return [np.array(r) for r in ex.exchange(g, [str(k) for k in range(7)])], ex.stats["collectives"]

    results, hub = _run(3, rank_fn)
    for k in range(6):
        np.testing.assert_array_equal(results[0][0][k], np.arange(k * 100.0, k * 100.0 + 300 + k) * 6)
    np.testing.assert_array_equal(results[2][0][6], np.full(2000, 3.0))
    # every gradient is a bucket of its own (two do not fit in 4000 bytes): the 2400-2416 byte ones take one
    # Allreduce each, the 2424-2440 byte ones and the 16 kB one a scattered reduce (two collectives) each
    assert results[0][1] == 3 * 1 + 3 * 2 + 2


def test_bad_settings_and_a_one_process_group():
    with pytest.raises(ValueError, match=r"`scatter_bytes` must be an integer >= 0. Received: scatter_bytes=-1"):
        collectives.GradientExchange(comm.LocalGroup(), scatter_bytes=-1)
    with pytest.raises(ValueError, match=r"`scatter_bytes` must be an integer >= 0. Received: scatter_bytes=1.5"):
        collectives.GradientExchange(comm.LocalGroup(), scatter_bytes=1.5)
    with pytest.raises(ValueError, match="no other rank"):
        comm.LocalGroup().sendrecv([(1, 0, np.ones(2))], [])
    g = np.ones(3)
    out = collectives.GradientExchange(comm.LocalGroup(), scatter_bytes=0).exchange([g], ["w"])
    assert out[0] is g
