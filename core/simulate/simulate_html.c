/* `simulate --output html`: what the page (simulate/report_html.h) shows,
 * gathered from the run: the nodes before and after, the pods' fates, the
 * placing cycles kept, the pending pods explained. */
#include "simulate/simulate_internal.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cache.h"
#include "base/array.h"
#include "base/buf.h"
#include "scheduler/cycle_trace.h"
#include "scheduler/explain.h"
#include "scheduler/shadow.h"
#include "simulate/report_html.h"

/* Pods the report explains node by node, placed and pending each: enough
 * to see the patterns, few enough for a page (each is a row per node). */
#define REPORT_EXPLAINED_PODS 100
/* Node rows each of those views holds at most (about 10 MB of page): the
 * first pods, REPORT_EXPLAINED_PODS at most, at least one. */
#define REPORT_NODE_ROWS 20000u

uint32_t ms_sim_report_explained_pods(uint32_t nnodes) {
    uint32_t n = nnodes ? REPORT_NODE_ROWS / nnodes : REPORT_EXPLAINED_PODS;
    return n < 1 ? 1 : n > REPORT_EXPLAINED_PODS ? REPORT_EXPLAINED_PODS : n;
}

/* What a node's pods request now: cpu, memory, pods. */
static void requests_of(const ms_node_info *ni, int64_t v[3]) {
    v[0] = ni->requested.v[MS_RES_CPU];
    v[1] = ni->requested.v[MS_RES_MEMORY];
    v[2] = ni->npods;
}

/* --output html: the nodes' requests before any pending pod is placed. */
void ms_sim_keep_before(sim *m) {
    ms_cache *c = ms_scheduler_cache(m->sched);
    for (uint32_t i = 0; i < ms_cache_node_count(c); i++) {
        const ms_node_info *ni = ms_cache_node_at(c, i);
        before_requests *v = ni && ni->node ? calloc(1, sizeof *v) : NULL;
        if (!v || ms_resources_copy(&v->res, &ni->requested) != 0 || ms_map_put(&m->before, ni->name, v) < 0) {
            if (v) ms_resources_free(&v->res);
            free(v);
            m->oom = m->oom || (ni && ni->node);
            continue;
        }
        requests_of(ni, v->v);
    }
}

static const char *pod_state(const placement *p) {
    if (p->node != MS_STR_NONE) return "scheduled";
    return p->preempted ? "preempted" : p->gated ? "gated" : "unschedulable";
}

/* Every node's verdict for the pods left unschedulable (the first
 * ms_sim_report_explained_pods), as `--explain` computes it. */
static cJSON *report_explain(sim *m, uint32_t *left_out) {
    cJSON *arr = cJSON_CreateArray();
    int max = (int)ms_sim_report_explained_pods(m->nnodes);
    *left_out = 0;
    for (uint32_t i = 0; arr && i < m->npl; i++) {
        const placement *p = &m->pl[i];
        if (p->node != MS_STR_NONE || p->preempted || p->gated) continue;
        if (cJSON_GetArraySize(arr) >= max) {
            (*left_out)++;
            continue;
        }
        cJSON *e = NULL;
        ms_error err = {0};
        if (ms_scheduler_explain(m->sched, ms_str_get(m->in, p->pod->meta.namespace_),
                                 ms_str_get(m->in, p->pod->meta.name), m->now, &e, &err) == MS_OK)
            cJSON_AddItemToArray(arr, e);
    }
    return arr;
}

/* The placing cycle of each placed pod that has one kept (the first
 * ms_sim_report_explained_pods placed), as the scheduler recorded it. */
static cJSON *report_placed(sim *m, char (*keys)[512], uint32_t *left_out) {
    cJSON *arr = cJSON_CreateArray();
    *left_out = 0;
    for (uint32_t i = 0; arr && i < m->npl; i++) {
        const placement *p = &m->pl[i];
        if (p->node == MS_STR_NONE) continue;
        const cJSON *t = ms_scheduler_cycle_trace(m->sched, p->pod->meta.uid_hash);
        if (!t) {
            (*left_out)++;
            continue;
        }
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "pod", keys[i]);
        cJSON_AddItemReferenceToObject(x, "cycle", (cJSON *)t);
        cJSON_AddItemToArray(arr, x);
    }
    return arr;
}

/* The names of the files, joined by ", ", with what comes before. */
static char *joined(const char *first, const char *const *files, uint32_t n, const char *flag) {
    ms_buf b = {0};
    if (first) ms_buf_puts(&b, first);
    for (uint32_t i = 0; i < n; i++) {
        if (b.len) ms_buf_puts(&b, ", ");
        if (flag) ms_buf_printf(&b, "%s ", flag);
        ms_buf_puts(&b, files[i]);
    }
    if (b.len == 0) {
        ms_buf_free(&b);
        return NULL;
    }
    return ms_buf_take(&b);
}

/* The extended resources of the nodes and their pods, sorted by name:
 * the report's columns. */
