#!/usr/bin/env bash
# Make sure a Docker engine answers, installing and starting one if needed. Idempotent.
#   - an engine already answers (DOCKER_HOST or /var/run/docker.sock): nothing to do;
#   - dockerd missing: root on Debian installs docker.io, anyone else gets one line saying what to install;
#   - then dockerd starts in the background and we wait (bounded) until it answers.
# Env: SPROUT_DOCKER_DATA_ROOT (default /var/lib/docker), SPROUT_DOCKERD_LOG (default <repo>/data/dockerd.log),
#      SPROUT_DOCKER_WAIT_S (default 30).
set -euo pipefail

repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data_root="${SPROUT_DOCKER_DATA_ROOT:-/var/lib/docker}"
log_file="${SPROUT_DOCKERD_LOG:-$repo_dir/data/dockerd.log}"
wait_s="${SPROUT_DOCKER_WAIT_S:-30}"

engine_answers() {
  command -v docker >/dev/null 2>&1 || return 1
  # `docker version` exits 0 only when the server part answered too; timeout guards a hung socket.
  timeout 5 docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

server_version() { docker version --format '{{.Server.Version}}' 2>/dev/null; }

if engine_answers; then
  echo "docker: engine $(server_version) already answers at ${DOCKER_HOST:-unix:///var/run/docker.sock}"
  exit 0
fi

# Only a local unix socket can be served by a dockerd we start; a remote DOCKER_HOST is someone else's engine.
listen=""
if [[ -n "${DOCKER_HOST:-}" ]]; then
  if [[ "$DOCKER_HOST" == unix://* ]]; then
    listen="$DOCKER_HOST"
  else
    echo "docker: DOCKER_HOST=$DOCKER_HOST does not answer; start that engine or unset DOCKER_HOST" >&2
    exit 1
  fi
fi

is_root() { [[ "$(id -u)" == 0 ]]; }

if ! command -v dockerd >/dev/null 2>&1; then
  if is_root && [[ -f /etc/debian_version ]] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    # Try the cached package lists first: `apt-get update` costs time and is only needed when they are stale.
    if ! apt-get install -y -q docker.io >/tmp/sprout-apt-docker.log 2>&1; then
      apt-get update -q >>/tmp/sprout-apt-docker.log 2>&1
      apt-get install -y -q docker.io >>/tmp/sprout-apt-docker.log 2>&1 || {
        echo "docker: apt-get install docker.io failed; see /tmp/sprout-apt-docker.log" >&2
        exit 1
      }
    fi
  else
    echo "docker: no engine answers and dockerd is missing; install Docker Engine (Debian: apt-get install docker.io) and start it" >&2
    exit 1
  fi
fi

if ! is_root; then
  echo "docker: no engine answers; start dockerd as root (e.g. sudo $0) or point DOCKER_HOST at a running engine" >&2
  exit 1
fi

# A dockerd that is still starting (another caller of this script, or the package's own start) must not get a twin:
# two daemons on one data root corrupt it.
if ! pgrep -x dockerd >/dev/null 2>&1; then
  mkdir -p "$(dirname "$log_file")" "$data_root"
  args=(--data-root "$data_root")
  [[ -n "$listen" ]] && args+=(-H "$listen")
  # setsid: the daemon must outlive this script and the shell or test runner that called it.
  setsid dockerd "${args[@]}" >>"$log_file" 2>&1 </dev/null &
fi

deadline=$((SECONDS + wait_s))
until engine_answers; do
  if ((SECONDS >= deadline)); then
    echo "docker: dockerd did not answer within ${wait_s}s; see $log_file" >&2
    exit 1
  fi
  sleep 0.2
done
echo "docker: engine $(server_version) started (data root $data_root, log $log_file)"
