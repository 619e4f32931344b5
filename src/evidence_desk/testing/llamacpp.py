"""A real llama.cpp server on 127.0.0.1, for the real-server test and benchmark.

`scripts/llamacpp-server` installs llama-cpp-python's server (built from source) and the
SmolLM2-135M-Instruct GGUF file into the project's cache; `installed()` finds them and
`serve()` runs the server for the length of a `with` block, the way an operator would:

    python -m llama_cpp.server --model SmolLM2-135M-Instruct.Q4_1.gguf --model_alias smollm2 \\
        --chat_format chatml-function-calling --n_ctx 8192 --host 127.0.0.1 --port PORT

`--model_alias` makes `/v1/models` list the model by the name the engine uses (it lists the
file path otherwise), and the `chatml-function-calling` format constrains a named tool
call's arguments to the tool's JSON schema. The desk's engine for it is
`llamacpp:smollm2@<base URL>`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
ALIAS = "smollm2"
SETUP = "scripts/llamacpp-server"


def default_dir() -> Path:
    """Where `scripts/llamacpp-server` installs (`EVIDENCE_DESK_LLAMACPP_DIR` overrides)."""
    named = os.environ.get("EVIDENCE_DESK_LLAMACPP_DIR")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "evidence-desk" / "llamacpp"


@dataclass(frozen=True)
class Installed:
    python: Path  # the server's own interpreter, with llama_cpp installed
    model: Path  # the GGUF file


def installed(folder: Path | None = None) -> Installed | None:
    """The installed server and model, or None when `scripts/llamacpp-server` has not run."""
    root = folder or default_dir()
    python, model = root / "venv" / "bin" / "python", root / GGUF
    if not (python.exists() and model.is_file()):
        return None
    probe = subprocess.run(
        [str(python), "-c", "import llama_cpp.server"], capture_output=True, check=False
    )
    return Installed(python, model) if probe.returncode == 0 else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:
    """In the server's process: end when the process that started it ends, even by a
    signal that leaves no time to clean up (Linux `PR_SET_PDEATHSIG`; elsewhere nothing)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _listed(base_url: str) -> list[str]:
    with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
        return [m["id"] for m in json.load(response)["data"]]


@contextmanager
def serve(
    server: Installed,
    *,
    n_ctx: int = 8192,
    threads: int | None = None,
    startup_seconds: float = 120.0,
    log: Path | None = None,
) -> Iterator[str]:
    """Run the server; yields its base URL (`http://127.0.0.1:PORT/v1`). Its output goes
    to `log` (else nowhere); it is stopped, and killed if it will not stop, on exit."""
    port = _free_port()
    command = [
        str(server.python),
        "-m",
        "llama_cpp.server",
        "--model",
        str(server.model),
        "--model_alias",
        ALIAS,
        "--chat_format",
        "chatml-function-calling",
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        str(threads or os.cpu_count() or 1),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    out = log.open("ab") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(
        command, stdout=out, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + startup_seconds
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"The llama.cpp server exited with {process.returncode} before it listened"
                    + (f"; see {log}" if log else "")
                )
            try:
                if ALIAS in _listed(base_url):
                    break
            except (OSError, urllib.error.URLError, ValueError, KeyError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"The llama.cpp server did not listen in {startup_seconds} s")
            time.sleep(0.25)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log is not None and hasattr(out, "close"):
            out.close()
