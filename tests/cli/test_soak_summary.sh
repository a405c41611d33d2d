#!/bin/sh
# tests/e2e/soak_summary.py on small synthetic soak logs in soak.sh's
# format: the heap columns of each sample (in use and free, KiB) per
# replica, after warm-up, at the end and per 10 minutes; a log of a soak
# before them says they are absent. TAP output.
. tests/lib/cli.sh

sample() {   # i elapsed replica rss heap_inuse heap_free (blank: no such column)
    printf '# %6d %10d %8d %8d %4d %8d %6s %8s %6s %11s %16s %13s %14s\n' \
        "$1" "$2" "$3" "$4" 70 23 10 0 9 1 1 "$5" "$6"
}
# Replica 1: heap in use +10 KiB a minute, free flat; replica 2: in use
# flat, free -5 KiB a minute. A sample every 60 s for 10 minutes.
{
    echo "# replica 1 started: pid 1, log x"
    echo "# replica 2 started: pid 2, log y"
    echo "# sample  elapsed_s  replica  rss_kib  fds  threads  bound  pending  nodes  reloads_ok  reloads_refused  heap_used_kib  heap_free_kib"
    i=0
    while [ $i -le 10 ]; do
        sample $((i + 1)) $((i * 60)) 1 20000 $((1000 + i * 10)) 500
        sample $((i + 1)) $((i * 60 + 1)) 2 18000 800 $((900 - i * 5))
        i=$((i + 1))
    done
} >"$T/soak.log"
python3 tests/e2e/soak_summary.py --md "$T/soak.log" 120 >"$T/md" 2>"$T/err"
check "exit 0, nothing on stderr" sh -c "test $? -eq 0 && test ! -s '$T/err'"
check "the heap table's head" has_line "$T/md" \
    "| replica | heap in use after warm-up | at end | KiB per 10 min | heap free after warm-up | at end | KiB per 10 min | samples after warm-up |"
check "replica 1: in use from 1,020 to 1,100 KiB, +100 per 10 min; free flat" has_line "$T/md" \
    "| 1 | 1,020 | 1,100 | +100 | 500 | 500 | +0 | 9 |"
check "replica 2: in use flat; free from 890 to 850 KiB, -50 per 10 min" has_line "$T/md" \
    "| 2 | 800 | 800 | +0 | 890 | 850 | -50 | 9 |"
python3 tests/e2e/soak_summary.py "$T/soak.log" 120 >"$T/txt"
check "the text table: the same row, aligned" \
    sh -c "grep -Eq '^# +1 +1020 +1100 +\+100 +500 +500 +\+0 +9$' '$T/txt'"

# A soak before the heap metrics: samples end at reloads_refused; one
# whose metric could not be read prints blanks there.
{
    sample 1 0 1 20000 "" ""
    sample 2 60 1 20100 "" ""
} >"$T/old.log"
python3 tests/e2e/soak_summary.py "$T/old.log" >"$T/old" 2>&1
check "without heap columns: exit 0, said" sh -c "test $? -eq 0 && grep -q '^# heap: no heap columns in this log' '$T/old'"
check "without heap columns: RSS still summarized" sh -c "grep -Eq '^# +1 +0-60 ' '$T/old'"

tap_done
