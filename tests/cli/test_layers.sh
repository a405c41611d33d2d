#!/bin/sh
# The layering of core/ as docs/architecture.md states it, checked:
#   - every `#include "x/..."` of core/ and include/moonsched/ goes to the
#     file's own folder or to one that the doc's "Layers" table lets it
#     include (a public header "moonsched/x.h" belongs to the folder
#     whose file table lists it);
#   - every source file of core/ is listed in the doc's file tables.
# The table is written once, in the doc; this script reads it. The
# includes that break it today are listed below, each with its reason,
# until the cycles they belong to are removed. The script also plants an
# upward include and an unlisted file in a copy of the tree, to show that
# it sees them. TAP output; needs only sh, awk, grep, sed.
. tests/lib/cli.sh

# Known upward includes: "file include", one per line. Each names the
# cycle it belongs to; remove a line when its include goes.
ALLOWED='
'

# check_tree ROOT: prints "include FILE -> TARGET (LAYER -> LAYER)" for each
# forbidden include, "unlisted FILE" for each core/ file the doc does not
# list, "known FILE TARGET" for each allowed exception that is still there,
# "stale FILE TARGET" for each allowed exception that is no longer there.
check_tree() {
    root=$1
    doc="$root/docs/architecture.md"
    # The Layers table: "| `core/x/` | why | a, b, c |" -> "x a b c".
    sed -n '/^## Layers/,/^## /p' "$doc" | grep '^| `core/' |
        awk -F'|' '{ l = $2; gsub(/[ `]/, "", l); sub(/^core\//, "", l); sub(/\/$/, "", l)
                     inc = $(NF - 1); gsub(/[`,]/, " ", inc); printf "%s %s\n", l, inc }' >"$T/layers"
    # The file tables: "### x/" then rows; a name without a folder takes
    # the folder of the name before it in the same cell; "a.c/.h" is
    # a.c and a.h; ".h" is the previous name's stem with .h.
    sed -n '/^## Files/,/^## Outside/p' "$doc" |
        awk '/^### / { sec = $2; sub(/\/$/, "", sec); next }
             /^\| `/ && sec != "" {
                 split($0, col, "|"); cell = col[2]; dir = ""; stem = ""
                 while (match(cell, /`[^`]*`/)) {
                     t = substr(cell, RSTART + 1, RLENGTH - 2); cell = substr(cell, RSTART + RLENGTH)
                     if (t ~ /^include\/moonsched\//) { n = t; sub(/^include\/moonsched\//, "", n)
                                                        print "public " n " " sec; continue }
                     both = sub(/\.c\/\.h$/, ".c", t)
                     if (t ~ /^\./) t = stem t
                     else if (t !~ /\//) t = dir t
                     d = t; if (d ~ /\//) sub(/[^\/]*$/, "", d); else d = ""; dir = d
                     if (both) { b = t; sub(/\.c$/, "", b); print "file core/" sec "/" b ".c"
                                 print "file core/" sec "/" b ".h"; stem = b; continue }
                     b = t; sub(/\.[ch]$/, "", b); stem = b
                     print "file core/" sec "/" t
                 } }' >"$T/listed"
    # Every source file of core/, listed (a table name may be a glob).
    (cd "$root" && find core -name '*.[ch]' | sort) | while read -r f; do
        found=""
        for p in $(sed -n 's/^file //p' "$T/listed"); do
            # shellcheck disable=SC2254
            case "$f" in $p) found=1; break ;; esac
        done
        [ -n "$found" ] || echo "unlisted $f"
    done
    # Every include of a folder's header.
    (cd "$root" && grep -Ho '^#include "[a-z_]*/[a-z_/]*\.h"' $(find core include/moonsched -name '*.[ch]' | sort)) |
        sed 's/:#include "/ /; s/"$//' >"$T/includes"
    awk -v allowed="$ALLOWED" '
        FILENAME == ARGV[1] { ok[$1] = 1; for (i = 2; i <= NF; i++) if ($i != "") ok[$1 "," $i] = 1; next }
        FILENAME == ARGV[2] { if ($1 == "public") pub[$2] = $3; next }
        FNR == 1 && !init { init = 1; n = split(allowed, a, "\n")
                            for (i = 1; i <= n; i++) { split(a[i], w, " "); if (w[2] != "") exc[w[1] " " w[2]] = 0 } }
        {
            f = $1; inc = $2
            if (f ~ /^include\/moonsched\//) { h = f; sub(/^include\/moonsched\//, "", h); from = pub[h] }
            else { from = f; sub(/^core\//, "", from); sub(/\/.*/, "", from) }
            to = inc; sub(/\/.*/, "", to)
            if (to == "moonsched") { h = inc; sub(/^moonsched\//, "", h); to = pub[h]
                                     if (to == "") { print "unlisted include/" inc; next } }
            if (from == "" ) { print "unlisted " f; next }
            if (from == to || ok[from "," to]) next
            if (!ok[from]) { print "include " f " -> " inc " (" from " has no row in the Layers table)"; next }
            if ((f " " inc) in exc) { exc[f " " inc] = 1; print "known " f " " inc; next }
            print "include " f " -> " inc " (" from " -> " to ")"
        }
        END { for (k in exc) if (!exc[k]) print "stale " k }' "$T/layers" "$T/listed" "$T/includes" | sort -u
}

check_tree . >"$T/out"
grep -c '^known ' "$T/out" | sed 's/^/# known upward includes (the allow-list): /'
grep -E '^(include|unlisted|stale) ' "$T/out" | sed 's/^/# /'
check "every include of core/ goes down the Layers table of docs/architecture.md" \
    sh -c "! grep -q '^include ' '$T/out'"
check "every source file of core/ is in the file tables of docs/architecture.md" \
    sh -c "! grep -q '^unlisted ' '$T/out'"
check "every allowed exception is still an include (else remove it from the list)" \
    sh -c "! grep -q '^stale ' '$T/out'"
check "the Layers table has a row for every folder of core/" \
    sh -c "for d in \$(ls core); do grep -q \"^| \\\`core/\$d/\\\`\" docs/architecture.md || exit 1; done"

# A copy with an upward include (base/ reaching the scheduler) and a
# file that the doc does not list: both are reported.
mkdir -p "$T/tree/docs"
cp -R core include "$T/tree/" && cp docs/architecture.md "$T/tree/docs/"
printf '#include "scheduler/scheduler_priv.h"\n' >>"$T/tree/core/base/buf.c"
printf 'int planted;\n' >"$T/tree/core/base/planted.c"
check_tree "$T/tree" >"$T/planted"
check "a planted upward include is reported (base/buf.c -> scheduler/)" \
    grep -q '^include core/base/buf.c -> scheduler/scheduler_priv.h (base -> scheduler)$' "$T/planted"
check "a planted unlisted file is reported" grep -qx 'unlisted core/base/planted.c' "$T/planted"
check "nothing else is reported in the planted copy" \
    sh -c "test \"\$(grep -Ec '^(include|unlisted|stale) ' '$T/planted')\" -eq 2"

tap_done
