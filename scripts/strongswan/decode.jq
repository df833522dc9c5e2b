# Turns tshark's `-T fields` lines for one case's capture (scripts/strongswan-wire.sh, `fields`
# there gives the column order) into the case's JSON: every IKE message in capture order, the
# five exchanges the model predicts (named as `oransim handshake` names them), and the set-up
# times. Input: the raw TSV (jq -R -s); $meta: the case's configuration as JSON.

def payload_name:
  {"33": "SA", "34": "KE", "35": "IDi", "36": "IDr", "37": "CERT", "38": "CERTREQ", "39": "AUTH",
   "40": "Nonce", "41": "N", "42": "D", "43": "V", "44": "TSi", "45": "TSr", "46": "SK",
   "47": "CP", "48": "EAP", "53": "SKF"}[tostring] // "payload-\(.)";

# IANA "IKEv2 Notify Message Types" (RFC 7296 3.10.1 and the RFCs each names).
def notify_name:
  {"14": "NO_PROPOSAL_CHOSEN", "17": "INVALID_KE_PAYLOAD", "24": "AUTHENTICATION_FAILED",
   "38": "TS_UNACCEPTABLE", "16384": "INITIAL_CONTACT", "16385": "SET_WINDOW_SIZE",
   "16386": "ADDITIONAL_TS_POSSIBLE", "16387": "IPCOMP_SUPPORTED",
   "16388": "NAT_DETECTION_SOURCE_IP", "16389": "NAT_DETECTION_DESTINATION_IP",
   "16390": "COOKIE", "16391": "USE_TRANSPORT_MODE", "16392": "HTTP_CERT_LOOKUP_SUPPORTED",
   "16393": "REKEY_SA", "16394": "ESP_TFC_PADDING_NOT_SUPPORTED",
   "16395": "NON_FIRST_FRAGMENTS_ALSO", "16396": "MOBIKE_SUPPORTED",
   "16397": "ADDITIONAL_IP4_ADDRESS", "16398": "ADDITIONAL_IP6_ADDRESS",
   "16399": "NO_ADDITIONAL_ADDRESSES", "16400": "UPDATE_SA_ADDRESSES", "16401": "COOKIE2",
   "16402": "NO_NATS_ALLOWED", "16403": "AUTH_LIFETIME", "16404": "MULTIPLE_AUTH_SUPPORTED",
   "16405": "ANOTHER_AUTH_FOLLOWS", "16406": "REDIRECT_SUPPORTED", "16407": "REDIRECT",
   "16408": "REDIRECTED_FROM", "16417": "EAP_ONLY_AUTHENTICATION",
   "16418": "CHILDLESS_IKEV2_SUPPORTED", "16420": "IKEV2_MESSAGE_ID_SYNC_SUPPORTED",
   "16422": "IKEV2_MESSAGE_ID_SYNC", "16430": "IKEV2_FRAGMENTATION_SUPPORTED",
   "16431": "SIGNATURE_HASH_ALGORITHMS", "16435": "USE_PPK",
   "16441": "INTERMEDIATE_EXCHANGE_SUPPORTED"}[tostring] // "\(.)";

def exchange_name:
  {"34": "IKE_SA_INIT", "35": "IKE_AUTH", "36": "CREATE_CHILD_SA", "37": "INFORMATIONAL",
   "43": "IKE_INTERMEDIATE"}[tostring] // "exchange-\(.)";

def words: if . == "" then [] else split(" ") end;
def hex: ascii_downcase | ltrimstr("0x") | explode
  | reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 else $c - 48 end));

