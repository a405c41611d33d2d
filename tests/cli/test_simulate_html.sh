#!/bin/sh
# `simulate --output html`: one self-contained page (no script, no
# external resource) with what ran (version, configuration, inputs, seed),
# the nodes' utilisation before and after (extended resources, one unit
# per column), where each pod went (in pages when long), the
# unschedulable pods by reason, every node's verdict or per-plugin scores
# for the pods placed (as their cycle computed them) and for the pods left
# pending, and a shadow run's disagreements; loaded in
# a real headless browser (Debian's chromium):
# it loads without console errors and its DOM holds the expected
# elements. TAP output. B: the build directory (default: build).
. tests/lib/cli.sh

tap_need "$M"
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
check "the DOM holds what ran, the summary and the five sections" \
    sh -c "for id in run summary nodes placements unschedulable explain shadow; do grep -q \"id=\\\"\$id\\\"\" '$T/dom.html' || exit 1; done"
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
check "what ran: the version --version prints, no configuration, the cluster, the shadow policy, the seed" \
    python3 - "$T/dom.html" "$("$M" --version)" <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
run = dict(re.findall(r'<dt>([^<]*)</dt><dd>([^<]*)</dd>', dom.split('id="run"')[1].split("</dl>")[0]))
assert "moonsched " + run["moonsched"] == sys.argv[2], (run, sys.argv[2])
assert run["configuration"].startswith("none"), run
assert run["cluster"] == "examples/cluster.yaml", run
assert run["policies"] == "--shadow tests/cli/data/shadow-odd-nodes.lua", run
assert run["seed"] == "1", run
PY
"$M" simulate --cluster examples/cluster.yaml --config examples/scheduler-config-policies.yaml --seed 7 \
    --output html >"$T/seeded.html" 2>/dev/null
check "what ran: a configuration file and --seed are recorded" sh -c \
    "grep -q '<dt>configuration</dt><dd>examples/scheduler-config-policies.yaml</dd>' '$T/seeded.html' &&
     grep -q '<dt>seed</dt><dd>7</dd>' '$T/seeded.html'"
check "nodes: one unit per column (cores, GiB, counts), an extended resource column" \
    python3 - "$T/dom.html" "$T/report.json" <<'PY'
import json, re, sys
# chromium's DOM has the characters the page wrote as entities
dom = open(sys.argv[1]).read().replace("\u2192", "&rarr;").replace("\u2013", "&ndash;")
rep = json.load(open(sys.argv[2]))
head = re.search(r'<tr><th>node</th>(.*?)</tr>', dom).group(1)
cols = re.findall(r'<th colspan="2">([^<]*)</th>', head)
assert cols == ["CPU (cores)", "memory (GiB)", "pods", "nvidia.com/gpu"], cols
fig = re.compile(r'^[0-9]+(\.[0-9]+)? &rarr; [0-9]+(\.[0-9]+)? / [0-9]+(\.[0-9]+)? \([0-9]+%\)$')
rows = dict(re.findall(r'<tr class="node"><td>([^< ]*)[^<]*</td>(.*?)</tr>', dom))
for name, cells in rows.items():
    nums = re.findall(r'<td class="num">([^<]*)</td>', cells)
    assert len(nums) == 4, (name, nums)
    for text in nums:
        assert text == "&ndash;" or fig.match(text), (name, text)
gpu = re.findall(r'<td class="num">([^<]*)</td>', rows["gpu-1"])
n = {x["name"]: x for x in rep["nodes"]}["gpu-1"]
assert gpu[3].endswith("&rarr; %s / %s (25%%)" % (n["requested"]["nvidia.com/gpu"], n["allocatable"]["nvidia.com/gpu"])), gpu
assert gpu[0] == "0 &rarr; 4 / 15.8 (25%)", gpu[0]
assert rows["node-a"].endswith('<td></td><td class="num">&ndash;</td>'), rows["node-a"][-80:]
PY
# shellcheck disable=SC2086
"$M" simulate --cluster examples/cluster.yaml --explain default/huge --output json >"$T/huge.json" 2>/dev/null
check "each pending pod: every node's verdict, as --explain computes it" \
    python3 - "$T/dom.html" "$T/report.json" "$T/huge.json" <<'PY'
import json, re, sys
dom = open(sys.argv[1]).read()
rep = json.load(open(sys.argv[2]))
huge = json.load(open(sys.argv[3]))
section = dom.split('id="explain"')[1].split("</section>")[0]
pods = re.findall(r'<details class="explain"><summary>([^ <]*) ', section)
stuck = [p["pod"] for p in rep["placements"] if p["node"] is None and not p.get("preempted") and not p.get("gated")]
assert pods == stuck, (pods, stuck)
body = section.split("<summary>default/huge ")[1].split("</details>")[0]
rows = re.findall(r'<tr class="verdict (\w+)"><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td class="msg">([^<]*)</td>', body)
want = huge["recomputedNow"]["nodeResults"]
assert len(rows) == len(want) == len(rep["nodes"]), (rows, want)
for (cls, node, code, plugin, reasons), w in zip(rows, want):
    assert cls == "rejected" and node == w["node"], (node, w)
    assert code == w["filter"]["code"] and plugin == w["filter"]["plugin"], (code, plugin, w)
    assert reasons == "; ".join(w["filter"]["reasons"]), (reasons, w)
