/* libFuzzer target: the input as an extender's answer, read by every
 * answer reader (ExtenderFilterResult, HostPriorityList,
 * ExtenderBindingResult, ExtenderPreemptionResult) for a node-cache-capable
 * extender and for one that is not, against a fixed snapshot of three nodes
 * and three pods built once. Checks that what the readers return points
 * into the input: feasible indexes below the node count, candidates on
 * snapshot nodes, victims among their pods. Must never crash or leak. */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cache.h"
#include "moonsched/decode.h"
#include "scheduler/extender_answers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NNODES 3

typedef struct world {
    ms_interner *in;
    ms_decoder d;
    ms_cache *cache;
    ms_snapshot snap;
    ms_extenders *e;
    ms_node_info *nodes[NNODES];
} world;

static const char *const node_json[NNODES] = {
    "{\"metadata\":{\"name\":\"node-1\"},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"pods\":\"110\"}}}",
    "{\"metadata\":{\"name\":\"node-2\"},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"pods\":\"110\"}}}",
    "{\"metadata\":{\"name\":\"node-3\"},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"pods\":\"110\"}}}",
};

static const char *const pod_json[] = {
    "{\"metadata\":{\"name\":\"low-a\",\"namespace\":\"default\",\"uid\":\"uid-a\"},"
    "\"spec\":{\"nodeName\":\"node-1\",\"containers\":[{\"name\":\"c\"}]}}",
    "{\"metadata\":{\"name\":\"low-b\",\"namespace\":\"default\",\"uid\":\"uid-b\"},"
    "\"spec\":{\"nodeName\":\"node-1\",\"containers\":[{\"name\":\"c\"}]}}",
    "{\"metadata\":{\"name\":\"low-c\",\"namespace\":\"default\",\"uid\":\"uid-c\"},"
    "\"spec\":{\"nodeName\":\"node-2\",\"containers\":[{\"name\":\"c\"}]}}",
};

static const char extenders_json[] =
    "[{\"urlPrefix\":\"http://127.0.0.1:1/a\",\"filterVerb\":\"filter\",\"prioritizeVerb\":\"prioritize\","
    "\"bindVerb\":\"bind\",\"preemptVerb\":\"preempt\",\"weight\":3,\"nodeCacheCapable\":true},"
    " {\"urlPrefix\":\"http://127.0.0.1:1/b\",\"filterVerb\":\"filter\",\"prioritizeVerb\":\"prioritize\","
    "\"preemptVerb\":\"preempt\",\"weight\":1}]";

static cJSON *parse(const char *s) {
    cJSON *j = cJSON_Parse(s);
    if (!j) abort();
    return j;
}

/* Answers are read here without being fetched: a caller that is never
 * asked to call. */
static void no_calls(void *ctx, const ms_http_call *reqs, ms_http_result *answers, uint32_t n) {
    (void)ctx, (void)reqs, (void)answers, (void)n;
    abort();
}

static bool any_url(void *ctx, const ms_http_call *req, char *why, size_t why_size) {
    (void)ctx, (void)req, (void)why, (void)why_size;
    return true;
}

static void build_world(world *w) {
    ms_error err;
    w->in = ms_interner_new();
    ms_decoder_init(&w->d, w->in);
    w->cache = ms_cache_new(w->in, 30);
    ms_snapshot_init(&w->snap);
    for (size_t i = 0; i < NNODES; i++) {
        cJSON *j = parse(node_json[i]);
        ms_node *n = NULL;
        if (ms_node_decode(&w->d, j, &n, &err) != MS_OK || ms_cache_add_node(w->cache, n) != MS_OK) abort();
        ms_node_unref(n);
        cJSON_Delete(j);
    }
    for (size_t i = 0; i < sizeof pod_json / sizeof pod_json[0]; i++) {
        cJSON *j = parse(pod_json[i]);
        ms_pod *p = NULL;
        if (ms_pod_decode(&w->d, j, &p, &err) != MS_OK || ms_cache_add_pod(w->cache, p) != MS_OK) abort();
        ms_pod_unref(p);
        cJSON_Delete(j);
    }
    if (ms_cache_update_snapshot(w->cache, &w->snap) != MS_OK || w->snap.nnodes != NNODES) abort();
    for (size_t i = 0; i < NNODES; i++) w->nodes[i] = w->snap.nodes[i];
    cJSON *j = parse(extenders_json);
    const ms_http_caller http = {.call_many = no_calls, .check = any_url};
    ms_extender_config *c;
    uint32_t n;
    if (ms_extender_configs_parse(j, &c, &n, NULL, NULL, NULL, &err) != MS_OK ||
        ms_extenders_new(c, n, w->in, &http, &w->e, &err) != MS_OK)
        abort();
    ms_extender_configs_free(c, n);
    cJSON_Delete(j);
}

static void check_filter(const ms_extender_filter_result *r) {
    if (r->nfeasible > NNODES) abort();
    for (uint32_t k = 0; k < r->nfeasible; k++)
        if (r->feasible[k] >= NNODES) abort();
    for (uint32_t k = 0; k < NNODES; k++)
        if (r->statuses[k].code != MS_SUCCESS && (r->statuses[k].nreasons != 1 || !r->statuses[k].reasons[0])) abort();
}

static void check_victims(const world *w, const ms_preemption_candidate *c, uint32_t n) {
    for (uint32_t k = 0; k < n; k++) {
        if (ms_snapshot_get(&w->snap, c[k].node) != c[k].ni) abort();
        for (uint32_t v = 0; v < c[k].nvictims; v++) {
            bool found = false;
            for (uint32_t q = 0; q < c[k].ni->npods; q++) found |= c[k].ni->pods[q] == c[k].victims[v];
            if (!found) abort();
        }
    }
}

static void read_all(world *w, uint32_t i, const cJSON *answer, ms_arena *a) {
    ms_error err;
    ms_extender_filter_result fr;
    if (ms_extenders_read_filter(w->e, i, answer, w->nodes, NNODES, a, &fr, &err) == MS_OK) check_filter(&fr);
    int64_t row[NNODES];
    if (ms_extenders_read_priorities(w->e, i, answer, w->nodes, NNODES, row, &err) != MS_OK)
        for (size_t k = 0; k < NNODES; k++)
            if (row[k]) abort();   /* a rejected list scores nothing */
    (void)ms_extenders_read_binding(answer, &err);
    ms_preemption_candidate *c = NULL;
    uint32_t nc = 0;
    if (ms_extenders_read_victims(w->e, i, answer, &w->snap, a, &c, &nc, &err) == MS_OK) check_victims(w, c, nc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static world w;   /* built once: the readers never change it */
    if (!w.e) build_world(&w);
    /* as the transport parses a body: the first JSON value, the rest ignored */
    const char *end = NULL;
    cJSON *answer = cJSON_ParseWithLengthOpts((const char *)data, size, &end, false);
    if (!answer) return 0;
    ms_arena a;
    ms_arena_init(&a, 0);
    for (uint32_t i = 0; i < ms_extenders_count(w.e); i++) read_all(&w, i, answer, &a);
    ms_arena_free(&a);
    cJSON_Delete(answer);
    return 0;
}
