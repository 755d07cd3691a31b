"""The ``vram`` command as a user runs it: real processes, real output."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.cli import main


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_ask_json_70b_int4_128k() -> None:
    out = run("ask", "70b int4 128k", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["kind"] == "sizing"
    assert round(data["memory_gb"]["total"], 2) == 79.95
    assert data["memory_gb"]["total"] == pytest.approx(70 * 0.5 + 327_680 * 131_072 / 1e9 + 2)
    rec = data["recommendation"]
    assert (rec["card"], rec["count"], rec["monthly_usd"], rec["tight"]) == (
        "A100 SXM",
        1,
        990,
        True,
    )
    assert data["request"]["precision"] == "int4"
    assert data["request"]["context_tokens"] == 131072
    assert data["request"]["model"]["assumed"] is True and data["request"]["model"]["name"] is None


def test_ask_405b_full_fine_tune_is_a_cluster_quote() -> None:
    out = run("ask", "405b full fine-tune", "--format", "json")
    data = json.loads(out.stdout)
    assert data["recommendation"] is None
    assert data["cluster_nodes"] == 5
    assert round(data["memory_gb"]["total"]) == 7452
    assert data["request"]["task"] == "full"
    assert data["request"]["context_tokens"] == 2048
    text = run("ask", "405b full fine-tune").stdout
    assert "5 nodes" in text


def test_text_and_markdown_formats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "does 13b fp8 fit on l4"]) == 0
    text = capsys.readouterr().out
    assert "L4" in text and "21.7 GB" in text and "Prices as of 2026-09-01" in text
    assert main(["ask", "llama 3.1 70b fp8", "--format", "markdown", "--explain"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("**✅ 1× H100 PCIe · $1,490/mo")  # the verdict first
    assert "\nLlama 3.1 70B · FP8" in md
    assert "H100 PCIe" in md and "$1,490" in md and "```" in md


def test_polish_question_answers_in_polish() -> None:
    data = json.loads(run("ask", "ile vram dla 70b int4?", "--format", "json").stdout)
    assert data["lang"] == "pl"
    assert data["recommendation"]["card"] == "A40"


def test_lang_flag_forces_language() -> None:
    data = json.loads(run("ask", "70b int4", "--lang", "th", "--format", "json").stdout)
    assert data["lang"] == "th"


def test_chat_carries_follow_ups() -> None:
    out = run("chat", "--format", "json", stdin="70b fp8\nand 128k?\nqlora\n")
    assert out.returncode == 0, out.stderr
    decoder = json.JSONDecoder()
    text, answers, i = out.stdout, [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        obj, i = decoder.raw_decode(text, i)
        answers.append(obj)
    assert [a["request"]["context_tokens"] for a in answers] == [8192, 131072, 2048]
    assert [a["request"]["task"] for a in answers] == ["inference", "inference", "qlora"]
    assert answers[1]["request"]["precision"] == "fp8"
    assert answers[2]["request"]["model"]["params_b"] == 70


def test_cards_and_models_and_check_data(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards"]) == 0
    out = capsys.readouterr().out
    a40 = next(line for line in out.splitlines() if line.startswith("A40 "))
    assert a40.split()[:3] == ["A40", "48", "GB"] and "$5" in a40
    assert main(["models", "qwen3"]) == 0
    assert "Qwen3 235B-A22B" in capsys.readouterr().out
    assert main(["check-data"]) == 0
    assert "data ok: 15 cards" in capsys.readouterr().out


def test_bad_data_dir_is_one_line(tmp_path: pytest.TempPathFactory) -> None:
    out = run("--data-dir", str(tmp_path), "ask", "7b")
    assert out.returncode == 2
    assert out.stderr.strip() == "vram: data error: cards.yaml: file is missing"


def test_ask_does_not_import_platform_libraries() -> None:
    code = (
        "import sys; from bot.cli import main; main(['ask','7b']);"
        "bad=[m for m in ('discord','telegram','aiohttp') if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


# `vram ask` answers through the real command (its `_ask` records the collector's state);
# `vram chat` is replaced whole, as a long-running command.
COLLECTOR_PROBE = """
import gc, sys
import bot.cli as cli
seen = []
real_ask = cli._ask
def probe_ask(*args, **kwargs):
    seen.append(gc.isenabled())
    return real_ask(*args, **kwargs)
def probe_chat(args):
    seen.append(gc.isenabled())
    return 0
cli._ask, cli.cmd_chat = probe_ask, probe_chat
sys.argv = ["vram", *sys.argv[1:]]
code = cli.entry()
print(seen, gc.get_freeze_count() > 0, code, file=sys.stderr)
"""


@pytest.mark.parametrize(("argv", "enabled"), [(["ask", "7b"], False), (["chat"], True)])
def test_entry_keeps_the_collector_off_only_for_one_answer(argv: list[str], enabled: bool) -> None:
    """One answer runs with the collector off and exits with the heap frozen (no final
    collection to walk); a session or a server collects as usual."""
    out = subprocess.run(
        [sys.executable, "-c", COLLECTOR_PROBE, *argv], capture_output=True, text=True, check=True
    )
    assert out.stderr.split() == [f"[{enabled}]", "True", "0"]
