"""The Telegram adapter end to end: the real PTB Application, over HTTP, against a strict fake.

Every expected number comes from ``engine.ask`` on the same catalog, so these tests pin the
adapter's job (routing, language, buttons, state, resilience), not the arithmetic.
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal

import pytest
from tg_support import Bot, JsonDict, visible

from bot.render.telegram import MAX_MESSAGE_UTF16, format_html, parse_callback, utf16_len
from bot.telegram.app import message_key, set_commands
from engine import Answer, RequestOptions, ask, context_of
from engine.answer_types import Section
from engine.i18n import t
from engine.rounding import fmt_gb, fmt_usd


def buttons(message: JsonDict) -> list[tuple[str, str]]:
    """(label, callback_data) for every inline button under a sent message."""
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [(b["text"], b["callback_data"]) for row in rows for b in row]


def data_for(message: JsonDict, action: str, n: int | None = None) -> str:
    for _, data in buttons(message):
        parsed = parse_callback(data)
        if parsed and parsed[0] == action and parsed[2] == n:
            return data
    raise AssertionError(f"no {action}:{n} button in {buttons(message)}")


def stored(bot: Bot, sent: JsonDict) -> JsonDict:
    """The fake's current copy of a bot message (reflects edits)."""
    return bot.fake.message(sent["chat_id"], sent["message_id"])


def same_visible(sent: JsonDict, answer: Answer, bot: Bot, math: bool = False) -> None:
    assert visible(sent) == visible({"text": format_html(answer, bot.catalog, math=math)})


# --------------------------------------------------------------------------- questions


async def test_dm_question_matches_engine(bot: Bot) -> None:
    reply = await bot.say("70b int4 128k")
    expected = ask("70b int4 128k", locale="en", catalog=bot.catalog)
    text = visible(reply)
    assert expected.recommendation is not None and expected.memory_gb is not None
    assert expected.recommendation.card == "A100 SXM"
    assert "A100 SXM" in text and "$990" in text
    assert fmt_usd(expected.recommendation.monthly_usd) in text
    assert fmt_gb(expected.memory_gb["total"]) in text
    same_visible(reply, expected, bot)
    assert reply["parse_mode"] == "HTML"
    labels = [label for label, _ in buttons(reply)]
    assert labels[0] == t(bot.catalog, "en", "render.show_math")
    assert len(labels) == 1 + min(2, len(expected.alternatives))
    assert all(len(data.encode()) <= 64 for _, data in buttons(reply))
    assert len(bot.fake.calls_to("sendMessage")) == 1


async def test_group_needs_a_mention_or_a_reply(bot: Bot) -> None:
    group = -100
    bot.fake.push_update(bot.fake.message_update("70b int4", chat_id=group, chat_type="group"))
    mention = await bot.say("@vram_test_bot 70b int4", chat_id=group, chat_type="group")
    assert len(bot.sent_to(group)) == 1, "the unaddressed message got an answer"
    same_visible(mention, ask("70b int4", locale="en", catalog=bot.catalog), bot)

    reply = await bot.say(
        "and 32k?",
        chat_id=group,
        chat_type="group",
        reply_to_message=stored(bot, mention),
    )
    assert "32k" in visible(reply)
    command = await bot.say("/vram@vram_test_bot 13b", chat_id=group, chat_type="group")
    assert "13B" in visible(command)
    bot.fake.push_update(
        bot.fake.message_update("/vram@other_bot 7b", chat_id=group, chat_type="group")
    )
    bot.fake.push_update(bot.fake.message_update("@someone 7b", chat_id=group, chat_type="group"))
    await bot.settle()
    assert len(bot.sent_to(group)) == 3


