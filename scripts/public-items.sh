#!/usr/bin/env bash
# Each workspace crate's public surface, as rustdoc sees it: every item reachable from the
# crate's root (structs, enums, traits, functions, constants, statics, type aliases, macros,
# unions; not their methods, fields or variants), read from the "all items" page `cargo doc`
# writes (target/doc/CRATE/all.html). docs/architecture.md quotes the counts.
#
# Usage: scripts/public-items.sh [--list] [DOC_DIR]
#   --list    every item, one `crate::path::Item (kind)` a line, after the counts
#   DOC_DIR   rustdoc's output (default: $CARGO_TARGET_DIR/doc, else target/doc); run
#             `cargo doc --workspace --no-deps` first. A crate without its page is an error.
set -euo pipefail
cd "$(dirname "$0")/.."

list=0
if [ "${1:-}" = --list ]; then
  list=1
  shift
fi
doc=${1:-${CARGO_TARGET_DIR:-target}/doc}
[ -d "$doc" ] || { echo "public-items: no rustdoc output at $doc (run cargo doc --workspace --no-deps)" >&2; exit 2; }

# The workspace's library crates, by the name rustdoc gives their directory (the CLI is a
# binary: its surface is its command line).
crates=$(for m in crates/*/Cargo.toml benches/Cargo.toml; do
  dir=$(dirname "$m")
  [ -f "$dir/src/lib.rs" ] || [ -f "$dir/lib.rs" ] || continue
  sed -n 's/^name = "\(.*\)"$/\1/p' "$m" | head -1
done | tr - _ | sort)

items() { # items CRATE: "path (kind)" lines of its all.html, each under its section's heading
  awk '
    { s = $0
      while (match(s, /<h3 id="[a-z-]*">|<li><a href="[^"]*">[^<]*<\/a><\/li>/)) {
        m = substr(s, RSTART, RLENGTH)
        s = substr(s, RSTART + RLENGTH)
        if (m ~ /^<h3/) { sub(/^<h3 id="/, "", m); sub(/">$/, "", m); kind = m; continue }
        sub(/^<li><a href="[^"]*">/, "", m); sub(/<\/a><\/li>$/, "", m)
        print m " (" kind ")"
      } }' "$doc/$1/all.html"
}

total=0
printf '%-16s %6s\n' crate items
for c in $crates; do
  [ -f "$doc/$c/all.html" ] || { echo "public-items: no page for crate $c under $doc" >&2; exit 2; }
  n=$(items "$c" | wc -l)
  total=$((total + n))
  printf '%-16s %6d\n' "$c" "$n"
done
printf '%-16s %6d\n' total "$total"
if [ "$list" = 1 ]; then
  for c in $crates; do
    items "$c" | sed "s/^/$c::/"
  done
fi