static const char **extended_columns(sim *m, const ms_node_info **v, uint32_t n, uint32_t *out) {
    const char **names = NULL;
    uint32_t count = 0, cap = 0;
    *out = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ms_resources *rs[2] = {&v[i]->node->allocatable, &v[i]->requested};
        for (int r = 0; r < 2; r++)
            for (uint32_t k = 0; k < rs[r]->nscalar; k++) {
                const char *name = ms_str_get(m->in, rs[r]->scalar[k].name);
                uint32_t j = 0;
                while (j < count && strcmp(names[j], name) != 0) j++;
                if (j < count) continue;
                if (!ms_array_grow((void **)&names, &cap, count + 1, sizeof *names)) {
                    free(names);
                    return NULL;
                }
                names[count++] = name;
            }
    }
    for (uint32_t i = 1; i < count; i++)
        for (uint32_t j = i; j > 0 && strcmp(names[j], names[j - 1]) < 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    *out = count;
    if (!names) names = calloc(1, sizeof *names);
    return names;
}

/* A node's extended resources for the report, into ext (room for
 * ncolumns). */
static uint32_t node_extended(sim *m, const ms_node_info *ni, const before_requests *b, const char **columns,
                              uint32_t ncolumns, ms_report_resource *ext) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < ncolumns; k++) {
        ms_str name = ms_intern_find(m->in, columns[k], strlen(columns[k]));
        int64_t alloc = ms_resources_scalar(&ni->node->allocatable, name);
        int64_t after = ms_resources_scalar(&ni->requested, name);
        int64_t before = b ? ms_resources_scalar(&b->res, name) : 0;
        if (!alloc && !after && !before) continue;
        ext[n++] = (ms_report_resource){.name = columns[k], .bytes = ms_sim_is_byte_scalar(columns[k]),
                                        .v = {alloc, before, after}};
    }
    return n;
}

void ms_sim_print_html(sim *m) {
    uint32_t n = 0, ncolumns = 0;
    const ms_node_info **v = ms_sim_sorted_nodes(m, &n);
    const char **columns = v ? extended_columns(m, v, n, &ncolumns) : NULL;
    ms_report_node *rn = calloc(n ? n : 1, sizeof *rn);
    ms_report_resource *ext = calloc((size_t)(n ? n : 1) * (ncolumns ? ncolumns : 1), sizeof *ext);
    ms_report_pod *rp = calloc(m->npl ? m->npl : 1, sizeof *rp);
    char(*keys)[512] = calloc(m->npl ? m->npl : 1, sizeof *keys);
    char(*why)[2048] = calloc(m->npl ? m->npl : 1, sizeof *why);
    cJSON *shadow = ms_scheduler_shadow_count(m->sched) ? ms_scheduler_shadow_json(m->sched) : NULL;
    uint32_t left_out = 0;
    cJSON *explain = report_explain(m, &left_out);
    const ms_simulate_options *o = m->o;
    char *inputs = joined(NULL, o->cluster_files, o->ncluster_files, NULL);
    if (o->generate) {
        char *with = joined(inputs, &o->generate, 1, "--generate");
        free(inputs);
        inputs = with;
    }
    char *pols = joined(NULL, o->policy_files, o->npolicy_files, "--policy");
    char *with_shadow = joined(pols, o->shadow_files, o->nshadow_files, "--shadow");
    free(pols);
    bool ok = v && columns && rn && ext && rp && keys && why && explain;
    for (uint32_t i = 0; ok && i < n; i++) {
        const ms_node_info *ni = v[i];
        const before_requests *b = ms_map_get(&m->before, ni->name);
        int64_t after[3];
        requests_of(ni, after);
        ms_report_resource *e = ext + (size_t)i * ncolumns;
        rn[i] = (ms_report_node){.name = ms_str_get(m->in, ni->name), .cordoned = ni->node->unschedulable,
                                 .cpu = {ni->node->allocatable.v[MS_RES_CPU], b ? b->v[0] : 0, after[0]},
                                 .memory = {ni->node->allocatable.v[MS_RES_MEMORY], b ? b->v[1] : 0, after[1]},
                                 .pods = {ni->node->allocatable.v[MS_RES_PODS], b ? b->v[2] : 0, after[2]},
                                 .extended = e,
                                 .nextended = node_extended(m, ni, b, columns, ncolumns, e)};
    }
    for (uint32_t i = 0; ok && i < m->npl; i++) {
        const placement *p = &m->pl[i];
        ms_pod_key(p->pod, m->in, keys[i], sizeof keys[i]);
        if (p->node != MS_STR_NONE) ms_sim_format_score(p, why[i], sizeof why[i]);
        else snprintf(why[i], sizeof why[i], "%s", p->message ? p->message : "");
        rp[i] = (ms_report_pod){.pod = keys[i], .node = p->node != MS_STR_NONE ? ms_str_get(m->in, p->node) : NULL,
                                .state = pod_state(p), .message = why[i]};
    }
    uint32_t placed_left_out = 0;
    cJSON *placed = ok ? report_placed(m, keys, &placed_left_out) : NULL;
    ok = ok && placed;
    ms_report r = {.title = "moonsched simulation", .version = o->version, .config = o->config_file,
                   .inputs = inputs, .policies = with_shadow, .seed = m->seed, .extended = columns,
                   .nextended = ncolumns, .nodes = rn, .nnodes = n, .pods = rp, .npods = m->npl,
                   .preemptions = m->npre, .shadow = shadow, .explain = explain, .explain_left_out = left_out,
                   .placed = placed, .placed_left_out = placed_left_out};
    if (!ok || !ms_report_html(m->out, &r)) m->oom = true;
    free(inputs);
    free(with_shadow);
    cJSON_Delete(explain);
    cJSON_Delete(placed);
    cJSON_Delete(shadow);
    free(why);
    free(keys);
    free(rp);
    free(ext);
    free(rn);
    free(columns);
    free(v);
}