async def test_polish_user_gets_polish(bot: Bot) -> None:
    reply = await bot.say("ile vram dla 70b w int4?", language_code="pl")
    expected = ask("ile vram dla 70b w int4?", locale="pl", catalog=bot.catalog)
    assert expected.lang == "pl"
    same_visible(reply, expected, bot)
    text = visible(reply)
    assert t(bot.catalog, "pl", "section.memory") in text
    assert t(bot.catalog, "pl", "render.show_math") == buttons(reply)[0][0]
    # the locale alone is enough for shorthand that says nothing about language
    short = await bot.say("70b int4", language_code="pl-PL")
    assert visible(short) == visible(
        {"text": format_html(ask("70b int4", locale="pl", catalog=bot.catalog), bot.catalog)}
    )


async def test_thai_user_gets_thai(bot: Bot) -> None:
    question = "70b int4 ต้องใช้ vram เท่าไหร่"
    reply = await bot.say(question, language_code="th")
    expected = ask(question, locale="th", catalog=bot.catalog)
    assert expected.lang == "th"
    same_visible(reply, expected, bot)
    welcome = await bot.say("/start", language_code="th")
    assert t(bot.catalog, "th", "tg.help.title") in visible(welcome)
    assert re.search(r"[\u0e00-\u0e7f]", visible(welcome))


async def test_unknown_locale_falls_back_to_english(bot: Bot) -> None:
    reply = await bot.say("/help", language_code="de")
    assert t(bot.catalog, "en", "tg.help.title") in visible(reply)


# --------------------------------------------------------------------------- buttons


async def test_math_and_alternative_buttons_edit_the_same_message(bot: Bot) -> None:
    reply = await bot.say("70b int4 128k")
    original = ask("70b int4 128k", locale="en", catalog=bot.catalog)

    await bot.press(data_for(reply, "m"), reply)
    edit = bot.fake.edits[-1]
    assert edit["message_id"] == reply["message_id"] and edit["chat_id"] == 42
    assert "KV" in visible(edit) and original.math[0] in visible(edit)
    same_visible(edit, original, bot, math=True)
    assert buttons(stored(bot, reply))[0][1].startswith("h:")

    await bot.press(data_for(stored(bot, reply), "h"), reply)
    same_visible(bot.fake.edits[-1], original, bot)

    await bot.press(data_for(stored(bot, reply), "a", 0), reply)
    alt = original.alternatives[0]
    fit = ask(
        f"on {alt.count}x {alt.card}", "en", catalog=bot.catalog, previous=context_of(original)
    )
    assert fit.kind == "fit" and fit.fit is not None and fit.fit.card == alt.card
    same_visible(bot.fake.edits[-1], fit, bot)
    assert alt.card in visible(bot.fake.edits[-1])
    assert any(d.startswith("b:") for _, d in buttons(stored(bot, reply)))

    await bot.press(data_for(stored(bot, reply), "b"), reply)
    same_visible(bot.fake.edits[-1], original, bot)
    assert len(bot.fake.sent_messages) == 1, "buttons must edit, never send"
    assert len(bot.fake.callback_answers) == 4


async def test_lower_precision_alternative_keeps_its_precision(bot: Bot) -> None:
    reply = await bot.say("70b fp8")
    original = ask("70b fp8", locale="en", catalog=bot.catalog)
    n = next(i for i, p in enumerate(original.alternatives[:2]) if p.precision)
    alt = original.alternatives[n]
    assert alt.precision is not None
    assert alt.precision.upper() in buttons(reply)[1 + n][0]
    await bot.press(data_for(reply, "a", n), reply)
    text = visible(bot.fake.edits[-1])
    assert alt.precision.upper() in text and alt.card in text


async def test_stale_or_forged_buttons_answer_politely(bot: Bot) -> None:
    reply = await bot.say("70b int4")
    ref = data_for(reply, "m")[2:]
    odd = ("a:" + ref + ":1²", "c:" + ref + ":٣", "a:" + ref + ":" + "9" * 40, "m:" + ref + "²")
    for data in ("m:deadbeef", "zz:1", "a:" + ref + ":9", *odd):
        answer = await bot.press(data, reply)
        assert answer["text"] == t(bot.catalog, "en", "tg.expired")
    assert bot.fake.edits == []


