#!/usr/bin/env bash
# Build (once, cached) a minimal Debian bookworm rootfs with python3 as a tarball, and import it as the Docker image
# sprout-base:bookworm when an engine answers. Idempotent; prints the tarball's path on stdout (progress goes to stderr).
# Env: SPROUT_CACHE_DIR (default ~/.cache/sprout-workbench), SPROUT_BASE_IMAGE (default sprout-base:bookworm).
set -euo pipefail

suite=bookworm
include=python3
cache_dir="${SPROUT_CACHE_DIR:-$HOME/.cache/sprout-workbench}"
image="${SPROUT_BASE_IMAGE:-sprout-base:bookworm}"
# The recipe is in the name so changing it builds a new tarball instead of silently reusing the old one.
tarball="$cache_dir/rootfs/$suite-minbase-${include//,/-}.tar"

log() { echo "rootfs: $*" >&2; }

# The first `deb` source that serves the bookworm suite itself, in one-line (sources.list) or deb822 (.sources) form.
apt_mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f "$f" ]] || continue
    awk -v s="$suite" '$1 == "deb" {
        i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
        if ($(i + 1) == s) { print $i; exit }
      }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    # deb822: blank-line separated stanzas; keep the URIs of a stanza whose Types has deb and Suites has the suite.
    awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" } {
        types = ""; uris = ""; suites = ""
        for (j = 1; j <= NF; j++) {
          if ($j ~ /^Types:/) types = $j
          else if ($j ~ /^URIs:/) uris = $j
          else if ($j ~ /^Suites:/) suites = $j
        }
        if (types ~ /(^|[ \t])deb([ \t]|$)/ && (" " suites " ") ~ ("[ \t]" s "[ \t]")) {
          sub(/^URIs:[ \t]*/, "", uris); split(uris, u, /[ \t]+/); print u[1]; exit
        }
      }' "$f"
  done
}

engine_answers() { command -v docker >/dev/null 2>&1 && timeout 5 docker version >/dev/null 2>&1; }

build_tarball() {
  if ! command -v debootstrap >/dev/null 2>&1; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
      export DEBIAN_FRONTEND=noninteractive
      { apt-get install -y -q debootstrap || { apt-get update -q && apt-get install -y -q debootstrap; }; } >/tmp/sprout-apt-debootstrap.log 2>&1 || { echo "rootfs: apt-get install debootstrap failed; see /tmp/sprout-apt-debootstrap.log" >&2; exit 1; }
    else
      echo "rootfs: debootstrap is missing; install it (Debian: apt-get install debootstrap) and run this again as root" >&2
      exit 1
    fi
  fi
  if [[ "$(id -u)" != 0 ]]; then
    echo "rootfs: debootstrap needs root; run this script as root" >&2
    exit 1
  fi
  local mirror
  mirror="$(apt_mirror | head -n1)"
  if [[ -z "$mirror" ]]; then
    echo "rootfs: no apt source for $suite found in /etc/apt/sources.list(.d)" >&2
    exit 1
  fi
  local work="$cache_dir/rootfs/.build-$$"
  rm -rf "$work"
  mkdir -p "$work/root"
  # shellcheck disable=SC2064 # expand now: $work is fixed for this run
  trap "rm -rf '$work'" EXIT
  log "debootstrap $suite (+$include) from $mirror (about a minute)"
  debootstrap --variant=minbase --include="$include" "$suite" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    cp "$work/debootstrap.log" "$cache_dir/rootfs/debootstrap-failed.log"
    echo "rootfs: debootstrap failed; see $cache_dir/rootfs/debootstrap-failed.log" >&2
    exit 1
  }
  # Package caches and lists are dead weight in every sandbox and every checkpoint's parent.
  rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"* "$work/root/debootstrap"
  # --numeric-owner: ids must survive on a host whose /etc/passwd differs from the rootfs's.
  tar --numeric-owner --xattrs -C "$work/root" -cf "$work/rootfs.tar" .
  mv "$work/rootfs.tar" "$tarball"
  rm -rf "$work"
  trap - EXIT
}

mkdir -p "$cache_dir/rootfs"
# One builder at a time: a second caller (another test run) waits and then finds the tarball.
exec 9>"$cache_dir/rootfs/.lock"
flock 9

if [[ -f "$tarball" ]]; then
  log "cached $tarball"
else
  build_tarball
  log "built $tarball ($(du -h "$tarball" | cut -f1))"
fi

if engine_answers; then
  if docker image inspect "$image" >/dev/null 2>&1; then
    log "image $image present"
  else
    # An imported image has no config; PATH is set so `docker exec` finds binaries without the daemon's guess.
    docker import \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'LABEL sprout.base=1' \
      "$tarball" "$image" >/dev/null
    log "imported $image"
  fi
else
  log "no Docker engine answers; skipped importing $image (run scripts/ensure-docker.sh first)"
fi

echo "$tarball"
