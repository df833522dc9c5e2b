#!/usr/bin/env bash
# Capture real strongSwan IKEv2 exchanges on the wire (issue 17, items 2 and 3; docs/strongswan.md):
# as root on a Debian machine, install strongSwan 5.9 from the distribution's packages, make two
# network namespaces joined by a veth pair, start one charon in each (its own strongswan.conf,
# pid file, vici socket and log, all in one temporary directory), and for every case (peer
# configuration default/minimal x authentication psk/ed25519/ecdsa-p256 x cipher
# aes256gcm16/aes256-sha256) run IKE_SA_INIT + IKE_AUTH, a CREATE_CHILD_SA for a new Child SA, a
# Child SA rekey and an IKE SA rekey, capture them with tcpdump and decode every IKE message with
# tshark, the encrypted ones too (charon logs the IKE SA keys at `ike` level 4, and tshark's
# IKEv2 decryption table takes them). Then it times the IKE set-up (first IKE_SA_INIT request to
# IKE_AUTH response on the capture's clock) over --runs further initiations.
#
# Usage: scripts/strongswan-wire.sh --out DIR [--runs N] [--case NAME]...
#
#   --out DIR    where each case's result goes, as DIR/<case>.json (created if missing)
#   --runs N     timed set-ups per case, after the first, key-logging one (default 5)
#   --case NAME  only this case (repeatable), e.g. default-psk-aes256gcm16
#
# Each DIR/<case>.json holds the configuration (peer, auth, cipher, proposals, identities with
# type and bytes, certificate DER sizes, the strongSwan and plugin versions), every IKE message
# of the first IKE SA and its rekeyed successor in order (exchange, direction, message ID, the
# IKE header's length, UDP port, IP length, and each payload's type, length and notify type,
# the inner payloads of SK decrypted), the five exchanges in `oransim handshake`'s names, and
# the set-up times [ms] (the timed set-ups' messages are used for their times only).
#
# Exit status: 0 every case ran and was written; 1 a step failed; 77 skipped (not root, not
# Debian-like, the packages not installable, no network namespaces), with a line
# `skipped: <reason>` on stderr.
#
# What it leaves on the machine: the installed packages (strongswan-charon, strongswan-swanctl,
# strongswan-pki, libstrongswan-standard-plugins, libcharon-extra-plugins,
# libstrongswan-extra-plugins, tcpdump, tshark, jq; a second run skips the install). It does not
# touch /etc/strongswan.conf, /etc/swanctl or any service: every charon it starts reads its own
# configuration from the temporary directory, which is removed on every exit, with the
# namespaces, the veth pair and the TUN devices (kernel-libipsec's, inside the namespaces).
set -euo pipefail

out=""
runs=5
only=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --case) only+=("${2:?--case needs a name}"); shift 2 ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "strongswan-wire: unknown argument '$1' (allowed: --out DIR, --runs N, --case NAME)" >&2; exit 1 ;;
  esac
done
[ -n "$out" ] || { echo "strongswan-wire: --out DIR is required" >&2; exit 1; }
case $runs in
  '' | *[!0-9]*) echo "strongswan-wire: --runs '$runs': a whole number from 1 to 50" >&2; exit 1 ;;
esac
if [ "$runs" -lt 1 ] || [ "$runs" -gt 50 ]; then
  echo "strongswan-wire: --runs $runs: a whole number from 1 to 50" >&2
  exit 1
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
skip() { echo "skipped: $*" >&2; exit 77; }
log() { echo "strongswan-wire: $*" >&2; }
# shellcheck source=lib/apt.sh
. "$(dirname "$0")/lib/apt.sh"
# shellcheck source=lib/procs.sh
. "$(dirname "$0")/lib/procs.sh"
# charon_packages and charon_conf (the rest of it is strongswan-bench.sh's; the globals it
# sets are set again below).
# shellcheck source=lib/charon.sh
. "$(dirname "$0")/lib/charon.sh"

[ "$(id -u)" = 0 ] || skip "not root (installing packages and making network namespaces need root)"

# --- packages ----------------------------------------------------------------------------------
packages=("${charon_packages[@]}")
need_install=0
for p in "${packages[@]}"; do
  dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need_install=1
