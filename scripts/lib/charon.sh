# Sourced by scripts/strongswan-bench.sh (and, for `charon_packages`, `charon_cleanup`,
# `charon_check`, `charon_stale_netns` and `charon_conf`, by scripts/strongswan-wire.sh): two charons of Debian's strongSwan, one in each of two
# network namespaces over a veth pair, each with its own strongswan.conf, vici socket, pid file
# and log in one temporary directory. Needs the caller's `log`, `skip` and scripts/lib/procs.sh.
#
# Globals it sets: tmp, ns_a, ns_b, dev_a, dev_b, addr_a, addr_b, charon, version, plugins,
# charon_pid (side -> pid), pids_started, nss. Globals a caller may set (both empty unless set):
# charon_cpus (side -> a CPU list for `taskset -c`: that charon, and every thread it starts,
# runs on those CPUs only) and charon_extra (further lines of the `charon` section of both
# daemons' strongswan.conf, e.g. `threads = 4`).

# The packages a charon pair needs (what scripts/strongswan-wire.sh installs).
charon_packages=(strongswan-charon strongswan-swanctl strongswan-pki libstrongswan-standard-plugins
  libstrongswan-extra-plugins libcharon-extra-plugins tcpdump tshark jq iproute2)

# What a plain `apt-get install strongswan` loads, in the order Debian's charon loads it (the
# first plugin that offers an algorithm does it; `swanctl --list-algs` against such a daemon,
# strongSwan 5.9.8: OpenSSL's libcrypto does X25519, the signatures, ChaCha20-Poly1305, HMAC-
# SHA-256 and the PRFs; the aesni plugin, strongSwan's own AES-NI code, does AES-GCM, AES-CBC
# and AES-CCM; sha2 the plain hashes; chapoly is not loaded), plus vici (for swanctl) and
# kernel-libipsec (user-space ESP over a TUN device, for a kernel whose xfrm takes no ESP
# state), whose ESP takes its ciphers from the same plugins.
plugins="kernel-libipsec aesni aes rc2 sha2 sha1 md5 mgf1 random nonce x509 revocation constraints"
plugins+=" pubkey pkcs1 pkcs7 pkcs8 pkcs12 pgp dnskey sshkey pem openssl fips-prf gmp agent xcbc"
plugins+=" hmac gcm drbg kdf attr kernel-netlink resolve socket-default connmark counters updown"
plugins+=" vici"

tmp=""
nss=()
pids_started=()
declare -A charon_pid=()
declare -A charon_cpus=()
charon_extra=""

