"""The HTTP API over real HTTP on loopback: every route, auth, bad input, limits, metrics."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr

from bot.desk import Desk
from bot.render import format_markdown, format_text
from bot.settings import Settings
from bot.web.app import DESK, MAX_QUERY_CHARS, create_app
from engine import Catalog, ask, load_catalog

TOKEN = "staff-desk-token-0123456789"
QUESTION = "70b int4 128k"

ClientFactory = Callable[..., Any]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture
async def make_client(catalog: Catalog) -> AsyncIterator[ClientFactory]:
    """Start the real app on a free loopback port; ``token`` turns the API token on."""
    clients: list[TestClient[Any, Any]] = []

    async def make(token: str | None = None) -> TestClient[Any, Any]:
        settings = Settings(_env_file=None, vramchat_api_token=SecretStr(token) if token else None)
        desk = Desk(catalog)
        client = TestClient(TestServer(create_app(desk, settings), host="127.0.0.1"))
        await client.start_server()
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.close()


@pytest.fixture
async def client(make_client: ClientFactory) -> TestClient[Any, Any]:
    return await make_client()


def assert_json_error(body: dict[str, Any], code: str) -> None:
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert body["error"]["message"]


def metric_value(text: str, name: str, **labels: str) -> float:
    """One sample from Prometheus text exposition (0 when the series does not exist yet)."""
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line[: line.index("}")]))
        if found == labels:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


# --------------------------------------------------------------------------- /v1/ask


async def test_ask_json_is_the_answer_contract(client: TestClient[Any, Any], catalog: Catalog):
    resp = await client.get("/v1/ask", params={"q": QUESTION, "format": "json"})
    assert resp.status == 200
    assert resp.content_type == "application/json"
    body = await resp.json()
    assert body == ask(QUESTION, catalog=catalog).to_json()
    assert round(body["memory_gb"]["total"], 2) == 79.95
    assert body["recommendation"]["card"] == "A100 SXM"
    assert body["recommendation"]["monthly_usd"] == 990
    assert body["prices_as_of"] == catalog.prices_as_of


async def test_ask_defaults_to_json(client: TestClient[Any, Any], catalog: Catalog):
    resp = await client.get("/v1/ask", params={"q": QUESTION})
    assert await resp.json() == ask(QUESTION, catalog=catalog).to_json()


@pytest.mark.parametrize("math", [False, True])
async def test_ask_markdown_and_text_are_plain_bodies(
    client: TestClient[Any, Any], catalog: Catalog, math: bool
):
    answer = ask(QUESTION, catalog=catalog)
    params = {"q": QUESTION, "math": "1" if math else "0"}
    md = await client.get("/v1/ask", params={**params, "format": "markdown"})
    assert md.status == 200
    assert md.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert await md.text() == format_markdown(answer, catalog, math)
    txt = await client.get("/v1/ask", params={**params, "format": "text"})
    assert txt.headers["Content-Type"] == "text/plain; charset=utf-8"
    text = await txt.text()
    assert text == format_text(answer, catalog, math)
    assert "A100 SXM" in text and "$990" in text
    assert ("```" in await md.text()) is math


async def test_ask_desk_bundle_for_the_staff_page(client: TestClient[Any, Any], catalog: Catalog):
    resp = await client.get("/v1/ask", params={"q": QUESTION, "format": "desk", "lang": "pl"})
    body = await resp.json()
    answer = ask(QUESTION, "pl", catalog=catalog)
    assert body["answer"] == answer.to_json()
    assert body["markdown"] == format_markdown(answer, catalog, False)
    assert body["markdown_math"] == format_markdown(answer, catalog, True)
    assert body["text"] == format_text(answer, catalog, False)
    assert body["text_math"] == format_text(answer, catalog, True)
    assert body["labels"]["prices_as_of"] == f"Ceny na dzień {catalog.prices_as_of}."


async def test_ask_in_polish(client: TestClient[Any, Any], catalog: Catalog):
    resp = await client.get("/v1/ask", params={"q": QUESTION, "lang": "pl", "format": "text"})
    text = await resp.text()
    assert text == format_text(ask(QUESTION, "pl", catalog=catalog), catalog)
    assert "Pamięć" in text and "/mies." in text
    resp = await client.get("/v1/ask", params={"q": QUESTION, "lang": "pl"})
    assert (await resp.json())["lang"] == "pl"


@pytest.mark.parametrize(
    ("params", "why"),
    [
        ({}, "'q'"),
        ({"q": ""}, "'q'"),
        ({"q": "   "}, "'q'"),
        ({"q": QUESTION, "lang": "de"}, "'lang'"),
        ({"q": QUESTION, "format": "html"}, "'format'"),
    ],
)
async def test_bad_input_is_a_json_400(
    client: TestClient[Any, Any], params: dict[str, str], why: str
):
    resp = await client.get("/v1/ask", params=params)
    assert resp.status == 400
    body = await resp.json()
    assert_json_error(body, "bad_request")
    assert why in body["error"]["message"]


async def test_oversized_query_gets_our_json_413(client: TestClient[Any, Any]):
    """10,000 characters is past aiohttp's own 8190-byte line limit: we still answer in JSON."""
    resp = await client.get("/v1/ask", params={"q": "x" * 10_000})
    assert resp.status == 413
    assert resp.content_type == "application/json"
    body = await resp.json()
    assert_json_error(body, "too_large")
    assert "10,000" in body["error"]["message"] and "4,096" in body["error"]["message"]