done
tmp=""
policy_rc=""
nss=()
pids_started=()
trap charon_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ $need_install = 1 ]; then
  apt_install "${packages[@]}"
fi
charon_check
tshark_version=$(dpkg-query -W -f '${Version}' tshark)
log "strongSwan $version, tshark $tshark_version"

# --- two namespaces over a veth pair -------------------------------------------------------------
charon_stale_netns ike
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oransim-ike.XXXXXX")
ns_a=oransim-ike-$$-a
ns_b=oransim-ike-$$-b
dev_a=oika$$
dev_b=oikb$$
addr_a=10.204.0.1
addr_b=10.204.0.2
ip netns add "$ns_a" 2>"$tmp/netns.err" || skip "cannot make a network namespace: $(cat "$tmp/netns.err")"
nss+=("$ns_a")
ip netns add "$ns_b"
nss+=("$ns_b")
ip link add "$dev_a" netns "$ns_a" type veth peer name "$dev_b" netns "$ns_b"
ip -n "$ns_a" addr add "$addr_a/30" dev "$dev_a"
ip -n "$ns_b" addr add "$addr_b/30" dev "$dev_b"
# An address inside each side's traffic selector (10.205.1.0/24 behind a, 10.205.2.0/24 behind b):
# kernel-libipsec routes a Child SA's traffic into its TUN device from such a source address.
# The second Child SA (c2) uses 10.205.3.0/24 and 10.205.4.0/24: strongSwan will not build a
# duplicate of c1's traffic selectors.
for i in 1 3; do
  ip -n "$ns_a" addr add 10.205.$i.1/32 dev lo
  ip -n "$ns_b" addr add 10.205.$((i + 1)).1/32 dev lo
done
for x in "$ns_a:$dev_a" "$ns_b:$dev_b"; do
  ip -n "${x%%:*}" link set "${x#*:}" up
  ip -n "${x%%:*}" link set lo up
done

# --- plugins and configuration -------------------------------------------------------------------
# The plugins a plain `apt-get install strongswan` loads (libstrongswan, strongswan-libcharon and
# the recommended libstrongswan-standard-plugins, each as Debian enables it), plus vici for
# swanctl and kernel-libipsec (user-space ESP over a TUN device: this kernel's xfrm takes no ESP
# state, so without it a responder cannot install a Child SA). strongSwan builds its default
# proposals from the algorithms its plugins offer, so this list fixes the `default` case's
# proposals; the extra plugins' algorithms (chapoly, ccm, ctr, gcrypt, curve25519) are left out.
plugins="kernel-libipsec random nonce aes aesni sha1 sha2 md5 mgf1 pem pkcs1 pkcs7 pkcs8 pkcs12"
plugins+=" pgp dnskey sshkey pubkey x509 revocation constraints fips-prf gmp hmac kdf drbg xcbc rc2"
plugins+=" openssl gcm agent attr kernel-netlink resolve socket-default connmark counters updown vici"

# strongswan.conf for one daemon (scripts/lib/charon.sh's `charon_conf`): $1 directory, $2 peer configuration (default or minimal), $3
# auth, $4 the `ike` log level (4 logs the IKE SA keys, for decryption; the timed set-ups run at
# 1, the level Debian's charon logs at, since level 4's hex dumps cost time).
# `minimal` pares IKE_SA_INIT and IKE_AUTH down to what strongSwan can leave out: no
# REDIRECT_SUPPORTED (follow_redirects), no MULTIPLE_AUTH_SUPPORTED (multiple_authentication),
# and for PSK no SIGNATURE_HASH_ALGORITHMS (signature_authentication; Ed25519 and the RFC 7427
# ECDSA AUTH need it, so certificates keep it).
write_strongswan_conf() {
  local dir=$1 peer=$2 auth=$3 ike_log=$4 extra=""
  if [ "$peer" = minimal ]; then
    extra="follow_redirects = no
  multiple_authentication = no"
    [ "$auth" = psk ] && extra="$extra
  signature_authentication = no"
  fi
  charon_conf "$dir" "$extra" "ike = $ike_log
      net = 1
      enc = 1"
}

for side in a b; do
  mkdir -p "$tmp/$side/run" "$tmp/$side/swanctl"/{x509,x509ca,private}
  write_strongswan_conf "$tmp/$side" default psk 4
