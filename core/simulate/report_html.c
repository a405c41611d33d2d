/* The HTML report of a simulation (report_html.h). Everything the page
 * shows is written here as HTML, with its style inline, so that it opens
 * from a file, offline, and shows the same with scripts off. */
#include "simulate/report_html.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/buf.h"
#include "base/quantity.h"

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse}td,th{padding:3px 8px;text-align:left;vertical-align:top}"
    "tr:nth-child(even){background:#f6f6f6}td:first-child{white-space:nowrap}"
    ".bars{width:220px}.bar{height:7px;background:#e3e3e3;margin:2px 0;border-radius:3px;overflow:hidden}"
    ".bar div{height:100%}.before div{background:#9db4d0}.after div{background:#2f6db5}"
    ".full .after div{background:#c0392b}.num{font-variant-numeric:tabular-nums;white-space:nowrap}"
    ".summary span{display:inline-block;margin-right:18px}"
    ".unschedulable{color:#a33}.preempted{color:#a60}.gated{color:#666}"
    ".legend span{display:inline-block;width:14px;height:7px;margin:0 4px 0 12px}"
    ".reason{margin:10px 0}.reason h3{font-size:14px;margin:4px 0}.msg{color:#555;font-size:12px}"
    ".page{content-visibility:auto;contain-intrinsic-size:auto 800px}summary{cursor:pointer;margin:4px 0}"
    "dl.run{display:grid;grid-template-columns:max-content auto;gap:2px 16px}dl.run dd{margin:0}"
    ".rejected{color:#a33}.feasible{color:#2a7}.skipped{color:#888}.selected{font-weight:bold}";

/* Text as HTML: the five special characters escaped. */
static void esc(ms_buf *b, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '<': ms_buf_puts(b, "&lt;"); break;
        case '>': ms_buf_puts(b, "&gt;"); break;
        case '&': ms_buf_puts(b, "&amp;"); break;
        case '"': ms_buf_puts(b, "&quot;"); break;
        case '\'': ms_buf_puts(b, "&#39;"); break;
        default: ms_buf_putc(b, *s);
        }
    }
}

static int pct(int64_t used, int64_t total) {
    if (total <= 0) return used > 0 ? 100 : 0;
    int64_t p = used * 100 / total;
    return p > 100 ? 100 : p < 0 ? 0 : (int)p;
}

/* One unit per column, so that figures compare at a glance: cores, GiB,
 * or a count. */
typedef enum unit { UNIT_CORES, UNIT_GIB, UNIT_COUNT } unit;

/* v in the unit: at most three decimals for cores, two for GiB, none for a
 * count; trailing zeros dropped ("15.8", "0.25", "4"). */
static void in_unit(char *buf, size_t n, int64_t v, unit u) {
    if (u == UNIT_COUNT) {
        snprintf(buf, n, "%lld", (long long)v);
        return;
    }
    double x = u == UNIT_CORES ? (double)v / 1000.0 : (double)v / (1024.0 * 1024.0 * 1024.0);
    snprintf(buf, n, u == UNIT_CORES ? "%.3f" : "%.2f", x);
    char *dot = strchr(buf, '.');
    if (!dot) return;
    char *end = buf + strlen(buf);
    while (end > dot + 1 && end[-1] == '0') *--end = '\0';
    if (end == dot + 1) *dot = '\0';
}

/* Before and after, as two bars and the figures. */
static void bars(ms_buf *b, const char *what, const int64_t v[3], unit u) {
    char a[32], x[32], y[32];
    in_unit(a, sizeof a, v[0], u);
    in_unit(x, sizeof x, v[1], u);
    in_unit(y, sizeof y, v[2], u);
    ms_buf_puts(b, "<td class=\"bars");
    if (pct(v[2], v[0]) >= 100) ms_buf_puts(b, " full");
    ms_buf_puts(b, "\" data-resource=\"");
    esc(b, what);
    ms_buf_puts(b, "\" title=\"");
    esc(b, what);
    ms_buf_printf(b, ": %s before, %s after, of %s\">", x, y, a);
    ms_buf_printf(b, "<div class=\"bar before\"><div style=\"width:%d%%\"></div></div>", pct(v[1], v[0]));
    ms_buf_printf(b, "<div class=\"bar after\"><div style=\"width:%d%%\"></div></div>", pct(v[2], v[0]));
    ms_buf_printf(b, "</td><td class=\"num\">%s &rarr; %s / %s (%d%%)</td>", x, y, a, pct(v[2], v[0]));
}

