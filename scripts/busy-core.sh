#!/usr/bin/env bash
# Keep one CPU busy for SECONDS (issue 36 #2: the test that runs `oransim validate strongswan`
# beside a busy core, crates/cli/tests/cli/validate.rs). As root, installs Debian's stress-ng if
# missing (scripts/lib/apt.sh) and runs `stress-ng --cpu 1`; where it cannot (not root, no
# apt-get, the install failed) a shell busy loop does the same. Says which on stderr
# ("busy-core: stress-ng" or "busy-core: busy loop"), then replaces itself with it: a SIGTERM to
# this pid stops it (stress-ng stops its worker).
#
# Usage: scripts/busy-core.sh SECONDS
set -euo pipefail
secs=${1:?usage: busy-core.sh SECONDS}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "busy-core: '$secs' is not a positive count of seconds" >&2; exit 1; }
log() { echo "busy-core: $*" >&2; }
skip() { log "no stress-ng: $*"; return 1; }
policy_rc=""
trap '[ -n "$policy_rc" ] && rm -f "$policy_rc"' EXIT
# shellcheck source=lib/apt.sh
. "$(dirname "$0")/lib/apt.sh"
if ! command -v stress-ng >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt_install stress-ng || true
fi
trap - EXIT
if command -v stress-ng >/dev/null 2>&1; then
  log "stress-ng"
  exec stress-ng --cpu 1 --timeout "${secs}s" --quiet
fi
log "busy loop"
exec bash -c "end=\$((SECONDS + $secs)); while [ \$SECONDS -lt \$end ]; do :; done"
