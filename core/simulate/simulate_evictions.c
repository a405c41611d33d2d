/* The taint eviction timeline of `simulate --evictions`. See
 * simulate_evictions.h. */
#include "simulate/simulate_evictions.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "api/toleration.h"
#include "base/array.h"
#include "controllers/taint_eviction.h"
#include "controllers/taint_eviction_decide.h"

/* One line of the timeline. */
typedef struct entry {
    ms_pod *pod;                   /* referenced */
    double at;                     /* seconds after the start; < 0: stays */
    char why[320];
    ms_str again;                  /* where it would go; MS_STR_NONE: see where */
    char where[512];
} entry;

typedef struct timeline {
    const ms_eviction_timeline_options *o;
    entry *e;
    uint32_t n, cap;
    bool oom;
} timeline;

static const ms_node *node_of(const timeline *t, ms_str name) {
    for (uint32_t i = 0; i < t->o->nnodes; i++)
        if (t->o->nodes[i]->meta.name == name) return t->o->nodes[i];
    return NULL;
}

/* "taint {k: v} not tolerated" or "tolerationSeconds N for taint {k: v}":
 * the reason text after upstream's "node(s) had untolerated taint ". */
static void explain(const timeline *t, const ms_pod *pod, char *buf, size_t n) {
    const ms_node *node = node_of(t, pod->node_name);
    snprintf(buf, n, "NoExecute taint");
    if (!node) return;
    static const char prefix[] = "node(s) had untolerated taint ";
    const ms_taint *bad = ms_find_untolerated_taint(node->taints, node->ntaints, pod->tolerations,
                                                    pod->ntolerations, MS_EFFECT_BIT(MS_EFFECT_NO_EXECUTE));
    if (bad) {
        snprintf(buf, n, "taint %s not tolerated", bad->reason + sizeof prefix - 1);
        return;
    }
    int64_t best = -1;
    const ms_taint *which = NULL;
    for (uint32_t i = 0; i < node->ntaints; i++) {
        const ms_toleration *used;
        if (!ms_te_matching_tolerations(&node->taints[i], 1, pod->tolerations, pod->ntolerations, &used) ||
            !used || !used->has_seconds)
            continue;
        int64_t s = used->toleration_seconds > 0 ? used->toleration_seconds : 0;
        if (best < 0 || s < best) best = s, which = &node->taints[i];
    }
    if (which) snprintf(buf, n, "tolerationSeconds %lld for taint %s", (long long)best, which->reason + sizeof prefix - 1);
}

static entry *add(timeline *t, ms_pod *pod, double at) {
    if (!ms_array_grow((void **)&t->e, &t->cap, t->n + 1, sizeof *t->e)) {
        t->oom = true;
        return NULL;
    }
    entry *e = &t->e[t->n++];
    memset(e, 0, sizeof *e);
    e->pod = ms_pod_ref(pod);
    e->at = at;
    return e;
}

static void on_evict(void *ctx, ms_pod *pod, double fire_at) {
    timeline *t = ctx;
    double at = fire_at - t->o->start;
    entry *e = add(t, pod, at > 0 ? at : 0);
    if (!e) return;
    explain(t, pod, e->why, sizeof e->why);
    e->again = t->o->place(t->o->ctx, pod, e->at, e->where, sizeof e->where);
    /* Placed where a NoExecute taint is tolerated only for a while: it
     * would go again (this timeline does not follow it further). */
    const ms_node *node = e->again != MS_STR_NONE ? node_of(t, e->again) : NULL;
    double since[64] = {0}, again;
    if (node && node->ntaints <= 64 &&
        ms_te_decide(pod, node->taints, since, node->ntaints, &again) == MS_TE_DELETE_AT)
        snprintf(e->where, sizeof e->where, "%s (evicted again %.0fs later)", ms_str_get(t->o->in, e->again),
                 again - pod->meta.creation > 0 ? again - pod->meta.creation : 0);
}

