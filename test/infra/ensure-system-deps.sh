#!/usr/bin/env bash
# Installs what the test suite needs from Debian on a fresh machine, once:
#   - chromium (the widget is tested in a real browser through playwright-core)
#   - sox (the voice test makes its fake microphone's WAV file with it at test time)
#   - pgvector for Debian's PostgreSQL 15 (bookworm has no package; built from trixie's source package)
#   - curl and zip (the README's bulk-upload example is run as printed)
# Idempotent: every step is skipped when its result is already there. Needs root (or sudo) only when
# something is missing. Set SKIP_SYSTEM_DEPS=1 to skip entirely (e.g. when TEST_DATABASE_URL is given).
set -euo pipefail

[ "${SKIP_SYSTEM_DEPS:-}" = "1" ] && exit 0

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

PG_MAJOR="${PG_MAJOR:-15}"
PG_BIN="/usr/lib/postgresql/${PG_MAJOR}/bin"
PG_EXT_DIR="/usr/share/postgresql/${PG_MAJOR}/extension"

need_chromium=0; need_pgvector=0; need_audio=0; need_cli=0
[ -x /usr/bin/chromium ] || need_chromium=1
command -v sox >/dev/null || need_audio=1
{ command -v curl >/dev/null && command -v zip >/dev/null; } || need_cli=1
if [ -z "${TEST_DATABASE_URL:-}" ] && [ ! -f "${PG_EXT_DIR}/vector.control" ]; then need_pgvector=1; fi
[ "$need_chromium$need_pgvector$need_audio$need_cli" = "0000" ] && exit 0

log() { echo "[ensure-system-deps] $*" >&2; }
apt_updated=0
apt_update() { if [ "$apt_updated" = 0 ]; then $SUDO apt-get update -qq >&2; apt_updated=1; fi; }

if [ "$need_chromium" = 1 ]; then
  log "installing chromium"
  apt_update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-liberation >&2
fi

if [ "$need_audio" = 1 ]; then
  log "installing sox"
  apt_update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends sox >&2
fi

if [ "$need_cli" = 1 ]; then
  log "installing curl and zip"
  apt_update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends curl zip >&2
fi

if [ "$need_pgvector" = 1 ]; then
  log "building pgvector for PostgreSQL ${PG_MAJOR}"
  if [ ! -x "${PG_BIN}/postgres" ]; then
    apt_update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "postgresql-${PG_MAJOR}" >&2
  fi
  # The source package comes from trixie: add a deb-src line for it (sources only, binaries stay bookworm's).
  src_list=/etc/apt/sources.list.d/groundwork-trixie-src.list
  if [ ! -f "$src_list" ]; then
    echo "deb-src http://deb.debian.org/debian trixie main" | $SUDO tee "$src_list" >/dev/null
    apt_updated=0
  fi
  apt_update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "postgresql-server-dev-${PG_MAJOR}" dpkg-dev build-essential >&2
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && apt-get source -qq --download-only pgvector >&2 && dpkg-source -x --no-check ./pgvector_*.dsc src >&2)
  make -s -C "$work/src" PG_CONFIG="${PG_BIN}/pg_config" >&2
  $SUDO make -s -C "$work/src" PG_CONFIG="${PG_BIN}/pg_config" install >&2
  log "pgvector installed"
fi
