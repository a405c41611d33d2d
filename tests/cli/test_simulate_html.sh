#!/bin/sh
# `simulate --output html`: one self-contained page (no script, no
# external resource) with the nodes' utilisation before and after, where
# each pod went, the unschedulable pods by reason and a shadow run's
# disagreements; loaded in a real headless browser (Debian's chromium):
# it loads without console errors and its DOM holds the expected
# elements. TAP output. B: the build directory (default: build).
set -u
B=${B:-build}
M="$B/moonsched"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib/tap.sh

tap_need "$M"
D=tests/cli/data
ARGS="--cluster examples/cluster.yaml --shadow $D/shadow-odd-nodes.lua"

# shellcheck disable=SC2086
"$M" simulate $ARGS --output html >"$T/report.html"
check "exit 0, a page" sh -c "head -c 15 '$T/report.html' | grep -qx '<!DOCTYPE html>'"
# shellcheck disable=SC2086
"$M" simulate $ARGS --output json >"$T/report.json"
check "self-contained: no script, no link, no src, no url(), no @import" \
    sh -c "! grep -Eiq '<script|<link|src=|url\\(|@import|<iframe|<object' '$T/report.html'"

# --- in a headless browser ----------------------------------------------------------------
chrome() {   # URL, then chromium's own options; stderr into $T/chrome.err
    rm -rf "$T/profile"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$T/profile" --enable-logging=stderr --v=0 "$@" 2>"$T/chrome.err"
}
if ! sh tests/ensure-packages.sh chromium >"$T/install.log" 2>&1 || ! command -v chromium >/dev/null; then
    skip "the page in chromium" "chromium could not be installed: $(tail -n 1 "$T/install.log")"
    tap_done
    exit $?
fi
printf '<!DOCTYPE html><html><body><script>notDefined();</script></body></html>' >"$T/broken.html"
chrome --dump-dom "file://$T/broken.html" >/dev/null
check "the console check sees an error: a page with a failing script logs it" \
    grep -q 'CONSOLE.*Uncaught ReferenceError' "$T/chrome.err"
chrome --dump-dom "file://$T/report.html" >"$T/dom.html"
check "the report loads without a console message" sh -c "! grep -q 'CONSOLE' '$T/chrome.err'"
check "the DOM holds the summary and the four sections" \
    sh -c "for id in summary nodes placements unschedulable shadow; do grep -q \"id=\\\"\$id\\\"\" '$T/dom.html' || exit 1; done"
check "a row per node with CPU, memory and pod bars before and after" python3 - "$T/dom.html" "$T/report.json" <<'PY'
import json, re, sys
dom = open(sys.argv[1]).read()
rep = json.load(open(sys.argv[2]))
def cpu(s):
    return float(s[:-1]) / 1000 if s.endswith("m") else float(s)
rows = re.findall(r'<tr class="node"><td>([^<]*)</td>(.*?)</tr>', dom)
assert len(rows) == len(rep["nodes"]), (len(rows), len(rep["nodes"]))
for (name, cells), node in zip(rows, rep["nodes"]):
    assert name.split(" ")[0] == node["name"], (name, node["name"])
    widths = re.findall(r'data-resource="cpu".*?class="bar before"><div style="width:(\d+)%"></div></div>'
                        r'<div class="bar after"><div style="width:(\d+)%"', cells)
    assert widths, cells
    want = int(cpu(node["requested"]["cpu"]) * 100 // cpu(node["allocatable"]["cpu"]))
    assert int(widths[0][1]) == min(want, 100), (node["name"], widths, want)
    assert int(widths[0][0]) <= int(widths[0][1])
    assert 'data-resource="memory"' in cells and 'data-resource="pods"' in cells
PY
check "a row per attempted pod, with its node or its state" python3 - "$T/dom.html" "$T/report.json" <<'PY'
import json, re, sys
dom = open(sys.argv[1]).read()
rep = json.load(open(sys.argv[2]))
rows = re.findall(r'<tr class="pod (\w+)"><td>([^<]*)</td><td>([^<]*)</td>', dom)
assert len(rows) == len(rep["placements"]), (len(rows), len(rep["placements"]))
for (state, pod, node), p in zip(rows, rep["placements"]):
    assert pod == p["pod"], (pod, p["pod"])
    assert node == (p["node"] if p["node"] else "(%s)" % state), (pod, node, p["node"])
PY
check "the unschedulable pods under each of their reasons, counts left out" python3 - "$T/dom.html" "$T/report.json" <<'PY'
import json, re, sys
dom = open(sys.argv[1]).read()
rep = json.load(open(sys.argv[2]))
section = dom.split('id="unschedulable"')[1].split("</section>")[0]
groups = re.findall(r'<h3>([^<]*) <span class="count">\((\d+) pods?\)</span></h3><div>([^<]*)</div>', section)
assert groups
stuck = [p for p in rep["placements"] if p["node"] is None and not p.get("preempted")]
for p in stuck:
    assert any(p["pod"] in pods.split(", ") for _, _, pods in groups), p["pod"]
for reason, count, pods in groups:
    assert not reason[0].isdigit(), reason
    assert int(count) == len(pods.split(", "))
assert any(r == "Insufficient cpu" for r, _, _ in groups), groups
PY
check "the shadow policy's counts and a row per disagreement" python3 - "$T/dom.html" "$T/report.json" <<'PY'
import json, re, sys
dom = open(sys.argv[1]).read()
sh = json.load(open(sys.argv[2]))["shadow"]["policies"][0]
section = dom.split('id="shadow"')[1]
assert "%d decisions" % sh["decisions"] in section and "%d disagree" % sh["disagree"] in section
rows = re.findall(r'<tr class="disagreement"><td>([^<]*)</td><td>([^<]*)</td>', section)
assert len(rows) == len(sh["disagreements"]) > 0, (len(rows), len(sh["disagreements"]))
for (pod, live), d in zip(rows, sh["disagreements"]):
    assert pod == d["pod"] and live == d["live"]["node"], (pod, live, d)
PY
chrome --window-size=1100,900 --hide-scrollbars --screenshot="$T/report.png" "file://$T/report.html" >/dev/null
check "a screenshot renders (PNG)" sh -c "head -c 8 '$T/report.png' | od -An -c | grep -q 'P   N   G'"

tap_done
