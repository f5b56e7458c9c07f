"""A bot killed with ``kill -9`` leaves no search worker behind (issue: run it like a
service): each worker ends itself once its parent is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

PARENT = """
import os, sys, time
from kolkhoz_tg.bot.thinking import process_pool
pool = process_pool(2)
pids = {pool.submit(os.getpid).result() for _ in range(8)}
print(" ".join(map(str, sorted(pids))), flush=True)
time.sleep(120)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (dead, not yet reaped by its new parent) counts as gone
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc (Linux)")
def test_search_workers_die_with_a_killed_bot() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    workers: list[int] = []
    try:
        assert parent.stdout is not None
        workers = [int(p) for p in parent.stdout.readline().split()]
        assert workers and all(alive(w) for w in workers)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 10
        while any(alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(alive(w) for w in workers), "orphaned search workers"
    finally:
        parent.kill()
        parent.wait(10)
        for w in workers:  # (a failure leaves none behind either)
            if alive(w):
                os.kill(w, signal.SIGKILL)
