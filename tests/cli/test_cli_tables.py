"""``vram cards`` / ``vram models`` tables, options after the subcommand, ``--version`` and
the exit statuses scripts rely on."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.cli import main
from bot.tables import human_tokens, parse_tokens
from bot.terminal import colourise, present, wrap
from engine import load_catalog


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )


def test_cards_table_has_a_header_and_aligned_columns(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header, rule = lines[2], lines[3]
    assert header.split()[:2] == ["Card", "VRAM"] and set(rule.replace(" ", "")) == {"-"}
    rows = lines[4 : 4 + len(load_catalog().cards)]
    assert len(rows) == 15 and rows[0].startswith("MI300X ")
    assert len({r.index("GB/s") for r in rows}) == 1, "bandwidth column is right-aligned"
    assert len({r.index(" GB ") for r in rows}) == 1, "VRAM column is right-aligned"
    assert lines[-1].startswith("Prices as of")


def test_options_after_the_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "--price-book", "hourly"]) == 0
    hourly = capsys.readouterr().out
    assert main(["--price-book", "hourly", "cards"]) == 0
    assert capsys.readouterr().out == hourly
    assert main(["cards"]) == 0
    assert capsys.readouterr().out != hourly
    assert main(["ask", "70b int4", "--price-book", "hourly", "--format", "json"]) == 0
    assert '"prices_as_of"' in capsys.readouterr().out


def test_cards_filter_and_nothing_matches(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "--min-vram", "141"]) == 0
    out = capsys.readouterr().out
    assert "MI300X" in out and "H200 SXM" in out and "A40" not in out
    assert main(["cards", "--min-vram", "5000"]) == 1
    assert capsys.readouterr().out.strip() == "No card has 5000 GB or more."


def test_models_table_human_context_and_filters(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "--min-context", "1M"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[0] == "Model" and lines[0].split()[-1] == "Context"
    scout = next(line for line in lines if line.startswith("Llama 4 Scout"))
    assert scout.split()[-1] == "10M" and "10485760" not in scout
    assert all(line.split()[-1].endswith("M") for line in lines[2:])
    assert main(["models", "llama 3.1", "--max-params", "10"]) == 0
    out = capsys.readouterr().out
    assert "Llama 3.1 8B" in out and "128k" in out and "70B" not in out
    assert main(["models", "no-such-model-at-all"]) == 1
    assert "No model matches" in capsys.readouterr().out
    assert main(["models", "--lang", "pl", "--min-params", "100000"]) == 1
    assert "Żaden model nie pasuje" in capsys.readouterr().out


def test_version_and_not_understood_exit_status() -> None:
    out = run("--version")
    assert out.returncode == 0 and out.stdout.startswith("vram ")
    assert run("ask", "70b int4 128k").returncode == 0
    for question in ("help", "llam", "zzzz qqqq"):
        assert run("ask", question).returncode == 1, question


def test_human_tokens_and_parse() -> None:
    assert [human_tokens(n) for n in (4096, 131072, 163840, 1048576, 10485760, 500)] == [
        "4k", "128k", "160k", "1M", "10M", "500",
    ]  # fmt: skip
    assert parse_tokens("128k") == 131072 and parse_tokens("1M") == 1048576
    assert parse_tokens("32000") == 32000


def test_wrap_keeps_words_whole_and_colour_only_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "⚠️ Tight fit: under 5 GB left (0.1 GB). Longer prompts or more users will not fit"
    wrapped = wrap(text, 30)
    assert all(len(line) <= 30 for line in wrapped.splitlines())
    assert wrapped.replace("\n  ", " ") == text
    assert "\033[1m\033[32m✅" in colourise("✅ 1× A40\nx")

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\033[" in present("✅ yes", "text", Tty())
    assert present("✅ yes", "text", object()) == "✅ yes"  # a pipe: as is
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\033[" not in present("✅ yes", "text", Tty())
