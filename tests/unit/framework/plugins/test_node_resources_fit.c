/* NodeResourcesFit (Filter and the three scoring strategies) and
 * NodeResourcesBalancedAllocation, with upstream's worked examples
 * (fit_test.go, least_allocated_test.go, most_allocated_test.go,
 * requested_to_capacity_ratio_test.go, balanced_allocation_test.go). */
#include "testutil.h"

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

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    f->in = ms_interner_new();
    ms_resource_names_init(&f->rn, f->in);
    f->h.in = f->in;
    f->h.rn = &f->rn;
    ms_arena_init(&f->arena, 4096);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    ms_arena_free(&f->arena);
    ms_interner_free(f->in);
    free(f);
    return 0;
}

static int cmp_scalar(const void *a, const void *b) {
    ms_str x = ((const ms_scalar *)a)->name, y = ((const ms_scalar *)b)->name;
    return x < y ? -1 : x > y;
}

/* Fills r from spec; scalars live in arena a, sorted by name id. */
static void fill(fx *f, ms_arena *a, ms_resources *r, const rsrc *spec) {
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
static ms_pod *make_pod(fx *f, rsrc req, int64_t nz_cpu, int64_t nz_mem) {
    ms_pod *p = ms_pod_alloc();
    fill(f, &p->arena, &p->requests, &req);
    p->non_zero_cpu = nz_cpu >= 0 ? nz_cpu : req.cpu;
    p->non_zero_mem = nz_mem >= 0 ? nz_mem : req.mem;
    return p;
}

static ms_node *make_node(fx *f, const char *name, rsrc alloc, int64_t pods) {
    ms_node *n = ms_node_alloc();
    n->meta.name = ms_intern_cstr(f->in, name);
    fill(f, &n->arena, &n->allocatable, &alloc);
    n->allocatable.v[MS_RES_PODS] = pods;
    return n;
}

/* A NodeInfo with npods pods that request `used` in total (non-zero
 * requests as given, or equal to `used` when negative). */
static void make_ni(fx *f, ms_node_info *ni, ms_node *node, uint32_t npods, rsrc used,
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

static void *create(fx *f, const ms_plugin_ops *ops, const char *json) {
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
static void create_fails(fx *f, const ms_plugin_ops *ops, const char *json, const char *want) {
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

static const char *code_name(ms_code c) {
    static const char *const names[] = {"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
                                        "Wait", "Skip", "Pending"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "?";
}

static void begin_cycle(fx *f, ms_pod *pod) {
    ms_arena_reset(&f->arena);
    f->slots[0] = f->slots[1] = NULL;
    f->c = (ms_cycle){.pod = pod, .arena = &f->arena, .state = f->slots, .current = 0, .h = &f->h};
}

/* ---- Filter ------------------------------------------------------------- */

#define U MS_UNSCHEDULABLE
#define UU MS_UNSCHEDULABLE_AND_UNRESOLVABLE
#define EXT_A "example.com/aaa"
#define EXT_B "example.com/bbb"
#define K8S_A "kubernetes.io/something"
#define K8S_B "subdomain.kubernetes.io/something"
#define HUGE_A "hugepages-2Mi"

typedef struct filter_case {
    const char *name;
    rsrc pod;
    rsrc used;
    const char *args;
    ms_code code;
    const char *reasons[MS_STATUS_MAX_REASONS];
} filter_case;

/* fit_test.go TestEnoughRequests: node allocatable cpu 10m, memory 20,
 * pods 32, example.com/aaa 5, ephemeral-storage 20, hugepages-2Mi 5, one pod
 * already on it. The pod's request is what the decoder computes (sum of
 * containers, max with each init container, plus overhead). Upstream now
 * reports UnschedulableAndUnresolvable when a request exceeds the node's
 * whole allocatable (preemption cannot help). */
static const filter_case fit_cases[] = {
    {"no resources requested always fits", {0}, {10, 20}, NULL, MS_SUCCESS, {0}},
    {"too many resources fails", {1, 1}, {10, 20}, NULL, U, {"Insufficient cpu", "Insufficient memory"}},
    {"too many resources fails due to init container cpu", {3, 1}, {8, 19}, NULL, U, {"Insufficient cpu"}},
    {"too many resources fails due to init container memory", {1, 3}, {9, 19}, NULL, U,
     {"Insufficient memory"}},
    {"init container fits because it's the max, not sum", {1, 1}, {9, 19}, NULL, MS_SUCCESS, {0}},
    {"both resources fit", {1, 1}, {5, 5}, NULL, MS_SUCCESS, {0}},
    {"one resource memory fits", {2, 1}, {9, 5}, NULL, U, {"Insufficient cpu"}},
    {"one resource cpu fits", {1, 2}, {5, 19}, NULL, U, {"Insufficient memory"}},
    {"equal edge case", {5, 1}, {5, 19}, NULL, MS_SUCCESS, {0}},
    {"extended resource fits", {.scalar = {{EXT_A, 1}}}, {0}, NULL, MS_SUCCESS, {0}},
    {"extended resource capacity enforced", {1, 1, .scalar = {{EXT_A, 10}}}, {.scalar = {{EXT_A, 0}}},
     NULL, UU, {"Insufficient " EXT_A}},
    {"extended resource allocatable enforced", {1, 1, .scalar = {{EXT_A, 1}}}, {.scalar = {{EXT_A, 5}}},
     NULL, U, {"Insufficient " EXT_A}},
    {"extended resource allocatable enforced for multiple containers", {2, 2, .scalar = {{EXT_A, 6}}},
     {.scalar = {{EXT_A, 2}}}, NULL, UU, {"Insufficient " EXT_A}},
    {"extended resource allocatable admits multiple init containers", {1, 1, .scalar = {{EXT_A, 3}}},
     {.scalar = {{EXT_A, 2}}}, NULL, MS_SUCCESS, {0}},
    {"extended resource allocatable enforced for unknown resource", {1, 1, .scalar = {{EXT_B, 1}}}, {0},
     NULL, UU, {"Insufficient " EXT_B}},
    {"kubernetes.io resource capacity enforced", {1, 1, .scalar = {{K8S_A, 10}}}, {0}, NULL, UU,
     {"Insufficient " K8S_A}},
    {"kubernetes.io resource capacity enforced for init container", {1, 1, .scalar = {{K8S_B, 10}}},
     {0}, NULL, UU, {"Insufficient " K8S_B}},
    {"hugepages resource capacity enforced", {1, 1, .scalar = {{HUGE_A, 10}}},
     {.scalar = {{HUGE_A, 0}}}, NULL, UU, {"Insufficient " HUGE_A}},
    {"hugepages resource allocatable enforced for multiple containers", {2, 2, .scalar = {{HUGE_A, 6}}},
     {.scalar = {{HUGE_A, 2}}}, NULL, UU, {"Insufficient " HUGE_A}},
    {"skip checking ignored extended resource", {1, 1, .scalar = {{EXT_B, 1}}}, {0},
     "{\"ignoredResources\": [\"example.com/bbb\"]}", MS_SUCCESS, {0}},
    {"resources + pod overhead fits", {1 + 3, 1 + 13}, {5, 5}, NULL, MS_SUCCESS, {0}},
    {"requests + overhead does not fit for memory", {1 + 1, 1 + 15}, {5, 5}, NULL, U,
     {"Insufficient memory"}},
    {"skip checking ignored extended resource via resource groups",
     {1, 1, .scalar = {{EXT_B, 1}, {K8S_A, 1}}}, {0}, "{\"ignoredResourceGroups\": [\"example.com\"]}",
     UU, {"Insufficient " K8S_A}},
    /* Only extended resources can be ignored. */
    {"ignoredResources does not apply to hugepages", {.scalar = {{HUGE_A, 10}}}, {0},
     "{\"ignoredResources\": [\"hugepages-2Mi\"]}", UU, {"Insufficient " HUGE_A}},
    {"a zero scalar request is not checked", {.scalar = {{EXT_B, 0}}}, {0}, NULL, MS_SUCCESS, {0}},
    {"every insufficient resource is a reason", {11, 2, 3, .scalar = {{EXT_A, 1}}},
     {9, 19, 18, .scalar = {{EXT_A, 5}}}, NULL, UU,
     {"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
      "Insufficient " EXT_A}},
    /* TestStorageRequests */
    {"due to container scratch disk", {1, 1}, {10, 10}, NULL, U, {"Insufficient cpu"}},
    {"pod fit", {1, 1, 10}, {2, 10}, NULL, MS_SUCCESS, {0}},
    {"storage ephemeral local storage request exceeds allocatable", {.eph = 25}, {2, 2}, NULL, UU,
     {"Insufficient ephemeral-storage"}},
    {"ephemeral storage fits", {.eph = 10}, {2, 2}, NULL, MS_SUCCESS, {0}},
    {"ephemeral storage does not fit beside used", {.eph = 10}, {2, 2, 15}, NULL, U,
     {"Insufficient ephemeral-storage"}},
};

static void check_status(const char *name, const ms_status *st, ms_code got, ms_code want,
                         const char *const *reasons) {
    if (got != want) fail_msg("%s: code %s, want %s", name, code_name(got), code_name(want));
    if (want == MS_SUCCESS) return;
    assert_int_equal(st->code, want);
    uint32_t n = 0;
    while (n < MS_STATUS_MAX_REASONS && reasons[n]) n++;
    if (st->nreasons != n) fail_msg("%s: %u reasons, want %u", name, st->nreasons, n);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(st->reasons[i], reasons[i]) != 0)
            fail_msg("%s: reason %u \"%s\", want \"%s\"", name, i, st->reasons[i], reasons[i]);
}

static void test_fit_filter(void **state) {
    fx *f = *state;
    const rsrc alloc = {10, 20, 20, .scalar = {{EXT_A, 5}, {HUGE_A, 5}}};
    for (size_t i = 0; i < sizeof fit_cases / sizeof fit_cases[0]; i++) {
        const filter_case *tc = &fit_cases[i];
        void *self = create(f, &ms_plugin_node_resources_fit, tc->args);
        ms_node *node = make_node(f, "node", alloc, 32);
        ms_node_info ni;
        make_ni(f, &ni, node, 1, tc->used, -1, -1);
        ms_pod *pod = make_pod(f, tc->pod, -1, -1);
        begin_cycle(f, pod);
        ms_status st;
        ms_status_ok(&st);
        assert_int_equal(ms_plugin_node_resources_fit.pre_filter(self, &f->c, &st), MS_SUCCESS);
        ms_status_ok(&st);
        ms_code got = ms_plugin_node_resources_fit.filter(self, &f->c, &ni, &st);
        check_status(tc->name, &st, got, tc->code, tc->reasons);
        ms_pod_unref(pod);
        ms_resources_free(&ni.requested);
        ms_node_unref(node);
        ms_plugin_node_resources_fit.destroy(self);
    }
}

/* TestNotEnoughRequests: room for one pod, which is already there. */
static void test_fit_too_many_pods(void **state) {
    fx *f = *state;
    static const filter_case cases[] = {
        {"even without specified resources predicate fails", {0}, {10, 20}, NULL, U, {"Too many pods"}},
        {"even if both resources fit predicate fails", {1, 1}, {5, 5}, NULL, U, {"Too many pods"}},
        {"even for equal edge case predicate fails", {5, 1}, {5, 19}, NULL, U, {"Too many pods"}},
        {"too many pods and too little cpu", {6, 1}, {5, 19}, NULL, U, {"Too many pods", "Insufficient cpu"}},
        {"a request above allocatable makes it unresolvable", {11, 1}, {5, 5}, NULL, UU,
         {"Too many pods", "Insufficient cpu"}},
    };
    void *self = create(f, &ms_plugin_node_resources_fit, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_node *node = make_node(f, "node", (rsrc){10, 20}, 1);
        ms_node_info ni;
        make_ni(f, &ni, node, 1, cases[i].used, -1, -1);
        ms_pod *pod = make_pod(f, cases[i].pod, -1, -1);
        begin_cycle(f, pod);
        ms_status st;
        ms_status_ok(&st);
        assert_int_equal(ms_plugin_node_resources_fit.pre_filter(self, &f->c, &st), MS_SUCCESS);
        ms_code got = ms_plugin_node_resources_fit.filter(self, &f->c, &ni, &st);
        check_status(cases[i].name, &st, got, cases[i].code, cases[i].reasons);
        ms_pod_unref(pod);
        ms_resources_free(&ni.requested);
        ms_node_unref(node);
    }
    ms_plugin_node_resources_fit.destroy(self);
}

/* TestPreFilterDisabled */
static void test_fit_filter_without_prefilter(void **state) {
    fx *f = *state;
    void *self = create(f, &ms_plugin_node_resources_fit, NULL);
    ms_node *node = make_node(f, "node", (rsrc){10, 20}, 32);
    ms_node_info ni;
    make_ni(f, &ni, node, 0, (rsrc){0}, -1, -1);
    ms_pod *pod = make_pod(f, (rsrc){0}, -1, -1);
    begin_cycle(f, pod);
    ms_status st;
    ms_status_ok(&st);
    assert_int_equal(ms_plugin_node_resources_fit.filter(self, &f->c, &ni, &st), MS_ERROR);
    assert_int_equal(st.nreasons, 1);
    assert_string_equal(st.reasons[0],
                        "error reading \"PreFilterNodeResourcesFit\" from cycleState: not found");
    ms_pod_unref(pod);
    ms_node_unref(node);
    ms_plugin_node_resources_fit.destroy(self);
}

/* ---- Score -------------------------------------------------------------- */

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

static void run_scores(fx *f, const ms_plugin_ops *ops, const char *args, const score_case *cases,
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

/* least_allocated_test.go (its "cpu": "4000" is read as 4000m here: the
 * scores depend on ratios only). */
static void test_least_allocated(void **state) {
    static const score_case cases[] = {
        {"nothing scheduled, nothing requested", {0}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{4000, 10000}, {0}}}, {100, 100}},
        {"nothing scheduled, resources requested, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {37, 50}},
        {"no resources requested, pods scheduled with resources", {0}, 0, 0, 2,
         {{{10000, 20000}, {6000, 0}}, {{10000, 20000}, {6000, 5000}}}, {70, 57}},
        {"resources requested, pods scheduled with resources", {3000, 5000}, 0, 0, 2,
         {{{10000, 20000}, {3000, 0}}, {{10000, 20000}, {3000, 5000}}}, {57, 45}},
        {"resources requested, pods scheduled with resources, differently sized nodes", {3000, 5000}, 0,
         0, 2, {{{10000, 20000}, {3000, 0}}, {{10000, 50000}, {3000, 5000}}}, {57, 60}},
        {"requested resources exceed node capacity", {3000, 0}, 0, 0, 2,
         {{{4000, 10000}, {3000, 0}}, {{4000, 10000}, {3000, 5000}}}, {50, 25}},
        {"zero node resources, pods scheduled with resources", {0}, 0, 0, 2,
         {{{0}, {3000, 0}}, {{0}, {3000, 5000}}}, {0, 0}},
        {"different weight on CPU and memory, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {41, 50}, LEAST_MEM2},
        {"bypass extended resource if the pod does not request", {3000, 5000}, 0, 0, 2,
         {{{6000, 10000}, {0}}, {{6000, 10000, .scalar = {{EXT, 4}}}, {0}}}, {50, 50},
         EXT_SET("LeastAllocated")},
        {"honor extended resource if the pod requests", {3000, 5000, .scalar = {{EXT, 2}}}, 0, 0, 2,
         {{{6000, 10000, .scalar = {{EXT, 4}}}, {0}}, {{6000, 10000, .scalar = {{EXT, 10}}}, {0}}},
         {50, 60}, EXT_SET("LeastAllocated")},
        {"if the node doesn't have a resource", {3000, 4000}, 0, 0, 2,
         {{{6000, 10000}, {0}}, {{6000, 10000, .scalar = {{EXT, 4}}}, {0}}}, {55, 55},
         EXT2_SET("LeastAllocated")},
        /* Non-zero requests: a pod that requests nothing counts 100m and
         * 200Mi. node1: cpu 300m of 250m -> 0, memory 600Mi of 1000Mi -> 40;
         * node2: cpu 100m -> 60, memory 200Mi -> 80. */
        {"no resources requested, pods scheduled, nonzero request for resource", {0}, 100, 200 * MI, 2,
         {{{250, 1000 * MI}, {0}, 200, 400 * MI}, {{250, 1000 * MI}, {0}}}, {20, 70}},
    };
    run_scores(*state, &ms_plugin_node_resources_fit, LEAST, cases, sizeof cases / sizeof cases[0],
               MS_SUCCESS);
    /* LeastAllocated is the default strategy. */
    run_scores(*state, &ms_plugin_node_resources_fit, NULL, cases, 7, MS_SUCCESS);
}

/* most_allocated_test.go */
static void test_most_allocated(void **state) {
    static const score_case cases[] = {
        {"nothing scheduled, nothing requested", {0}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{4000, 10000}, {0}}}, {0, 0}},
        {"nothing scheduled, resources requested, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {62, 50}},
        {"no resources requested, pods scheduled with resources", {0}, 0, 0, 2,
         {{{10000, 20000}, {6000, 0}}, {{10000, 20000}, {6000, 5000}}}, {30, 42}},
        {"resources requested, pods scheduled with resources", {3000, 5000}, 0, 0, 2,
         {{{10000, 20000}, {3000, 0}}, {{10000, 20000}, {3000, 5000}}}, {42, 55}},
        {"resources requested equal node capacity", {5000, 9000}, 0, 0, 2,
         {{{5000, 10000}, {0}}, {{10000, 9000}, {0}}}, {95, 75}},
        {"different weight on CPU and memory, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {58, 50}, MOST_MEM2},
        {"no resources requested, pods scheduled, nonzero request for resource", {0}, 100, 200 * MI, 2,
         {{{250, 1000 * MI}, {0}, 200, 400 * MI}, {{250, 1000 * MI}, {0}}}, {80, 30}},
        {"bypass extended resource if the pod does not request", {3000, 5000}, 0, 0, 2,
         {{{6000, 10000}, {0}}, {{6000, 10000, .scalar = {{EXT, 4}}}, {0}}}, {50, 50},
         EXT_SET("MostAllocated")},
        {"honor extended resource if the pod request", {3000, 5000, .scalar = {{EXT, 2}}}, 0, 0, 2,
         {{{6000, 10000, .scalar = {{EXT, 4}}}, {0}}, {{6000, 10000, .scalar = {{EXT, 10}}}, {0}}},
         {50, 40}, EXT_SET("MostAllocated")},
        {"if the node doesn't have a resource", {3000, 4000}, 0, 0, 2,
         {{{6000, 10000}, {0}}, {{6000, 10000, .scalar = {{EXT, 4}}}, {0}}}, {45, 45},
         EXT2_SET("MostAllocated")},
    };
    run_scores(*state, &ms_plugin_node_resources_fit, MOST, cases, sizeof cases / sizeof cases[0],
               MS_SUCCESS);
}

#define RTCR_DEFAULT_SHAPE                                                                       \
    "{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": " \
    "{\"shape\": [{\"utilization\": 0, \"score\": 10}, {\"utilization\": 100, \"score\": 0}]}}}"
#define RTCR_FOO                                                                                  \
    "{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"resources\": [{\"name\": "   \
    "\"intel.com/foo\", \"weight\": 1}], \"requestedToCapacityRatio\": {\"shape\": "             \
    "[{\"utilization\": 0, \"score\": 0}, {\"utilization\": 100, \"score\": 1}]}}}"
#define RTCR_FOO_BAR                                                                              \
    "{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"resources\": [{\"name\": "   \
    "\"intel.com/foo\", \"weight\": 3}, {\"name\": \"intel.com/bar\", \"weight\": 5}], "          \
    "\"requestedToCapacityRatio\": {\"shape\": [{\"utilization\": 0, \"score\": 0}, "            \
    "{\"utilization\": 100, \"score\": 1}]}}}"
#define FOO "intel.com/foo"
#define BAR "intel.com/bar"
#define NODE_MEM (10000 * MI)

/* requested_to_capacity_ratio_test.go */
static void test_requested_to_capacity_ratio(void **state) {
    static const score_case cases[] = {
        {"nothing scheduled, nothing requested (least requested nodes have priority)", {0}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{4000, 10000}, {0}}}, {100, 100}},
        /* cpu 75% -> 25, memory 50% -> 50: 37.5 rounds to 38 (LeastAllocated truncates to 37). */
        {"nothing scheduled, resources requested, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {38, 50}},
        {"no resources requested, pods scheduled with resources", {0}, 0, 0, 2,
         {{{4000, 10000}, {3000, 5000}}, {{6000, 10000}, {3000, 5000}}}, {38, 50}},
    };
    run_scores(*state, &ms_plugin_node_resources_fit, RTCR_DEFAULT_SHAPE, cases,
               sizeof cases / sizeof cases[0], MS_SUCCESS);

    /* TestResourceBinPackingSingleExtended */
    static const score_case single[] = {
        {"nothing scheduled, nothing requested", {0}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}}}, {0}}, {{4000, NODE_MEM, .scalar = {{FOO, 4}}}, {0}}},
         {0, 0}},
        {"resources requested, pods scheduled with less resources", {.scalar = {{FOO, 2}}}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}}}, {0}}, {{4000, NODE_MEM, .scalar = {{FOO, 4}}}, {0}}},
         {2, 5}},
        {"resources requested, pods scheduled with resources, on node with existing pod running",
         {.scalar = {{FOO, 2}}}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}}}, {0}},
          {{4000, NODE_MEM, .scalar = {{FOO, 4}}}, {.scalar = {{FOO, 2}}}}},
         {2, 10}},
        {"resources requested, pods scheduled with more resources", {.scalar = {{FOO, 4}}}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}}}, {0}}, {{4000, NODE_MEM, .scalar = {{FOO, 4}}}, {0}}},
         {5, 10}},
    };
    run_scores(*state, &ms_plugin_node_resources_fit, RTCR_FOO, single, sizeof single / sizeof single[0],
               MS_SUCCESS);

    /* TestResourceBinPackingMultipleExtended */
    static const score_case multi[] = {
        {"nothing scheduled, nothing requested", {0}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}, {BAR, 4}}}, {0}},
          {{4000, NODE_MEM, .scalar = {{FOO, 4}, {BAR, 8}}}, {0}}},
         {0, 0}},
        {"resources requested, pods scheduled with less resources", {.scalar = {{FOO, 2}, {BAR, 2}}}, 0,
         0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}, {BAR, 4}}}, {0}},
          {{4000, NODE_MEM, .scalar = {{FOO, 4}, {BAR, 8}}}, {0}}},
         {4, 3}},
        {"resources requested, pods scheduled with resources, on node with existing pod running",
         {.scalar = {{FOO, 2}, {BAR, 2}}}, 0, 0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}, {BAR, 4}}}, {0}},
          {{4000, NODE_MEM, .scalar = {{FOO, 4}, {BAR, 8}}}, {.scalar = {{FOO, 4}, {BAR, 2}}}}},
         {4, 7}},
        {"resources requested, pods scheduled with more resources", {.scalar = {{FOO, 4}, {BAR, 2}}}, 0,
         0, 2,
         {{{4000, NODE_MEM, .scalar = {{FOO, 8}, {BAR, 4}}}, {0}},
          {{4000, NODE_MEM, .scalar = {{FOO, 4}, {BAR, 8}}}, {0}}},
         {5, 5}},
    };
    run_scores(*state, &ms_plugin_node_resources_fit, RTCR_FOO_BAR, multi, sizeof multi / sizeof multi[0],
               MS_SUCCESS);
}

