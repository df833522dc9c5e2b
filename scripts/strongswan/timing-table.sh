#!/usr/bin/env bash
# The side-by-side table of docs/strongswan.md (issue 17 item 3): each captured case's measured
# IKE set-up time (first IKE_SA_INIT request to IKE_AUTH response on the capture's clock, median
# and range of the timed runs, and the medians of its three parts) beside `oransim plan kex`'s prediction for one tunnel over the
# veth (0 m, 10 Gbit/s) from each calibration profile given.
#
# Usage: scripts/strongswan/timing-table.sh --oransim BIN --cases DIR PROFILE.toml...
set -euo pipefail
oransim=""
cases=""
while [ $# -gt 0 ]; do
  case $1 in
    --oransim) oransim=${2:?--oransim needs a path}; shift 2 ;;
    --cases) cases=${2:?--cases needs a directory}; shift 2 ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) echo "timing-table: unknown option '$1' (allowed: --oransim BIN, --cases DIR)" >&2; exit 1 ;;
    *) break ;;
  esac
done
[ -x "$oransim" ] || { echo "timing-table: --oransim BIN: an oransim binary" >&2; exit 1; }
[ -d "$cases" ] || { echo "timing-table: --cases DIR: the directory of case JSON files" >&2; exit 1; }
[ $# -gt 0 ] || { echo "timing-table: give at least one calibration profile" >&2; exit 1; }

header="| case | measured median [ms] | range [ms] | runs | IKE_SA_INIT RTT / initiator / IKE_AUTH RTT [ms] |"
rule="|---|---:|---:|---:|---:|"
for p in "$@"; do
  header="$header model, $(basename "$p" .toml) [ms] |"
  rule="$rule---:|"
done
echo "$header"
echo "$rule"
declare -A predicted
for f in "$cases"/*.json; do
  auth=$(jq -r .auth "$f")
  row=$(jq -r '"| \(.case) | \(.setup_ms.median) | \(.setup_ms.min)-\(.setup_ms.max) | \(.setup_ms.runs | length) | \(.setup_ms.parts_median | "\(.init_rtt) / \(.initiator) / \(.auth_rtt)") |"' "$f")
  for p in "$@"; do
    key="$p/$auth"
    if [ -z "${predicted[$key]:-}" ]; then
      predicted[$key]=$("$oransim" plan kex --ke x25519 --auth "$auth" --tunnels 1 --profile "$p" \
        --length 0m --rate 10Gbps --format json | jq '.rows[0].setup_ns / 1e3 | round / 1e3')
    fi
    row="$row ${predicted[$key]} |"
  done
  echo "$row"
done