async def test_longest_allowed_query_in_thai_is_answered(client: TestClient[Any, Any]):
    """4096 Thai characters percent-encode to ~37 KB of request line: still ours to answer."""
    q = "ก" * MAX_QUERY_CHARS
    resp = await client.get("/v1/ask", params={"q": q})
    assert resp.status == 200
    assert (await resp.json())["kind"]


# --------------------------------------------------------------------------- other routes


async def test_cards_are_the_answer_cards(client: TestClient[Any, Any], catalog: Catalog):
    resp = await client.get("/v1/cards")
    assert resp.status == 200
    cards = await resp.json()
    assert cards == [c.model_dump(mode="json") for c in ask("gpus", catalog=catalog).cards]
    assert any(c["name"] == "A100 SXM" and c["monthly_usd"] == 990 for c in cards)


MODEL_FIELDS = {
    "id", "name", "params_b", "active_params_b", "layers", "kv_heads", "head_dim",
    "attention_heads", "max_context_tokens", "source",
}  # fmt: skip


async def test_models_list_and_search(client: TestClient[Any, Any], catalog: Catalog):
    everything = await (await client.get("/v1/models")).json()
    assert [m["id"] for m in everything] == [m.id for m in catalog.models]
    assert all(set(m) == MODEL_FIELDS for m in everything)

    found = await (await client.get("/v1/models", params={"search": "llama 3.1 70b"})).json()
    assert found[0]["id"] == "llama-3.1-70b"
    assert found[0]["layers"] == 80 and found[0]["kv_heads"] == 8

    typo = await (await client.get("/v1/models", params={"search": "mixtrall 8x7b"})).json()
    assert typo[0]["id"] == "mixtral-8x7b"

    none = await (await client.get("/v1/models", params={"search": "zzqqxx"})).json()
    assert none == []


async def test_healthz(client: TestClient[Any, Any], catalog: Catalog):
    resp = await client.get("/healthz")
    assert resp.status == 200
    assert await resp.json() == {"status": "ok", "prices_as_of": catalog.prices_as_of}


async def test_page_and_static_files(client: TestClient[Any, Any]):
    page = await client.get("/")
    assert page.status == 200 and page.content_type == "text/html"
    html = await page.text()
    assert 'for="q"' in html and 'aria-live="polite"' in html
    assert "Content-Security-Policy" in page.headers
    for path, kind in [
        ("/static/app.js", "javascript"),
        ("/static/style.css", "text/css"),
        ("/static/index.html", "text/html"),
    ]:
        resp = await client.get(path)
        assert resp.status == 200, path
        assert kind in resp.content_type
    missing = await client.get("/static/nope.js")
    assert missing.status == 404
    assert_json_error(await missing.json(), "not_found")


async def test_unknown_route_and_method_are_json(client: TestClient[Any, Any]):
    resp = await client.get("/v2/everything")
    assert resp.status == 404
    assert_json_error(await resp.json(), "not_found")
    resp = await client.post("/v1/ask", data=b"q=hi")
    assert resp.status == 405
    assert resp.headers["Allow"] == "GET,HEAD"
    assert_json_error(await resp.json(), "method_not_allowed")


