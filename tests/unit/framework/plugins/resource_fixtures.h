/* Resource lists, pods, nodes and NodeInfos written as upstream's
 * resource plugin tests write them, a plugin created from JSON args, and
 * the score tables they share: for NodeResourcesFit,
 * NodeResourcesBalancedAllocation and their shared scorer. Include after
 * "testutil.h"; setup and teardown make and free the fixture (*state). */
#ifndef MOONSCHED_TEST_RESOURCE_FIXTURES_H
#define MOONSCHED_TEST_RESOURCE_FIXTURES_H

/* Table rows name only the fields they need. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <cJSON.h>

#include "framework/plugins/builtin.h"
#include "moonsched/node.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/pod.h"

typedef struct res_kv {
    const char *name;
    int64_t value;
} res_kv;

/* A resource list as tests write it: cpu in millicores, bytes, scalars by name. */
typedef struct rsrc {
    int64_t cpu, mem, eph;
    res_kv scalar[3];
} rsrc;

typedef struct fx {
    ms_interner *in;
    ms_resource_names rn;
    ms_handle h;
    ms_arena arena;
    void *slots[2];
    ms_cycle c;
} fx;

static inline int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    f->in = ms_interner_new();
    ms_resource_names_init(&f->rn, f->in);
    f->h.in = f->in;
    f->h.rn = &f->rn;
    ms_arena_init(&f->arena, 4096);
    *state = f;
    return 0;
}

static inline int teardown(void **state) {
    fx *f = *state;
    ms_arena_free(&f->arena);
    ms_interner_free(f->in);
    free(f);
    return 0;
}

static inline int cmp_scalar(const void *a, const void *b) {
    ms_str x = ((const ms_scalar *)a)->name, y = ((const ms_scalar *)b)->name;
    return x < y ? -1 : x > y;
}

/* Fills r from spec; scalars live in arena a, sorted by name id. */
static inline void fill(fx *f, ms_arena *a, ms_resources *r, const rsrc *spec) {
    r->v[MS_RES_CPU] = spec->cpu;
    r->v[MS_RES_MEMORY] = spec->mem;
    r->v[MS_RES_EPHEMERAL] = spec->eph;
    uint32_t n = 0;
    while (n < 3 && spec->scalar[n].name) n++;
    r->nscalar = n;
    r->cap = 0;
    r->scalar = n ? MS_ARENA_NEW(a, ms_scalar, n) : NULL;
    for (uint32_t i = 0; i < n; i++)
        r->scalar[i] = (ms_scalar){ms_intern_cstr(f->in, spec->scalar[i].name), spec->scalar[i].value};
    if (n) qsort(r->scalar, n, sizeof *r->scalar, cmp_scalar);
}

/* A pod whose containers all request something: its non-zero requests
 * equal its requests (pass nz_* >= 0 to say otherwise). */
static inline ms_pod *make_pod(fx *f, rsrc req, int64_t nz_cpu, int64_t nz_mem) {
    ms_pod *p = ms_pod_alloc();
    fill(f, &p->arena, &p->requests, &req);
    p->non_zero_cpu = nz_cpu >= 0 ? nz_cpu : req.cpu;
    p->non_zero_mem = nz_mem >= 0 ? nz_mem : req.mem;
    return p;
}

static inline ms_node *make_node(fx *f, const char *name, rsrc alloc, int64_t pods) {
    ms_node *n = ms_node_alloc();
    n->meta.name = ms_intern_cstr(f->in, name);
    fill(f, &n->arena, &n->allocatable, &alloc);
    n->allocatable.v[MS_RES_PODS] = pods;
    return n;
}

/* A NodeInfo with npods pods that request `used` in total (non-zero
 * requests as given, or equal to `used` when negative). */
static inline void make_ni(fx *f, ms_node_info *ni, ms_node *node, uint32_t npods, rsrc used,
                    int64_t nz_cpu, int64_t nz_mem) {
    memset(ni, 0, sizeof *ni);
    ni->name = node->meta.name;
    ni->node = node;
    ni->npods = npods;
    ni->requested.v[MS_RES_CPU] = used.cpu;
    ni->requested.v[MS_RES_MEMORY] = used.mem;
    ni->requested.v[MS_RES_EPHEMERAL] = used.eph;
    ni->requested.v[MS_RES_PODS] = npods;
    for (int i = 0; i < 3 && used.scalar[i].name; i++)
        assert_int_equal(ms_resources_set_scalar(&ni->requested, ms_intern_cstr(f->in, used.scalar[i].name),
                                                 used.scalar[i].value),
                         0);
    ni->non_zero_cpu = nz_cpu >= 0 ? nz_cpu : used.cpu;
    ni->non_zero_mem = nz_mem >= 0 ? nz_mem : used.mem;
}

static inline void *create(fx *f, const ms_plugin_ops *ops, const char *json) {
    cJSON *args = json ? cJSON_Parse(json) : NULL;
    if (json) assert_non_null(args);
    void *self = NULL;
    ms_error err = {0};
    ms_rc rc = ops->create(args, &f->h, &self, &err);
    if (rc != MS_OK) fail_msg("create %s with %s: %s", ops->name, json ? json : "(null)", err.msg);
    cJSON_Delete(args);
    return self;
}