/* The broken-linear shape (TestBrokenLinearFunction's second shape, on the
 * 0..100 scale): {0: 20, 40: 100, 100: 0}. With one resource of capacity
 * 100 the requested amount is the utilization. Segment interpolation
 * truncates toward zero like Go's integer division: at 53,
 * 100 - 100*13/60 = 100 - 21 = 79. Utilization 100 scores 0, and a
 * resource scoring 0 is left out: no weight left, score 0. */
static void test_rtcr_shape(void **state) {
    static const struct { int64_t util, want; } pts[] = {
        {0, 20}, {20, 60}, {30, 80}, {40, 100}, {53, 79}, {70, 50}, {100, 0}, {130, 0},
    };
    fx *f = *state;
    void *self = create(f, &ms_plugin_node_resources_fit,
                        "{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"resources\": "
                        "[{\"name\": \"cpu\"}], \"requestedToCapacityRatio\": {\"shape\": "
                        "[{\"utilization\": 0, \"score\": 2}, {\"utilization\": 40, \"score\": 10}, "
                        "{\"utilization\": 100, \"score\": 0}]}}}");
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        ms_node *node = make_node(f, "node", (rsrc){100, 100}, 110);
        ms_node_info ni, *list = &ni;
        make_ni(f, &ni, node, 0, (rsrc){0}, -1, -1);
        ms_pod *pod = make_pod(f, (rsrc){pts[i].util, 0}, -1, -1);
        begin_cycle(f, pod);
        ms_status st;
        int64_t score = -1;
        assert_int_equal(ms_plugin_node_resources_fit.pre_score(self, &f->c, &list, 1, &st), MS_SUCCESS);
        assert_int_equal(ms_plugin_node_resources_fit.score(self, &f->c, &list, 1, &score, &st), MS_SUCCESS);
        if (score != pts[i].want)
            fail_msg("utilization %lld scored %lld, want %lld", (long long)pts[i].util, (long long)score,
                     (long long)pts[i].want);
        ms_pod_unref(pod);
        ms_node_unref(node);
    }
    ms_plugin_node_resources_fit.destroy(self);
}