/* Row i of n of a paged table: a new page every MS_REPORT_PAGE rows (the
 * first one open), each with the table's header row. */
static void page_row(ms_buf *b, uint32_t i, uint32_t n, const char *what, const char *header) {
    if (i % MS_REPORT_PAGE) return;
    if (i) ms_buf_puts(b, "</table></details>\n");
    uint32_t last = i + MS_REPORT_PAGE < n ? i + MS_REPORT_PAGE : n;
    ms_buf_printf(b, "<details class=\"page\"%s><summary>%s %u&ndash;%u of %u</summary><table>%s\n",
                  i ? "" : " open", what, i + 1, last, n, header);
}

static void page_end(ms_buf *b, uint32_t n, const char *header) {
    if (n) ms_buf_puts(b, "</table></details>\n");
    else ms_buf_printf(b, "<table>%s</table>\n", header);
}

static const ms_report_resource *extended_of(const ms_report_node *n, const char *name) {
    for (uint32_t k = 0; k < n->nextended; k++)
        if (strcmp(n->extended[k].name, name) == 0) return &n->extended[k];
    return NULL;
}

static void nodes_section(ms_buf *b, const ms_report *r) {
    ms_buf_puts(b, "<section id=\"nodes\"><h2>Nodes</h2><p class=\"legend\">requested, of allocatable:"
                   "<span style=\"background:#9db4d0\"></span>before the run"
                   "<span style=\"background:#2f6db5\"></span>after it</p>\n");
    ms_buf header = {0};
    ms_buf_puts(&header, "<tr><th>node</th><th colspan=\"2\">CPU (cores)</th><th colspan=\"2\">memory (GiB)</th>"
                         "<th colspan=\"2\">pods</th>");
    for (uint32_t k = 0; k < r->nextended; k++) {
        ms_buf_puts(&header, "<th colspan=\"2\">");
        esc(&header, r->extended[k]);
        ms_buf_puts(&header, "</th>");
    }
    ms_buf_puts(&header, "</tr>");
    const char *h = header.data ? header.data : "";
    for (uint32_t i = 0; i < r->nnodes; i++) {
        const ms_report_node *n = &r->nodes[i];
        page_row(b, i, r->nnodes, "nodes", h);
        ms_buf_puts(b, "<tr class=\"node\"><td>");
        esc(b, n->name);
        if (n->cordoned) ms_buf_puts(b, " (cordoned)");
        ms_buf_puts(b, "</td>");
        bars(b, "cpu", n->cpu, UNIT_CORES);
        bars(b, "memory", n->memory, UNIT_GIB);
        bars(b, "pods", n->pods, UNIT_COUNT);
        for (uint32_t k = 0; k < r->nextended; k++) {
            const ms_report_resource *e = extended_of(n, r->extended[k]);
            if (e) bars(b, e->name, e->v, e->bytes ? UNIT_GIB : UNIT_COUNT);
            else ms_buf_puts(b, "<td></td><td class=\"num\">&ndash;</td>");
        }
        ms_buf_puts(b, "</tr>\n");
    }
    page_end(b, r->nnodes, h);
    ms_buf_free(&header);
    ms_buf_puts(b, "</section>\n");
}

