/* DefaultPreemption through upstream's default profile: eligibility, victim
 * selection, candidate search and choice, what is evicted and whose
 * nomination is cleared. Many cases are upstream's worked examples from
 * default_preemption_test.go (nodes of 500m CPU; small 100m, medium 200m,
 * large 300m, very large 500m; priorities neg -100, low 0, mid 100, high
 * 1000, very high 10000). */
#include "testutil.h"
#include "fixtures.h"

#include <time.h>

#include "api/pdb_set.h"
#include "backend/queue.h"
#include "backend/cache_snapshot.h"
#include "base/rng.h"
#include "framework/plugins/preemption.h"
#include "framework/runners.h"
#include "moonsched/config.h"
#include "moonsched/framework.h"
#include "moonsched/pdb.h"

enum { NEG = -100, LOW = 0, MID = 100, HIGH = 1000, VERY_HIGH = 10000 };
enum { SMALL = 100, MEDIUM = 200, LARGE = 300, VERY_LARGE = 500 };

#define MAX_OBJS 64

typedef struct env {
    fx_env fx;
    ms_resource_names rn;
    ms_handle h;
    ms_profile_config pc;
    ms_framework fw;
    bool fw_ready;
    ms_snapshot snap;
    ms_str order[MAX_OBJS];
    uint32_t nnodes;
    ms_status statuses[MAX_OBJS];
    ms_arena arena;
    ms_cycle c;
    ms_rng rng;
    ms_pod *pods[MAX_OBJS];
    uint32_t npods;
    ms_node *nodes[MAX_OBJS];
    ms_pdb *pdbs[8];
    uint32_t npdbs;
    char evicted[1024];
    char cleared[1024];
    ms_rc evict_rc;
} env;

static ms_rc record_evict(void *ctx, ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    env *e = ctx;
    (void)preemptor;
    size_t len = strlen(e->evicted);
    snprintf(e->evicted + len, sizeof e->evicted - len, "%s%s@%s", len ? " " : "",
             ms_str_get(e->fx.in, victim->meta.name), ms_str_get(e->fx.in, node));
    return e->evict_rc;
}

static void record_clear(void *ctx, ms_pod *pod) {
    env *e = ctx;
    size_t len = strlen(e->cleared);
    snprintf(e->cleared + len, sizeof e->cleared - len, "%s%s", len ? " " : "",
             ms_str_get(e->fx.in, pod->meta.name));
    if (e->h.queue) ms_queue_delete_nominated(e->h.queue, pod);
}

static int setup(void **state) {
    env *e = calloc(1, sizeof *e);
    fx_env_init(&e->fx);
    ms_resource_names_init(&e->rn, e->fx.in);
    e->h.in = e->fx.in;
    e->h.rn = &e->rn;
    e->h.scratch = ms_node_info_new(MS_STR_NONE);
    e->h.wildcard_ip = ms_intern_cstr(e->fx.in, "0.0.0.0");
    e->h.evict = record_evict;
    e->h.clear_nomination = record_clear;
    e->h.preempt_ctx = e;
    ms_profile_config_default(&e->pc, "default-scheduler");
    ms_snapshot_init(&e->snap);
    ms_arena_init(&e->arena, 4096);
    *state = e;
    return 0;
}

static int teardown(void **state) {
    env *e = *state;
    if (e->fw_ready) ms_framework_destroy(&e->fw);
    for (uint32_t i = 0; i < e->pc.nplugins; i++) cJSON_Delete(e->pc.plugins[i].args);
    ms_snapshot_free(&e->snap);
    for (uint32_t i = 0; i < e->npods; i++) ms_pod_unref(e->pods[i]);
    for (uint32_t i = 0; i < e->nnodes; i++) ms_node_unref(e->nodes[i]);
    for (uint32_t i = 0; i < e->npdbs; i++) ms_pdb_unref(e->pdbs[i]);
    if (e->h.queue) ms_queue_free(e->h.queue);
    ms_pdb_set_free(e->h.pdbs);
    ms_node_info_free(e->h.scratch);
    ms_arena_free(&e->arena);
    fx_env_free(&e->fx);
    free(e);
    return 0;
}

/* DefaultPreemption's args (JSON) for the next framework. */
static void set_args(env *e, const char *json) {
    for (uint32_t i = 0; i < e->pc.nplugins; i++)
        if (strcmp(e->pc.plugins[i].name, "DefaultPreemption") == 0) {
            cJSON_Delete(e->pc.plugins[i].args);
            e->pc.plugins[i].args = cJSON_Parse(json);
            assert_non_null(e->pc.plugins[i].args);
            return;
        }
    fail_msg("no DefaultPreemption in the default profile");
}

static ms_framework *framework(env *e) {
    if (!e->fw_ready) {
        ms_error err = {0};
        if (ms_framework_init(&e->fw, &e->pc, 0, &e->h, &err) != MS_OK) fail_msg("%s", err.msg);
        e->fw_ready = true;
    }
    return &e->fw;
}

static ms_str id(env *e, const char *s) { return ms_intern_cstr(e->fx.in, s); }

/* Nodes node1..nodeN of `cpu` millicores, in snapshot order. */
static void add_nodes(env *e, uint32_t n, int cpu) {
    for (uint32_t i = 0; i < n; i++) {
        char y[256];
        snprintf(y, sizeof y,
                 "metadata: {name: node%u, labels: {zone: z%u}}\n"
                 "status: {allocatable: {cpu: %dm, memory: 1Gi, pods: '110'}}",
                 e->nnodes + 1, e->nnodes + 1, cpu);
        ms_node *nd = fx_node(&e->fx.d, y);
        bool created;
        ms_node_info *ni = ms_snapshot_slot(&e->snap, nd->meta.name, &created);
        assert_true(created);
        ms_node_info_set_node(ni, nd);
        e->nodes[e->nnodes] = nd;
        e->order[e->nnodes++] = nd->meta.name;
    }
}

typedef struct pspec {
    const char *name;
    const char *node;          /* NULL: pending */
    int prio;
    int cpu;                   /* millicores */
    int start;                 /* seconds after a fixed time; 0: no startTime */
    const char *labels;        /* YAML flow map, e.g. "{app: foo}" */
    const char *ns;
    bool deleting;
    bool never;
    const char *nominated;
    const char *affinity;      /* YAML flow map of spec.affinity */
    const char *conditions;    /* YAML flow list of status.conditions */
    const char *ports;         /* YAML flow list of the container's ports */
} pspec;

static ms_pod *mkpod(env *e, pspec s) {
    char start[96] = "", labels[128] = "", del[96] = "", nom[96] = "", conds[256] = "", ports[128] = "";
    if (s.start) {
        time_t t = (time_t)(1700000000 + s.start);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(start, sizeof start, ", startTime: '%Y-%m-%dT%H:%M:%SZ'", &tm);
    }
    if (s.labels) snprintf(labels, sizeof labels, ", labels: %s", s.labels);
    if (s.deleting) snprintf(del, sizeof del, ", deletionTimestamp: '2024-01-01T00:00:00Z'");
    if (s.nominated) snprintf(nom, sizeof nom, ", nominatedNodeName: %s", s.nominated);
    if (s.conditions) snprintf(conds, sizeof conds, ", conditions: %s", s.conditions);
    if (s.ports) snprintf(ports, sizeof ports, ", ports: %s", s.ports);
    char y[2048];
    snprintf(y, sizeof y,
             "metadata: {name: '%s', namespace: %s, uid: 'uid-%s'%s%s}\n"
             "spec: {%s%s%s%s%s%s priority: %d, containers: [{name: c%s, resources: {requests: {cpu: %dm}}}]}\n"
             "status: {phase: %s%s%s%s}",
             s.name, s.ns ? s.ns : "default", s.name, labels, del, s.node ? "nodeName: " : "",
             s.node ? s.node : "", s.node ? "," : "", s.affinity ? "affinity: " : "",
             s.affinity ? s.affinity : "", s.affinity ? "," : "", s.prio, ports, s.cpu,
             s.node ? "Running" : "Pending", start, nom, conds);
    if (s.never) {
        /* preemptionPolicy goes in the spec: rebuild the spec line */
        char *sp = strstr(y, "spec: {");
        assert_non_null(sp);
        char tail[2048];
        snprintf(tail, sizeof tail, "%s", sp + 7);
        snprintf(sp, sizeof y - (size_t)(sp - y), "spec: {preemptionPolicy: Never, %s", tail);
    }
    ms_pod *p = fx_pod(&e->fx.d, y);
    assert_true(e->npods < MAX_OBJS);
    e->pods[e->npods++] = p;
    return p;
}