done

# One charon per namespace. `ip netns exec` runs it in a private mount namespace, where /run is
# bound to the daemon's own directory: charon's pid file is fixed at /var/run/charon.pid.
start_charon() {
  local side=$1 ns=$2
  # shellcheck disable=SC2016 # $1 and $2 are the inner shell's arguments
  ip netns exec "$ns" sh -c 'mount --bind "$1/run" /run && exec env STRONGSWAN_CONF="$1/strongswan.conf" "$2" --use-syslog 2>>"$1/charon.stderr"' \
    sh "$tmp/$side" "$charon" >/dev/null 2>&1 &
  pids_started+=($!)
}
start_charon a "$ns_a"
start_charon b "$ns_b"

swan() { # swan SIDE ARGS...: swanctl against that side's daemon
  local side=$1
  shift
  STRONGSWAN_CONF="$tmp/$side/strongswan.conf" SWANCTL_DIR="$tmp/$side/swanctl" \
    swanctl "$@" --uri "unix://$tmp/$side/charon.vici"
}
for side in a b; do
  for _ in $(seq 100); do [ -S "$tmp/$side/charon.vici" ] && break; sleep 0.1; done
  [ -S "$tmp/$side/charon.vici" ] || { log "charon $side did not open its vici socket"; exit 1; }
done
log "charon up in $ns_a ($addr_a) and $ns_b ($addr_b): $(swan a --version --daemon 2>/dev/null | tr -s ' \n' ' ')"

# --- credentials ---------------------------------------------------------------------------------
# One CA and one end-entity certificate per side for each signature algorithm, made with `pki`:
# the identities are the certificates' subject DNs (swanctl's default when no `id` is set).
dn_a="C=CH, O=oransim, CN=moon.example.org"
dn_b="C=CH, O=oransim, CN=sun.example.org"
pki_() { STRONGSWAN_CONF="$tmp/a/strongswan.conf" pki "$@"; }
mkdir -p "$tmp/pki"
for key in ed25519 ecdsa-p256; do
  case $key in
    ed25519) gen=(--type ed25519) ;;
    ecdsa-p256) gen=(--type ecdsa --size 256) ;;
  esac
  d=$tmp/pki/$key
  mkdir -p "$d"
  pki_ --gen "${gen[@]}" --outform der >"$d/ca.key"
  pki_ --self --ca --lifetime 3650 --in "$d/ca.key" --type "${gen[1]}" \
    --dn "C=CH, O=oransim, CN=oransim test CA" --outform der >"$d/ca.der"
  for side in a b; do
    if [ $side = a ]; then dn=$dn_a; else dn=$dn_b; fi
    pki_ --gen "${gen[@]}" --outform der >"$d/$side.key"
    pki_ --pub --in "$d/$side.key" --outform der |
      pki_ --issue --cacert "$d/ca.der" --cakey "$d/ca.key" --type pub --lifetime 365 \
        --dn "$dn" --san "${dn##*CN=}" --outform der >"$d/$side.der"
  done
done
psk="0sb3JhbnNpbS1pa2Utd2lyZS10ZXN0LXByZS1zaGFyZWQta2V5"