static void placements_section(ms_buf *b, const ms_report *r) {
    static const char header[] = "<tr><th>pod</th><th>node</th><th>why</th></tr>";
    ms_buf_puts(b, "<section id=\"placements\"><h2>Where each pod went</h2>\n");
    for (uint32_t i = 0; i < r->npods; i++) {
        const ms_report_pod *p = &r->pods[i];
        page_row(b, i, r->npods, "pods", header);
        ms_buf_printf(b, "<tr class=\"pod %s\"><td>", p->state);
        esc(b, p->pod);
        ms_buf_puts(b, "</td><td>");
        if (p->node) esc(b, p->node);
        else ms_buf_printf(b, "(%s)", p->state);
        ms_buf_puts(b, "</td><td class=\"msg\">");
        esc(b, p->message);
        ms_buf_puts(b, "</td></tr>\n");
    }
    page_end(b, r->npods, header);
    ms_buf_puts(b, "</section>\n");
}

typedef struct group {
    char *reason;
    uint32_t *pods;
    uint32_t n, cap;
} group;

static group *group_for(group **gs, uint32_t *ng, uint32_t *cap, const char *reason, size_t len) {
    for (uint32_t i = 0; i < *ng; i++)
        if (strlen((*gs)[i].reason) == len && memcmp((*gs)[i].reason, reason, len) == 0) return &(*gs)[i];
    if (!ms_array_grow((void **)gs, cap, *ng + 1, sizeof **gs)) return NULL;
    group *g = &(*gs)[*ng];
    memset(g, 0, sizeof *g);
    if (!(g->reason = strndup(reason, len))) return NULL;
    (*ng)++;
    return g;
}

/* Each reason of upstream's "0/N nodes are available: 3 Insufficient cpu,
 * 2 node(s) ...." (the node counts left out); any other message is one
 * reason. false when out of memory. */
static bool add_reasons(group **gs, uint32_t *ng, uint32_t *cap, const char *msg, uint32_t pod) {
    const char *p = msg ? strstr(msg, "are available: ") : NULL;
    const char *end = p ? strstr(p, ". preemption:") : NULL;
    if (!p) {
        const char *m = msg && *msg ? msg : "(no message)";
        group *g = group_for(gs, ng, cap, m, strlen(m));
        return g && ms_array_grow((void **)&g->pods, &g->cap, g->n + 1, sizeof *g->pods) &&
               (g->pods[g->n++] = pod, true);
    }
    p += strlen("are available: ");
    if (!end) end = p + strlen(p);
    if (end > p && end[-1] == '.') end--;
    while (p < end) {
        const char *q = strstr(p, ", ");
        if (!q || q > end) q = end;
        const char *s = p;
        while (s < q && isdigit((unsigned char)*s)) s++;
        if (s > p && s < q && *s == ' ') s++;
        else s = p;
        group *g = group_for(gs, ng, cap, s, (size_t)(q - s));
        if (!g || !ms_array_grow((void **)&g->pods, &g->cap, g->n + 1, sizeof *g->pods)) return false;
        g->pods[g->n++] = pod;
        p = q < end ? q + 2 : end;
    }
    return true;
}

static bool reasons_section(ms_buf *b, const ms_report *r) {
    group *gs = NULL;
    uint32_t ng = 0, cap = 0;
    bool ok = true;
    for (uint32_t i = 0; i < r->npods && ok; i++)
        if (strcmp(r->pods[i].state, "unschedulable") == 0 || strcmp(r->pods[i].state, "gated") == 0)
            ok = add_reasons(&gs, &ng, &cap, r->pods[i].message, i);
    ms_buf_puts(b, "<section id=\"unschedulable\"><h2>Unschedulable pods by reason</h2>\n");
    if (ng == 0) ms_buf_puts(b, "<p>Every pod was placed.</p>\n");
    for (uint32_t i = 0; i < ng; i++) {
        ms_buf_puts(b, "<div class=\"reason\"><h3>");
        esc(b, gs[i].reason);
        ms_buf_printf(b, " <span class=\"count\">(%u pod%s)</span></h3><div>", gs[i].n, gs[i].n == 1 ? "" : "s");
        for (uint32_t k = 0; k < gs[i].n; k++) {
            if (k) ms_buf_puts(b, ", ");
            esc(b, r->pods[gs[i].pods[k]].pod);
        }
        ms_buf_puts(b, "</div></div>\n");
    }
    ms_buf_puts(b, "</section>\n");
    for (uint32_t i = 0; i < ng; i++) {
        free(gs[i].reason);
        free(gs[i].pods);
    }
    free(gs);
    return ok;
}