/* A pod bound to its node, in the snapshot. */
static ms_pod *place(env *e, pspec s) {
    ms_pod *p = mkpod(e, s);
    ms_node_info *ni = ms_snapshot_get(&e->snap, id(e, s.node));
    assert_non_null(ni);
    assert_int_equal(ms_node_info_add_pod(ni, p, e->fx.in), 0);
    return p;
}

/* "node:name:priority:cpu[:start]" entries separated by spaces. */
static void place_all(env *e, const char *spec) {
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char node[32], name[32];
        int prio, cpu, start = 0;
        int n = sscanf(tok, "%31[^:]:%31[^:]:%d:%d:%d", node, name, &prio, &cpu, &start);
        assert_true(n >= 4);
        place(e, (pspec){.name = name, .node = node, .prio = prio, .cpu = cpu, .start = start});
    }
}

static void use_queue(env *e) {
    if (!e->h.queue) e->h.queue = ms_queue_new(NULL);
    assert_non_null(e->h.queue);
}

static void add_pdb(env *e, const char *yaml) {
    if (!e->h.pdbs) e->h.pdbs = ms_pdb_set_new();
    ms_error err = {0};
    cJSON **docs = NULL;
    size_t ndocs = 0;
    assert_int_equal(ms_yaml_parse(yaml, strlen(yaml), &docs, &ndocs, &err), MS_OK);
    ms_pdb *p = NULL;
    if (ms_pdb_decode(&e->fx.d, docs[0], &p, &err) != MS_OK) fail_msg("%s", err.msg);
    for (size_t i = 0; i < ndocs; i++) cJSON_Delete(docs[i]);
    free(docs);
    assert_int_equal(ms_pdb_set_update(e->h.pdbs, p), MS_OK);
    e->pdbs[e->npdbs++] = p;
}

/* One scheduling cycle up to PostFilter, as the scheduler runs it. */
static ms_code run(env *e, ms_pod *pod, ms_str *nominated, ms_status *st) {
    ms_framework *fw = framework(e);
    assert_int_equal(ms_snapshot_rebuild_lists(&e->snap, e->order, e->nnodes), 0);
    ms_arena_reset(&e->arena);
    memset(&e->c, 0, sizeof e->c);
    e->c.pod = pod;
    e->c.arena = &e->arena;
    e->c.snap = &e->snap;
    e->evicted[0] = e->cleared[0] = '\0';
    assert_int_equal(ms_framework_begin_cycle(fw, &e->c), MS_OK);
    ms_status pst;
    ms_code code = ms_framework_run_pre_filter(fw, &e->c, &pst);
    assert_true(code != MS_ERROR);
    for (uint32_t i = 0; i < e->snap.nnodes; i++) {
        if (code != MS_SUCCESS) {
            e->statuses[i] = pst;
            continue;
        }
        ms_code fc = ms_framework_run_filter_with_nominated(fw, &e->c, e->snap.nodes[i], &e->statuses[i]);
        if (fc == MS_SUCCESS) fail_msg("%s fits on node %u: nothing to preempt", "pod", i + 1);
    }
    return ms_framework_run_post_filter(fw, &e->c, e->statuses, nominated, st);
}

static const ms_preemption_result *last(env *e) {
    const ms_preemption_result *r = ms_default_preemption_last(&e->fw);
    assert_non_null(r);
    return r;
}

/* "node1[a,b] node2[c]": candidates with their victims, in result order. */
static const char *describe(env *e, const ms_preemption_candidate *c, uint32_t n, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        len += (size_t)snprintf(buf + len, cap - len, "%s%s[", i ? " " : "", ms_str_get(e->fx.in, c[i].node));
        for (uint32_t k = 0; k < c[i].nvictims; k++)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? "," : "",
                                    ms_str_get(e->fx.in, c[i].victims[k]->meta.name));
        len += (size_t)snprintf(buf + len, cap - len, "]");
        if (c[i].num_pdb_violations)
            len += (size_t)snprintf(buf + len, cap - len, "!%u", c[i].num_pdb_violations);
    }
    return buf;
}

static const char *candidates(env *e, char *buf, size_t cap) {
    const ms_preemption_result *r = last(e);
    return describe(e, r->candidates, r->ncandidates, buf, cap);
}

static const char *reason(const ms_status *st) { return st->nreasons ? st->reasons[0] : ""; }

/* ---- helpers ---- */

static void test_more_important_pod(void **state) {
    env *e = *state;
    ms_pod *a = mkpod(e, (pspec){.name = "a", .prio = MID, .cpu = 1, .start = 10});
    ms_pod *b = mkpod(e, (pspec){.name = "b", .prio = LOW, .cpu = 1, .start = 5});
    ms_pod *c = mkpod(e, (pspec){.name = "c", .prio = MID, .cpu = 1, .start = 20});
    ms_pod *d = mkpod(e, (pspec){.name = "d", .prio = MID, .cpu = 1});   /* not started */
    assert_true(ms_more_important_pod(a, b));    /* priority first */
    assert_false(ms_more_important_pod(b, a));
    assert_true(ms_more_important_pod(a, c));    /* then the earlier start */
    assert_false(ms_more_important_pod(c, a));
    assert_true(ms_more_important_pod(c, d));    /* no start time reads as now */
    assert_false(ms_more_important_pod(d, c));
    assert_false(ms_more_important_pod(d, d));
    assert_false(ms_more_important_pod(a, a));
}

/* What a scheduler records after nominating or clearing: a copy of the
 * pod with the new status.nominatedNodeName, the rest shared. */
static void test_pod_with_nominated_node(void **state) {
    env *e = *state;
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE, .labels = "{app: x}",
                                 .nominated = "node1"});
    ms_pod *moved = ms_pod_with_nominated_node(p, id(e, "node2"));
    assert_non_null(moved);
    assert_string_equal(ms_str_get(e->fx.in, moved->nominated_node_name), "node2");
    assert_string_equal(ms_str_get(e->fx.in, p->nominated_node_name), "node1");
    assert_int_equal(moved->meta.uid_hash, p->meta.uid_hash);
    assert_int_equal(moved->priority, HIGH);
    assert_ptr_equal(moved->meta.labels.items, p->meta.labels.items);
    ms_pod *cleared = ms_pod_with_nominated_node(moved, MS_STR_NONE);
    assert_int_equal(cleared->nominated_node_name, MS_STR_NONE);
    assert_ptr_equal(cleared->base, p);   /* copies of copies point at the owner */
    ms_pod_unref(moved);
    assert_int_equal(cleared->requests.v[MS_RES_CPU], LARGE);
    ms_pod_unref(cleared);
}