/* Score still works when PreScore did not run (upstream recomputes). */
static void test_fit_score_without_prescore(void **state) {
    fx *f = *state;
    void *self = create(f, &ms_plugin_node_resources_fit, NULL);
    ms_node *node = make_node(f, "node1", (rsrc){4000, 10000}, 110);
    ms_node_info ni, *list = &ni;
    make_ni(f, &ni, node, 0, (rsrc){0}, -1, -1);
    ms_pod *pod = make_pod(f, (rsrc){3000, 5000}, -1, -1);
    begin_cycle(f, pod);
    ms_status st;
    int64_t score = -1;
    assert_int_equal(ms_plugin_node_resources_fit.score(self, &f->c, &list, 1, &score, &st), MS_SUCCESS);
    assert_int_equal(score, 37);
    ms_pod_unref(pod);
    ms_node_unref(node);
    ms_plugin_node_resources_fit.destroy(self);
}

static void test_fit_args(void **state) {
    fx *f = *state;
    static const struct { const char *json, *want; } bad[] = {
        {"{\"scoringStrategy\": {\"type\": \"LeastAllocated\", \"resources\": [{\"name\": \"memory\", "
         "\"weight\": -1}, {\"name\": \"cpu\", \"weight\": 1}]}}",
         "scoringStrategy.resources[0].weight: Invalid value: -1"},
        {"{\"scoringStrategy\": {\"type\": \"MostAllocated\", \"resources\": [{\"name\": \"memory\", "
         "\"weight\": 101}]}}",
         "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of memory not in "
         "valid range (0, 100]"},
        {"{\"scoringStrategy\": {\"type\": \"LeastAllocated\", \"resources\": [{\"name\": \"cpu\", "
         "\"weight\": 1.5}]}}",
         "scoringStrategy.resources[0].weight"},
        {"{\"scoringStrategy\": {\"type\": \"Spread\"}}", "scoringStrategy.type: Unsupported value: \"Spread\""},
        {"{\"scoringStrategy\": {\"resources\": [{\"name\": \"cpu\"}]}}",
         "scoringStrategy.type: Unsupported value: \"\""},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\"}}",
         "requestedToCapacityRatio.shape: Required value"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": []}}}",
         "at least one point must be specified"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": 50, \"score\": 1}, {\"utilization\": 10, \"score\": 2}]}}}",
         "shape[1].utilization: Invalid value: 10: values must be sorted in increasing order"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": 10, \"score\": 1}, {\"utilization\": 10, \"score\": 2}]}}}",
         "values must be sorted in increasing order"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": 101, \"score\": 1}]}}}",
         "shape[0].utilization: Invalid value: 101: not in valid range [0, 100]"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": -1, \"score\": 1}]}}}",
         "shape[0].utilization: Invalid value: -1"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": 10, \"score\": 11}]}}}",
         "shape[0].score: Invalid value: 11: not in valid range [0, 10]"},
        {"{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"requestedToCapacityRatio\": "
         "{\"shape\": [{\"utilization\": 10, \"score\": -1}]}}}",
         "shape[0].score: Invalid value: -1"},
        /* TestValidateFitArgs */
        {"{\"ignoredResources\": [\"longvalueaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]}",
         "ignoredResources[0]: Invalid value"},
        {"{\"ignoredResources\": [\"example.com/\"]}", "ignoredResources[0]: Invalid value"},
        {"{\"ignoredResources\": [\"example.com/aaa/bbb\"]}", "ignoredResources[0]: Invalid value"},
        {"{\"ignoredResourceGroups\": [\"example.com/\"]}", "can't contain '/'"},
        {"{\"ignoredResourceGroups\": [\"-bad\"]}", "ignoredResourceGroups[0]: Invalid value"},
        {"{\"ignoredResources\": \"example.com/aaa\"}", "ignoredResources: expected a list"},
        {"{\"scoringStrategie\": {}}", "scoringStrategie: unknown field"},
        {"{\"scoringStrategy\": {\"type\": \"LeastAllocated\", \"resources\": [{\"weight\": 1}]}}",
         "scoringStrategy.resources[0].name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        create_fails(f, &ms_plugin_node_resources_fit, bad[i].json, bad[i].want);

    static const char *const good[] = {
        "{}",
        "null",
        "{\"apiVersion\": \"kubescheduler.config.k8s.io/v1\", \"kind\": \"NodeResourcesFitArgs\", "
        "\"ignoredResources\": [\"example.com\"], \"ignoredResourceGroups\": [\"example.com\"]}",
        /* v1 defaulting: a zero or absent weight means 1. */
        "{\"scoringStrategy\": {\"type\": \"MostAllocated\", \"resources\": [{\"name\": \"cpu\", "
        "\"weight\": 0}, {\"name\": \"memory\"}]}}",
        "{\"scoringStrategy\": {\"type\": \"RequestedToCapacityRatio\", \"resources\": [{\"name\": "
        "\"nvidia.com/gpu\", \"weight\": 100}], \"requestedToCapacityRatio\": {\"shape\": "
        "[{\"utilization\": 0, \"score\": 0}, {\"utilization\": 100, \"score\": 10}]}}}",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ms_plugin_node_resources_fit.destroy(create(f, &ms_plugin_node_resources_fit, good[i]));
}

/* ---- BalancedAllocation ------------------------------------------------- */

/* balanced_allocation_test.go, current semantics: requested (not non-zero)
 * amounts, fractions capped at 1, std over the counted resources; a pod
 * that requests none of the resources is skipped at PreScore. */
static void test_balanced_allocation(void **state) {
    fx *f = *state;
    static const score_case cases[] = {
        /* cpu 75%, memory 50%: std 0.125, 87.5 truncated. */
        {"nothing scheduled, resources requested, differently sized nodes", {3000, 5000}, 0, 0, 2,
         {{{4000, 10000}, {0}}, {{6000, 10000}, {0}}}, {87, 100}},
        /* 60%/25% -> 82.5; 60%/50% -> 95. */
        {"resources requested, pods scheduled with resources", {3000, 5000}, 0, 0, 2,
         {{{10000, 20000}, {3000, 0}}, {{10000, 20000}, {3000, 5000}}}, {82, 95}},
        {"resources requested, pods scheduled with resources, differently sized nodes", {3000, 5000}, 0,
         0, 2, {{{10000, 20000}, {3000, 0}}, {{10000, 50000}, {3000, 5000}}}, {82, 80}},
        /* cpu 150% counts as 100%. */
        {"requested resources exceed node capacity", {3000, 0}, 0, 0, 2,
         {{{4000, 10000}, {3000, 0}}, {{4000, 10000}, {3000, 5000}}}, {50, 75}},
        /* No allocatable: nothing counts, std 0. */
        {"zero node resources", {3000, 5000}, 0, 0, 2, {{{0}, {3000, 0}}, {{0}, {3000, 5000}}}, {100, 100}},
        /* The node's non-zero requests (900m, 900) are not what counts: 50%/10%. */
        {"requested, not non-zero, amounts count", {500, 100}, 0, 0, 1,
         {{{1000, 1000}, {0}, 900, 900}}, {80}},
    };
    run_scores(f, &ms_plugin_node_resources_balanced_allocation, NULL, cases, sizeof cases / sizeof cases[0],
               MS_SUCCESS);

    /* Three resources: 50%, 50%, 75%: mean 7/12, std sqrt(1/72) = 0.1178,
     * 88.2. A node without the GPU counts cpu and memory only. A pod not
     * requesting the GPU leaves it out. */
    static const score_case three[] = {
        {"std over three resources", {1000, 2000, .scalar = {{"nvidia.com/gpu", 1}}}, 0, 0, 2,
         {{{4000, 10000, .scalar = {{"nvidia.com/gpu", 4}}}, {1000, 3000, .scalar = {{"nvidia.com/gpu", 2}}}},
          {{4000, 10000}, {1000, 3000}}},
         {88, 100}},
        {"a scalar the pod does not request is left out", {1000, 2000}, 0, 0, 1,
         {{{4000, 10000, .scalar = {{"nvidia.com/gpu", 4}}}, {1000, 3000, .scalar = {{"nvidia.com/gpu", 4}}}}},
         {100}},
    };
    run_scores(f, &ms_plugin_node_resources_balanced_allocation,
               "{\"resources\": [{\"name\": \"cpu\", \"weight\": 1}, {\"name\": \"memory\", \"weight\": 1}, "
               "{\"name\": \"nvidia.com/gpu\", \"weight\": 1}]}",
               three, sizeof three / sizeof three[0], MS_SUCCESS);

    /* Best-effort pods: PreScore returns Skip (upstream issue 129138). */
    static const score_case skip[] = {
        {"nothing scheduled, nothing requested", {0}, 100, 200 * MI, 2,
         {{{4000, 10000}, {0}}, {{4000, 10000}, {0}}}, {0}},
        {"no resources requested, pods scheduled with resources", {.eph = 5}, 0, 0, 2,
         {{{10000, 20000}, {6000, 0}}, {{10000, 20000}, {6000, 5000}}}, {0}},
    };
    run_scores(f, &ms_plugin_node_resources_balanced_allocation, NULL, skip, sizeof skip / sizeof skip[0],
               MS_SKIP);
}

static void test_balanced_allocation_args(void **state) {
    fx *f = *state;
    create_fails(f, &ms_plugin_node_resources_balanced_allocation,
                 "{\"resources\": [{\"name\": \"cpu\", \"weight\": 2}]}",
                 "resources[0].weight: Invalid value: 2: must be 1");
    create_fails(f, &ms_plugin_node_resources_balanced_allocation,
                 "{\"resources\": [{\"name\": \"cpu\"}, {\"name\": \"cpu\"}]}",
                 "resources[1].name: Duplicate value: \"cpu\"");
    create_fails(f, &ms_plugin_node_resources_balanced_allocation, "{\"resource\": []}",
                 "resource: unknown field");
    create_fails(f, &ms_plugin_node_resources_balanced_allocation, "[]", "expected an object");
    ms_plugin_node_resources_balanced_allocation.destroy(
        create(f, &ms_plugin_node_resources_balanced_allocation, "{\"resources\": []}"));
    ms_plugin_node_resources_balanced_allocation.destroy(create(
        f, &ms_plugin_node_resources_balanced_allocation, "{\"resources\": [{\"name\": \"cpu\", \"weight\": 0}]}"));
}

/* Scores of nodes[0..n) under `args` (PreScore, then Score). */
static void score_with(fx *f, const ms_plugin_ops *ops, const char *args, ms_pod *pod,
                       ms_node_info **list, uint32_t n, int64_t *scores) {
    void *self = create(f, ops, args);
    begin_cycle(f, pod);
    ms_status st;
    ms_status_ok(&st);
    assert_int_equal(ops->pre_score(self, &f->c, list, n, &st), MS_SUCCESS);
    assert_int_equal(ops->score(self, &f->c, list, n, scores, &st), MS_SUCCESS);
    ops->destroy(self);
}

static uint64_t next_rand(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A value in [0, max], often one of the edges. */
static int64_t draw(uint64_t *x, int64_t max) {
    switch (next_rand(x) % 8) {
    case 0: return 0;
    case 1: return max;
    default: return (int64_t)(next_rand(x) % (uint64_t)(max + 1));
    }
}

/* cpu and memory alone are scored by straight-line code; adding a
 * resource the pod does not request changes nothing in the score but
 * takes the general path. Both must agree on every node: empty, full,
 * overcommitted, without allocatable, without a Node object. */
static void test_cpu_memory_path_matches_general_path(void **state) {
    fx *f = *state;
    static const struct {
        const ms_plugin_ops *ops;
        const char *fast, *general;
    } configs[] = {
        {&ms_plugin_node_resources_fit, NULL, EXT_SET("LeastAllocated")},
        {&ms_plugin_node_resources_fit, MOST, EXT_SET("MostAllocated")},
        {&ms_plugin_node_resources_fit, LEAST_MEM2,
         "{\"scoringStrategy\": {\"type\": \"LeastAllocated\", \"resources\": [{\"name\": \"memory\", "
         "\"weight\": 2}, {\"name\": \"" EXT "\", \"weight\": 7}, {\"name\": \"cpu\", \"weight\": 1}]}}"},
        {&ms_plugin_node_resources_fit, MOST_MEM2,
         "{\"scoringStrategy\": {\"type\": \"MostAllocated\", \"resources\": [{\"name\": \"memory\", "
         "\"weight\": 2}, {\"name\": \"cpu\", \"weight\": 1}, {\"name\": \"" EXT "\", \"weight\": 3}]}}"},
        {&ms_plugin_node_resources_balanced_allocation, NULL,
         "{\"resources\": [{\"name\": \"cpu\", \"weight\": 1}, {\"name\": \"memory\", \"weight\": 1}, "
         "{\"name\": \"" EXT "\", \"weight\": 1}]}"},
        {&ms_plugin_node_resources_balanced_allocation,
         "{\"resources\": [{\"name\": \"memory\"}, {\"name\": \"cpu\"}]}",
         "{\"resources\": [{\"name\": \"" EXT "\"}, {\"name\": \"memory\"}, {\"name\": \"cpu\"}]}"},
    };
    enum { ROUNDS = 300, N = 8 };
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int round = 0; round < ROUNDS; round++) {
        ms_node *nodes[N];
        ms_node_info nis[N];
        ms_node_info *list[N];
        for (uint32_t k = 0; k < N; k++) {
            int64_t cpu = draw(&x, 64000), mem = draw(&x, 256LL << 30);
            rsrc alloc = {cpu, mem, .scalar = {{EXT, draw(&x, 8)}}};
            nodes[k] = make_node(f, "n", alloc, 110);
            int64_t ucpu = draw(&x, cpu + cpu / 2 + 1), umem = draw(&x, mem + mem / 2 + 1);
            make_ni(f, &nis[k], nodes[k], 3, (rsrc){ucpu, umem}, ucpu + draw(&x, 300),
                    umem + draw(&x, 600 * MI));
            list[k] = &nis[k];
        }
        nis[round % N].node = NULL;   /* pods of a node not seen yet */
        int64_t pcpu = draw(&x, 8000), pmem = draw(&x, 16LL << 30);
        ms_pod *pod = make_pod(f, (rsrc){pcpu, pmem}, pcpu ? pcpu : 100, pmem ? pmem : 200 * MI);
        for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
            /* Balanced skips pods that request neither resource. */
            if (configs[c].ops == &ms_plugin_node_resources_balanced_allocation && !pcpu && !pmem)
                continue;
            int64_t fast[N], general[N];
            score_with(f, configs[c].ops, configs[c].fast, pod, list, N, fast);
            score_with(f, configs[c].ops, configs[c].general, pod, list, N, general);
            for (uint32_t k = 0; k < N; k++)
                if (fast[k] != general[k])
                    fail_msg("round %d, config %zu, node %u: %lld on the cpu-memory path, %lld on "
                             "the general one", round, c, k, (long long)fast[k], (long long)general[k]);
        }
        ms_pod_unref(pod);
        for (uint32_t k = 0; k < N; k++) {
            ms_resources_free(&nis[k].requested);
            ms_node_unref(nodes[k]);
        }
    }
}

static void test_ops(void **state) {
    (void)state;
    assert_string_equal(ms_plugin_node_resources_fit.name, "NodeResourcesFit");
    assert_string_equal(ms_plugin_node_resources_balanced_allocation.name, "NodeResourcesBalancedAllocation");
    assert_int_equal(ms_plugin_node_resources_fit.events,
                     MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET | MS_EV_NODE_ADD | MS_EV_NODE_ALLOCATABLE);
    assert_null(ms_plugin_node_resources_fit.normalize_score);
    assert_null(ms_plugin_node_resources_balanced_allocation.filter);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fit_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_too_many_pods, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_filter_without_prefilter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_least_allocated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_most_allocated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_requested_to_capacity_ratio, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rtcr_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_score_without_prescore, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fit_args, setup, teardown),
        cmocka_unit_test_setup_teardown(test_balanced_allocation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_balanced_allocation_args, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cpu_memory_path_matches_general_path, setup, teardown),
        cmocka_unit_test(test_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