async def test_clarify_buttons_reask_with_the_candidate(bot: Bot) -> None:
    reply = await bot.say("llam int4 128k")
    expected = ask("llam int4 128k", locale="en", catalog=bot.catalog)
    assert expected.kind == "clarify"
    labels = [label for label, _ in buttons(reply)]
    assert labels == [c.name for c in expected.candidates]
    n = labels.index("Llama 3.1 8B")
    await bot.press(data_for(reply, "c", n), reply)
    text = visible(bot.fake.edits[-1])
    assert text.splitlines()[1].startswith("Llama 3.1 8B · INT4 · 128k")  # under the verdict
    resolved = ask("Llama 3.1 8B llam int4 128k", "en", catalog=bot.catalog)
    same_visible(bot.fake.edits[-1], resolved, bot)
    assert buttons(stored(bot, reply))[0][1].startswith("m:")


async def test_clarify_candidate_answers_it_instead_of_asking_again(bot: Bot) -> None:
    """After "lama 3 int4", the "Llama 3 8B" button sizes Llama 3 8B in INT4 (it once re-sent
    "Llama 3 8B lama 3 int4" as text and got the same "which model?" again)."""
    reply = await bot.say("lama 3 int4")
    assert ask("lama 3 int4", "en", catalog=bot.catalog).kind == "clarify"
    labels = [label for label, _ in buttons(reply)]
    await bot.press(data_for(reply, "c", labels.index("Llama 3 8B")), reply)
    edit = bot.fake.edits[-1]
    expected = ask(
        "lama 3 int4", "en", catalog=bot.catalog, options=RequestOptions(model_id="llama-3-8b")
    )
    assert expected.kind == "sizing" and expected.request is not None
    assert (expected.request.model.id, expected.request.precision) == ("llama-3-8b", "int4")  # type: ignore[union-attr]
    same_visible(edit, expected, bot)
    assert "Llama 3 8B · INT4" in visible(edit)
    assert not any(d.startswith("c:") for _, d in buttons(stored(bot, reply)))
    # the message now follows up on Llama 3 8B: a reply refines it
    refined = await bot.say("and 32k?", reply_to_message=stored(bot, reply))
    assert "Llama 3 8B · INT4 · 32k" in visible(refined)


async def test_start_examples_and_faq_topics_are_tappable(bot: Bot) -> None:
    welcome = await bot.say("/start")
    example = t(bot.catalog, "en", "tg.help.example_1")
    assert "<code>" not in welcome["text"]
    tap = next(d for label, d in buttons(welcome) if label == example)
    await bot.press(tap, welcome, edits_message=False)
    await bot.fake.wait_for(lambda: len(bot.fake.sent_messages) == 2)
    same_visible(bot.fake.sent_messages[-1], ask(example, "en", catalog=bot.catalog), bot)
    topics = await bot.say("/faq")
    title = t(bot.catalog, "en", "faq.kv_cache.title")
    await bot.press(
        next(d for label, d in buttons(topics) if label == title), topics, edits_message=False
    )
    await bot.fake.wait_for(lambda: len(bot.fake.sent_messages) == 4)
    faq = ask("faq kv_cache", "en", catalog=bot.catalog)
    assert faq.kind == "faq"
    same_visible(bot.fake.sent_messages[-1], faq, bot)


# --------------------------------------------------------------------------- follow-ups


async def test_reply_refines_that_answer(bot: Bot) -> None:
    first = await bot.say("70b fp8")
    await bot.say("13b int4")  # the chat moved on; the reply must still refine "70b fp8"
    reply = await bot.say("and 128k?", reply_to_message=stored(bot, first))
    base = ask("70b fp8", locale="en", catalog=bot.catalog)
    refined = ask("and 128k?", locale="en", catalog=bot.catalog, previous=context_of(base))
    assert refined.request is not None and refined.request.context_tokens == 131072
    assert refined.request.precision == "fp8"
    same_visible(reply, refined, bot)
    await bot.settle()  # the context is stored right after sendMessage returns
    ctx = await bot.desk.store.get_context(message_key(42, reply["message_id"]))
    assert ctx is not None and ctx.request.context_tokens == 131072