static void test_num_candidates(void **state) {
    (void)state;
    static const struct {
        uint32_t nodes;
        int32_t pct, abs;
        uint32_t want;
    } cases[] = {
        {5, 40, 1, 2},       {5, 40, 2, 2},       {5, 10, 100, 5},     {50, 10, 100, 50},
        {1000, 10, 100, 100}, {5000, 10, 100, 500}, {5000, 0, 100, 100}, {5000, 100, 0, 5000},
        {0, 10, 100, 0},     {7, 50, 0, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(ms_preemption_num_candidates(cases[i].nodes, cases[i].pct, cases[i].abs),
                         cases[i].want);
}

/* pickOneNodeForPreemption, rule by rule: each case ties every earlier
 * rule and is decided by one. Candidates are written "prio@start,..." with
 * victims most important first, and "!k" for k PDB violations. */
static void test_pick_rules(void **state) {
    env *e = *state;
    static const struct {
        const char *name;
        const char *cands[4];
        uint32_t want;
    } cases[] = {
        {"fewest PDB violations beats lower priorities", {"100@1!1", "1000@1,1000@1"}, 1},
        {"lowest highest-victim priority", {"100@1,100@1", "0@1,0@1,0@1", "100@1"}, 1},
        {"lowest sum of priorities", {"100@1,100@1", "100@1,0@1", "100@1,100@1,-100@1"}, 1},
        /* 100 + (-100) + (-100) shifted by 2^31 each is more than 100 + 0
         * shifted: the shift keeps more victims from looking cheaper */
        {"sum counts every victim shifted", {"100@1,-100@1,-100@1", "100@1,0@1"}, 1},
        /* equal sums with different counts need a victim at the bottom of
         * the int32 range */
        {"fewest victims", {"0@1,-2147483648@1", "0@1"}, 1},
        {"latest earliest start of the top victims", {"100@2,100@2", "100@3,100@3", "100@1,100@1"}, 1},
        {"start of top priority victims only", {"100@4,0@2", "100@6,0@1", "100@5,0@3"}, 1},
        {"not started reads as now", {"100@5", "100@0", "100@9"}, 1},
        {"then the first", {"100@3", "100@3", "100@1"}, 0},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        ms_preemption_candidate cands[4];
        uint32_t n = 0;
        for (; n < 4 && cases[t].cands[n]; n++) {
            ms_pod **v = MS_ARENA_NEW(&e->arena, ms_pod *, 8);
            uint32_t nv = 0, pdb = 0;
            const char *s = cases[t].cands[n];
            while (*s) {
                int prio, start, used;
                if (*s == '!') {
                    pdb = (uint32_t)atoi(s + 1);
                    break;
                }
                assert_int_equal(sscanf(s, "%d@%d%n", &prio, &start, &used), 2);
                char name[32];
                snprintf(name, sizeof name, "c%zu-%u-%u", t, n, nv);
                v[nv++] = mkpod(e, (pspec){.name = name, .prio = prio, .cpu = 1, .start = start});
                s += used;
                if (*s == ',') s++;
            }
            cands[n] = (ms_preemption_candidate){.node = (ms_str)(100 + n), .nvictims = nv, .victims = v,
                                                 .num_pdb_violations = pdb};
        }
        uint32_t got = ms_pick_one_node_for_preemption(cands, n);
        if (got != cases[t].want) fail_msg("%s: picked %u, want %u", cases[t].name, got, cases[t].want);
    }
}

/* ---- victims on one node ---- */

/* upstream's TestDryRunPreemption cases through a whole PostFilter: every
 * node is searched (the default args ask for at least 100 candidates). */
static void test_select_victims_upstream_cases(void **state) {
    static const struct {
        const char *name;
        uint32_t nodes;
        int prio, cpu;             /* the preemptor */
        const char *pods;
        const char *want;          /* candidates, most important victim first */
    } cases[] = {
        {"a pod that fits on both nodes when lower priority pods are preempted", 2, HIGH, LARGE,
         "node1:p1:100:300 node2:p2:100:300", "node1[p1] node2[p2]"},
        {"medium priority pod is preempted, but lower priority one stays as it is small", 2, HIGH, LARGE,
         "node1:p1.1:0:100 node1:p1.2:100:300 node2:p2:100:300", "node1[p1.2] node2[p2]"},
        {"mixed priority pods are preempted", 2, HIGH, LARGE,
         "node1:p1.1:100:100 node1:p1.2:0:100 node1:p1.3:100:200 node1:p1.4:1000:100 node2:p2:1000:300",
         "node1[p1.3,p1.2]"},
        {"mixed priority pods are preempted, pick later StartTime one when priorities are equal", 2, HIGH, LARGE,
         "node1:p1.1:0:100:5 node1:p1.2:0:100:4 node1:p1.3:100:200:3 node1:p1.4:1000:100:2 node2:p2:1000:300:1",
         "node1[p1.3,p1.1]"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        env *e = *state;
        teardown(state);
        setup(state);
        e = *state;
        add_nodes(e, cases[t].nodes, VERY_LARGE);
        place_all(e, cases[t].pods);
        ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = cases[t].prio, .cpu = cases[t].cpu});
        ms_str nominated;
        ms_status st;
        ms_code code = run(e, p, &nominated, &st);
        char buf[512];
        if (strcmp(candidates(e, buf, sizeof buf), cases[t].want) != 0)
            fail_msg("%s: candidates %s, want %s", cases[t].name, buf, cases[t].want);
        assert_int_equal(code, MS_SUCCESS);
    }
}

/* With every lower-priority pod gone the pod still does not fit: the node
 * is no candidate, and the message says why per node. */
static void test_no_candidates_message(void **state) {
    env *e = *state;
    add_nodes(e, 3, VERY_LARGE);
    /* node1: only higher-priority pods; node2: a low pod too small to help;
     * node3: tainted, which preemption cannot fix */
    place_all(e, "node1:h1:10000:300 node2:h2:10000:300 node2:l2:0:100 node3:l3:0:300");
    ms_node *tainted = fx_node(&e->fx.d, "metadata: {name: node3}\nspec: {taints: [{key: k, value: v, "
                                         "effect: NoSchedule}]}\nstatus: {allocatable: {cpu: 500m, "
                                         "memory: 1Gi, pods: '110'}}");
    ms_node_info_set_node(ms_snapshot_get(&e->snap, e->order[2]), tainted);
    ms_node_unref(e->nodes[2]);
    e->nodes[2] = tainted;
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE});
    ms_str nominated = 7;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_UNSCHEDULABLE);
    assert_int_equal(nominated, MS_STR_NONE);
    assert_string_equal(reason(&st), "preemption: 0/3 nodes are available: 1 Insufficient cpu, 1 No "
                                     "preemption victims found for incoming pod, 1 Preemption is not "
                                     "helpful for scheduling.");
    assert_string_equal(e->evicted, "");
    assert_int_equal(last(e)->npotential, 2);
    assert_int_equal(last(e)->ncandidates, 0);
    assert_int_equal(last(e)->chosen, -1);
    /* The whole FitError as the scheduler writes it. */
    char msg[512];
    ms_fit_error_message(msg, sizeof msg, 3, e->statuses, 3, NULL);
    assert_string_equal(msg, "0/3 nodes are available: 1 node(s) had untolerated taint {k: v}, "
                             "2 Insufficient cpu.");
}

static void test_equal_priority_is_not_preempted(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    place_all(e, "node1:p1:1000:300 node2:p2:1000:300");
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE});
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_UNSCHEDULABLE);
    assert_string_equal(reason(&st), "preemption: 0/2 nodes are available: 2 No preemption victims "
                                     "found for incoming pod.");
    assert_string_equal(e->evicted, "");
}

/* InterPodAffinity in the dry run: victims removed from the node are taken
 * out of its PreFilter counts (upstream's RemovePod), both ways. Node zones
 * are one per node (z1, z2), so a zone term works like a hostname one. */
#define ANTI_ZONE(expr) \
    "{podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: " \
    "{matchExpressions: [" expr "]}, topologyKey: zone}]}}"
#define AFF_ZONE(expr) \
    "{podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: " \
    "{matchExpressions: [" expr "]}, topologyKey: zone}]}}"

/* upstream's "pod with anti-affinity is preempted": node1 has room, but
 * p1.1's anti-affinity rejects the pod; node2 is full of higher-priority
 * pods. Only p1.1 goes. */
static void test_existing_anti_affinity_blocker_is_preempted(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    place(e, (pspec){.name = "p1.1", .node = "node1", .prio = LOW, .cpu = SMALL, .labels = "{foo: ''}",
                     .affinity = ANTI_ZONE("{key: foo, operator: Exists}")});
    place_all(e, "node1:p1.2:100:100 node1:p1.3:1000:100 node2:p2:1000:500");
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = SMALL, .labels = "{foo: ''}"});
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(reason(&e->statuses[0]), "node(s) didn't satisfy existing pods anti-affinity rules");
    char buf[256];
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[p1.1]");
    assert_string_equal(ms_str_get(e->fx.in, nominated), "node1");
    assert_string_equal(e->evicted, "p1.1@node1");
}

/* The blocker outranks the pod: nothing to do on node1. */
static void test_anti_affinity_blocker_of_higher_priority_stays(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    place(e, (pspec){.name = "b", .node = "node1", .prio = VERY_HIGH, .cpu = SMALL,
                     .labels = "{foo: ''}", .affinity = ANTI_ZONE("{key: foo, operator: Exists}")});
    place_all(e, "node1:l1:0:100 node2:p2:1000:500");
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = SMALL, .labels = "{foo: ''}"});
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_UNSCHEDULABLE);
    assert_int_equal(last(e)->ncandidates, 0);
    assert_string_equal(e->evicted, "");
}