# One message from one line: time, ip.len, udp.srcport, ispi, rspi, exchange type, I flag,
# R flag, message ID, IKE length, payload types, payload lengths, notify types, pad length.
def message:
  split("\t") as $f
  | ($f[10] | words | map(tonumber)) as $types
  | ($f[11] | words | map(tonumber)) as $lens
  | ($f[12] | words | map(tonumber)) as $notifies
  # Proposal (2) and transform (3) substructures are in tshark's payload list too: keep only the
  # IKEv2 payloads (types 33 and up), in order, with the lengths at the same positions.
  | [range(0; $types | length) | select($types[.] >= 33) | {type: $types[.], len: $lens[.]}]
  | (if any(.type == 46) then (index(map(.type == 46)) // 0) else null end) as $sk
  | . as $p
  | reduce range(0; $p | length) as $i ({out: [], n: 0};
      ($p[$i] | .type) as $t
      | .out += [$p[$i] + {name: (if $t == 41 then "N(\($notifies[.n] | notify_name))"
          else ($t | payload_name) end),
          inner: ($sk != null and $i > $sk)}
          + (if $t == 41 then {notify: $notifies[.n]} else {} end)]
      | .n += (if $t == 41 then 1 else 0 end))
  | {t: ($f[0] | tonumber), ip_len: ($f[1] | tonumber), port: ($f[2] | tonumber),
     ispi: $f[3], rspi: $f[4], exchange: ($f[5] | tonumber | exchange_name),
     initiator: ($f[6] == "1" or $f[6] == "True"), response: ($f[7] == "1" or $f[7] == "True"),
     message_id: ($f[8] | hex), ike_len: ($f[9] | tonumber),
     encrypted: ($sk != null), decrypted: ($sk != null and $f[13] != ""), payloads: .out};

# Which of the model's exchanges a request/response pair is.
def exchange_label($req):
  if $req.exchange == "IKE_SA_INIT" then "IKE_SA_INIT"
  elif $req.exchange == "IKE_AUTH" then "IKE_AUTH"
  elif $req.exchange == "CREATE_CHILD_SA" then
    (if any($req.payloads[]; .name == "N(REKEY_SA)") then "CREATE_CHILD_SA (rekey Child SA)"
     elif any($req.payloads[]; .name == "TSi") then "CREATE_CHILD_SA (new Child SA)"
     else "CREATE_CHILD_SA (rekey IKE SA)" end)
  else $req.exchange end;

def side: {ike_len, ip_len, port, payloads: [.payloads[]
  | {name, len, type, inner} + (if .notify then {notify} else {} end)]};

def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
  else (.[length / 2 - 1] + .[length / 2]) / 2 end;

[split("\n")[] | select(length > 0) | message] as $msgs
# Pairs: each request with the first later response of the same IKE SA and message ID.
| [range(0; $msgs | length) as $i | $msgs[$i] | select(.response | not) | . as $rq
   | ([$msgs[$i + 1:][] | select(.response and .ispi == $rq.ispi and .message_id == $rq.message_id)]
      | first) as $rs
   | {name: exchange_label($rq), request: $rq, response: $rs}] as $pairs
# Set-up time of each IKE SA made by IKE_SA_INIT: its request to its IKE_AUTH response [ms], and
# its parts: the IKE_SA_INIT round trip (the responder's work in it), the initiator's turn
# between the two exchanges, the IKE_AUTH round trip.
| def ms: . * 1e6 | round / 1e3;
  [$pairs[] | select(.name == "IKE_SA_INIT") | . as $init
   | ($pairs[] | select(.name == "IKE_AUTH" and .request.ispi == $init.request.ispi)) as $auth
   | {total: ($auth.response.t - $init.request.t | ms),
      init_rtt: ($init.response.t - $init.request.t | ms),
      initiator: ($auth.request.t - $init.response.t | ms),
      auth_rtt: ($auth.response.t - $auth.request.t | ms)}] as $parts
| [$parts[].total] as $setup
# The messages of the first IKE SA and its successors (the five exchanges and the deletes), up to
# the timed set-ups' first IKE_SA_INIT: those are the ones decrypted.
| ([range(0; $msgs | length) | select($msgs[.].exchange == "IKE_SA_INIT" and ($msgs[.].response | not))]
   | .[1] // ($msgs | length)) as $stop
| $meta + {
    messages: [$msgs[:$stop][] | del(.ispi, .rspi)],
    undecrypted: [$msgs[:$stop][] | select(.encrypted and (.decrypted | not))] | length,
    exchanges: [["IKE_SA_INIT", "IKE_AUTH", "CREATE_CHILD_SA (new Child SA)",
        "CREATE_CHILD_SA (rekey Child SA)", "CREATE_CHILD_SA (rekey IKE SA)"][] as $n
      | first($pairs[] | select(.name == $n))
      | {name, request: (.request | side), response: (.response | side)}],
    setup_ms: {first: $setup[0], runs: $setup[1:], median: ($setup[1:] | median | . * 1000 | round / 1000),
      min: ($setup[1:] | min), max: ($setup[1:] | max),
      parts_median: ($parts[1:] | {init_rtt: map(.init_rtt) | median, initiator: map(.initiator) | median,
        auth_rtt: map(.auth_rtt) | median} | map_values(. * 1000 | round / 1000))}
  }