static double num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *str(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* A node of a disagreement: its name and the two scores. */
static void choice_cells(ms_buf *b, const cJSON *c, const char *none) {
    if (!cJSON_IsObject(c)) {
        ms_buf_printf(b, "<td>%s</td><td></td>", none);
        return;
    }
    ms_buf_puts(b, "<td>");
    esc(b, str(c, "node"));
    ms_buf_printf(b, "</td><td class=\"num\">%.0f + %.0f = %.0f</td>", num(c, "profileScore"),
                  num(c, "shadowScore"), num(c, "total"));
}

static void shadow_policy(ms_buf *b, const cJSON *p) {
    ms_buf_puts(b, "<div class=\"shadow-policy\"><h3>");
    esc(b, str(p, "policy"));
    ms_buf_puts(b, " beside profile ");
    esc(b, str(p, "profile"));
    ms_buf_printf(b, "</h3><p class=\"summary\"><span>%.0f decisions</span><span class=\"agree\">%.0f agree</span>"
                     "<span class=\"disagree\">%.0f disagree</span><span>%.0f errors</span>"
                     "<span>CPU %.3f s (longest pass %.3f ms)</span></p>\n",
                  num(p, "decisions"), num(p, "agree"), num(p, "disagree"), num(p, "errors"),
                  num(p, "cpuSeconds"), 1000 * num(p, "cpuMaxSeconds"));
    ms_buf_puts(b, "<table class=\"disagreements\"><tr><th>pod</th><th>profile chose</th>"
                   "<th>profile + shadow</th><th>shadow would choose</th><th>profile + shadow</th>"
                   "<th>shadow refused the profile's node</th></tr>\n");
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(p, "disagreements")) {
        ms_buf_puts(b, "<tr class=\"disagreement\"><td>");
        esc(b, str(d, "pod"));
        ms_buf_puts(b, "</td>");
        choice_cells(b, cJSON_GetObjectItemCaseSensitive(d, "live"), "");
        choice_cells(b, cJSON_GetObjectItemCaseSensitive(d, "shadow"), "(no node)");
        ms_buf_puts(b, "<td class=\"msg\">");
        esc(b, str(d, "liveNodeRejected"));
        ms_buf_puts(b, "</td></tr>\n");
    }
    ms_buf_puts(b, "</table></div>\n");
}

static void shadow_section(ms_buf *b, const cJSON *shadow) {
    ms_buf_puts(b, "<section id=\"shadow\"><h2>Shadow policies</h2>"
                   "<p>Scores are the profile's total plus the shadow policy's weighted score; "
                   "the newest disagreements first.</p>\n");
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(shadow, "policies")) shadow_policy(b, p);
    ms_buf_puts(b, "</section>\n");
}

/* One node's line for a pod: the plugin that rejected it and why, or its
 * per-plugin scores and total, or (a placing cycle) that its Filter pass
 * stopped before the node. */