/* Symmetric: the pod's own anti-affinity selects app=db pods; node1's db pod
 * is the one to go, the small low-priority pod beside it stays. */
static void test_own_anti_affinity_target_is_preempted(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    place(e, (pspec){.name = "db", .node = "node1", .prio = LOW, .cpu = SMALL, .labels = "{app: db}"});
    place_all(e, "node1:other:0:100 node2:p2:1000:500");
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = SMALL, .labels = "{app: web}",
                                 .affinity = ANTI_ZONE("{key: app, operator: In, values: [db]}")});
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(reason(&e->statuses[0]), "node(s) didn't match pod anti-affinity rules");
    char buf[256];
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[db]");
    assert_string_equal(e->evicted, "db@node1");
}

/* The pod needs an app=db pod in its zone, and node1's only one is of lower
 * priority: without the victims the pod's affinity fails, so node1 is no
 * candidate (upstream does not try to keep the pods the pod is affine to). */
static void test_affinity_to_a_victim_is_no_candidate(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    place(e, (pspec){.name = "db", .node = "node1", .prio = LOW, .cpu = SMALL, .labels = "{app: db}"});
    place_all(e, "node1:l1:0:400 node2:p2:1000:500");
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE, .labels = "{app: web}",
                                 .affinity = AFF_ZONE("{key: app, operator: In, values: [db]}")});
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_UNSCHEDULABLE);
    assert_string_equal(reason(&e->statuses[0]), "Insufficient cpu");
    assert_int_equal(last(e)->npotential, 2);
    assert_int_equal(last(e)->ncandidates, 0);
    assert_string_equal(e->evicted, "");
    assert_string_equal(reason(&st), "preemption: 0/2 nodes are available: 1 No preemption victims "
                                     "found for incoming pod, 1 node(s) didn't match pod affinity "
                                     "rules.");
}

/* The same with the db pod outranking the pod: it stays, so the affinity
 * holds and only the filler goes. */
static void test_affinity_to_a_higher_priority_pod_holds(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    place(e, (pspec){.name = "db", .node = "node1", .prio = VERY_HIGH, .cpu = SMALL,
                     .labels = "{app: db}"});
    place_all(e, "node1:l1:0:400 node2:p2:1000:500");
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE, .labels = "{app: web}",
                                 .affinity = AFF_ZONE("{key: app, operator: In, values: [db]}")});
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    char buf[256];
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[l1]");
    assert_string_equal(e->evicted, "l1@node1");
}

/* A node where the pod cannot fit even without every lower-priority pod is
 * ruled out by its resources before any dry run; when no node is a
 * candidate, the message still gives each node's own first failure, here
 * NodePorts (before NodeResourcesFit in Filter order): a higher-priority
 * pod holds the port and most of the CPU. */
static void test_ruled_out_node_keeps_its_own_reason(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    const char *holder =
        "metadata: {name: holder, namespace: default, uid: uid-holder}\n"
        "spec: {nodeName: node1, priority: 10000, containers: [{name: c, ports: [{containerPort: 80, "
        "hostPort: 80}], resources: {requests: {cpu: 300m}}}]}\n"
        "status: {phase: Running}";
    ms_pod *h = fx_pod(&e->fx.d, holder);
    e->pods[e->npods++] = h;
    assert_int_equal(ms_node_info_add_pod(ms_snapshot_get(&e->snap, id(e, "node1")), h, e->fx.in), 0);
    place_all(e, "node1:l1:0:100 node2:h2:10000:300 node2:l2:0:100");
    const char *want =
        "metadata: {name: p, namespace: default, uid: uid-p}\n"
        "spec: {priority: 1000, containers: [{name: c, ports: [{containerPort: 80, hostPort: 80}], "
        "resources: {requests: {cpu: 300m}}}]}\n"
        "status: {phase: Pending}";
    ms_pod *p = fx_pod(&e->fx.d, want);
    e->pods[e->npods++] = p;
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_UNSCHEDULABLE);
    assert_int_equal(last(e)->npotential, 2);
    assert_int_equal(last(e)->nevaluated, 2);
    assert_int_equal(last(e)->ncandidates, 0);
    assert_string_equal(reason(&st), "preemption: 0/2 nodes are available: 1 Insufficient cpu, 1 "
                                     "node(s) didn't have free ports for the requested pod ports.");
    assert_string_equal(e->evicted, "");
}

/* upstream's TestSelectBestCandidate: the node PostFilter nominates. */
static void test_select_best_candidate_upstream_cases(void **state) {
    static const struct {
        const char *name;
        uint32_t nodes;
        int prio, cpu;
        const char *pods;
        const char *want;
        const char *evicted;
    } cases[] = {
        {"no node needs preemption beyond one pod", 1, HIGH, LARGE, "node1:p1:100:300:1", "node1", "p1@node1"},
        {"node with min highest priority pod is picked", 3, HIGH, VERY_LARGE,
         "node1:p1.1:100:200:1 node1:p1.2:100:300:1 node2:p2.1:100:200:1 node2:p2.2:0:200:1 "
         "node3:p3.1:0:200:1 node3:p3.2:0:200:1",
         "node3", "p3.1@node3 p3.2@node3"},
        {"when highest priorities are the same, minimum sum of priorities is picked", 3, HIGH, VERY_LARGE,
         "node1:p1.1:100:200:1 node1:p1.2:100:300:1 node2:p2.1:100:300:1 node2:p2.2:0:200:1 "
         "node3:p3.1:100:200:1 node3:p3.2:100:200:1",
         "node2", "p2.1@node2 p2.2@node2"},
        {"when highest priority and sum are the same, minimum number of pods is picked", 3, HIGH, VERY_LARGE,
         "node1:p1.1:100:100:1 node1:p1.2:-100:100:1 node1:p1.3:100:100:1 node1:p1.4:-100:100:1 "
         "node2:p2.1:100:300:1 node2:p2.2:-100:200:1 "
         "node3:p3.1:100:200:1 node3:p3.2:-100:100:1 node3:p3.3:0:100:1",
         "node2", "p2.1@node2 p2.2@node2"},
        {"sum of adjusted priorities is considered", 3, HIGH, VERY_LARGE,
         "node1:p1.1:100:100:1 node1:p1.2:-100:100:1 node1:p1.3:-100:100:1 "
         "node2:p2.1:100:300:1 node2:p2.2:-100:200:1 "
         "node3:p3.1:100:200:1 node3:p3.2:-100:100:1 node3:p3.3:0:100:1",
         "node2", "p2.1@node2 p2.2@node2"},
        {"non-overlapping lowest high priority, sum priorities, and number of pods", 4, VERY_HIGH, VERY_LARGE,
         "node1:p1.1:100:100:1 node1:p1.2:0:100:1 node1:p1.3:0:100:1 node2:p2.1:1000:300:1 "
         "node3:p3.1:100:200:1 node3:p3.2:0:100:1 node3:p3.3:0:100:1 node3:p3.4:0:200:1 "
         "node4:p4.1:100:200:1 node4:p4.2:100:100:1 node4:p4.3:100:100:1 node4:p4.4:-100:100:1",
         "node1", "p1.1@node1 p1.2@node1 p1.3@node1"},
        {"same priority, same number of victims, different start time for each node's pod", 3, HIGH, VERY_LARGE,
         "node1:p1.1:100:200:2 node1:p1.2:100:200:2 node2:p2.1:100:200:3 node2:p2.2:100:200:3 "
         "node3:p3.1:100:200:1 node3:p3.2:100:200:1",
         "node2", "p2.1@node2 p2.2@node2"},
        {"same priority, same number of victims, different start time for all pods", 3, HIGH, VERY_LARGE,
         "node1:p1.1:100:200:4 node1:p1.2:100:200:2 node2:p2.1:100:200:5 node2:p2.2:100:200:1 "
         "node3:p3.1:100:200:3 node3:p3.2:100:200:6",
         "node3", "p3.1@node3 p3.2@node3"},
        {"different priority, same number of victims, different start time for all pods", 3, HIGH, VERY_LARGE,
         "node1:p1.1:0:200:4 node1:p1.2:100:200:2 node2:p2.1:100:200:6 node2:p2.2:0:200:1 "
         "node3:p3.1:0:200:3 node3:p3.2:100:200:5",
         "node2", "p2.1@node2 p2.2@node2"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        teardown(state);
        setup(state);
        env *e = *state;
        add_nodes(e, cases[t].nodes, VERY_LARGE);
        place_all(e, cases[t].pods);
        ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = cases[t].prio, .cpu = cases[t].cpu});
        ms_str nominated = MS_STR_NONE;
        ms_status st;
        ms_code code = run(e, p, &nominated, &st);
        if (code != MS_SUCCESS) fail_msg("%s: %s", cases[t].name, reason(&st));
        if (strcmp(ms_str_get(e->fx.in, nominated), cases[t].want) != 0)
            fail_msg("%s: nominated %s, want %s", cases[t].name, ms_str_get(e->fx.in, nominated),
                     cases[t].want);
        if (strcmp(e->evicted, cases[t].evicted) != 0)
            fail_msg("%s: evicted %s, want %s", cases[t].name, e->evicted, cases[t].evicted);
    }
}