async def test_inline_query_offers_answer_and_alternatives(bot: Bot) -> None:
    bot.fake.push_update(bot.fake.inline_update("70b int4 128k"))
    await bot.fake.wait_for(lambda: len(bot.fake.inline_answers) == 1)
    results = bot.fake.inline_answers[0]["results"]
    expected = ask("70b int4 128k", locale="en", catalog=bot.catalog)
    assert len(results) == 1 + min(2, len(expected.alternatives))
    main = results[0]
    assert main["title"] == expected.headline
    assert "A100 SXM" in main["description"]
    content = main["input_message_content"]
    assert content["parse_mode"] == "HTML"
    assert visible({"text": content["message_text"]}) == visible(
        {"text": format_html(expected, bot.catalog)}
    )
    assert expected.alternatives[0].card in results[1]["title"]
    bot.fake.push_update(bot.fake.inline_update(""))
    await bot.fake.wait_for(lambda: len(bot.fake.inline_answers) == 2)
    assert bot.fake.inline_answers[1]["results"] == []
    assert bot.fake.sent_messages == []


# --------------------------------------------------------------------------- commands


async def test_commands(bot: Bot) -> None:
    gpus = visible(await bot.say("/gpus"))
    for card in bot.catalog.cards:
        assert card.name in gpus
    a40 = visible(await bot.say("/card a40"))
    assert a40.startswith("A40") and "$240" in a40
    faq = visible(await bot.say("/faq kv_cache"))
    assert faq.startswith(t(bot.catalog, "en", "faq.kv_cache.title"))
    topics = visible(await bot.say("/faq"))
    assert all(f"/faq {topic.id}" in topics for topic in bot.catalog.faq)
    assert "/faq kv_cache" in visible(await bot.say("/faq nonsense"))
    help_text = visible(await bot.say("/help"))
    for n in (1, 2, 3):
        assert t(bot.catalog, "en", f"tg.help.example_{n}") in help_text
    assert "@vram_test_bot" in help_text
    vram = await bot.say("/vram 70b int4 128k")
    same_visible(vram, ask("70b int4 128k", locale="en", catalog=bot.catalog), bot)
    assert t(bot.catalog, "en", "tg.vram.usage") == visible(await bot.say("/vram"))
    assert len(bot.fake.sent_messages) == 8


async def test_reload_is_staff_only(bot: Bot) -> None:
    denied = await bot.say("/reload")
    assert visible(denied) == t(bot.catalog, "en", "tg.reload.denied")
    ok = await bot.say("/reload", chat_id=7, user_id=7)
    assert visible(ok) == t(bot.catalog, "en", "tg.reload.ok", date=bot.catalog.prices_as_of)


async def test_set_my_commands_in_three_languages(bot: Bot) -> None:
    await set_commands(bot.app.bot, bot.catalog)
    assert [c["language_code"] for c in bot.fake.commands] == ["", "pl", "th"]
    for code in ("", "pl", "th"):
        names = [c["command"] for c in bot.fake.commands_for(language_code=code)]
        assert names == ["start", "help", "vram", "gpus", "card", "faq"]
    en, pl, th = (
        bot.fake.commands_for(language_code=c)[2]["description"] for c in ("", "pl", "th")
    )
    assert len({en, pl, th}) == 3