async def test_metrics_count_web_questions(client: TestClient[Any, Any]):
    resp = await client.get("/metrics")
    assert resp.status == 200
    assert resp.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    labels = {"platform": "web", "kind": "sizing", "lang": "en"}
    before = metric_value(await resp.text(), "vramchat_questions_total", **labels)
    latency_before = metric_value(
        await resp.text(), "vramchat_answer_seconds_count", platform="web"
    )
    await client.get("/v1/ask", params={"q": QUESTION})
    await client.get("/v1/ask", params={"q": QUESTION, "format": "text"})
    text = await (await client.get("/metrics")).text()
    assert metric_value(text, "vramchat_questions_total", **labels) == before + 2
    latency = metric_value(text, "vramchat_answer_seconds_count", platform="web")
    assert latency == latency_before + 2


# --------------------------------------------------------------------------- auth


async def test_auth_off_means_open(client: TestClient[Any, Any]):
    assert (await client.get("/v1/cards")).status == 200


async def test_auth_on_needs_the_bearer_token(make_client: ClientFactory):
    client = await make_client(TOKEN)
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        resp = await client.get("/v1/ask", params={"q": QUESTION}, headers=headers)
        assert resp.status == 401
        assert resp.headers["WWW-Authenticate"].startswith("Bearer")
        body = await resp.json()
        assert_json_error(body, "unauthorized")
        assert TOKEN not in await resp.text()
    good = {"Authorization": f"Bearer {TOKEN}"}
    for path in ("/v1/ask?q=70b", "/v1/cards", "/v1/models"):
        assert (await client.get(path, headers=good)).status == 200, path
    # the page, probes and metrics stay open: the page asks for the token itself
    for path in ("/", "/healthz", "/metrics", "/static/app.js"):
        assert (await client.get(path)).status == 200, path


async def test_reload_needs_a_configured_token(make_client: ClientFactory, catalog: Catalog):
    open_client = await make_client()
    resp = await open_client.post("/v1/reload")
    assert resp.status == 403
    assert_json_error(await resp.json(), "forbidden")

    client = await make_client(TOKEN)
    assert (await client.post("/v1/reload")).status == 401
    resp = await client.post("/v1/reload", headers={"Authorization": f"Bearer {TOKEN}"})
    assert resp.status == 200
    assert await resp.json() == {"status": "reloaded", "prices_as_of": catalog.prices_as_of}


# --------------------------------------------------------------------------- failures


async def test_unexpected_error_is_json_with_a_reference_and_no_traceback(
    client: TestClient[Any, Any], caplog: pytest.LogCaptureFixture
):
    assert client.app is not None
    desk = client.app[DESK]

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom: internal detail /srv/secret/path")

    desk.answer = broken  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR, logger="vramchat.web"):
        resp = await client.get("/v1/ask", params={"q": QUESTION})
    assert resp.status == 500
    text = await resp.text()
    body = await resp.json()
    assert_json_error(body, "internal")
    ref = body["error"]["reference"]
    assert ref in body["error"]["message"]
    assert resp.headers["X-Request-ID"] == ref
    for leak in ("Traceback", "RuntimeError", "boom", "/srv/secret"):
        assert leak not in text
    logged = [r for r in caplog.records if ref in r.getMessage()]
    assert logged
    assert "RuntimeError: boom" in caplog.text  # the traceback goes to the log only


async def test_no_error_body_carries_a_traceback(make_client: ClientFactory):
    client = await make_client(TOKEN)
    cases = [
        ("GET", "/v1/ask"),
        ("GET", "/v1/ask?q=" + "y" * 5000),
        ("GET", "/nowhere"),
        ("DELETE", "/v1/cards"),
        ("POST", "/v1/reload"),
    ]
    for method, path in cases:
        resp = await client.request(method, path)
        assert resp.status >= 400, path
        text = await resp.text()
        assert "Traceback" not in text and 'File "' not in text, path
        assert "error" in await resp.json()


async def test_request_id_is_echoed(client: TestClient[Any, Any]):
    resp = await client.get("/healthz", headers={"X-Request-ID": "ticket-4711"})
    assert resp.headers["X-Request-ID"] == "ticket-4711"
    resp = await client.get("/healthz", headers={"X-Request-ID": "bad id\twith spaces"})
    assert re.fullmatch(r"[0-9a-f]{12}", resp.headers["X-Request-ID"])