/* ---- PodDisruptionBudgets ---- */

#define FOO_PDB(allowed, disrupted)                                                             \
    "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: foo, namespace: default}\n" \
    "spec: {selector: {matchLabels: {app: foo}}}\nstatus: {disruptionsAllowed: " #allowed      \
    disrupted "}"

/* upstream's PDB cases of TestDryRunPreemption (one node, a very large pod,
 * two or three medium pods labelled app=foo). */
static void test_pdb_violations_upstream_cases(void **state) {
    static const struct {
        const char *name;
        const char *pdb;
        int npods;
        const char *want;
    } cases[] = {
        {"preemption with violation of same pdb", FOO_PDB(1, ""), 2, "node1[p1.1,p1.2]!1"},
        {"the victim doesn't belong to DisruptedPods", FOO_PDB(1, ", disruptedPods: {p2: '2024-01-01T00:00:00Z'}"),
         2, "node1[p1.1,p1.2]!1"},
        {"the victim belongs to DisruptedPods", FOO_PDB(1, ", disruptedPods: {p1.2: '2024-01-01T00:00:00Z'}"),
         2, "node1[p1.1,p1.2]"},
        {"the victim which belongs to DisruptedPods is treated as 'nonViolating'",
         FOO_PDB(1, ", disruptedPods: {p1.3: '2024-01-01T00:00:00Z'}"), 3, "node1[p1.1,p1.2,p1.3]!1"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        teardown(state);
        setup(state);
        env *e = *state;
        add_nodes(e, 1, VERY_LARGE);
        add_pdb(e, cases[t].pdb);
        for (int i = 1; i <= cases[t].npods; i++) {
            char name[16];
            snprintf(name, sizeof name, "p1.%d", i);
            place(e, (pspec){.name = name, .node = "node1", .prio = MID, .cpu = MEDIUM,
                             .labels = "{app: foo}", .start = i});
        }
        ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = VERY_LARGE});
        ms_str nominated;
        ms_status st;
        assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
        char buf[256];
        if (strcmp(candidates(e, buf, sizeof buf), cases[t].want) != 0)
            fail_msg("%s: candidates %s, want %s", cases[t].name, buf, cases[t].want);
    }
}

/* Reprieve order: PDB-violating victims get back on the node first, even
 * before higher-priority pods that violate nothing. */
static void test_reprieve_pdb_violating_first(void **state) {
    env *e = *state;
    add_nodes(e, 1, VERY_LARGE);
    place(e, (pspec){.name = "guarded", .node = "node1", .prio = LOW, .cpu = MEDIUM, .labels = "{app: foo}", .start = 1});
    place(e, (pspec){.name = "free", .node = "node1", .prio = MID, .cpu = MEDIUM, .start = 1});
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE});
    ms_str nominated;
    ms_status st;
    char buf[256];

    /* No PDB: the higher-priority pod is reprieved, the lower one goes. */
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[guarded]");

    /* A PDB with no disruption left guards the low pod: it is reprieved
     * first and the higher-priority pod becomes the victim. */
    add_pdb(e, FOO_PDB(0, ""));
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[free]");
    assert_string_equal(e->evicted, "free@node1");

    /* Reprieve within a group goes most important first: of two low pods
     * only the first (earlier start) gets back on. */
    teardown(state);
    setup(state);
    e = *state;
    add_nodes(e, 1, VERY_LARGE);
    place(e, (pspec){.name = "later", .node = "node1", .prio = LOW, .cpu = MEDIUM, .start = 9});
    place(e, (pspec){.name = "earlier", .node = "node1", .prio = LOW, .cpu = MEDIUM, .start = 3});
    place(e, (pspec){.name = "tiny", .node = "node1", .prio = LOW, .cpu = SMALL, .start = 5});
    p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE});
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    /* 500m: earlier (200) gets back with p (300); then neither tiny nor
     * later fits any more */
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[tiny,later]");
}

/* Where another node would violate no PDB, it wins even with more
 * important victims. */
static void test_pdb_honoured_when_another_choice_exists(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    add_pdb(e, FOO_PDB(0, ""));
    place(e, (pspec){.name = "guarded", .node = "node1", .prio = LOW, .cpu = LARGE, .labels = "{app: foo}", .start = 1});
    place(e, (pspec){.name = "mid", .node = "node2", .prio = MID, .cpu = LARGE, .start = 1});
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE});
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    char buf[256];
    assert_string_equal(candidates(e, buf, sizeof buf), "node2[mid] node1[guarded]!1");
    assert_string_equal(ms_str_get(e->fx.in, nominated), "node2");
    assert_string_equal(e->evicted, "mid@node2");

    /* With the only choice violating it, the PDB gives way (as upstream). */
    ms_node_info_remove_pod(ms_snapshot_get(&e->snap, id(e, "node2")), e->pods[1], e->fx.in);
    place(e, (pspec){.name = "high", .node = "node2", .prio = VERY_HIGH, .cpu = LARGE});
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(ms_str_get(e->fx.in, nominated), "node1");
    assert_string_equal(e->evicted, "guarded@node1");
}

/* ---- eligibility ---- */

static void test_preemption_policy_never(void **state) {
    env *e = *state;
    add_nodes(e, 1, VERY_LARGE);
    place_all(e, "node1:low:0:300");
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE, .never = true});
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_UNSCHEDULABLE);
    assert_string_equal(reason(&st), "preemption: not eligible due to preemptionPolicy=Never.");
    assert_int_equal(nominated, MS_STR_NONE);
    assert_string_equal(e->evicted, "");
    assert_false(last(e)->attempted);
    assert_string_equal(last(e)->not_eligible, reason(&st));
}

#define BY_PREEMPTION "[{type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler}]"
#define TERMINATING_MSG "preemption: not eligible due to a terminating pod on the nominated node."

/* Victims of an earlier preemption are still terminating on the pod's
 * nominated node: do not preempt again meanwhile. */
static void test_terminating_victims_block_preemption(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    place(e, (pspec){.name = "going", .node = "node1", .prio = LOW, .cpu = LARGE, .deleting = true,
                     .conditions = BY_PREEMPTION});
    place_all(e, "node2:low2:0:300");
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE, .nominated = "node1"});
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_UNSCHEDULABLE);
    assert_string_equal(reason(&st), "preemption: not eligible due to a terminating pod on the nominated node.");
    assert_string_equal(e->evicted, "");
    assert_string_equal(e->cleared, "");   /* the nomination stays */

    /* The same when the nomination is only known to the nominator. */
    use_queue(e);
    ms_pod *q = mkpod(e, (pspec){.name = "q", .prio = HIGH, .cpu = LARGE});
    ms_queue_add_nominated(e->h.queue, q, id(e, "node1"));
    assert_int_equal(run(e, q, &nominated, &st), MS_UNSCHEDULABLE);
    assert_string_equal(reason(&st), "preemption: not eligible due to a terminating pod on the nominated node.");

    ms_queue_delete_nominated(e->h.queue, q);

    /* A terminating pod of higher priority does not count, nor one on
     * another node. */
    ms_pod *r = mkpod(e, (pspec){.name = "r", .prio = LOW - 1, .cpu = LARGE, .nominated = "node1"});
    assert_int_equal(run(e, r, &nominated, &st), MS_UNSCHEDULABLE);
    assert_string_equal(reason(&st), "preemption: 0/2 nodes are available: 2 No preemption victims "
                                     "found for incoming pod.");
    ms_pod *s = mkpod(e, (pspec){.name = "s", .prio = HIGH, .cpu = LARGE, .nominated = "node2"});
    assert_int_equal(run(e, s, &nominated, &st), MS_SUCCESS);
    /* node1's only victim is already terminating: nominated there without
     * a new eviction (pick: lowest... both low; node1's victim has no
     * start time, so it is the later one) */
    assert_string_equal(ms_str_get(e->fx.in, nominated), "node1");
    assert_string_equal(e->evicted, "");
}

