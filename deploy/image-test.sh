#!/usr/bin/env bash
# `make image-test`: build the real image with podman and test the running services in it.
#
#   1. base: a Debian bookworm root filesystem with python3 from Debian's packages (mmdebstrap),
#      cached as a tarball under $VRAMCHAT_IMAGE_CACHE (default /var/cache/vramchat-image-test)
#      and imported once as localhost/vramchat-base:bookworm;
#   2. build deploy/Dockerfile on it (BASE build argument), pip reaching PyPI over the host network;
#   3. tests/image/run.py starts the desk and both bots in read-only containers on loopback,
#      the bots pointed at the test suite's fake Telegram and Discord servers.
#
# Needs root, podman, runc and mmdebstrap (apt-get install podman runc mmdebstrap).
# VRAMCHAT_IMAGE_COLD=1 drops the cached base and build layers first (a cold run).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${VRAMCHAT_IMAGE_CACHE:-/var/cache/vramchat-image-test}
BASE_IMAGE=localhost/vramchat-base:bookworm
IMAGE=${VRAMCHAT_IMAGE:-localhost/vramchat:test}
PY=${PYTHON:-.venv/bin/python}

for tool in podman mmdebstrap /usr/sbin/runc; do
  command -v "$tool" >/dev/null 2>&1 || { echo "image-test: $tool is missing (apt-get install podman runc mmdebstrap)" >&2; exit 2; }
done

# podman's defaults do not suit every kernel here: runc, the cgroupfs manager, lower ulimits.
mkdir -p "$CACHE"
cat > "$CACHE/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]
[engine]
cgroup_manager = "cgroupfs"
CONF
export CONTAINERS_CONF="$CACHE/containers.conf"
P=(podman --runtime=/usr/sbin/runc)
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

if [ "${VRAMCHAT_IMAGE_COLD:-0}" = 1 ]; then
  echo "image-test: cold run, dropping the cached base and build layers"
  "${P[@]}" rmi -f "$IMAGE" "$BASE_IMAGE" >/dev/null 2>&1 || true
  "${P[@]}" image prune -f >/dev/null 2>&1 || true
  rm -f "$CACHE/base-bookworm.tar"
fi

t0=$(now)
if ! "${P[@]}" image exists "$BASE_IMAGE"; then
  if [ ! -s "$CACHE/base-bookworm.tar" ]; then
    echo "image-test: bootstrapping the Debian bookworm base (mmdebstrap)"
    # Package downloads may pass through this machine's TLS setup: the base carries the host's
    # CA bundle, and pip in it is told to use the system bundle (not its own certifi copy).
    mmdebstrap --quiet --variant=minbase --include=python3,python3-venv,ca-certificates \
      --customize-hook='copy-in /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/' \
      --customize-hook='printf "[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n" > "$1/etc/pip.conf"' \
      bookworm "$CACHE/base-bookworm.part.tar"
    mv "$CACHE/base-bookworm.part.tar" "$CACHE/base-bookworm.tar"
  fi
  "${P[@]}" import -q "$CACHE/base-bookworm.tar" "$BASE_IMAGE" >/dev/null
fi
echo "image-test: base ready in $(since "$t0") s"

t1=$(now)
"${P[@]}" build -q --network=host --format docker \
  -f deploy/Dockerfile --ignorefile deploy/Dockerfile.dockerignore \
  --build-arg BASE="$BASE_IMAGE" -t "$IMAGE" . >/dev/null
echo "image-test: image built in $(since "$t1") s, $("${P[@]}" image inspect --format '{{.Size}}' "$IMAGE" | awk '{ printf "%.0f MB", $1 / 1e6 }')"

export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
"$PY" tests/image/run.py --image "$IMAGE" --podman "${P[*]}"
echo "image-test: passed in $(since "$t0") s"
