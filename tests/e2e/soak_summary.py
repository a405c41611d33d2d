#!/usr/bin/env python3
"""Summary of a soak log (tests/e2e/soak.sh's output): what
docs/reliability.md's soak table is made of.

  python3 tests/e2e/soak_summary.py [--md] LOG [WARMUP_S]

Per replica: its life (first and last sample, seconds into the soak), its
role (leader spells, from the failover lines), RSS in KiB at the first
sample after its warm-up (WARMUP_S, default 300 s after its first sample),
in the middle of what follows, at the end and the highest; the ranges of
its open descriptors and threads. Per leader spell: RSS at its start, 10
minutes in and at its end, and the growth per 10 minutes after its first
10 minutes (the least-squares slope of those samples). Per replica, the
C heap in use and free in its arenas (moonsched_heap_inuse_bytes and
moonsched_heap_free_bytes, the samples' last two columns) in KiB: at the
first sample after its warm-up, at its last, and the growth per 10
minutes after its warm-up; said absent in logs of soaks before them.

A leader spell runs from the takeover of the failover before (or the
start, or the exit of the leader before) to the failover that killed it,
or to its own exit with status 1 (a lost lease: a standby has none to
lose). The holder after the last failover is named by the failover line
when the soak printed it ("replica N" after "new holder") and no lease
was lost since; otherwise, as in logs of older soaks, it is the replica
alive at the end whose RSS rose most during the spell (marked "?"):
only a leader schedules, and a standby's RSS stays within a few hundred
KiB. A log cut short (a soak stopped before its end) is summarized as far
as it goes. --md prints the tables in Markdown, as docs/reliability.md
has them."""
import re
import sys

SAMPLE = re.compile(r"^#\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s")
# The rest of a sample: bound, pending, nodes, reloads ok and refused,
# then (since the heap metrics) heap in use and free in KiB.
HEAP = re.compile(r"(?:\s+\S+){5}\s+(\d+)\s+(\d+)\s*$")
STARTED = re.compile(r"^# replica (\d+) started")
FAILOVER = re.compile(r"^# failover (\d+) at (\d+) s: replica (\d+) SIGKILLed, new holder after ([\d.]+) s"
                      r"(?: \(replica (\d+)\))?")
EXITED = re.compile(r"^# replica (\d+) exited by itself with status (\d+) at (\d+) s")
RESTART = re.compile(r"^# the API server SIGKILLed .*\((\d+)\)")


def slope(points):
    """Least-squares KiB per second of (t, rss) points; None under 2."""
    if len(points) < 2:
        return None
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mr = sum(r for _, r in points) / n
    den = sum((t - mt) ** 2 for t, _ in points)
    return sum((t - mt) * (r - mr) for t, r in points) / den if den else None


def table(md, head, rows):
    """Rows of cells: Markdown, or aligned text lines starting with "#"."""
    if md:
        print("| " + " | ".join(head) + " |")
        print("|" + " --- |" * len(head))
        for r in rows:
            print("| " + " | ".join(str(c) for c in r) + " |")
        return
    cells = [head] + [[str(c) for c in r] for r in rows]
    w = [max(len(r[i]) for r in cells) for i in range(len(head))]
    for r in cells:
        print("# " + "  ".join(c.rjust(w[i]) for i, c in enumerate(r)))