/* upstream's podTerminatingByPreemption: only a pod that a preemption is
 * deleting (its first DisruptionTarget condition True, reason
 * PreemptionByScheduler) holds the preemptor back; one terminating for
 * another reason (stuck on a finalizer, evicted through the API) does
 * not. Against a server without disruption conditions any terminating
 * pod does, as the schedulers of those versions. */
static void test_only_preemption_victims_block_preemption(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    place_all(e, "node2:low2:0:300");
    static const struct {
        const char *conditions;
        bool blocks;
    } cases[] = {
        {NULL, false},
        {"[{type: DisruptionTarget, status: 'True', reason: EvictionByEvictionAPI}]", false},
        {"[{type: DisruptionTarget, status: 'False', reason: PreemptionByScheduler}]", false},
        {"[{type: Ready, status: 'True'}, {type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler}]",
         true},
        {"[{type: DisruptionTarget, status: 'True', reason: DeletionByTaintManager}, "
         "{type: DisruptionTarget, status: 'True', reason: PreemptionByScheduler}]",
         false},
    };
    char name[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(name, sizeof name, "going-%zu", i);
        ms_pod *going = place(e, (pspec){.name = name, .node = "node1", .prio = LOW, .cpu = LARGE,
                                         .deleting = true, .conditions = cases[i].conditions});
        snprintf(name, sizeof name, "p-%zu", i);
        ms_pod *p = mkpod(e, (pspec){.name = name, .prio = HIGH, .cpu = LARGE, .nominated = "node1"});
        ms_str nominated;
        ms_status st;
        ms_code code = run(e, p, &nominated, &st);
        bool blocked = code == MS_UNSCHEDULABLE && strcmp(reason(&st), TERMINATING_MSG) == 0;
        if (blocked != cases[i].blocks)
            fail_msg("case %zu (%s): got %s", i, cases[i].conditions ? cases[i].conditions : "no condition",
                     reason(&st));
        e->h.no_disruption_conditions = true;
        assert_int_equal(run(e, p, &nominated, &st), MS_UNSCHEDULABLE);
        assert_string_equal(reason(&st), TERMINATING_MSG);
        e->h.no_disruption_conditions = false;
        ms_node_info_remove_pod(ms_snapshot_get(&e->snap, id(e, "node1")), going, e->fx.in);
    }
}

/* A nominated node that filters now rule out for good does not hold the
 * pod back: it may preempt elsewhere. */
static void test_unresolvable_nominated_node_allows_preemption(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    place(e, (pspec){.name = "going", .node = "node1", .prio = LOW, .cpu = LARGE, .deleting = true});
    place_all(e, "node2:low2:0:300:1");
    ms_node *tainted = fx_node(&e->fx.d, "metadata: {name: node1}\nspec: {taints: [{key: k, effect: "
                                         "NoSchedule}]}\nstatus: {allocatable: {cpu: 500m, memory: 1Gi, "
                                         "pods: '110'}}");
    ms_node_info_set_node(ms_snapshot_get(&e->snap, e->order[0]), tainted);
    ms_node_unref(e->nodes[0]);
    e->nodes[0] = tainted;
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE, .nominated = "node1"});
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(ms_str_get(e->fx.in, nominated), "node2");
    assert_string_equal(e->evicted, "low2@node2");
}

/* ---- the search ---- */

/* upstream's "DefaultPreemptionArgs limits to 2" cases, from offset 0 (no
 * random source) and from the seeded one. */
static void test_candidate_count_and_offset(void **state) {
    env *e = *state;
    set_args(e, "{\"minCandidateNodesPercentage\": 40, \"minCandidateNodesAbsolute\": 1}");
    add_nodes(e, 5, VERY_LARGE);
    place_all(e, "node1:p1:100:300 node2:p2:10000:300 node3:p3:100:300 node4:p4:100:300 node5:p5:10000:300");
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE});
    ms_str nominated;
    ms_status st;
    char buf[256];
    /* offset 0: node1 (yes), node2 (no), node3 (yes): two found, stop */
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_int_equal(last(e)->npotential, 5);
    assert_int_equal(last(e)->offset, 0);
    assert_int_equal(last(e)->want, 2);
    assert_int_equal(last(e)->nevaluated, 3);
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[p1] node3[p3]");

    /* A seeded source picks the offset; the search wraps around. */
    e->h.rng = &e->rng;
    uint32_t seen = 0;
    for (uint64_t seed = 1; seed <= 200 && seen != 0x1f; seed++) {
        ms_rng_seed(&e->rng, seed);
        ms_rng copy = e->rng;
        uint32_t offset = (uint32_t)ms_rng_below(&copy, 5);
        assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
        assert_int_equal(last(e)->offset, offset);
        seen |= 1u << offset;
        /* offset 1: node2 (no), node3, node4; offset 4: node5 (no),
         * node1, node2 (no), node3 */
        static const char *const want[5] = {"node1[p1] node3[p3]", "node3[p3] node4[p4]",
                                            "node3[p3] node4[p4]", "node4[p4] node1[p1]",
                                            "node1[p1] node3[p3]"};
        static const uint32_t evaluated[5] = {3, 3, 2, 3, 4};
        assert_string_equal(candidates(e, buf, sizeof buf), want[offset]);
        assert_int_equal(last(e)->nevaluated, evaluated[offset]);
    }
    assert_int_equal(seen, 0x1f);   /* every offset came up */
}

/* upstream's "preemption looks past numCandidates until a non-PDB violating
 * node is found". */
static void test_search_goes_on_until_a_non_violating_candidate(void **state) {
    env *e = *state;
    set_args(e, "{\"minCandidateNodesPercentage\": 40, \"minCandidateNodesAbsolute\": 2}");
    add_nodes(e, 5, VERY_LARGE);
    add_pdb(e, FOO_PDB(0, ""));
    place(e, (pspec){.name = "p1", .node = "node1", .prio = MID, .cpu = LARGE, .labels = "{app: foo}"});
    place(e, (pspec){.name = "p2", .node = "node2", .prio = MID, .cpu = LARGE, .labels = "{app: foo}"});
    place(e, (pspec){.name = "p3", .node = "node3", .prio = MID, .cpu = LARGE});
    place(e, (pspec){.name = "p4", .node = "node4", .prio = MID, .cpu = LARGE});
    place(e, (pspec){.name = "p5", .node = "node5", .prio = MID, .cpu = LARGE, .labels = "{app: foo}"});
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE});
    ms_str nominated;
    ms_status st;
    char buf[256];
    /* offset 0: node1 (pdb), node2 (pdb), node3 (ok): three, then stop */
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_int_equal(last(e)->nevaluated, 3);
    assert_string_equal(candidates(e, buf, sizeof buf), "node3[p3] node1[p1]!1 node2[p2]!1");
    assert_string_equal(ms_str_get(e->fx.in, nominated), "node3");

    /* Only violating nodes from the offset on: the violating list keeps
     * `want` of them, the search runs to the end. */
    ms_node_info_remove_pod(ms_snapshot_get(&e->snap, id(e, "node3")), e->pods[2], e->fx.in);
    ms_node_info_remove_pod(ms_snapshot_get(&e->snap, id(e, "node4")), e->pods[3], e->fx.in);
    place(e, (pspec){.name = "p3b", .node = "node3", .prio = VERY_HIGH, .cpu = LARGE});
    place(e, (pspec){.name = "p4b", .node = "node4", .prio = VERY_HIGH, .cpu = LARGE});
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_int_equal(last(e)->nevaluated, 5);
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[p1]!1 node2[p2]!1");
}