PY
check "a placed pod: every node's verdict and each feasible node's per-plugin scores, as its cycle computed them" \
    python3 - "$T/dom.html" "$T/report.json" <<'PY'
import json, re, sys
dom = open(sys.argv[1]).read()
rep = json.load(open(sys.argv[2]))
section = dom.split('id="cycles"')[1].split("</section>")[0]
placed = {p["pod"]: p for p in rep["placements"] if p["node"]}
views = re.findall(r'<details class="cycle"><summary>([^ <]*) \u2192 ([^ <]*) <span class="count">'
                   r'\((\d+) feasible of (\d+) evaluated, (\d+) nodes\)</span></summary>(.*?)</details>', section, re.S)
assert [v[0] for v in views] == list(placed), ([v[0] for v in views], list(placed))
score = re.compile(r'<span class="score">([^<]*) (-?\d+)</span>')
verdict = re.compile(r'<tr class="verdict ([\w ]+)"><td>([^<]*)</td><td>([^<]*)</td><td[^>]*>([^<]*)</td>'
                     r'<td class="msg">(.*?)</td></tr>')
for pod, node, feasible, evaluated, nodes, body in views:
    p = placed[pod]
    rows = verdict.findall(body)
    assert node == p["node"] and len(rows) == int(nodes) == len(rep["nodes"]), (pod, node, len(rows))
    assert sorted(r[1] for r in rows) == sorted(n["name"] for n in rep["nodes"]), rows
    ok = [r for r in rows if r[0].startswith("feasible")]
    assert len(ok) == int(feasible) == p["score"]["feasibleNodes"], (pod, ok, feasible)
    chosen = [r for r in rows if r[0] == "feasible selected"]
    assert len(chosen) == 1 and chosen[0][1] == node, (pod, chosen)
    if int(feasible) < 2:
        continue
    # the chosen node's scores are those its cycle printed, the pod not yet on the node
    assert chosen[0][3] == str(p["score"]["total"]), (pod, chosen[0], p["score"])
    assert dict((k, int(v)) for k, v in score.findall(chosen[0][4])) == p["score"]["plugins"], (pod, chosen[0])
    for cls, n, what, total, scores in ok:
        parts = score.findall(scores)
        assert parts and sum(int(v) for _, v in parts) == int(total), (pod, n, total, parts)
# api-1: a node rejected with its reason, two feasible nodes scored
api = dict((r[1], r) for r in verdict.findall(dict((v[0], v[5]) for v in views)["default/api-1"]))
assert api["node-c"] == ("rejected", "node-c", "Unschedulable", "NodeResourcesFit", "Insufficient cpu"), api["node-c"]
assert sum(1 for r in api.values() if r[0].startswith("feasible")) == 2, api
PY
"$M" simulate --generate 'nodes=120,pods=3' --output html >"$T/sampled.html" 2>/dev/null
chrome --dump-dom "file://$T/sampled.html" >"$T/sampled-dom.html"
check "a placed pod on 120 nodes: the 20 nodes percentageOfNodesToScore left out are marked not evaluated" \
    python3 - "$T/sampled-dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
section = dom.split('id="cycles"')[1].split("</section>")[0]
views = re.findall(r'<summary>default/(pod-\d) \u2192 [^ <]* <span class="count">\((\d+) feasible of (\d+) evaluated, '
                   r'(\d+) nodes\)</span></summary>(.*?)</details>', section, re.S)
assert [v[0] for v in views] == ["pod-0", "pod-1", "pod-2"], views
for pod, feasible, evaluated, nodes, body in views:
    assert (feasible, evaluated, nodes) == ("100", "100", "120"), (pod, feasible, evaluated, nodes)
    skipped = re.findall(r'<tr class="verdict skipped"><td>([^<]*)</td><td>not evaluated</td>', body)
    scored = re.findall(r'<tr class="verdict feasible[^"]*"><td>([^<]*)</td>', body)
    assert len(skipped) == 20 and len(scored) == 100, (pod, len(skipped), len(scored))
    assert not set(skipped) & set(scored)
# each pass starts where the last one stopped (upstream's nextStartNodeIndex)
skipped = [re.findall(r'verdict skipped"><td>([^<]*)<', v[4]) for v in views]
assert skipped[0] != skipped[1], skipped
PY
"$M" simulate --cluster "$D/preemption.yaml" --output html >"$T/nominated.html" 2>/dev/null
check "a preemptor placed on its nominated node: that node alone evaluated, not scored" python3 - "$T/nominated.html" <<'PY'
import re, sys
section = open(sys.argv[1]).read().split('id="cycles"')[1].split("</section>")[0]
body = section.split("<summary>prod/critical &rarr; node-a ")[1].split("</details>")[0]
rows = re.findall(r'<tr class="verdict ([\w ]+)"><td>([^<]*)</td><td>([^<]*)</td><td[^>]*>[^<]*</td>'
                  r'<td class="msg">([^<]*)</td>', body)