/* Creation must fail with an error message containing `want`. */
static inline void create_fails(fx *f, const ms_plugin_ops *ops, const char *json, const char *want) {
    cJSON *args = cJSON_Parse(json);
    assert_non_null(args);
    void *self = NULL;
    ms_error err = {0};
    ms_rc rc = ops->create(args, &f->h, &self, &err);
    cJSON_Delete(args);
    if (rc == MS_OK) {
        ops->destroy(self);
        fail_msg("create %s with %s succeeded", ops->name, json);
    }
    assert_int_equal(rc, MS_EINVAL);
    if (!strstr(err.msg, want)) fail_msg("%s: error \"%s\" lacks \"%s\"", json, err.msg, want);
}

static inline const char *code_name(ms_code c) {
    static const char *const names[] = {"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
                                        "Wait", "Skip", "Pending"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "?";
}

static inline void begin_cycle(fx *f, ms_pod *pod) {
    ms_arena_reset(&f->arena);
    f->slots[0] = f->slots[1] = NULL;
    f->c = (ms_cycle){.pod = pod, .arena = &f->arena, .state = f->slots, .current = 0, .h = &f->h};
}

typedef struct score_node {
    rsrc alloc;
    rsrc used;
    int64_t nz_cpu, nz_mem;   /* non-zero requested; 0/0 means "same as used" */
} score_node;

typedef struct score_case {
    const char *name;
    rsrc pod;
    int64_t pod_nz_cpu, pod_nz_mem;   /* 0/0 means "same as the request" */
    uint32_t n;
    score_node nodes[3];
    int64_t want[3];
    const char *args;                 /* overrides the table's args when set */
} score_case;

#define LEAST "{\"scoringStrategy\": {\"type\": \"LeastAllocated\"}}"
#define MOST "{\"scoringStrategy\": {\"type\": \"MostAllocated\"}}"
#define MOST_MEM2 \
    "{\"scoringStrategy\": {\"type\": \"MostAllocated\", \"resources\": [{\"name\": \"memory\", " \
    "\"weight\": 2}, {\"name\": \"cpu\", \"weight\": 1}]}}"
#define LEAST_MEM2 \
    "{\"scoringStrategy\": {\"type\": \"LeastAllocated\", \"resources\": [{\"name\": \"memory\", " \
    "\"weight\": 2}, {\"name\": \"cpu\", \"weight\": 1}]}}"
#define EXT "abc.com/xyz"
#define EXT_SET(type)                                                                            \
    "{\"scoringStrategy\": {\"type\": \"" type "\", \"resources\": [{\"name\": \"cpu\", \"weight\": " \
    "1}, {\"name\": \"memory\", \"weight\": 1}, {\"name\": \"" EXT "\", \"weight\": 1}]}}"
#define EXT2_SET(type)                                                                           \
    "{\"scoringStrategy\": {\"type\": \"" type "\", \"resources\": [{\"name\": \"" EXT "\", "       \
    "\"weight\": 2}, {\"name\": \"cpu\", \"weight\": 1}, {\"name\": \"memory\", \"weight\": 1}]}}"
#define MI (1024LL * 1024)

static inline void run_scores(fx *f, const ms_plugin_ops *ops, const char *args, const score_case *cases,
                       size_t ncases, ms_code want_prescore) {
    for (size_t i = 0; i < ncases; i++) {
        const score_case *tc = &cases[i];
        void *self = create(f, ops, tc->args ? tc->args : args);
        ms_node *nodes[3];
        ms_node_info nis[3];
        ms_node_info *list[3];
        for (uint32_t k = 0; k < tc->n; k++) {
            const score_node *sn = &tc->nodes[k];
            char name[16];
            snprintf(name, sizeof name, "node%u", k + 1);
            nodes[k] = make_node(f, name, sn->alloc, 110);
            bool nz = sn->nz_cpu || sn->nz_mem;
            make_ni(f, &nis[k], nodes[k], 2, sn->used, nz ? sn->nz_cpu : -1, nz ? sn->nz_mem : -1);
            list[k] = &nis[k];
        }
        bool pod_nz = tc->pod_nz_cpu || tc->pod_nz_mem;
        ms_pod *pod = make_pod(f, tc->pod, pod_nz ? tc->pod_nz_cpu : -1, pod_nz ? tc->pod_nz_mem : -1);
        begin_cycle(f, pod);
        ms_status st;
        ms_status_ok(&st);
        ms_code pc = ops->pre_score(self, &f->c, list, tc->n, &st);
        if (pc != want_prescore)
            fail_msg("%s: PreScore %s, want %s", tc->name, code_name(pc), code_name(want_prescore));
        if (pc == MS_SUCCESS) {
            int64_t scores[3] = {-1, -1, -1};
            assert_int_equal(ops->score(self, &f->c, list, tc->n, scores, &st), MS_SUCCESS);
            for (uint32_t k = 0; k < tc->n; k++)
                if (scores[k] != tc->want[k])
                    fail_msg("%s: node%u scored %lld, want %lld", tc->name, k + 1, (long long)scores[k],
                             (long long)tc->want[k]);
        }
        ms_pod_unref(pod);
        for (uint32_t k = 0; k < tc->n; k++) {
            ms_resources_free(&nis[k].requested);
            ms_node_unref(nodes[k]);
        }
        ops->destroy(self);
    }
}

#endif