/* Filter runs with nominated pods of at least the preemptor's priority on
 * the node: room they need is not room preemption can offer. */
static void test_nominated_pods_count_in_the_dry_run(void **state) {
    env *e = *state;
    use_queue(e);
    add_nodes(e, 2, VERY_LARGE);
    place_all(e, "node1:v1:0:200:1 node2:v2:0:300:1");
    ms_pod *waiting = mkpod(e, (pspec){.name = "waiting", .prio = VERY_HIGH, .cpu = LARGE});
    ms_queue_add_nominated(e->h.queue, waiting, id(e, "node1"));
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE});
    ms_str nominated;
    ms_status st;
    char buf[256];
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(candidates(e, buf, sizeof buf), "node2[v2]");
    assert_string_equal(e->cleared, "");   /* the nominated pod has a higher priority */
}

/* With only NodeResourcesFit and plugins that read the node alone in the
 * Filter phase, nodes are dry-run by counting requests; a host port brings
 * in NodePorts, which reads the node's pods, and so the full dry run on a
 * copy. Both give the same candidates on random nodes of mixed priorities,
 * start times, a PDB and a nominated pod. */
static void test_counted_dry_run_matches_the_full_one(void **state) {
    static const int prios[] = {NEG, LOW, MID, HIGH};
    uint64_t seed = 12345;
    for (int round = 0; round < 40; round++) {
        teardown(state);
        setup(state);
        env *e = *state;
        use_queue(e);
        add_nodes(e, 5, VERY_LARGE);
        if (round % 2) add_pdb(e, FOO_PDB(1, ""));
        int k = 0;
        for (uint32_t n = 1; n <= e->nnodes; n++) {
            int free_cpu = VERY_LARGE;
            while (free_cpu > 0) {   /* full: the preemptor fits nowhere */
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                int cpu = 100 * (int)(1 + (seed >> 33) % 3);
                if (cpu > free_cpu) cpu = free_cpu;
                free_cpu -= cpu;
                char name[16], node[16];
                snprintf(name, sizeof name, "p%d", ++k);
                snprintf(node, sizeof node, "node%u", n);
                place(e, (pspec){.name = name, .node = node, .prio = prios[(seed >> 40) % 4],
                                 .cpu = cpu, .start = 1 + (int)((seed >> 45) % 3),
                                 .labels = (seed >> 50) % 2 ? "{app: foo}" : NULL});
            }
        }
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        char node[16];
        snprintf(node, sizeof node, "node%u", 1 + (uint32_t)((seed >> 33) % e->nnodes));
        ms_queue_add_nominated(e->h.queue, mkpod(e, (pspec){.name = "waiting", .prio = VERY_HIGH,
                                                            .cpu = SMALL}), id(e, node));
        int cpu = 100 * (int)(2 + (seed >> 40) % 3);
        char got[2][512];
        uint32_t ncounted[2];
        for (int full = 0; full < 2; full++) {
            ms_pod *p = mkpod(e, (pspec){.name = full ? "q" : "p", .prio = HIGH, .cpu = cpu,
                                         .ports = full ? "[{containerPort: 9, hostPort: 9}]" : NULL});
            ms_str nominated;
            ms_status st;
            run(e, p, &nominated, &st);
            candidates(e, got[full], sizeof got[full]);
            ncounted[full] = last(e)->ncounted;
            /* the framework is built anew: each run starts from the same
             * plugin state */
            ms_framework_destroy(&e->fw);
            e->fw_ready = false;
        }
        if (strcmp(got[0], got[1]) != 0)
            fail_msg("round %d: counted %s, full %s", round, got[0], got[1]);
        assert_int_equal(ncounted[1], 0);
        if (got[0][0]) assert_true(ncounted[0] > 0);
    }
}

/* PrepareCandidate: every victim is evicted (except one already going),
 * lower-priority pods nominated to the node lose their nomination. */
static void test_prepare_evicts_and_clears_lower_nominations(void **state) {
    env *e = *state;
    use_queue(e);
    add_nodes(e, 1, 1000);
    place_all(e, "node1:v1:0:300:1 node1:v2:100:300:2");
    place(e, (pspec){.name = "v3", .node = "node1", .prio = LOW, .cpu = 300, .deleting = true, .start = 3});
    ms_pod *lower = mkpod(e, (pspec){.name = "lower", .prio = MID, .cpu = SMALL});
    ms_pod *equal = mkpod(e, (pspec){.name = "equal", .prio = HIGH, .cpu = SMALL});
    ms_pod *elsewhere = mkpod(e, (pspec){.name = "elsewhere", .prio = LOW, .cpu = SMALL});
    ms_queue_add_nominated(e->h.queue, lower, id(e, "node1"));
    ms_queue_add_nominated(e->h.queue, equal, id(e, "node1"));
    ms_queue_add_nominated(e->h.queue, elsewhere, id(e, "node9"));
    /* 1000m: 900 used; equal (100, nominated) stays counted; p needs 900 */
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = 800});
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(ms_str_get(e->fx.in, nominated), "node1");
    char buf[256];
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[v2,v1,v3]");
    assert_string_equal(e->evicted, "v2@node1 v1@node1");   /* v3 is already terminating */
    assert_string_equal(e->cleared, "lower");
    assert_int_equal(last(e)->ncleared, 1);
    uint32_t n;
    ms_queue_nominated_for(e->h.queue, id(e, "node1"), &n);
    assert_int_equal(n, 1);   /* equal keeps its nomination */

    /* A failed eviction fails the PostFilter and nominates nothing. */
    e->evict_rc = MS_EIO;
    assert_int_equal(run(e, p, &nominated, &st), MS_ERROR);
    assert_int_equal(nominated, MS_STR_NONE);
    assert_string_equal(reason(&st), "preemption: evicting pod default/v2: i/o error");
}

/* No candidate: a nomination the pod holds is cleared (upstream returns an
 * empty nominated node to the scheduler). */
static void test_no_candidate_clears_own_nomination(void **state) {
    env *e = *state;
    use_queue(e);
    add_nodes(e, 1, VERY_LARGE);
    place_all(e, "node1:h:10000:300");
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE, .nominated = "node1"});
    ms_queue_add_nominated(e->h.queue, p, MS_STR_NONE);
    ms_str nominated;
    ms_status st;
    assert_int_equal(run(e, p, &nominated, &st), MS_UNSCHEDULABLE);
    assert_string_equal(e->cleared, "p");
    assert_int_equal(ms_queue_nominated_node(e->h.queue, p->meta.uid_hash), MS_STR_NONE);

    /* All nodes unresolvable: nothing to search, same message shape. */
    ms_pod *big = mkpod(e, (pspec){.name = "big", .prio = HIGH, .cpu = 4000, .nominated = "node1"});
    ms_queue_add_nominated(e->h.queue, big, MS_STR_NONE);
    assert_int_equal(run(e, big, &nominated, &st), MS_UNSCHEDULABLE);
    assert_string_equal(reason(&st), "preemption: 0/1 nodes are available: 1 Preemption is not helpful "
                                     "for scheduling.");
    assert_int_equal(last(e)->npotential, 0);
    assert_string_equal(e->cleared, "big");

    /* With a queue, the nominator is the record: a field it has cleared
     * (the pod object not updated yet) is not a nomination. */
    assert_int_equal(run(e, big, &nominated, &st), MS_UNSCHEDULABLE);
    assert_string_equal(e->cleared, "");
}

/* ---- hooks ---- */

typedef struct hook_ctx {
    env *e;
    ms_code select_code, pick_code;
    uint32_t take;             /* select: evict the `take` least important */
    uint32_t choose;
    int nselect, npick;
    char seen[256];
} hook_ctx;

static ms_code hook_select(void *ctx, ms_cycle *c, const ms_node_info *ni, ms_pod *const *potential,
                           uint32_t n, uint32_t *victims, uint32_t *nvictims, ms_status *st) {
    hook_ctx *h = ctx;
    (void)c;
    (void)st;
    h->nselect++;
    size_t len = strlen(h->seen);
    len += (size_t)snprintf(h->seen + len, sizeof h->seen - len, "%s%s:", len ? " " : "",
                            ms_str_get(h->e->fx.in, ni->name));
    for (uint32_t i = 0; i < n; i++)
        len += (size_t)snprintf(h->seen + len, sizeof h->seen - len, "%s%s", i ? "," : "",
                                ms_str_get(h->e->fx.in, potential[i]->meta.name));
    if (h->select_code != MS_SUCCESS) return h->select_code;
    *nvictims = h->take < n ? h->take : n;
    for (uint32_t i = 0; i < *nvictims; i++) victims[i] = i;
    return MS_SUCCESS;
}

