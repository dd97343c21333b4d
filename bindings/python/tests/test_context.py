"""Contexts (the threads a call runs on) from Python, and what a host does to a library with
threads: a forked child's first calls, with the fork start method of multiprocessing.
Expected values are numpy's."""
import multiprocessing as mp

import numpy as np
import pytest

import bcast

# 3 MiB of output: split across threads on any team.
X = np.arange(64 * 112 * 112, dtype=np.float32).reshape(1, 64, 112, 112) / 7
S = np.linspace(-2, 2, 64, dtype=np.float32).reshape(1, 64, 1, 1)


@pytest.mark.parametrize("threads", [0, 1, 2, 3])
def test_every_context_gives_numpys_result(threads):
    ctx = bcast.Context(threads=threads)
    assert ctx.threads == threads
    assert np.array_equal(bcast.multiply(X, S, context=ctx), X * S)
    out = np.empty_like(X)
    assert bcast.subtract(X, S, out, context=ctx) is out
    assert np.array_equal(out, X - S)
    assert np.array_equal(bcast.sum(X, S, S, context=ctx), X + S + S)
    assert np.array_equal(bcast.broadcast(S, X.shape, context=ctx), np.broadcast_to(S, X.shape))
    assert np.array_equal(bcast.evaluate("x * s + s", x=X, s=S, context=ctx), X * S + S)


def test_a_team_that_parks_at_once():
    ctx = bcast.Context(threads=2, spin_us=0)
    for _ in range(3):
        assert np.array_equal(bcast.add(X, S, context=ctx), X + S)


def test_context_is_a_keyword_and_checked():
    with pytest.raises(TypeError):
        bcast.add(X, S, context="two threads")
    with pytest.raises(TypeError):
        bcast.evaluate("context + 1", context=np.float32(1))


def _child(queue):
    # The parent's team threads do not exist here: the calls must still run, and be right.
    y = bcast.multiply(X, S)
    z = bcast.add(X, S, context=_PARENT_CTX)
    queue.put(bool(np.array_equal(y, X * S) and np.array_equal(z, X + S)))


_PARENT_CTX = None


def test_a_forked_childs_first_calls_work():
    global _PARENT_CTX
    _PARENT_CTX = bcast.Context(threads=2)
    # The parent starts both teams (the default one and the context's) before it forks.
    assert np.array_equal(bcast.multiply(X, S), X * S)
    assert np.array_equal(bcast.add(X, S, context=_PARENT_CTX), X + S)
    fork = mp.get_context("fork")
    queue = fork.Queue()
    child = fork.Process(target=_child, args=(queue,))
    child.start()
    child.join(60)
    assert child.exitcode == 0, "the child hung or crashed"
    assert queue.get(timeout=5) is True