assert rows == [("feasible selected", "node-a", "selected", "not scored: the only feasible node"),
                ("skipped", "node-b", "not evaluated",
                 "the pod's nominated node fit and was taken without looking further")], rows
PY

# default/web-1 fits but a policy's Permit turns it away: left pending with
# feasible nodes.
cat >"$T/deny.lua" <<'LUA'
local p = { name = "deny-web" }
function p.score(_, node) return #node.name end
function p.permit(pod)
    if pod.name == "web-1" then return "deny", "not now" end
    return "allow"
end
return p
LUA
"$M" simulate --cluster examples/cluster.yaml --policy "$T/deny.lua" --output html >"$T/scored.html" 2>/dev/null
check "a pending pod that fits: each feasible node with its per-plugin scores adding up to its total" \
    python3 - "$T/scored.html" <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
section = dom.split('id="explain"')[1].split("</section>")[0]
body = section.split("<summary>default/web-1 ")[1].split("</details>")[0]
rows = re.findall(r'<tr class="verdict feasible"><td>([^<]*)</td><td>feasible</td><td class="num">(\d+)</td><td class="msg">(.*?)</td>', body)
assert len(rows) >= 2, body[:400]
for node, total, scores in rows:
    parts = dict(re.findall(r'<span class="score">([^<]*) (-?\d+)</span>', scores))
    assert sum(int(v) for v in parts.values()) == int(total), (node, total, parts)
    assert "lua:deny-web" in parts and "TaintToleration" in parts, parts
PY

# --- a long run: pages of 500 rows ---------------------------------------------------------
"$M" simulate --generate 'nodes=30,pods=1200' --output html >"$T/big.html" 2>/dev/null
chrome --dump-dom "file://$T/big.html" >"$T/big-dom.html"
check "1200 pods in three pages of at most 500 rows, the first open, every row there" \
    python3 - "$T/big-dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
section = dom.split('id="placements"')[1].split("</section>")[0]
pages = re.findall(r'<details class="page"( open="")?><summary>pods (\d+)–(\d+) of 1200</summary>(.*?)</details>', section, re.S)
assert [(o, a, b) for o, a, b, _ in pages] == [(' open=""', "1", "500"), ("", "501", "1000"), ("", "1001", "1200")], \
    [(o, a, b) for o, a, b, _ in pages]
sizes = [len(re.findall(r'<tr class="pod ', body)) for _, _, _, body in pages]
assert sizes == [500, 500, 200], sizes
PY
check "1200 placed pods on 30 nodes: the first 100 pods' cycles, the rest counted" python3 - "$T/big-dom.html" <<'PY'
import re, sys
section = open(sys.argv[1]).read().split('id="cycles"')[1].split("</section>")[0]
pods = re.findall(r'<details class="cycle"><summary>([^ <]*) ', section)
# placed in the order the API server lists them, by name
assert pods == sorted("default/pod-%d" % i for i in range(1200))[:100], pods[:5]
assert "<p>1100 more placed pods left out.</p>" in section, section[-200:]
PY
check "the long report loads without a console message" sh -c "! grep -q 'CONSOLE' '$T/chrome.err'"

# 50 pods that fit nowhere on 500 nodes: the pending view keeps the same
# row budget as the placed one, 20,000 node rows, so 40 pods
python3 - >"$T/stuck.yaml" <<'PY'
for i in range(500):
    print("---\nkind: Node\nmetadata: {name: n%03d}\nstatus: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}" % i)
for i in range(50):
    print("---\nkind: Pod\nmetadata: {name: big-%02d, namespace: default}\n"
          "spec: {containers: [{name: c, resources: {requests: {cpu: '8'}}}]}" % i)
PY
"$M" simulate --cluster "$T/stuck.yaml" --output html >"$T/stuck.html" 2>/dev/null
chrome --dump-dom "file://$T/stuck.html" >"$T/stuck-dom.html"
check "50 pending pods on 500 nodes: the first 40 pods' node rows (20,000), the rest counted" \
    python3 - "$T/stuck-dom.html" <<'PY'
import re, sys
section = open(sys.argv[1]).read().split('id="explain"')[1].split("</section>")[0]
pods = re.findall(r'<details class="explain"><summary>([^ <]*) ', section)
assert pods == ["default/big-%02d" % i for i in range(40)], pods[:5]
assert len(re.findall(r'<tr class="verdict ', section)) == 20000, len(re.findall(r'<tr class="verdict ', section))
assert "<p>10 more pending pods left out.</p>" in section, section[-200:]
PY
check "the pending report loads without a console message" sh -c "! grep -q 'CONSOLE' '$T/chrome.err'"

chrome --window-size=1100,900 --hide-scrollbars --screenshot="$T/report.png" "file://$T/report.html" >/dev/null
check "a screenshot renders (PNG)" sh -c "head -c 8 '$T/report.png' | od -An -c | grep -q 'P   N   G'"

tap_done