static ms_code hook_pick(void *ctx, ms_cycle *c, const ms_preemption_candidate *cands, uint32_t n,
                         uint32_t *chosen, ms_status *st) {
    hook_ctx *h = ctx;
    (void)c;
    (void)cands;
    (void)n;
    h->npick++;
    if (h->pick_code == MS_ERROR) ms_status_set(st, MS_ERROR, "policy failed");
    *chosen = h->choose;
    return h->pick_code;
}

static void test_hooks(void **state) {
    env *e = *state;
    add_nodes(e, 2, VERY_LARGE);
    place_all(e, "node1:a:0:200:1 node1:b:100:300:2 node2:c:0:200:3 node2:d:0:300:4");
    ms_pod *p = mkpod(e, (pspec){.name = "p", .prio = HIGH, .cpu = LARGE});
    hook_ctx hc = {.e = e, .select_code = MS_SUCCESS, .pick_code = MS_SKIP, .take = 1};
    ms_preemption_hooks hooks = {.ctx = &hc, .select_victims = hook_select, .pick = hook_pick};
    assert_true(ms_default_preemption_set_hooks(framework(e), &hooks));
    ms_str nominated;
    ms_status st;
    char buf[256];

    /* The policy evicts the least important pod on each node: enough on
     * node2 (d), not on node1 (b's 300m stay). Candidate lists come least
     * important first. */
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(hc.seen, "node1:a,b node2:d,c");
    assert_string_equal(candidates(e, buf, sizeof buf), "node2[d]");
    assert_int_equal(hc.npick, 0);   /* one candidate: nothing to pick */
    assert_string_equal(e->evicted, "d@node2");

    /* Two victims each: two candidates; the policy picks the second. */
    hc.take = 2;
    hc.seen[0] = '\0';
    hc.pick_code = MS_SUCCESS;
    hc.choose = 1;
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[b,a] node2[c,d]");
    assert_int_equal(hc.npick, 1);
    assert_string_equal(ms_str_get(e->fx.in, nominated), "node2");

    /* MS_SKIP falls back to the defaults: upstream's victims, upstream's pick. */
    hc.select_code = MS_SKIP;
    hc.pick_code = MS_SKIP;
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[b] node2[d]");
    assert_string_equal(ms_str_get(e->fx.in, nominated), "node2");   /* lower top priority */

    /* A pick out of range and a failing pick are errors. */
    hc.pick_code = MS_SUCCESS;
    hc.choose = 5;
    assert_int_equal(run(e, p, &nominated, &st), MS_ERROR);
    hc.pick_code = MS_ERROR;
    assert_int_equal(run(e, p, &nominated, &st), MS_ERROR);
    assert_string_equal(reason(&st), "policy failed");
    assert_int_equal(nominated, MS_STR_NONE);

    /* "This node cannot help" everywhere. */
    hc.select_code = MS_UNSCHEDULABLE;
    assert_int_equal(run(e, p, &nominated, &st), MS_UNSCHEDULABLE);
    assert_string_equal(reason(&st), "preemption: 0/2 nodes are available: 2 No preemption victims "
                                     "found for incoming pod.");

    assert_true(ms_default_preemption_set_hooks(framework(e), NULL));
    assert_int_equal(run(e, p, &nominated, &st), MS_SUCCESS);
    assert_string_equal(candidates(e, buf, sizeof buf), "node1[b] node2[d]");
}

/* ---- configuration ---- */

static void test_args(void **state) {
    (void)state;
    static const struct {
        const char *json;
        const char *err;
    } cases[] = {
        {"{\"minCandidateNodesPercentage\": 101}",
         "DefaultPreemption args: minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"},
        {"{\"minCandidateNodesAbsolute\": -1}",
         "DefaultPreemption args: minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"},
        {"{\"minCandidateNodesPercentage\": 0, \"minCandidateNodesAbsolute\": 0}",
         "DefaultPreemption args: minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the "
         "same time as minCandidateNodesAbsolute"},
        {"{\"minCandidateNodesPercent\": 1}", "DefaultPreemption args: minCandidateNodesPercent: unknown field"},
        {"{\"minCandidateNodesAbsolute\": \"5\"}",
         "DefaultPreemption args: minCandidateNodesAbsolute: expected an integer, got string"},
        {"{\"minCandidateNodesPercentage\": 0}", NULL},
        {"{}", NULL},
        {"null", NULL},
    };
    const ms_plugin_ops *ops = ms_plugin_lookup("DefaultPreemption");
    assert_non_null(ops);
    assert_non_null(ops->post_filter);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *args = cJSON_Parse(cases[i].json);
        ms_handle h = {0};
        void *self = NULL;
        ms_error err = {0};
        ms_rc rc = ops->create(args, &h, &self, &err);
        if (cases[i].err) {
            assert_int_equal(rc, MS_EINVAL);
            assert_string_equal(err.msg, cases[i].err);
            assert_null(self);
        } else {
            if (rc != MS_OK) fail_msg("%s: %s", cases[i].json, err.msg);
            ops->destroy(self);
        }
        cJSON_Delete(args);
    }
}

/* The default profile runs DefaultPreemption at PostFilter after
 * DynamicResources, as upstream's. */
static void test_in_default_profile(void **state) {
    env *e = *state;
    ms_framework *fw = framework(e);
    assert_int_equal(fw->norder[MS_EP_POST_FILTER], 2);
    assert_string_equal(ms_framework_plugin_name(fw, fw->order[MS_EP_POST_FILTER][1]), "DefaultPreemption");
    assert_non_null(ms_default_preemption_last(fw));
    ms_framework other;
    ms_profile_config pc;
    memset(&pc, 0, sizeof pc);
    snprintf(pc.scheduler_name, sizeof pc.scheduler_name, "bare");
    pc.percentage_of_nodes_to_score = -1;
    snprintf(pc.plugins[0].name, sizeof pc.plugins[0].name, "PrioritySort");
    pc.plugins[0].points = 1u << MS_EP_QUEUE_SORT;
    snprintf(pc.plugins[1].name, sizeof pc.plugins[1].name, "DefaultBinder");
    pc.plugins[1].points = 1u << MS_EP_BIND;
    pc.nplugins = 2;
    ms_error err = {0};
    if (ms_framework_init(&other, &pc, 0, &e->h, &err) != MS_OK) fail_msg("%s", err.msg);
    assert_null(ms_default_preemption_last(&other));
    assert_false(ms_default_preemption_set_hooks(&other, NULL));
    ms_framework_destroy(&other);
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_existing_anti_affinity_blocker_is_preempted),
        T(test_anti_affinity_blocker_of_higher_priority_stays),
        T(test_own_anti_affinity_target_is_preempted),
        T(test_affinity_to_a_victim_is_no_candidate),
        T(test_affinity_to_a_higher_priority_pod_holds),
        T(test_ruled_out_node_keeps_its_own_reason),
        T(test_more_important_pod),
        T(test_pod_with_nominated_node),
        T(test_num_candidates),
        T(test_pick_rules),
        T(test_select_victims_upstream_cases),
        T(test_no_candidates_message),
        T(test_equal_priority_is_not_preempted),
        T(test_select_best_candidate_upstream_cases),
        T(test_pdb_violations_upstream_cases),
        T(test_reprieve_pdb_violating_first),
        T(test_pdb_honoured_when_another_choice_exists),
        T(test_preemption_policy_never),
        T(test_terminating_victims_block_preemption),
        T(test_only_preemption_victims_block_preemption),
        T(test_unresolvable_nominated_node_allows_preemption),
        T(test_candidate_count_and_offset),
        T(test_search_goes_on_until_a_non_violating_candidate),
        T(test_nominated_pods_count_in_the_dry_run),
        T(test_counted_dry_run_matches_the_full_one),
        T(test_prepare_evicts_and_clears_lower_nominations),
        T(test_no_candidate_clears_own_nomination),
        T(test_hooks),
        T(test_args),
        T(test_in_default_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
