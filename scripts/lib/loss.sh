# Sourced by scripts/strongswan-bench.sh: the loss workload (issue 39) and the partial file a
# bench that fails half-way leaves. Needs the bench's globals (tmp, ns_a, ns_b, charon_pid,
# json_rows, ...) and its functions (fresh_daemons, swan, capture_start, capture_stop, cpu_ns,
# add, log).
#
# Loss: a storm of PSK IKE SAs whose every IKE datagram is dropped with probability P on the
# bench's veth, both directions: an nftables rule in the responder's namespace drops requests as
# they arrive and responses as they leave (`numgen random mod 1000000 < P x 10^6`; this kernel
# has no netem). The capture is the initiator's, on its end of the veth: every request it sends
# (retransmissions included) and every response that got through. Both charons retransmit as
# strongSwan does by default (retransmit_timeout 4 s, retransmit_base 1.8, retransmit_tries 5:
# resends 4, 11.2, 24.16, 47.49 and 89.48 s after the first send, and gives up at 165.1 s).

loss_rates=""
loss_sas=200
loss_runs=3
# strongSwan's defaults (charon.retransmit_*), which the loss storms run with.
loss_timeout_s=4.0
loss_base=1.8
loss_tries=5

# loss_check: the rates are fractions above 0 and below 1 (at most 6 decimals: the rule draws
# from a million), the storm size and runs positive counts.
loss_check() {
  local p
  for p in ${loss_rates//,/ }; do
    [[ $p =~ ^0?\.[0-9]{1,6}$ ]] && awk -v p="$p" 'BEGIN { exit !(p > 0 && p < 1) }' ||
      usage_err "--loss '$p': a fraction above 0 and below 1 with at most 6 decimals (0.01 is 1%)"
  done
  for p in $loss_sas $loss_runs; do
    [[ $p =~ ^[1-9][0-9]*$ ]] || usage_err "'$p' is not a positive count (--loss-storm, --loss-runs)"
  done
}

# loss_rule P: the drop rule (and a counter of what reached it) in the responder's namespace.
loss_rule() {
  local k
  k=$(awk -v p="$1" 'BEGIN { printf "%d", p * 1000000 + 0.5 }')
  ip netns exec "$ns_b" nft -f - <<EOF
table inet oransim_loss {
  chain input {
    type filter hook input priority 0; policy accept;
    udp dport { 500, 4500 } counter
    udp dport { 500, 4500 } numgen random mod 1000000 < $k counter drop
  }
  chain output {
    type filter hook output priority 0; policy accept;
    udp sport { 500, 4500 } counter
    udp sport { 500, 4500 } numgen random mod 1000000 < $k counter drop
  }
}
EOF
}

# The rule's counters as "in dropped_in out dropped_out" [packets], then the rule removed.
loss_rule_counts() {
  ip netns exec "$ns_b" nft list table inet oransim_loss |
    sed -n 's/.*counter packets \([0-9]*\) bytes.*/\1/p' | paste -sd' '
  ip netns exec "$ns_b" nft delete table inet oransim_loss
}

# Per SA from the initiator's capture: "ms init_sends auth_sends", ms the first IKE_SA_INIT
# request to the first IKE_AUTH response [ms] or `-` when none came, the sends each request had.
loss_times() {
  tshark -r "$1" -T fields -e frame.time_epoch -e isakmp.ispi -e isakmp.exchangetype \
    -e isakmp.flag_r -E occurrence=f 2>/dev/null |
    awk '$3 == 34 && $4 == 0 { if (!($2 in s)) s[$2] = $1; ni[$2]++ }
         $3 == 35 && $4 == 0 { na[$2]++ }
         $3 == 35 && $4 == 1 && !($2 in e) { e[$2] = $1 }
         END { for (k in s) printf "%s %d %d\n", (k in e) ? sprintf("%.6f", (e[k] - s[k]) * 1e3) : "-", ni[k], na[k] }'
}

# loss_storm P N RUN: N PSK IKE SAs at once under loss P; waits until each is up or its
# initiator gave up (charon's "giving up after" line), at most the give-up and 30 s.
loss_storm() {
  local p=$1 n=$2 r=$3 pcap=$tmp/loss-$1-$3.pcap
  charon_retransmit_tries=$loss_tries
  charon_extra="retransmit_timeout = $loss_timeout_s
  retransmit_base = $loss_base"
  fresh_daemons psk aes256gcm16 "$n" start
  charon_extra=""
  charon_retransmit_tries=""
  swan a --load-creds --clear --noprompt >"$tmp/a.load" 2>&1 || { cat "$tmp/a.load" >&2; return 1; }
  loss_rule "$p" || { log "loss $p: nft could not add the drop rule"; return 1; }
  capture_start "$pcap"
  local ca cb
  ca=$(cpu_ns a)
  cb=$(cpu_ns b)
  swan a --load-conns >"$tmp/a.load" 2>&1 || { cat "$tmp/a.load" >&2; return 1; }
  log "loss $p run $r: storm started"
  local t0 up=0 gave=0 limit=195
  t0=$(date +%s)
  while :; do
    charon_alive || { log "loss $p run $r: $up of $n up when a charon died"; return 1; }
    up=$(grep -c 'CHILD_SA c1{[0-9]*} established' "$tmp/a/charon.log" || true)
    gave=$(grep -c 'giving up after' "$tmp/a/charon.log" || true)
    [ $((up + gave)) -ge "$n" ] && break
    [ $(($(date +%s) - t0)) -gt $limit ] && { log "loss $p run $r: $up up and $gave given up of $n after $limit s"; return 1; }
    sleep 0.2
  done
  local da db
  da=$(($(cpu_ns a) - ca))
  db=$(($(cpu_ns b) - cb))
  capture_stop
  local counts
  counts=$(loss_rule_counts)
  loss_times "$pcap" >"$tmp/loss.times"
  rm -f "$pcap"
  local got ups setup retx init_sends auth_sends
  got=$(wc -l <"$tmp/loss.times")
  [ "$got" = "$n" ] || { log "loss $p run $r: $got of $n SAs on the capture"; return 1; }
  setup=$(awk '$1 != "-" { print $1 }' "$tmp/loss.times" | sort -g | paste -sd,)
  ups=$(awk '$1 != "-"' "$tmp/loss.times" | wc -l)
  read -r init_sends auth_sends retx < <(awk '{ i += $2; a += $3; r += $2 - 1 + ($3 > 1 ? $3 - 1 : 0) }
    END { printf "%d %d %d\n", i, a, r }' "$tmp/loss.times")
  [ "$ups" = "$up" ] || log "loss $p run $r: $ups SAs up on the capture, $up Child SAs in charon's log"
  local c
  read -r -a c <<<"$counts"
  add "{\"workload\": \"loss\", \"auth\": \"psk\", \"sas\": $n, \"run\": $r, \"loss\": $p,
    \"retransmit\": {\"timeout_s\": $loss_timeout_s, \"base\": $loss_base, \"tries\": $loss_tries},
    \"setup_ms\": [$setup], \"gave_up\": $((n - ups)), \"gave_up_logged\": $gave,
    \"requests\": [$init_sends, $auth_sends], \"retransmissions\": $retx,
    \"rule_packets\": [${c[0]:-0}, ${c[2]:-0}], \"rule_dropped\": [${c[1]:-0}, ${c[3]:-0}],
    \"initiator_cpu_ns\": $da, \"responder_cpu_ns\": $db}"
  log "loss $p run $r: $ups of $n up ($((n - ups)) gave up), $retx retransmissions, dropped ${c[1]:-0}/${c[0]:-0} requests and ${c[3]:-0}/${c[2]:-0} responses; up by 4 / 11.2 / 24.16 s: $(awk -v n="$n" '$1 != "-" { if ($1 < 4000) a++; if ($1 < 11200) b++; if ($1 < 24160) c++ }
    END { printf "%.3f / %.3f / %.3f", a / n, b / n, c / n }' "$tmp/loss.times")"
}

# Every loss storm: run r of every rate before run r + 1.
run_loss() {
  local r p
  for r in $(seq "$loss_runs"); do
    for p in ${loss_rates//,/ }; do loss_storm "$p" "$loss_sas" "$r"; done
  done
}

# bench_partial FILE STATUS: the rows measured so far, in FILE (the bench's --out with
# `.partial` appended), marked `"partial": true` with the exit status: what a bench that failed
# or was stopped half-way had measured. `oransim validate` and `calibrate --run` refuse such a
# file (it is not a measurement set); the complete file is never written then.
bench_partial() {
  local file=$1 status=$2
  [ ${#json_rows[@]} -gt 0 ] || return 0
  {
    printf '{"schema": "oransim.measure.strongswan/1", "partial": true, "exit_status": %s,\n' "$status"
    printf ' "set": "%s", "strongswan": "%s", "data_path": "%s", "cpus": %s,\n' \
      "${set_name:-}" "${version:-}" "${data_path:-}" "$(nproc)"
    printf ' "arguments": %s,\n "rows": [\n' "$(jq -R . <<<"${argv:-}")"
    local sep="" row
    for row in "${json_rows[@]}"; do printf '%s  %s' "$sep" "$row"; sep=$',\n'; done
    printf '\n]}\n'
  } | jq . >"$file.tmp" 2>/dev/null && mv "$file.tmp" "$file" &&
    log "stopped (exit $status): the ${#json_rows[@]} row(s) measured so far are in $file, marked partial"
  rm -f "$file.tmp"
}