/* Bound pods on NoExecute-tainted nodes that tolerate them for ever. */
static void add_stayers(timeline *t) {
    for (uint32_t i = 0; i < t->o->npods; i++) {
        ms_pod *pod = t->o->pods[i];
        const ms_node *node = node_of(t, pod->node_name);
        if (!node || !ms_te_has_no_execute(node->taints, node->ntaints)) continue;
        double since[64] = {0}, at;
        if (node->ntaints > 64 || ms_te_decide(pod, node->taints, since, node->ntaints, &at) != MS_TE_NEVER)
            continue;
        entry *e = add(t, pod, -1);
        if (e) snprintf(e->why, sizeof e->why, "tolerates the NoExecute taints for ever");
    }
}

static void print_table(const timeline *t) {
    FILE *f = t->o->out;
    const ms_interner *in = t->o->in;
    fprintf(f, "%-10s %-40s %-20s %-60s %s\n", "TIME", "POD", "NODE", "WHY", "PLACED AGAIN");
    for (uint32_t i = 0; i < t->n; i++) {
        const entry *e = &t->e[i];
        char key[320], when[32];
        ms_pod_key(e->pod, in, key, sizeof key);
        if (e->at < 0) snprintf(when, sizeof when, "never");
        else snprintf(when, sizeof when, "+%.0fs", e->at);
        const char *again = e->at < 0 ? "-" : e->where[0] || e->again == MS_STR_NONE ? e->where : ms_str_get(in, e->again);
        fprintf(f, "%-10s %-40s %-20s %-60s %s\n", when, key, ms_str_get(in, e->pod->node_name), e->why,
                again[0] ? again : "(not placed)");
    }
    uint32_t evicted = 0;
    for (uint32_t i = 0; i < t->n; i++) evicted += t->e[i].at >= 0;
    fprintf(f, "\n%u evicted, %u staying\n", evicted, t->n - evicted);
}

static void print_json(const timeline *t) {
    const ms_interner *in = t->o->in;
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "evictions");
    for (uint32_t i = 0; arr && i < t->n; i++) {
        const entry *e = &t->e[i];
        cJSON *o = cJSON_CreateObject();
        if (!o) break;
        cJSON_AddStringToObject(o, "namespace", ms_str_get(in, e->pod->meta.namespace_));
        cJSON_AddStringToObject(o, "name", ms_str_get(in, e->pod->meta.name));
        cJSON_AddStringToObject(o, "node", ms_str_get(in, e->pod->node_name));
        if (e->at >= 0) cJSON_AddNumberToObject(o, "afterSeconds", e->at);
        else cJSON_AddNullToObject(o, "afterSeconds");
        cJSON_AddStringToObject(o, "reason", e->why);
        if (e->at >= 0 && e->again != MS_STR_NONE) cJSON_AddStringToObject(o, "placedAgain", ms_str_get(in, e->again));
        if (e->at >= 0 && e->where[0]) cJSON_AddStringToObject(o, "note", e->where);
        cJSON_AddItemToArray(arr, o);
    }
    char *s = cJSON_Print(root);
    if (s) fprintf(t->o->out, "%s\n", s);
    free(s);
    cJSON_Delete(root);
}

ms_rc ms_eviction_timeline(const ms_eviction_timeline_options *o, uint32_t *evicted, ms_error *err) {
    timeline t = {.o = o};
    ms_te_sink sink = {.ctx = &t, .evict = on_evict};
    ms_taint_manager *m = ms_taint_manager_new(&sink);
    if (!m) return ms_error_set(err, MS_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < o->nnodes; i++) ms_taint_manager_node_update(m, o->nodes[i], o->start);
    for (uint32_t i = 0; i < o->npods; i++) ms_taint_manager_pod_update(m, o->pods[i], o->start);
    /* The virtual clock jumps from deadline to deadline. */
    double next;
    while (!t.oom && (next = ms_taint_manager_next(m)) >= 0)
        ms_taint_manager_fire(m, next > o->start ? next : o->start, 0);
    uint32_t n = t.n;
    add_stayers(&t);
    if (!t.oom) {
        if (o->output == MS_OUTPUT_JSON) print_json(&t);
        else print_table(&t);
    }
    ms_taint_manager_free(m);
    for (uint32_t i = 0; i < t.n; i++) ms_pod_unref(t.e[i].pod);
    free(t.e);
    if (evicted) *evicted = n;
    return t.oom ? ms_error_set(err, MS_ENOMEM, "out of memory") : MS_OK;
}
