"""/v1/preview and /v1/chart: the real renderers' output and the engine's own numbers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr

from bot.desk import Desk
from bot.render.discord import format_embed
from bot.render.telegram import format_html
from bot.settings import Settings
from bot.web.app import create_app
from engine import Catalog, ask, context_of, load_catalog


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture
async def client(catalog: Catalog) -> AsyncIterator[TestClient[Any, Any]]:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    c = TestClient(TestServer(create_app(Desk(catalog), settings), host="127.0.0.1"))
    await c.start_server()
    yield c
    await c.close()


async def test_preview_is_what_the_renderers_send(
    client: TestClient[Any, Any], catalog: Catalog
) -> None:
    resp = await client.get("/v1/preview", params={"q": "70b int4 128k", "lang": "pl"})
    assert resp.status == 200
    body = await resp.json()
    answer = ask("70b int4 128k", "pl", catalog=catalog)
    assert body["telegram"]["html"] == format_html(answer, catalog)
    assert body["telegram"]["short"].startswith("✅ 1× A100 SXM · $990/mies.")
    assert "Pamięć" in body["telegram"]["details"]
    assert body["discord"]["embed"] == format_embed(answer, catalog).to_dict()
    assert body["discord"]["details"]["fields"]
    bad = await client.get("/v1/preview", params={"q": " "})
    assert bad.status == 400 and (await bad.json())["error"]["code"] == "bad_request"


async def test_chart_points_are_the_engines_answers(
    client: TestClient[Any, Any], catalog: Catalog
) -> None:
    resp = await client.get("/v1/chart", params={"q": "llama 3.1 8b bf16"})
    body = await resp.json()
    tokens = [p["tokens"] for p in body["points"]]
    assert tokens[0] == 1024 and tokens[-1] == 131072 == body["model_max_tokens"]
    assert tokens == sorted(tokens)
    prev = context_of(ask("llama 3.1 8b bf16", catalog=catalog))
    at_32k = ask("and 32k?", catalog=catalog, previous=prev)
    assert at_32k.memory_gb is not None
    assert body["points"][tokens.index(32768)]["gb"] == at_32k.memory_gb["total"]
    roles = [line["role"] for line in body["lines"]]
    assert roles == ["recommended", "next"]
    assert body["lines"][0]["label"] == "1× RTX A5000" and body["lines"][0]["gb"] == 24
    assert body["lines"][1]["gb"] > 24
    cards = await (await client.get("/v1/chart", params={"q": "gpus"})).json()
    assert cards["points"] == [] and cards["lines"] == []


async def test_views_need_the_token_when_one_is_set(catalog: Catalog) -> None:
    settings = Settings(_env_file=None, vramchat_api_token=SecretStr("desk-token-abcdefghij"))
    c = TestClient(TestServer(create_app(Desk(catalog), settings), host="127.0.0.1"))
    await c.start_server()
    try:
        for path in ("/v1/preview", "/v1/chart"):
            assert (await c.get(path, params={"q": "7b"})).status == 401
            ok = await c.get(
                path, params={"q": "7b"}, headers={"Authorization": "Bearer desk-token-abcdefghij"}
            )
            assert ok.status == 200
    finally:
        await c.close()