# The exit trap: every process started, every process left in our namespaces, the namespaces
# (which take the veth pair and the TUN devices along), the temporary directory.
charon_cleanup() {
  local status=$? pid ns pass
  # A second SIGINT or SIGTERM does not cut the clean-up short (it is bounded: 10 s a pass).
  trap - EXIT
  trap '' INT TERM
  # oransim may be gone (killed: this shell got SIGTERM as its parent died) with the read end
  # of our stderr: a write must fail, not end the cleanup with SIGPIPE nor (errexit) with its
  # status. Nothing that fails here stops the cleanup.
  trap '' PIPE
  set +e
  if [ -n "${policy_rc:-}" ]; then rm -f "$policy_rc"; fi
  if [ -n "$tmp" ] && [ -d "$tmp" ] && [ "$status" != 0 ] && [ "$status" != 77 ]; then
    for f in "$tmp"/a/charon.log "$tmp"/b/charon.log "$tmp"/*.err; do
      [ -f "$f" ] || continue
      echo "--- ${f#"$tmp"/} (last 20 lines)" >&2
      tail -n 20 "$f" >&2
    done
  fi
  for pass in TERM KILL; do
    local left=()
    for pid in "${pids_started[@]}"; do [ -d "/proc/$pid" ] && left+=("$pid"); done
    for ns in "${nss[@]}"; do
      for pid in $(ip netns pids "$ns" 2>/dev/null); do left+=("$pid"); done
    done
    [ ${#left[@]} -eq 0 ] && break
    signal_and_wait "$pass" "${left[@]}"
  done
  for ns in "${nss[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  if [ -n "$tmp" ] && [ -d "$tmp" ]; then rm -rf "$tmp"; fi
  # A caller's last step, once every process is gone (the bench leaves its cgroup).
  if declare -F charon_after_cleanup >/dev/null; then charon_after_cleanup; fi
  exit "$status"
}

charon_check() {
  charon=/usr/lib/ipsec/charon
  [ -x "$charon" ] || { log "$charon missing after the install"; exit 1; }
  version=$(dpkg-query -W -f '${Version}' strongswan-charon)
}

# charon_stale_netns TAG: namespaces oransim-TAG-<pid>-a/-b that a killed earlier run left behind
# (its pid gone), with every process still in them, removed.
charon_stale_netns() {
  local tag=$1 ns p pid
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^oransim-$tag-[0-9]*-[ab]$" || true); do
    p=${ns#oransim-"$tag"-}
    p=${p%-*}
    if [ ! -d "/proc/$p" ]; then
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
      ip netns del "$ns" 2>/dev/null || true
    fi
  done
}

# charon_netns TAG MAX: namespaces oransim-TAG-<pid>-a/-b over a veth pair (10.206.0.1, .2), with
# 10.205.1.1 behind a and 10.205.2.1 behind b on lo; namespaces a killed earlier run left
# behind (its pid gone) are removed first.
charon_netns() {
  local tag=$1 max_sas=$2
  charon_stale_netns "$tag"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/oransim-$tag.XXXXXX")
  ns_a=oransim-$tag-$$-a
  ns_b=oransim-$tag-$$-b
  dev_a=o${tag:0:3}a$$
  dev_b=o${tag:0:3}b$$
  addr_a=10.206.0.1
  addr_b=10.206.0.2
  ip netns add "$ns_a" 2>"$tmp/netns.err" || skip "cannot make a network namespace: $(cat "$tmp/netns.err")"
  nss+=("$ns_a")
  ip netns add "$ns_b"
  nss+=("$ns_b")
  ip link add "$dev_a" netns "$ns_a" type veth peer name "$dev_b" netns "$ns_b"
  ip -n "$ns_a" addr add "$addr_a/30" dev "$dev_a"
  ip -n "$ns_b" addr add "$addr_b/30" dev "$dev_b"
  ip -n "$ns_a" addr add 10.205.1.1/32 dev lo
  ip -n "$ns_b" addr add 10.205.2.1/32 dev lo
  # kernel-libipsec routes a Child SA into its TUN device from a local address inside the
  # local selector: one per SA of a storm (10.207.x.y behind a, 10.208.x.y behind b).
  local i
  for i in $(seq 1 "$max_sas"); do
    echo "addr add 10.207.$((i / 256)).$((i % 256))/32 dev lo" >>"$tmp/addrs-a"
    echo "addr add 10.208.$((i / 256)).$((i % 256))/32 dev lo" >>"$tmp/addrs-b"
  done
  ip -n "$ns_a" -batch "$tmp/addrs-a"
  ip -n "$ns_b" -batch "$tmp/addrs-b"
  local x
  for x in "$ns_a:$dev_a" "$ns_b:$dev_b"; do
    ip -n "${x%%:*}" link set "${x#*:}" up
    ip -n "${x%%:*}" link set lo up
  done
  local side
  for side in a b; do mkdir -p "$tmp/$side/run" "$tmp/$side/swanctl"/{x509,x509ca,private}; done
  charon_credentials
}

# charon_conf DIR CHARON LOG: DIR/strongswan.conf for a charon whose files are all in DIR:
# $plugins, the IKE ports, no automatic routes (the data path's routes are the TUN's), two
# retransmits (or `charon_retransmit_tries`: the loss workload's strongSwan default, 5), a log
# DIR/charon.log (every subsystem at level 1, as Debian's charon logs, with
# the seconds' time stamps, flushed per line) and no syslog, the vici socket DIR/charon.vici,
# and the plugins swanctl and pki load. CHARON holds further lines of the `charon` section, LOG
# further lines of its log's (both may be empty). Used by strongswan-bench.sh and
# strongswan-wire.sh.
charon_conf() {
  local dir=$1 charon_lines=$2 log_lines=$3
  cat >"$dir/strongswan.conf" <<EOF
charon {
  load = $plugins
  port = 500
  port_nat_t = 4500
  install_routes = no
  retransmit_tries = ${charon_retransmit_tries:-2}
  $charon_lines
  filelog {
    log {
      path = $dir/charon.log
      time_format = %s
      default = 1
      $log_lines
      flush_line = yes
    }
  }
  syslog {
    daemon {
      default = -1
    }
  }
  plugins {
    vici {
      socket = unix://$dir/charon.vici
    }
  }
}
swanctl {
  load = pem pkcs1 pkcs8 x509 revocation constraints pubkey openssl random
}
pki {
  load = random nonce aes sha1 sha2 pem pkcs1 pkcs8 x509 pubkey gmp openssl
}
EOF
}

# strongswan.conf for side $1 of the bench (`charon_conf`), its log with milliseconds. Each
# initiation a new IKE SA (by default charon puts a Child SA of a connection equal to an
# established one into that IKE SA), unless `charon_reuse_ikesa` is yes (the child workload: its
# Child SAs are CREATE_CHILD_SA exchanges on one IKE SA). A storm's initiators all share one address here, where a
# RIC's gNBs each have their own: the per-address limit on half-open IKE SAs (5) and the cookie
# threshold (30 half-open SAs) are raised so that the storm measures the daemons' work, not DoS
# protection that the model does not include (docs/validation.md).
write_charon_conf() {
  charon_conf "$tmp/$1" "reuse_ikesa = ${charon_reuse_ikesa:-no}
  block_threshold = 100000
  cookie_threshold = 100000
  cookie_threshold_ip = 100000${charon_extra:+
  $charon_extra}" "time_add_ms = yes"
}

swan() { # swan SIDE ARGS...: swanctl against that side's daemon
  local side=$1
  shift
  STRONGSWAN_CONF="$tmp/$side/strongswan.conf" SWANCTL_DIR="$tmp/$side/swanctl" \
    swanctl "$@" --uri "unix://$tmp/$side/charon.vici"
}

# Stops both daemons (if running) and waits until they are gone. On SIGTERM charon deletes
# every IKE SA it holds, one DELETE each: a daemon that still holds 2000 of them on a busy host
# can take longer than signal_and_wait's 10 s, and the next charon_restart would then find its
# IKE ports taken. One still running after that is killed (its SAs are of no further use; the
# kernel's, on the xfrm path, are flushed in its namespace), and the stop fails if it cannot
# be.
charon_stop_all() {
  local side pids=() left=() ns
  for side in a b; do
    [ -n "${charon_pid[$side]:-}" ] && pids+=("${charon_pid[$side]}")
  done
  signal_and_wait TERM "${pids[@]}"
  for side in a b; do
    [ -n "${charon_pid[$side]:-}" ] && [ -d "/proc/${charon_pid[$side]}" ] && left+=("$side")
  done
  if [ ${#left[@]} -gt 0 ]; then
    log "charon ${left[*]} still running 10 s after SIGTERM (deleting its SAs): killed"
    for side in "${left[@]}"; do
      signal_and_wait KILL "${charon_pid[$side]}"
      [ -d "/proc/${charon_pid[$side]}" ] && { log "charon $side (pid ${charon_pid[$side]}) did not stop"; return 1; }
      if [ $side = a ]; then ns=$ns_a; else ns=$ns_b; fi
      ip netns exec "$ns" ip xfrm state flush 2>/dev/null || true
      ip netns exec "$ns" ip xfrm policy flush 2>/dev/null || true
    done
  fi
  charon_pid=()
  rm -f "$tmp"/a/charon.vici "$tmp"/b/charon.vici "$tmp"/a/run/* "$tmp"/b/run/*
}

# Whether both charons of the last charon_restart are still running (a dead one not yet
# reaped is a zombie, whose /proc entry stays).
charon_alive() {
  local side pid
  for side in a b; do
    pid=${charon_pid[$side]:-}
    [ -n "$pid" ] && [ -r "/proc/$pid/status" ] || return 1
    ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" || return 1
  done
}

# (Re)starts one charon per namespace with a fresh log, and waits for both vici sockets. The
# pid file is fixed at /var/run/charon.pid: `ip netns exec` gives a private mount namespace,
# where /run is bound to the daemon's own directory. A side with a CPU list in charon_cpus
# starts under `taskset -c` (every thread charon makes inherits it; taskset, ip, sh and env
# each exec the next, so the pid is charon's).
charon_restart() {
  charon_stop_all || return 1
  local side ns pin
  for side in a b; do
    if [ $side = a ]; then ns=$ns_a; else ns=$ns_b; fi
    write_charon_conf "$side"
    : >"$tmp/$side/charon.log"
    pin=()
    if [ -n "${charon_cpus[$side]:-}" ]; then pin=(taskset -c "${charon_cpus[$side]}"); fi
    # shellcheck disable=SC2016 # $1 and $2 are the inner shell's arguments
    "${pin[@]}" ip netns exec "$ns" sh -c 'mount --bind "$1/run" /run && exec env STRONGSWAN_CONF="$1/strongswan.conf" "$2" --use-syslog 2>>"$1/charon.stderr"' \
      sh "$tmp/$side" "$charon" >/dev/null 2>&1 &
    charon_pid[$side]=$!
    pids_started+=($!)
  done
  for side in a b; do
    for _ in $(seq 100); do [ -S "$tmp/$side/charon.vici" ] && break; sleep 0.05; done
    [ -S "$tmp/$side/charon.vici" ] || { log "charon $side did not open its vici socket"; return 1; }
    # A port taken first: charon carries on without the socket (its log says "could not open
    # IPv4 socket, IPv4 disabled") and every exchange would time out; refused here instead.
    if grep -q 'could not open IPv4 socket' "$tmp/$side/charon.log"; then
      log "charon $side could not bind its IKE ports (UDP 500 and 4500) in namespace $(if [ $side = a ]; then echo "$ns_a"; else echo "$ns_b"; fi): $(grep -m1 'unable to bind socket' "$tmp/$side/charon.log" | cut -d' ' -f3-); another process holds one"
      return 1
    fi
  done
}

dn_a="C=CH, O=oransim, CN=moon.example.org"
dn_b="C=CH, O=oransim, CN=sun.example.org"
psk="0sb3JhbnNpbS1pa2Utd2lyZS10ZXN0LXByZS1zaGFyZWQta2V5"

# Per signature algorithm a CA and an end-entity certificate per side, made with `pki` (its
# stderr, which notes DRBGs its plugin list lacks, goes to $tmp/pki.err, shown on a failure).
charon_credentials() {
  write_charon_conf a
  local key gen d side dn
  for key in ed25519 ecdsa-p256 rsa2048; do
    case $key in
      ed25519) gen=(--type ed25519) ;;
      ecdsa-p256) gen=(--type ecdsa --size 256) ;;
      rsa2048) gen=(--type rsa --size 2048) ;;
    esac
    d=$tmp/pki/$key
    mkdir -p "$d"
    STRONGSWAN_CONF="$tmp/a/strongswan.conf" pki --gen "${gen[@]}" --outform der >"$d/ca.key" 2>>"$tmp/pki.err"
    STRONGSWAN_CONF="$tmp/a/strongswan.conf" pki --self --ca --lifetime 3650 --in "$d/ca.key" \
      --type "${gen[1]}" --dn "C=CH, O=oransim, CN=oransim test CA" --outform der >"$d/ca.der" 2>>"$tmp/pki.err"
    for side in a b; do
      if [ $side = a ]; then dn=$dn_a; else dn=$dn_b; fi
      STRONGSWAN_CONF="$tmp/a/strongswan.conf" pki --gen "${gen[@]}" --outform der >"$d/$side.key" 2>>"$tmp/pki.err"
      STRONGSWAN_CONF="$tmp/a/strongswan.conf" pki --pub --in "$d/$side.key" --outform der 2>>"$tmp/pki.err" |
        STRONGSWAN_CONF="$tmp/a/strongswan.conf" pki --issue --cacert "$d/ca.der" \
          --cakey "$d/ca.key" --type pub --lifetime 365 --dn "$dn" --san "${dn##*CN=}" \
          --outform der >"$d/$side.der" 2>>"$tmp/pki.err"
    done
  done
}

# swanctl.conf for side $1 (a initiates, b responds): authentication $2 (psk, ed25519,
# ecdsa-p256, rsa2048), ESP proposal $3, on a: $4 connections s1..sN with start action $5, and
# with $6 = K > 1 (one connection only) K - 1 further children c2..cK of s1 (10.207.0.k/32 -
# 10.208.0.k/32) and a child cx whose remote selector (10.209.0.1/32) the responder refuses
# (TS_UNACCEPTABLE: a CREATE_CHILD_SA exchange that installs nothing). The ESP proposal has no
# key-exchange group, so a CREATE_CHILD_SA carries no KE payload (no PFS).
# IKE: aes256gcm16-prfsha256-x25519. Every connection has `unique = never` (many IKE SAs between
# the same identities, none replaced) and no remote identity on the initiator (so no
# INITIAL_CONTACT, which would make the responder delete the others).
write_bench_conf() {
  local side=$1 auth=$2 esp=$3 n=$4 start=$5 kids=${6:-1} me them local_auth remote_auth
  local dir=$tmp/$side/swanctl
  rm -f "$dir"/x509/* "$dir"/x509ca/* "$dir"/private/*
  if [ "$side" = a ]; then me=$addr_a; them=$addr_b; else me=$addr_b; them=$addr_a; fi
  if [ "$auth" = psk ]; then
    local my_id=moon.example.org
    [ "$side" = b ] && my_id=sun.example.org
    local_auth="auth = psk
        id = $my_id"
    remote_auth="auth = psk"
  else
    local d=$tmp/pki/$auth
    cp "$d/$side.der" "$dir/x509/$side.der"
    cp "$d/$side.key" "$dir/private/$side.key"
    cp "$d/ca.der" "$dir/x509ca/ca.der"
    local_auth="auth = pubkey
        certs = $side.der"
    remote_auth="auth = pubkey"
  fi
  local names
  if [ "$side" = a ]; then names=$(seq 1 "$n"); else names=0; start=none; fi
  {
    echo "connections {"
    local i c ts_l ts_r
    for i in $names; do
      # Each Child SA its own selectors (charon does not establish a duplicate of another's):
      # a single SA 10.205.1.0/24 - 10.205.2.0/24, as the data path's tests use; SA i of many
      # 10.207.x.y/32 - 10.208.x.y/32; the responder accepts all of them.
      if [ "$i" = 0 ]; then
        c=r
        ts_l=10.208.0.0/16,10.205.2.0/24
        ts_r=10.207.0.0/16,10.205.1.0/24
      elif [ "$n" = 1 ]; then
        c=s1
        ts_l=10.205.1.0/24
        ts_r=10.205.2.0/24
      else
        c=s$i
        ts_l=10.207.$((i / 256)).$((i % 256))/32
        ts_r=10.208.$((i / 256)).$((i % 256))/32
      fi
      cat <<CONF
  $c {
    version = 2
    unique = never
    local_addrs = $me
    remote_addrs = $them
    proposals = aes256gcm16-prfsha256-x25519
    rekey_time = 0
    dpd_delay = 0
    local {
        $local_auth
    }
    remote {
        $remote_auth
    }
    children {
      c1 {
        esp_proposals = $esp
        local_ts = $ts_l
        remote_ts = $ts_r
        rekey_time = 0
        start_action = $start
      }
CONF
      if [ "$c" = s1 ] && [ "$kids" -gt 1 ]; then
        local k
        for k in $(seq 2 "$kids") x; do
          if [ "$k" = x ]; then
            ts_l=10.205.1.1/32
            ts_r=10.209.0.1/32
          else
            ts_l=10.207.0.$k/32
            ts_r=10.208.0.$k/32
          fi
          cat <<CONF
      c$k {
        esp_proposals = $esp
        local_ts = $ts_l
        remote_ts = $ts_r
        rekey_time = 0
        start_action = none
      }
CONF
        done
      fi
      cat <<CONF
    }
  }
CONF
    done
    cat <<CONF
}
secrets {
  ike-bench {
    id-a = moon.example.org
    id-b = sun.example.org
    secret = $psk
  }
}
CONF
  } >"$dir/swanctl.conf"
}