async def test_post_init_sets_commands_and_sighup_reloads(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    assert bot.app.post_init is not None
    await bot.app.post_init(bot.app)
    try:
        assert signal.getsignal(signal.SIGHUP) not in (signal.SIG_DFL, signal.SIG_IGN, None)
        assert len(bot.fake.commands) == 3
        with caplog.at_level(logging.INFO, logger="vramchat.desk"):
            signal.raise_signal(signal.SIGHUP)
            # the reload runs in a worker thread: wait for its log line, not a fixed time
            for _ in range(200):
                if "data reloaded" in caplog.text:
                    break
                await asyncio.sleep(0.05)
        assert "data reloaded" in caplog.text
    finally:
        asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)


# --------------------------------------------------------------------------- resilience


async def test_429_storm_and_get_updates_500_answer_everything_once(bot: Bot) -> None:
    fake = bot.fake
    chats = (101, 102, 103, 104, 105)
    fake.fail_next("getUpdates", status=500)
    for phase in (chats[:3], chats[3:]):  # two bursts: each send is retried twice, then lands
        fake.fail_next("sendMessage", status=429, retry_after=1, times=2)
        for chat in phase:
            fake.push_update(fake.message_update("70b int4", chat_id=chat, user_id=chat))
        await fake.wait_for(lambda p=phase: all(bot.sent_to(c) for c in p), timeout=15)
    await bot.settle()
    assert [len(bot.sent_to(chat)) for chat in chats] == [1] * len(chats)
    assert set(fake.deliveries.values()) == {1}
    assert fake.faults.count(("sendMessage", "429")) == 4
    assert ("getUpdates", "500") in fake.faults


async def test_handler_crash_apologises_with_reference_and_keeps_serving(
    bot: Bot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real = bot.desk.answer
    calls = {"n": 0}

    async def flaky(*args: object, **kwargs: object) -> object:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("boom")
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(bot.desk, "answer", flaky)
    with caplog.at_level(logging.ERROR, logger="vramchat.telegram"):
        apology = await bot.say("70b int4")
    ref = re.search(r"[0-9a-f]{8}$", visible(apology))
    assert ref is not None
    assert visible(apology) == t(bot.catalog, "en", "render.apology", ref=ref.group())
    record = next(r for r in caplog.records if ref.group() in r.getMessage())
    assert record.exc_info is not None and "boom" in caplog.text
    after = await bot.say("70b int4")
    assert "A40" in visible(after)
    assert len(bot.sent_to(42)) == 2


async def test_hostile_and_huge_input_is_rendered_safely(
    bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_question = "70b int4 128k <please> & thanks " * 125  # 4,000 characters
    assert len(long_question) == 4000
    for text in ("<b>", "a & b < c", "@everyone 70b", "<b>&amp; @everyone</b>", long_question):
        await bot.say(text, timeout=10)
    assert len(bot.fake.sent_messages) == 5  # the strict fake rejects bad HTML or length
    for sent in bot.fake.sent_messages:
        assert utf16_len(visible(sent)) <= MAX_MESSAGE_UTF16
        assert "@everyone" not in visible(sent)

    async def echoing(text: str, **kwargs: object) -> Answer:
        """An engine that echoes the user's words back, at any length."""
        return Answer(kind="clarify", headline=text, sections=[Section(title=text, lines=[text])])

    monkeypatch.setattr(bot.desk, "answer", echoing)
    words = "<b>&amp; @everyone</b> " * 180  # about 4,000 characters
    reply = await bot.say(words)
    shown = visible(reply)
    assert shown.startswith("<b>&amp; @\u2060everyone</b>") and shown.endswith("…")
    assert utf16_len(shown) <= MAX_MESSAGE_UTF16 < 3 * len(words)


async def test_per_user_rate_limit_is_polite(bot: Bot) -> None:
    bot.desk.rate_per_minute = 2
    await bot.say("70b int4")
    await bot.say("13b int4")
    limited = await bot.say("7b int4")
    text = visible(limited)
    seconds = re.search(r"wait (\d+) s", text)
    assert seconds is not None and 1 <= int(seconds.group(1)) <= 60
    assert "reply_markup" not in limited
    other = await bot.say("7b int4", chat_id=43, user_id=43)
    assert "7B" in visible(other)