def main():
    args = sys.argv[1:]
    md = "--md" in args
    args = [a for a in args if a != "--md"]
    log = args[0]
    warmup = int(args[1]) if len(args) > 1 else 300
    samples = {}          # replica -> [(t, rss, fds, threads, heap in use or None, heap free or None)]
    failovers = []        # (t, killed, takeover, holder or None)
    exits = []            # (t, replica, status)
    restarts = 0
    last_t = 0
    with open(log) as f:
        for line in f:
            m = SAMPLE.match(line)
            if m:
                _, t, rn, rss, fds, th = (int(x) for x in m.groups())
                h = HEAP.match(line, m.end() - 1)
                heap = (int(h.group(1)), int(h.group(2))) if h else (None, None)
                samples.setdefault(rn, []).append((t, rss, fds, th) + heap)
                last_t = max(last_t, t)
                continue
            m = STARTED.match(line)
            if m:
                samples.setdefault(int(m.group(1)), [])
                continue
            m = FAILOVER.match(line)
            if m:
                holder = int(m.group(5)) if m.group(5) else None
                failovers.append((int(m.group(2)), int(m.group(3)), float(m.group(4)), holder))
                continue
            m = EXITED.match(line)
            if m:
                exits.append((int(m.group(3)), int(m.group(1)), int(m.group(2))))
                continue
            if RESTART.match(line):
                restarts += 1

    # Leader spells: (replica, from, to, inferred). A replica that exits by
    # itself with status 1 lost the lease: it led until then (a standby
    # has none to lose).
    spells = []
    begin = 0.0
    ends = sorted([(t, killed, takeover) for t, killed, takeover, _ in failovers] +
                  [(t, rn, 0.0) for t, rn, st in exits if st == 1])
    for t, rn, takeover in ends:
        spells.append((rn, begin, float(t), False))
        begin = t + takeover
    if failovers and failovers[-1][3] is not None and (not ends or ends[-1][0] == failovers[-1][0]):
        spells.append((failovers[-1][3], begin, float(last_t), False))
    else:
        # The holder now: among the replicas alive at the end, the one whose
        # RSS rose most since the spell began.
        best, rise = None, None
        for rn, v in samples.items():
            if not v or v[-1][0] < last_t - 60:
                continue
            during = [s for s in v if s[0] >= begin]
            if len(during) < 2:
                continue
            d = max(s[1] for s in during) - during[0][1]
            if rise is None or d > rise:
                best, rise = rn, d
        if best is not None:
            spells.append((best, begin, float(last_t), True))

    kib = (lambda v: f"{v:,}") if md else str
    print(f"{'' if md else '# '}{log}: {last_t} s sampled, {len(samples)} replicas, {len(failovers)} failovers, "
          f"{restarts} API server restarts, {len(exits)} replicas exited by themselves; "
          f"warm-up {warmup} s after a replica's first sample; RSS in KiB")
    rows = []
    for rn in sorted(samples):
        v = samples[rn]
        if not v:
            continue
        role = [f"leader {int(a)}-{int(b)}{'?' if inf else ''}" for r, a, b, inf in spells if r == rn]
        after = [s for s in v if s[0] >= v[0][0] + warmup] or v[-1:]
        rows.append([rn, f"{v[0][0]}-{v[-1][0]}", ", ".join(role) or "standby", kib(after[0][1]),
                     kib(after[len(after) // 2][1]), kib(v[-1][1]), kib(max(s[1] for s in v)),
                     f"{min(s[2] for s in v)}-{max(s[2] for s in v)}",
                     f"{min(s[3] for s in v)}-{max(s[3] for s in v)}"])
    table(md, ["replica", "life (s)", "role (s)", "RSS after warm-up", "middle", "end", "max", "fds", "threads"],
          rows)
    print("" if md else "#")   # Markdown: a table ends at an empty line
    rows = []
    for rn, a, b, inf in spells:
        v = [s for s in samples.get(rn, []) if a <= s[0] <= b]
        if not v:
            continue
        late = [(s[0], s[1]) for s in v if s[0] >= a + 600]
        k = slope(late)
        rows.append([f"{int(a)}-{int(b)}{'?' if inf else ''}", rn, kib(v[0][1]),
                     kib(late[0][1]) if late else "n/a", kib(v[-1][1]),
                     f"{k * 600:+.0f}" if k is not None else "n/a", len(late)])
    table(md, ["leader spell (s)", "replica", "RSS at start", "at 10 min", "at end",
               "KiB per 10 min after 10 min", "samples after 10 min"], rows)
    if any(inf for *_, inf in spells):
        print(f"{'' if md else '# '}?: the holder after the last failover or lost lease, inferred from "
              "RSS (the log does not name it)")
    heap_table(md, samples, warmup, kib)


def heap_table(md, samples, warmup, kib):
    """Per replica: heap in use and free after warm-up, at the end, and
    their growth per 10 minutes after warm-up."""
    print("" if md else "#")   # Markdown: a table ends at an empty line
    rows = []
    for rn in sorted(samples):
        v = [s for s in samples[rn] if s[4] is not None]
        if not v:
            continue
        after = [s for s in v if s[0] >= samples[rn][0][0] + warmup] or v[-1:]
        row = [rn]
        for col in (4, 5):
            k = slope([(s[0], s[col]) for s in after])
            row += [kib(after[0][col]), kib(v[-1][col]), f"{k * 600:+.0f}" if k is not None else "n/a"]
        rows.append(row + [len(after)])
    if not rows:
        print(f"{'' if md else '# '}heap: no heap columns in this log (a soak before "
              "moonsched_heap_inuse_bytes and moonsched_heap_free_bytes)")
        return
    table(md, ["replica", "heap in use after warm-up", "at end", "KiB per 10 min", "heap free after warm-up",
               "at end", "KiB per 10 min", "samples after warm-up"], rows)

if __name__ == "__main__":
    main()
