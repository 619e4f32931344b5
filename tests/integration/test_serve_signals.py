"""`evidence-desk serve` in a real process, stopped the way a terminal stops it: SIGINT to
its whole process group (Ctrl-C), its embedding workers included.

It must exit 0 with one line, `Stopped.`, and no traceback or click's "Aborted!"; stopped
while it prepares the sample, its worker processes end with it and the archive is left as
it was: no document, no mark of an unfinished preparation.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from evidence_desk.store.sqlite import ArchiveStore

EXE = Path(sys.executable).with_name("evidence-desk")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start(
    home: Path, cache: Path, port: int, *args: str, workers: int = 1
) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "EVIDENCE_DESK_CACHE_DIR": str(cache),
        "EVIDENCE_DESK_EMBED_WORKERS": str(workers),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    command = [str(EXE), "--data-dir", str(home), "serve", "--port", str(port), *args]
    return subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )


def get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
        return json.loads(r.read())


def until(child: subprocess.Popen[str], port: int, path: str, ok: Any, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert child.poll() is None, child.communicate()[1]
        try:
            body = get(port, path)
        except OSError:
            body = None
        if body is not None and ok(body):
            return body
        time.sleep(0.2)
    child.kill()
    raise AssertionError(f"{path} never answered as expected: {child.communicate()[1][-3000:]}")


def descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for kid in children.get(todo.pop(), []):
            found.add(kid)
            todo.append(kid)
    return found


def interrupt(child: subprocess.Popen[str]) -> tuple[int, str]:
    os.killpg(child.pid, signal.SIGINT)
    try:
        _, stderr = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        raise
    return child.returncode, stderr


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_ctrl_c_stops_a_serving_desk_cleanly(fresh_home: Path, embedding_cache: Path) -> None:
    port = free_port()
    child = start(fresh_home, embedding_cache, port)
    until(child, port, "/healthz", lambda b: b["ok"], timeout=120)
    code, stderr = interrupt(child)
    assert code == 0, stderr
    assert stderr.rstrip().endswith("Stopped.")
    assert "Traceback" not in stderr and "Aborted" not in stderr
    assert f"at http://127.0.0.1:{port}/" in stderr


@pytest.mark.slow
def test_ctrl_c_while_preparing_ends_its_workers_and_stores_nothing(
    built_home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    """The whole sample on an empty data directory, two embedding workers; Ctrl-C once
    passages are coming back from them."""
    cache = tmp_path / "cache"
    shutil.copytree(embedding_cache / "models", cache / "models")  # the model, built once
    home = tmp_path / "home"
    port = free_port()
    child = start(home, cache, port, "--sample", "sotu", workers=2)
    body = until(
        child,
        port,
        "/api/preparing",
        lambda b: b["stage"] == "embedding" and b["done"] > 0,
        timeout=240,
    )
    assert body["ready"] is False and body["total"] > 10_000
    spawned = descendants(child.pid)
    assert len(spawned) >= 2  # the embedding workers (and multiprocessing's tracker)
    code, stderr = interrupt(child)
    assert code == 0, stderr[-3000:]
    assert stderr.rstrip().endswith("Stopped.")
    assert "Traceback" not in stderr and "Aborted" not in stderr
    assert "Serving at http://127.0.0.1:" in stderr
    assert "preparing the sotu sample archive in the background" in stderr
    deadline = time.monotonic() + 10
    while any(alive(p) for p in spawned) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in spawned if alive(p)], "worker processes outlived the server"
    with ArchiveStore(home / "archive.sqlite3") as store:
        assert store.count_documents() == 0 and store.count_passages() == 0
        assert not store.get_meta("preparing")
