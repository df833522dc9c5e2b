# Sourced by the scripts that install Debian packages as root for a real-daemon test
# (scripts/slurm-sweep.sh, scripts/strongswan-wire.sh). Needs the caller's `log` and `skip`
# functions and a global `policy_rc` that the caller's exit trap removes when it is set.

# apt_install PKG...: installs the packages quietly with apt-get, or skips (exit 77) saying why.
# While it runs, a policy-rc.d keeps the packages' maintainer scripts from starting the
# system's own services (Debian's convention); it is written only when the machine has none,
# and removed again here or by the caller's exit trap.
apt_install() {
  command -v apt-get >/dev/null 2>&1 || skip "no apt-get: not a Debian-like machine"
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy_rc=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' >"$policy_rc"
    chmod 755 "$policy_rc"
  fi
  log "installing $* with apt-get"
  local t0
  t0=$(date +%s)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends "$@"; } >/dev/null 2>&1; then
    skip "apt-get could not install $*"
  fi
  log "installed in $(($(date +%s) - t0)) s"
  if [ -n "$policy_rc" ]; then rm -f "$policy_rc"; policy_rc=""; fi
}
