"""What listens where: the bots' metrics endpoint stays on loopback unless configured."""

from __future__ import annotations

import socket
import urllib.request
from wsgiref.simple_server import WSGIServer

import pytest

from bot import metrics
from bot.settings import Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def stop(server: WSGIServer) -> None:
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    ("env", "expected"), [({}, "127.0.0.1"), ({"VRAMCHAT_METRICS_HOST": "0.0.0.0"}, "0.0.0.0")]
)
def test_metrics_server_binds_loopback_unless_configured(
    env: dict[str, str], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None, vramchat_metrics_port=free_port())
    assert settings.vramchat_metrics_port is not None
    server = metrics.start_server(settings.vramchat_metrics_port, settings.vramchat_metrics_host)
    assert server is not None
    try:
        host, port = server.server_address[:2]
        assert (host, port) == (expected, settings.vramchat_metrics_port)
        url = f"http://127.0.0.1:{port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as resp:
            assert b"vramchat_questions_total" in resp.read()
    finally:
        stop(server)


def test_a_busy_metrics_port_is_logged_not_fatal(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert metrics.start_server(port) is None
    assert any("metrics server not started" in r.getMessage() for r in caplog.records)
