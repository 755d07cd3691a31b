"""deploy/: the Dockerfile and compose file parse and say what we rely on, every setting is
documented in .env.example, and the systemd units pass ``systemd-analyze verify``."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))
OUR_VARS = re.compile(r"\b((?:VRAMCHAT|TELEGRAM|DISCORD)_[A-Z0-9_]+)\b")


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) pairs, continuation lines joined, comments dropped."""
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    text = re.sub(r"\\\n", " ", text)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            op, _, args = line.partition(" ")
            out.append((op.upper(), args.strip()))
    return out


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))


def env_example() -> dict[str, str]:
    """Documented variables: NAME=value lines, each directly under a comment."""
    lines = (DEPLOY / ".env.example").read_text(encoding="utf-8").splitlines()
    documented = {}
    for i, line in enumerate(lines):
        m = re.match(r"^([A-Z][A-Z0-9_]*)=(.*)$", line)
        if m:
            above = next(
                (lines[j] for j in range(i - 1, -1, -1) if not re.match(r"^[A-Z0-9_]+=", lines[j])),
                "",
            )
            assert above.startswith("# "), f"{m.group(1)} has no comment above it"
            documented[m.group(1)] = m.group(2)
    return documented


# --------------------------------------------------------------------------- Dockerfile


def test_dockerfile_is_multi_stage_non_root_with_healthcheck():
    steps = dockerfile()
    ops = [op for op, _ in steps]
    assert ops.count("FROM") >= 2
    assert " AS builder" in steps[ops.index("FROM")][1]
    users = [args for op, args in steps if op == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert ops.index("USER") > len(ops) - 1 - ops[::-1].index("FROM")  # in the final stage
    health = [args for op, args in steps if op == "HEALTHCHECK"]
    assert health and '["vram", "healthcheck", "web"]' in health[0]
    cmd = [args for op, args in steps if op == "CMD"][-1]
    assert cmd == '["vram", "serve", "--host", "0.0.0.0"]'


def test_dockerfile_base_is_an_argument_pinned_by_digest():
    steps = dockerfile()
    base = [args for op, args in steps if op == "ARG" and args.startswith("BASE=")]
    assert len(base) == 1 and re.search(
        r"python:3\.11[.\d]*-slim-bookworm@sha256:[0-9a-f]{64}$", base[0]
    )
    assert [args.split()[0] for op, args in steps if op == "FROM"] == ["${BASE}", "${BASE}"]
    # A plain Debian base has python3, not python.
    runs = " ".join(args for op, args in steps if op == "RUN")
    assert not re.search(r"(?<![/\w])python(?![\w.3])", runs), runs


def test_dockerfile_installs_hashed_locked_deps_then_compiles_the_source():
    steps = dockerfile()
    copies = [(i, args) for i, (op, args) in enumerate(steps) if op == "COPY"]
    lock = next(i for i, args in copies if "deploy/requirements.image.lock" in args)
    install = next(
        i for i, (op, args) in enumerate(steps) if op == "RUN" and "requirements.image.lock" in args
    )
    assert "--require-hashes" in steps[install][1] and "--no-deps" in steps[install][1]
    source = [i for i, args in copies if re.search(r"\b(engine|bot)/", args)]
    assert source and lock < install < min(source)
    compile_ = next(i for i, (op, args) in enumerate(steps) if op == "RUN" and "compileall" in args)
    assert min(source) < compile_ and "/app/bot" in steps[compile_][1]


def test_dockerfile_builds_the_catalog_cache_the_runtime_reads():
    """A container starts from a cache built into the image, where its settings look."""
    steps = dockerfile()
    final = len(steps) - 1 - [op for op, _ in steps][::-1].index("FROM")
    tail = steps[final:]
    env = " ".join(args for op, args in tail if op == "ENV")
    where = re.search(r"\bVRAMCHAT_CACHE_DIR=(\S+)", env)
    assert where and where.group(1) == "/app/.cache/vramchat"
    data = next(i for i, (op, args) in enumerate(tail) if op == "COPY" and "data/" in args)
    build = next(i for i, (op, args) in enumerate(tail) if op == "RUN" and "cache-build" in args)
    user = next(i for i, (op, _) in enumerate(tail) if op == "USER")
    assert data < build < user  # built from the shipped data, before the user loses write
    assert "a+rX" in tail[build][1]  # readable by the non-root user (mkstemp writes 0600)
    # the user's home holds the same folder as ~/.cache/vramchat (for a blanked variable)
    home = re.search(r"vramchat:x:10001:10001:[^:]*:([^:]+):", " ".join(a for _, a in tail))
    assert home and f"{home.group(1)}/.cache/vramchat" == where.group(1)


def locked(path: Path) -> dict[str, str]:
    pins = re.findall(r"^([A-Za-z0-9_.-]+)==([^\s\\]+)", path.read_text(encoding="utf-8"), re.M)
    return {name.lower(): version for name, version in pins}


def test_image_lock_has_the_same_pins_as_requirements_lock_each_hashed():
    image = DEPLOY / "requirements.image.lock"
    assert locked(image) == locked(ROOT / "requirements.lock")
    entries = re.split(r"\n(?=[A-Za-z0-9_.-]+==)", image.read_text(encoding="utf-8"))
    pins = [e for e in entries if re.match(r"[A-Za-z0-9_.-]+==", e)]
    assert len(pins) == len(locked(image))
    for entry in pins:
        assert re.search(r"--hash=sha256:[0-9a-f]{64}", entry), entry.splitlines()[0]


def test_native_lock_has_the_test_locks_pins_each_hashed():
    """The builder's mypyc is the one the suite type-checks with, and nothing unhashed."""
    native = DEPLOY / "requirements.native.lock"
    pins = locked(native)
    test = locked(ROOT / "requirements-test.lock")
    assert "mypy" in pins and all(test.get(name) == version for name, version in pins.items())
    entries = re.split(r"\n(?=[A-Za-z0-9_.-]+==)", native.read_text(encoding="utf-8"))
    for entry in (e for e in entries if re.match(r"[A-Za-z0-9_.-]+==", e)):
        assert re.search(r"--hash=sha256:[0-9a-f]{64}", entry), entry.splitlines()[0]


def test_dockerfile_compiles_the_engine_in_the_builder_only():
    """NATIVE=1 (the default) builds the C modules after the sources arrive and before the
    bytecode; the compiler and mypy stay in the builder stage."""
    steps = dockerfile()
    assert ("ARG", "NATIVE=1") in steps
    final = len(steps) - 1 - [op for op, _ in steps][::-1].index("FROM")
    runs = [(i, args) for i, (op, args) in enumerate(steps) if op == "RUN"]
    tools = next(i for i, args in runs if "apt-get install" in args and "gcc" in args)
    lock = next(i for i, args in runs if "requirements.native.lock" in args)
    assert "--require-hashes" in steps[lock][1] and "/opt/build/bin/pip" in steps[lock][1]
    build = next(i for i, args in runs if "deploy/native.py" in args)
    source = min(i for i, (op, args) in enumerate(steps) if op == "COPY" and "engine/" in args)
    compile_ = next(i for i, args in runs if "compileall" in args)
    assert tools <= lock < source < build < compile_ < final
    assert "rm -rf /app/deploy" in steps[build][1]
    tail = " ".join(args for _, args in steps[final:])
    assert "gcc" not in tail and "/opt/build" not in tail


def test_dockerignore_keeps_secrets_out_of_the_build_context():
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()
    assert "**" in ignore  # deny by default, then allow only what the image needs
    allowed = [line for line in ignore if line.startswith("!")]
    assert allowed and not any(".env" in line or ".git" in line for line in allowed)


# --------------------------------------------------------------------------- compose


def test_compose_runs_three_services_from_one_image():
    spec = compose()
    services = spec["services"]
    assert {"web", "telegram", "discord"} <= set(services)
    for name in ("web", "telegram", "discord"):
        s = services[name]
        assert s["image"] == "vramchat:latest", name
        assert s["build"]["dockerfile"] == "deploy/Dockerfile", name
        assert s["env_file"] == ".env", name
        assert s["restart"] == "unless-stopped", name
        assert s["healthcheck"]["test"], name
        assert "no-new-privileges:true" in s["security_opt"], name
    assert services["web"]["command"][:2] == ["vram", "serve"]
    assert services["telegram"]["command"] == ["vram", "telegram"]
    assert services["discord"]["command"] == ["vram", "discord"]
    assert services["web"]["healthcheck"]["test"][:4] == ["CMD", "vram", "healthcheck", "web"]
    for bot in ("telegram", "discord"):
        # the bots' probe checks the heartbeat of their platform connection, kept under /tmp
        assert services[bot]["healthcheck"]["test"] == ["CMD", "vram", "healthcheck", bot]
    for name in ("web", "telegram", "discord"):
        assert services[name]["read_only"] is True and "/tmp" in services[name]["tmpfs"], name
    for port in services["web"]["ports"]:
        assert port.startswith("127.0.0.1:"), "the desk is published on loopback only"


def test_compose_redis_is_optional():
    redis = compose()["services"]["redis"]
    assert redis["profiles"] == ["redis"]
    assert redis["healthcheck"]["test"]


# --------------------------------------------------------------------------- settings documented


def settings_vars() -> set[str]:
    return {name.upper() for name in Settings.model_fields}


def vars_in(path: Path) -> set[str]:
    return set(OUR_VARS.findall(path.read_text(encoding="utf-8")))


def test_every_setting_is_documented():
    documented = set(env_example())
    missing = settings_vars() - documented
    assert not missing, f"add to deploy/.env.example: {sorted(missing)}"
    unknown = {v for v in documented if OUR_VARS.match(v)} - settings_vars()
    assert not unknown, f"documented but not a setting: {sorted(unknown)}"


ENV_READ = re.compile(r"""(?:environ(?:\.get)?\s*[\[(]\s*|getenv\(\s*)["']([A-Z][A-Z0-9_]*)["']""")


def test_every_variable_used_by_deploy_files_and_bot_is_documented():
    documented = set(env_example())
    used: dict[str, set[str]] = {}
    for path in [DEPLOY / "compose.yaml", DEPLOY / "Dockerfile", *UNITS]:
        for var in vars_in(path) - documented:
            used.setdefault(var, set()).add(str(path.relative_to(ROOT)))
    # bot/ reads the environment through Settings; any direct read must be documented too
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for var in set(ENV_READ.findall(path.read_text(encoding="utf-8"))) - documented:
            used.setdefault(var, set()).add(str(path.relative_to(ROOT)))
    assert not used, f"used but not in deploy/.env.example: {used}"


def test_env_example_loads_as_settings():
    s = Settings(_env_file=str(DEPLOY / ".env.example"))
    assert s.vramchat_host == "127.0.0.1" and s.vramchat_port == 8080
    assert s.telegram_token is None and s.vramchat_api_token is None
    assert s.secrets() == []


# --------------------------------------------------------------------------- systemd


REQUIRED = {
    "DynamicUser": "yes",
    "NoNewPrivileges": "yes",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "Restart": "on-failure",
    "EnvironmentFile": "/etc/vramchat/env",
    "ExecReload": "/bin/kill -HUP $MAINPID",
}


def unit_values(path: Path) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            values.setdefault(key.strip(), []).append(value.strip())
    return values


def test_units_exist_and_are_hardened():
    assert [u.name for u in UNITS] == [
        "vramchat-discord.service",
        "vramchat-telegram.service",
        "vramchat-web.service",
    ]
    for unit in UNITS:
        values = unit_values(unit)
        for key, want in REQUIRED.items():
            assert values.get(key) == [want], f"{unit.name}: {key}"
        command = unit.name.removeprefix("vramchat-").removesuffix(".service")
        command = "serve" if command == "web" else command
        assert values["ExecStart"] == [f"/opt/vramchat/.venv/bin/vram {command}"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_analyze_verify(tmp_path: Path):
    """Verify copies whose ExecStart points at a stand-in (verify checks the binary exists)."""
    fake = tmp_path / "vram"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    copies = []
    for unit in UNITS:
        copy = tmp_path / unit.name
        copy.write_text(unit.read_text().replace("/opt/vramchat/.venv/bin/vram", str(fake)))
        copies.append(str(copy))
    proc = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *copies],
        capture_output=True,
        text=True,
        timeout=60,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    for bad in ("Unknown key", "Unknown section", "Failed to parse", "is not executable"):
        assert bad not in output, output
