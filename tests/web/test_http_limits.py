"""The desk as `vram serve` runs it, against hostile HTTP on loopback.

A 1 MB request line or header, garbage instead of HTTP, a header that is not UTF-8, and a
flood of idle sockets past the open-file limit: every refusal is JSON, other requests keep
being answered meanwhile, idle connections are closed after the timeout, and the log stays
small. The server is a real subprocess so the open-file limit can be the usual 1,024.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "limits-token-0123456789abcdef"
RUN = (
    "import sys; from bot.settings import load_settings; from bot.web.app import run; "
    "sys.exit(run(load_settings()))"
)
IDLE_S = 2.0
FLOOD_IDLE_S = 10.0
CLIENT_TIMEOUT_S = 10.0  # generous: a request stuck behind a hostile one would hit it
MB = 1024 * 1024


@dataclass
class Desk:
    port: int
    proc: subprocess.Popen[bytes]
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def raw(
    port: int, request: bytes, timeout: float = CLIENT_TIMEOUT_S
) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are; read the whole response (the desk closes after an error)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        received = bytearray()
        done = threading.Event()

        def reader() -> None:
            try:
                while chunk := sock.recv(65536):
                    received.extend(chunk)
            except OSError:
                pass
            done.set()

        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        try:
            for i in range(0, len(request), 65536):
                sock.sendall(request[i : i + 65536])
        except OSError:
            pass  # the desk stopped reading after the limit: its answer is what counts
        if not done.wait(timeout):
            sock.shutdown(socket.SHUT_WR)
        thread.join(timeout)
    head, _, body = bytes(received).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith("HTTP/1."), f"no HTTP response: {bytes(received)[:200]!r}"
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def get(port: int, path: str, headers: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    head = b"GET " + path.encode() + b" HTTP/1.1\r\nHost: desk\r\nConnection: close\r\n"
    return raw(port, head + headers + b"\r\n")


def start_desk(tmp_path: Path, nofile: int | None = None, **env: str) -> Desk:
    port = free_port()
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("VRAMCHAT_", "TELEGRAM_", "DISCORD_"))
    }
    environ.update(
        PYTHONPATH=str(ROOT),
        VRAMCHAT_HOST="127.0.0.1",
        VRAMCHAT_PORT=str(port),
    )
    environ.setdefault("VRAMCHAT_HTTP_IDLE_TIMEOUT_S", str(IDLE_S))
    environ.update(env)

    def limit_files() -> None:
        if nofile is not None:
            _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))

    log = tmp_path / f"desk-{port}.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-c", RUN],
            env=environ,
            cwd=tmp_path,
            stdout=sink,
            stderr=subprocess.STDOUT,
            preexec_fn=limit_files,
        )
    desk = Desk(port, proc, log)
    deadline = time.monotonic() + 30
    while True:
        try:
            if get(port, "/healthz")[0] == 200:
                return desk
        except (OSError, AssertionError):
            pass
        assert proc.poll() is None, desk.log_text()
        assert time.monotonic() < deadline, "the desk did not start"
        time.sleep(0.1)


def stop_desk(desk: Desk) -> None:
    desk.proc.terminate()
    try:
        desk.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        desk.proc.kill()
        desk.proc.wait()


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Desk]:
    running = start_desk(tmp_path_factory.mktemp("desk"), VRAMCHAT_API_TOKEN=TOKEN)
    yield running
    stop_desk(running)


def error_of(status: int, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    assert headers.get("content-type", "").startswith("application/json"), (status, headers, body)
    parsed = json.loads(body)
    assert set(parsed) == {"error"} and parsed["error"]["code"] and parsed["error"]["message"]
    error: dict[str, Any] = parsed["error"]
    return error


HOSTILE: dict[str, tuple[bytes, int]] = {
    "1 MB request line": (
        b"GET /v1/ask?q=" + b"a" * MB + b" HTTP/1.1\r\nHost: desk\r\n\r\n",
        414,
    ),
    "1 MB header": (
        b"GET /healthz HTTP/1.1\r\nHost: desk\r\nX-Big: " + b"a" * MB + b"\r\n\r\n",
        431,
    ),
    "garbage request line": (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400),
    "bad header line": (b"GET /healthz HTTP/1.1\r\nHost desk\r\n\r\n", 400),
}


@pytest.mark.parametrize("case", list(HOSTILE), ids=str)
def test_malformed_http_is_refused_as_json_while_others_are_answered(desk: Desk, case: str) -> None:
    request, status = HOSTILE[case]
    result: dict[str, Any] = {}

    def hostile() -> None:
        result["response"] = raw(desk.port, request)

    sender = threading.Thread(target=hostile)
    sender.start()
    # answered while the big request is still arriving (or being refused)
    code, headers, body = get(desk.port, "/healthz")
    assert code == 200 and json.loads(body)["status"] == "ok"
    sender.join(CLIENT_TIMEOUT_S * 2)
    assert "response" in result, "the hostile request got no answer"
    got, headers, body = result["response"]
    assert got == status
    error = error_of(got, headers, body)
    assert "aaaa" not in error["message"]  # the request is never echoed back
    assert headers.get("x-content-type-options") == "nosniff"
    assert desk.proc.poll() is None


def test_a_request_that_never_finishes_its_headers_is_closed_after_the_timeout(
    desk: Desk,
) -> None:
    with socket.create_connection(("127.0.0.1", desk.port), timeout=CLIENT_TIMEOUT_S) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: desk\r\nX-Slow: ")
        for _ in range(int(IDLE_S * 4)):  # a byte at a time, slower than anyone real
            try:
                sock.sendall(b"a")
            except OSError:
                break
            time.sleep(0.5)
        try:
            rest = sock.recv(65536)  # a socket timeout here means the desk kept waiting
        except ConnectionResetError:
            rest = b""
    assert rest == b"" or rest.startswith(b"HTTP/1.1 4")
    assert get(desk.port, "/healthz")[0] == 200


@pytest.mark.parametrize(
    "value",
    [b"Bearer \xff\xfe\xfd", b"Bearer " + TOKEN.encode()[:-1] + b"\xe9", b"\xc3\x28"],
    ids=["latin-1 bytes", "token with a latin-1 tail", "broken utf-8 scheme"],
)
def test_non_utf8_authorization_is_401_json(desk: Desk, value: bytes) -> None:
    code, headers, body = get(desk.port, "/v1/cards", b"Authorization: " + value + b"\r\n")
    assert code == 401
    assert error_of(code, headers, body)["code"] == "unauthorized"
    auth = b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"
    assert get(desk.port, "/v1/cards", auth)[0] == 200


def test_idle_sockets_past_the_file_limit_neither_block_the_desk_nor_flood_the_log(
    tmp_path: Path,
) -> None:
    """1,100 silent sockets against a desk limited to 1,024 open files."""
    # idle long enough that the flood outlives the timeout: the cap has to do the work
    desk = start_desk(tmp_path, nofile=1024, VRAMCHAT_HTTP_IDLE_TIMEOUT_S=str(FLOOD_IDLE_S))
    idle: list[socket.socket] = []
    try:
        for _ in range(1100):
            idle.append(socket.create_connection(("127.0.0.1", desk.port), timeout=5))
        code, _, body = get(desk.port, "/healthz")
        assert code == 200 and json.loads(body)["status"] == "ok"
        # every idle socket is closed by the desk: at once past the cap, the rest on timeout
        deadline = time.monotonic() + FLOOD_IDLE_S + 3 * CLIENT_TIMEOUT_S
        for sock in idle:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            with contextlib.suppress(ConnectionResetError):
                assert sock.recv(1) == b""
        assert get(desk.port, "/healthz")[0] == 200
    finally:
        for sock in idle:
            sock.close()
        stop_desk(desk)
    text = desk.log_text()
    assert desk.log.stat().st_size < 64 * 1024, text[-2000:]
    assert "Too many open files" not in text and "Traceback" not in text
    assert "connection cap of" in text


def test_systemd_units_leave_room_for_the_connection_cap() -> None:
    """Under the default 1,024 files the cap would shrink to a few hundred connections."""
    from bot.settings import Settings
    from bot.web.app import FD_RESERVE

    wanted = Settings(_env_file=None).vramchat_http_max_connections + FD_RESERVE
    units = sorted((ROOT / "deploy" / "systemd").glob("*.service"))
    assert units
    for unit in units:
        values = [
            line.split("=", 1)[1].strip()
            for line in unit.read_text(encoding="utf-8").splitlines()
            if line.startswith("LimitNOFILE=")
        ]
        assert len(values) == 1 and int(values[0]) >= wanted, unit.name