# --- one case ------------------------------------------------------------------------------------
# swanctl.conf for side $1 (a initiates, b responds) of case peer $2, auth $3, cipher $4.
write_swanctl_conf() {
  local side=$1 peer=$2 auth=$3 cipher=$4 me them my_id their_id ike esp d my_net their_net
  if [ "$side" = a ]; then me=$addr_a; them=$addr_b; else me=$addr_b; them=$addr_a; fi
  # The traffic selectors: a subnet behind each side (one IPv4 range each, as the model's), not
  # the IKE addresses (kernel-libipsec refuses a route that would capture the IKE traffic).
  if [ "$side" = a ]; then my_net=1; their_net=2; else my_net=2; their_net=1; fi
  local dir=$tmp/$side/swanctl
  rm -f "$dir"/x509/* "$dir"/x509ca/* "$dir"/private/*
  case $cipher in
    aes256gcm16) ike=aes256gcm16-prfsha256-x25519; esp=aes256gcm16 ;;
    aes256-sha256) ike=aes256-sha256-x25519; esp=aes256-sha256 ;;
  esac
  if [ "$peer" = default ]; then
    # strongSwan's own proposal lists, as a user who sets none gets them; the responder accepts
    # only the case's cipher, so that both cipher modes are negotiated from the same request.
    if [ "$side" = a ]; then ike=default; esp=default; fi
  fi
  local local_auth remote_auth
  if [ "$auth" = psk ]; then
    if [ "$side" = a ]; then my_id=moon.example.org; their_id=sun.example.org
    else my_id=sun.example.org; their_id=moon.example.org; fi
    local_auth="auth = psk
        id = $my_id"
    remote_auth="auth = psk"
  else
    d=$tmp/pki/$auth
    cp "$d/$side.der" "$dir/x509/$side.der"
    cp "$d/$side.key" "$dir/private/$side.key"
    cp "$d/ca.der" "$dir/x509ca/ca.der"
    if [ "$side" = a ]; then their_id=$dn_b; else their_id=$dn_a; fi
    local_auth="auth = pubkey
        certs = $side.der"
    remote_auth="auth = pubkey"
  fi
  # `default`: the remote identity is configured, as in strongSwan's examples (the initiator
  # then sends IDr and INITIAL_CONTACT); `minimal`: any remote identity, no IDr.
  if [ "$peer" = default ] || [ "$side" = b ]; then
    remote_auth="$remote_auth
        id = \"$their_id\""
  fi
  # `minimal` also leaves out CHILDLESS_IKEV2_SUPPORTED (a per-connection option since 5.9.6).
  local childless=allow
  [ "$peer" = minimal ] && childless=never
  cat >"$dir/swanctl.conf" <<CONF
connections {
  wire {
    version = 2
    childless = $childless
    local_addrs = $me
    remote_addrs = $them
    proposals = $ike
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
        local_ts = 10.205.$my_net.0/24
        remote_ts = 10.205.$their_net.0/24
        rekey_time = 0
        start_action = none
      }
      c2 {
        esp_proposals = $esp
        local_ts = 10.205.$((my_net + 2)).0/24
        remote_ts = 10.205.$((their_net + 2)).0/24
        rekey_time = 0
        start_action = none
      }
    }
  }
}
secrets {
  ike-wire {
    id-a = moon.example.org
    id-b = sun.example.org
    secret = $psk
  }
}
CONF
}

# Waits until side $1's charon log has more than $2 lines matching $3 (at most 10 s).
wait_log() {
  local side=$1 n=$2 pat=$3
  for _ in $(seq 200); do
    [ "$(grep -c -- "$pat" "$tmp/$side/charon.log" 2>/dev/null || true)" -gt "$n" ] && return 0
    sleep 0.05
  done
  log "timed out waiting for '$pat' in charon $side's log"
  return 1
}
count_log() { grep -c -- "$2" "$tmp/$1/charon.log" 2>/dev/null || true; }

# The tshark columns decode.jq reads, in order.
fields=(frame.time_epoch ip.len udp.srcport isakmp.ispi isakmp.rspi isakmp.exchangetype
  isakmp.flag_i isakmp.flag_r isakmp.messageid isakmp.length isakmp.typepayload
  isakmp.payloadlength isakmp.notify.msgtype isakmp.enc.pad_length)

# Decodes case $1-$2-$3's capture $4 into $5: the IKE SA keys from the initiator's log go into
# tshark's IKEv2 decryption table (one row per IKE SA: the SPI pairs in the order the capture
# first shows them with a responder SPI, the keys in the order charon derived them; a wrong
# pairing would leave a message undecrypted, which fails the case).
decode() {
  local peer=$1 auth=$2 cipher=$3 pcap=$4 json=$5 encr integ
  case $cipher in
    aes256gcm16) encr='"AES-GCM-256 with 16 octet ICV [RFC5282]"'; integ='"NONE [RFC4306]"' ;;
    aes256-sha256) encr='"AES-CBC-256 [RFC3602]"'; integ='"HMAC_SHA2_256_128 [RFC4868]"' ;;
  esac
  local home=$tmp/tshark-home
  mkdir -p "$home/.config/wireshark"
  tail -n +"$((log_start + 1))" "$tmp/a/charon.log" | awk -f "$repo/scripts/strongswan/keys.awk" >"$tmp/keys"
  # Keys for the first IKE SA and its rekeyed successor: the first two SPI pairs on the wire.
  [ "$(wc -l <"$tmp/keys")" = 2 ] ||
    { log "$peer-$auth-$cipher: keys of $(wc -l <"$tmp/keys") IKE SAs in the log, expected 2"; return 1; }
  tshark -r "$pcap" -T fields -e isakmp.ispi -e isakmp.rspi 2>/dev/null |
    awk '$2 != "0000000000000000" && !seen[$1 " " $2]++' | head -n 2 >"$tmp/spis"
  paste -d ' ' "$tmp/spis" "$tmp/keys" | awk -v encr="$encr" -v integ="$integ" \
    '{ ai = $5 == "-" ? "" : $5; ar = $6 == "-" ? "" : $6
       printf "%s,%s,%s,%s,%s,%s,%s,%s\n", $1, $2, $3, $4, encr, ai, ar, integ }' \
    >"$home/.config/wireshark/ikev2_decryption_table"
  local args=() f
  for f in "${fields[@]}"; do args+=(-e "$f"); done
  HOME=$home tshark -r "$pcap" -T fields "${args[@]}" -E occurrence=a -E aggregator=' ' \
    2>"$tmp/tshark.err" >"$tmp/fields.tsv"
  local meta
  meta=$(case_meta "$peer" "$auth" "$cipher")
  jq -R -s --argjson meta "$meta" -f "$repo/scripts/strongswan/decode.jq" "$tmp/fields.tsv" >"$json"
  local bad
  bad=$(jq '.undecrypted' "$json")
  [ "$bad" = 0 ] || { log "$peer-$auth-$cipher: $bad encrypted messages tshark could not decrypt"; return 1; }
  [ "$(jq '.exchanges | length' "$json")" = 5 ] ||
    { log "$peer-$auth-$cipher: not all five exchanges on the wire"; return 1; }
}

# The case's configuration as JSON: what the model needs to predict it.
case_meta() {
  local peer=$1 auth=$2 cipher=$3 id_i id_r certs='[]' ike_i=default esp_i=default ike_r esp_r
  case $cipher in
    aes256gcm16) ike_r=aes256gcm16-prfsha256-x25519; esp_r=aes256gcm16 ;;
    aes256-sha256) ike_r=aes256-sha256-x25519; esp_r=aes256-sha256 ;;
  esac
  [ "$peer" = minimal ] && { ike_i=$ike_r; esp_i=$esp_r; }
  if [ "$auth" = psk ]; then
    id_i='{"type": "fqdn", "value": "moon.example.org", "bytes": 16}'
    id_r='{"type": "fqdn", "value": "sun.example.org", "bytes": 15}'
  else
    local d=$tmp/pki/$auth na nb
    na=$(pki_ --dn --in "$d/a.der" --format bin | wc -c)
    nb=$(pki_ --dn --in "$d/b.der" --format bin | wc -c)
    id_i="{\"type\": \"dn\", \"value\": \"$dn_a\", \"bytes\": $na}"
    id_r="{\"type\": \"dn\", \"value\": \"$dn_b\", \"bytes\": $nb}"
    certs="[$(wc -c <"$d/a.der"), $(wc -c <"$d/b.der")]"
  fi
  local model_peer=minimal idr_sent=false
  if [ "$peer" = default ]; then model_peer=strongswan; idr_sent=true; fi
  jq -n --arg peer "$peer" --arg model_peer "$model_peer" --arg auth "$auth" --arg cipher "$cipher" \
    --argjson id_i "$id_i" --argjson id_r "$id_r" --argjson idr "$idr_sent" --argjson certs "$certs" \
    --arg ike_i "$ike_i" --arg esp_i "$esp_i" --arg ike_r "$ike_r" --arg esp_r "$esp_r" \
    --arg version "$version" --arg tshark "$tshark_version" --arg plugins "$plugins" \
    --argjson runs "$runs" \
    '{case: "\($peer)-\($auth)-\($cipher)", peer: $peer, model_peer: $model_peer, auth: $auth,
      cipher: $cipher, ke: "x25519",
      proposals: {initiator: {ike: $ike_i, esp: $esp_i}, responder: {ike: $ike_r, esp: $esp_r}},
      id_i: $id_i, id_r: $id_r, idr_sent: $idr, cert_der_bytes: $certs,
      strongswan: $version, tshark: $tshark, plugins: ($plugins | split(" ")), timed_runs: $runs}'
}

run_case() {
  local peer=$1 auth=$2 cipher=$3 name=$1-$2-$3 side
  local pcap=$tmp/$name.pcap
  log_start=$(wc -l <"$tmp/a/charon.log")
  for side in a b; do
    write_strongswan_conf "$tmp/$side" "$peer" "$auth" 4
    swan $side --reload-settings >/dev/null
    write_swanctl_conf $side "$peer" "$auth" "$cipher"
    swan $side --load-all --clear --noprompt >"$tmp/$side/load.out" 2>&1 ||
      { cat "$tmp/$side/load.out" >&2; return 1; }
  done
  : >"$tmp/tcpdump.err"
  ip netns exec "$ns_a" tcpdump -i "$dev_a" -n -U --immediate-mode -w "$pcap" \
    'udp port 500 or udp port 4500' 2>"$tmp/tcpdump.err" &
  local tcpdump_pid=$!
  pids_started+=("$tcpdump_pid")
  for _ in $(seq 100); do grep -q 'listening on' "$tmp/tcpdump.err" && break; sleep 0.05; done
  grep -q 'listening on' "$tmp/tcpdump.err" || { log "tcpdump did not start"; return 1; }

  # IKE_SA_INIT + IKE_AUTH (Child SA c1), CREATE_CHILD_SA for c2, c1 rekeyed, the IKE SA rekeyed.
  local est rk
  swan a --initiate --child c1 --timeout 10 >/dev/null
  swan a --initiate --child c2 --timeout 10 >/dev/null
  est=$(count_log a 'CHILD_SA c1{[0-9]*} established')
  swan a --rekey --child c1 >/dev/null
  wait_log a "$est" 'CHILD_SA c1{[0-9]*} established'
  wait_log b 0 'closing CHILD_SA c1{'
  rk=$(count_log a 'IKE_SA wire\[[0-9]*\] rekeyed')
  swan a --rekey --ike wire >/dev/null
  wait_log a "$rk" 'IKE_SA wire\[[0-9]*\] rekeyed'
  sleep 0.2
  # The timed set-ups: each a new IKE SA (IKE_SA_INIT + IKE_AUTH), deleted before the next, with
  # charon logging as a user's does (no keys: these messages stay encrypted, and only their
  # clear IKE headers are used).
  swan a --terminate --ike wire --timeout 10 >/dev/null
  for side in a b; do
    write_strongswan_conf "$tmp/$side" "$peer" "$auth" 1
    swan $side --reload-settings >/dev/null
  done
  local _r
  for _r in $(seq "$runs"); do
    swan a --initiate --child c1 --timeout 10 >/dev/null
    swan a --terminate --ike wire --timeout 10 >/dev/null
  done
  sleep 0.1
  kill -INT "$tcpdump_pid"
  wait "$tcpdump_pid" || true
  decode "$peer" "$auth" "$cipher" "$pcap" "$out/$name.json"
}

# --- every case ----------------------------------------------------------------------------------
mkdir -p "$out"
n=0
for peer in default minimal; do
  for auth in psk ed25519 ecdsa-p256; do
    for cipher in aes256gcm16 aes256-sha256; do
      name=$peer-$auth-$cipher
      if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qxF "$name"; then continue; fi
      t0=$(date +%s%N)
      run_case "$peer" "$auth" "$cipher"
      log "case $name: $(jq -r '[.exchanges[] | "\(.request.ike_len)/\(.response.ike_len)"] | join(" ")' "$out/$name.json") B, set-up median $(jq '.setup_ms.median' "$out/$name.json") ms [$((($(date +%s%N) - t0) / 1000000)) ms]"
      n=$((n + 1))
    done
  done
done
[ $n -gt 0 ] || { log "no case matched --case ${only[*]}"; exit 1; }
log "PASS: $n cases written to $out"
