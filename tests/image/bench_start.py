"""Container start to first answer, by hand (a measurement, not a test: `make image-test`
never runs it). For each image, interleaved round by round so both see the same load:

- desk: ``podman run -d ... vram serve`` until ``GET /v1/ask`` answers 200 (polled every 20 ms);
- ask: ``podman run --rm ... vram ask`` spawn to exit;
- in-image: ``vram ask`` as a process inside one running container (no podman in the
  timing), with the image's cache and with ``--no-cache``.

    .venv/bin/python tests/image/bench_start.py --podman "podman --runtime=/usr/sbin/runc" \\
        localhost/vramchat:before localhost/vramchat:test
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import time
import urllib.request

QUESTION = "70b int4 128k"
HARDENED = ["--network=host", "--read-only", "--tmpfs", "/tmp:rw,size=16m,mode=1777"]
IN_IMAGE = """
import statistics, subprocess, sys, time
runs = {"cache": [], "no cache": []}
for _ in range(int(sys.argv[1])):
    for name, extra in (("cache", []), ("no cache", ["--no-cache"])):
        t = time.perf_counter()
        subprocess.run(["vram", *extra, "ask", "70b int4 128k"], stdout=subprocess.DEVNULL, check=True)
        runs[name].append(time.perf_counter() - t)
print({k: statistics.median(v) for k, v in runs.items()})
"""


def desk_start(podman: list[str], image: str, port: int) -> float:
    name = f"vramchat-bench-{port}"
    subprocess.run([*podman, "rm", "-f", "-t", "0", name], capture_output=True, check=False)
    url = f"http://127.0.0.1:{port}/v1/ask?q=70b+int4+128k"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    start = time.perf_counter()
    subprocess.run(
        [*podman, "run", "-d", "--name", name, *HARDENED, "--health-interval", "disable",
         "-e", f"VRAMCHAT_PORT={port}", image, "vram", "serve", "--host", "127.0.0.1"],
        capture_output=True, check=True,
    )  # fmt: skip
    try:
        while True:
            try:
                with opener.open(url, timeout=2) as resp:
                    if resp.status == 200:
                        return time.perf_counter() - start
            except OSError:
                pass
            if time.perf_counter() - start > 30:
                raise TimeoutError("the desk did not answer within 30 s")
            time.sleep(0.02)
    finally:
        subprocess.run([*podman, "rm", "-f", "-t", "0", name], capture_output=True, check=False)


def ask_run(podman: list[str], image: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [*podman, "run", "--rm", *HARDENED, image, "vram", "ask", QUESTION],
        capture_output=True, check=True,
    )  # fmt: skip
    return time.perf_counter() - start


def in_image(podman: list[str], image: str, rounds: int) -> dict[str, float]:
    out = subprocess.run(
        [*podman, "run", "--rm", *HARDENED, image, "python3", "-c", IN_IMAGE, str(rounds)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    result: dict[str, float] = json.loads(out.stdout.strip().replace("'", '"'))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("images", nargs="+")
    parser.add_argument("--podman", default="podman")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--port", type=int, default=18930)
    args = parser.parse_args()
    podman = shlex.split(args.podman)
    desk: dict[str, list[float]] = {i: [] for i in args.images}
    ask: dict[str, list[float]] = {i: [] for i in args.images}
    for _ in range(args.rounds):
        for image in args.images:
            desk[image].append(desk_start(podman, image, args.port))
            ask[image].append(ask_run(podman, image))
    print(
        "| image | desk: run to first /v1/ask, median (min-max) s | `podman run --rm vram ask`, median (min-max) s | in-image `vram ask` with cache / --no-cache, median s |"
    )
    print("|---|---|---|---|")
    for image in args.images:
        inside = in_image(podman, image, args.rounds)
        d, a = desk[image], ask[image]
        print(
            f"| {image} | {statistics.median(d):.3f} ({min(d):.3f}-{max(d):.3f}) "
            f"| {statistics.median(a):.3f} ({min(a):.3f}-{max(a):.3f}) "
            f"| {inside['cache']:.3f} / {inside['no cache']:.3f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