static void explain_row(ms_buf *b, const cJSON *e) {
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "filter");
    const cJSON *scores = cJSON_GetObjectItemCaseSensitive(e, "scores");
    const char *unreached = str(e, "notEvaluated");
    bool skipped = *unreached != '\0';
    bool selected = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "selected"));
    ms_buf_printf(b, "<tr class=\"verdict %s\"><td>",
                  skipped ? "skipped" : f ? "rejected" : selected ? "feasible selected" : "feasible");
    esc(b, str(e, "node"));
    if (skipped) {
        ms_buf_puts(b, "</td><td>not evaluated</td><td></td><td class=\"msg\">");
        ms_buf_puts(b, strcmp(unreached, "nominatedNode") == 0
                           ? "the pod's nominated node fit and was taken without looking further"
                           : "percentageOfNodesToScore: enough feasible nodes were found before this one");
    } else if (f) {
        ms_buf_puts(b, "</td><td>");
        esc(b, str(f, "code"));
        ms_buf_puts(b, "</td><td>");
        esc(b, str(f, "plugin"));
        ms_buf_puts(b, "</td><td class=\"msg\">");
        const cJSON *why;
        bool first = true;
        cJSON_ArrayForEach(why, cJSON_GetObjectItemCaseSensitive(f, "reasons")) {
            if (!first) ms_buf_puts(b, "; ");
            esc(b, cJSON_IsString(why) ? why->valuestring : "");
            first = false;
        }
    } else {
        ms_buf_printf(b, "</td><td>%s</td><td class=\"num\">", selected ? "selected" : "feasible");
        if (cJSON_GetObjectItemCaseSensitive(e, "total")) ms_buf_printf(b, "%.0f", num(e, "total"));
        ms_buf_puts(b, "</td><td class=\"msg\">");
        if (!scores && selected) ms_buf_puts(b, "not scored: the only feasible node");
        const cJSON *sc;
        bool first = true;
        cJSON_ArrayForEach(sc, scores) {
            ms_buf_printf(b, "%s<span class=\"score\">", first ? "" : ", ");
            esc(b, sc->string);
            ms_buf_printf(b, " %.0f</span>", cJSON_IsNumber(sc) ? sc->valuedouble : 0);
            first = false;
        }
    }
    ms_buf_puts(b, "</td></tr>\n");
}

/* A pod's view: a row per node; it closes the pod's <details>. */
static void node_results(ms_buf *b, const cJSON *results) {
    ms_buf_puts(b, "<table><tr><th>node</th><th>verdict</th><th>plugin / total</th>"
                   "<th>reasons / per-plugin scores</th></tr>\n");
    const cJSON *e;
    cJSON_ArrayForEach(e, results) explain_row(b, e);
    ms_buf_puts(b, "</table></details>\n");
}

/* The end of a section of pod views: n of them shown (none: `none`), and
 * left_out `kind` pods not. */
static void views_end(ms_buf *b, uint32_t n, const char *none, uint32_t left_out, const char *kind) {
    if (n == 0) ms_buf_printf(b, "<p>%s</p>\n", none);
    if (left_out) ms_buf_printf(b, "<p>%u more %s pods left out.</p>\n", left_out, kind);
    ms_buf_puts(b, "</section>\n");
}

static void explain_section(ms_buf *b, const ms_report *r) {
    ms_buf_puts(b, "<section id=\"explain\"><h2>Each node, for the pods left pending</h2>"
                   "<p>Every node's Filter verdict (the plugin that rejected the pod and why) or, where "
                   "the pod fits, each Score plugin's weighted score, computed over the cluster as the "
                   "run left it: <code>moonsched simulate --explain NS/NAME</code> for one pod.</p>\n");
    const cJSON *x;
    uint32_t n = 0;
    cJSON_ArrayForEach(x, r->explain) {
        const cJSON *now = cJSON_GetObjectItemCaseSensitive(x, "recomputedNow");
        ms_buf_puts(b, "<details class=\"explain\"><summary>");
        esc(b, str(x, "pod"));
        ms_buf_printf(b, " <span class=\"count\">(%.0f of %.0f nodes feasible)</span></summary>",
                      num(now, "feasibleNodes"), num(now, "nodes"));
        const cJSON *pre = cJSON_GetObjectItemCaseSensitive(now, "preFilter");
        if (pre) {
            ms_buf_puts(b, "<p class=\"msg\">PreFilter ");
            esc(b, str(pre, "plugin"));
            ms_buf_puts(b, ": ");
            const cJSON *why = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pre, "reasons"), 0);
            esc(b, cJSON_IsString(why) ? why->valuestring : str(pre, "code"));
            ms_buf_puts(b, "</p>");
        }
        node_results(b, cJSON_GetObjectItemCaseSensitive(now, "nodeResults"));
        n++;
    }
    views_end(b, n, "No pod was left pending.", r->explain_left_out, "pending");
}

