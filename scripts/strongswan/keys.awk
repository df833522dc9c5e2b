# Reads a charon log written at `ike` level 4 and prints one line per IKE SA whose keys it
# derived, in the log's order: SK_ei SK_er SK_ai SK_ar in hex, "-" for the integrity keys an AEAD
# has none of. keymat_v2.c logs each key as `Sk_xx secret => N bytes @ ADDR` followed by a hex
# dump of 16 bytes a line (`   0: 6F 72 ...  ascii`); Sk_pi always comes after the four
# (RFC 7296 2.14 order: SK_d, SK_ai, SK_ar, SK_ei, SK_er, SK_pi, SK_pr), so it closes a set.
/\[IKE\] Sk_(ei|er|ai|ar|pi) secret => [0-9]+ bytes/ {
  match($0, /Sk_[a-z][a-z]/)
  name = substr($0, RSTART + 3, 2)
  if (name == "pi") {
    print k["ei"], k["er"], (("ai" in k) ? k["ai"] : "-"), (("ar" in k) ? k["ar"] : "-")
    delete k
    cur = ""
    next
  }
  match($0, /=> [0-9]+ bytes/)
  want = substr($0, RSTART + 3, RLENGTH - 9) + 0
  cur = name
  k[cur] = ""
  next
}
cur != "" && want > 0 {
  line = $0
  sub(/^.*\[IKE\] +[0-9]+: /, "", line)
  take = want > 16 ? 16 : want
  h = substr(line, 1, take * 3)
  gsub(/ /, "", h)
  k[cur] = k[cur] h
  want -= take
  if (want == 0) cur = ""
}