/* Each placed pod's placing cycle, as it computed it (no pass run again:
 * the cluster has changed since). */
static void placed_section(ms_buf *b, const ms_report *r) {
    ms_buf_puts(b, "<section id=\"cycles\"><h2>Each node, for the pods placed</h2>"
                   "<p>What the cycle that placed the pod computed: every node's Filter verdict (the "
                   "plugin that rejected the pod and why), or that the pass did not reach it "
                   "(<code>percentageOfNodesToScore</code>: enough feasible nodes were found first; or "
                   "the pod's nominated node fit), and each feasible node's weighted score per Score "
                   "plugin, the selected node in bold.</p>\n");
    const cJSON *x;
    uint32_t n = 0;
    cJSON_ArrayForEach(x, r->placed) {
        const cJSON *cy = cJSON_GetObjectItemCaseSensitive(x, "cycle");
        ms_buf_puts(b, "<details class=\"cycle\"><summary>");
        esc(b, str(x, "pod"));
        ms_buf_puts(b, " &rarr; ");
        esc(b, str(cy, "selectedNode"));
        ms_buf_printf(b, " <span class=\"count\">(%.0f feasible of %.0f evaluated, %.0f nodes)</span></summary>",
                      num(cy, "feasibleNodes"), num(cy, "evaluatedNodes"), num(cy, "nodes"));
        node_results(b, cJSON_GetObjectItemCaseSensitive(cy, "nodeResults"));
        n++;
    }
    views_end(b, n, "No pod was placed.", r->placed_left_out, "placed");
}

/* What ran, so that a report can be told from another and run again. */
static void run_section(ms_buf *b, const ms_report *r) {
    ms_buf_puts(b, "<dl id=\"run\" class=\"run\">");
    const struct {
        const char *term, *value;
    } rows[] = {
        {"moonsched", r->version},
        {"configuration", r->config ? r->config : "none: upstream's default profile"},
        {"cluster", r->inputs},
        {"policies", r->policies},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!rows[i].value) continue;
        ms_buf_printf(b, "<dt>%s</dt><dd>", rows[i].term);
        esc(b, rows[i].value);
        ms_buf_puts(b, "</dd>");
    }
    ms_buf_printf(b, "<dt>seed</dt><dd>%llu</dd></dl>\n", (unsigned long long)r->seed);
}

static void summary(ms_buf *b, const ms_report *r) {
    uint32_t placed = 0, unsched = 0, other = 0;
    for (uint32_t i = 0; i < r->npods; i++) {
        if (r->pods[i].node) placed++;
        else if (strcmp(r->pods[i].state, "unschedulable") == 0) unsched++;
        else other++;
    }
    ms_buf_printf(b, "<p id=\"summary\" class=\"summary\"><span>%u nodes</span><span>%u pods attempted</span>"
                     "<span>%u placed</span><span class=\"unschedulable\">%u unschedulable</span>"
                     "<span>%u preempted or gated</span><span>%u preemptions</span></p>\n",
                  r->nnodes, r->npods, placed, unsched, other, r->preemptions);
}

bool ms_report_html(FILE *out, const ms_report *r) {
    ms_buf b = {0};
    ms_buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta name=\"viewport\" content=\"width=device-width\"><title>");
    esc(&b, r->title);
    ms_buf_printf(&b, "</title><style>%s</style></head>\n<body><h1>", style);
    esc(&b, r->title);
    ms_buf_puts(&b, "</h1>\n");
    run_section(&b, r);
    summary(&b, r);
    nodes_section(&b, r);
    placements_section(&b, r);
    bool ok = reasons_section(&b, r);
    placed_section(&b, r);
    explain_section(&b, r);
    if (r->shadow) shadow_section(&b, r->shadow);
    ms_buf_puts(&b, "</body></html>\n");
    ok = ok && !b.failed && fwrite(b.data, 1, b.len, out) == b.len;
    ms_buf_free(&b);
    return ok;
}
