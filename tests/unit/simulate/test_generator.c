/* The synthetic cluster generator: spec parsing and the objects it builds. */
#include "testutil.h"

#include "codec/decode_dra.h"
#include "moonsched/decode.h"
#include "simulate/generator.h"

static void test_spec_defaults_and_parse(void **state) {
    (void)state;
    ms_generator_spec g;
    ms_generator_spec_default(&g);
    assert_int_equal(g.nodes, 0);
    assert_string_equal(g.node_cpu, "4");
    assert_string_equal(g.node_memory, "32Gi");
    assert_string_equal(g.node_pods, "110");
    assert_string_equal(g.pod_cpu, "100m");
    assert_string_equal(g.pod_memory, "500Mi");
    assert_string_equal(g.namespace_, "default");

    ms_error err = {0};
    assert_int_equal(ms_generator_parse("nodes=5000,pods=10000,zones=3,node-cpu=32,"
                                        "node-memory=64Gi,pod-cpu=250m,pod-memory=1Gi,seed=9,"
                                        "bound-pods=7,priorities=4,namespace=perf",
                                        &g, &err),
                     MS_OK);
    assert_int_equal(g.nodes, 5000);
    assert_int_equal(g.pods, 10000);
    assert_int_equal(g.zones, 3);
    assert_int_equal(g.bound_pods, 7);
    assert_int_equal(g.priorities, 4);
    assert_int_equal(g.seed, 9);
    assert_string_equal(g.node_cpu, "32");
    assert_string_equal(g.node_memory, "64Gi");
    assert_string_equal(g.pod_cpu, "250m");
    assert_string_equal(g.namespace_, "perf");
    assert_int_equal(g.spread, MS_SPREAD_NONE);
    assert_int_equal(ms_generator_parse("spread=hard", &g, &err), MS_OK);
    assert_int_equal(g.spread, MS_SPREAD_HARD);
    assert_int_equal(ms_generator_parse("spread=soft", &g, &err), MS_OK);
    assert_int_equal(g.spread, MS_SPREAD_SOFT);
    assert_int_equal(ms_generator_parse("spread=none", &g, &err), MS_OK);
    assert_int_equal(g.spread, MS_SPREAD_NONE);

    static const struct { const char *spec, *msg; } bad[] = {
        {"nodes=abc", "--generate: nodes: expected a count"},
        {"nodes=-1", "--generate: nodes: expected a count"},
        {"pods", "--generate: \"pods\": expected key=value"},
        {"node-cpu=4x", "--generate: node-cpu: "},
        {"pod-memory=-1Gi", "--generate: pod-memory: must not be negative"},
        {"colour=blue", "--generate: unknown key \"colour\""},
        {"namespace=", "--generate: namespace: expected a name"},
        {"spread=maybe", "--generate: spread: expected none, hard or soft, got \"maybe\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ms_generator_spec_default(&g);
        assert_int_equal(ms_generator_parse(bad[i].spec, &g, &err), MS_EINVAL);
        if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)) != 0)
            fail_msg("%s: got \"%s\"", bad[i].spec, err.msg);
    }
}

/* What a generator run handed its sink, kind by kind, in order. */
typedef struct collected {
    ms_node *nodes[16];
    ms_pod *pods[32];
    ms_storage_object *objs[16];
    ms_namespace *nss[8];
    uint32_t nnodes, npods, n, nnss;
} collected;

/* One callback per signature the sink has, each keeping the object. */
#define KEEP(arr, count, obj)                                      \
    do {                                                           \
        assert_true((count) < sizeof(arr) / sizeof((arr)[0]));     \
        (arr)[(count)++] = (obj);                                  \
    } while (0)
static ms_rc take_node(void *ctx, ms_node *o, ms_error *err) {
    (void)err;
    KEEP(((collected *)ctx)->nodes, ((collected *)ctx)->nnodes, o);
    return MS_OK;
}
static ms_rc take_pod(void *ctx, ms_pod *o, ms_error *err) {
    (void)err;
    KEEP(((collected *)ctx)->pods, ((collected *)ctx)->npods, o);
    return MS_OK;
}
static ms_rc take_storage(void *ctx, ms_storage_object *o, ms_error *err) {
    (void)err;
    KEEP(((collected *)ctx)->objs, ((collected *)ctx)->n, o);
    return MS_OK;
}
static ms_rc take_namespace(void *ctx, ms_namespace *o, ms_error *err) {
    (void)err;
    KEEP(((collected *)ctx)->nss, ((collected *)ctx)->nnss, o);
    return MS_OK;
}

/* The nodes and pods a valid spec generates, into c, with a fresh interner
 * (*in) and its decoder. */
static void generate(const char *spec, ms_interner **in, ms_decoder *d, ms_generator_spec *g, collected *c) {
    *in = ms_interner_new();
    ms_decoder_init(d, *in);
    ms_generator_spec_default(g);
    ms_error err = {0};
    if (ms_generator_parse(spec, g, &err) != MS_OK) fail_msg("%s: %s", spec, err.msg);
    ms_generator_sink sink = {c, take_node, take_pod, NULL, NULL, NULL, NULL};
    if (ms_generate(g, d, &sink, &err) != MS_OK) fail_msg("%s: %s", spec, err.msg);
}

/* Drops the nodes and pods kept, for another run into c. */
static void collected_free(collected *c) {
    for (uint32_t i = 0; i < c->nnodes; i++) ms_node_unref(c->nodes[i]);
    for (uint32_t i = 0; i < c->npods; i++) ms_pod_unref(c->pods[i]);
    c->nnodes = c->npods = 0;
}

/* shape=volumes: a WaitForFirstConsumer class without provisioner, one
 * local PV per pending pod pinned round-robin to the nodes, one claim per
 * pending pod, and each pending pod using its claim. */
static void test_volumes_shape(void **state) {
    (void)state;
    ms_interner *in = NULL;
    ms_decoder d;
    ms_generator_spec g;
    collected c = {0};
    collected st = {0};
    generate("shape=volumes,nodes=2,pods=3,bound-pods=1", &in, &d, &g, &c);
    ms_error err = {0};
    ms_generator_sink sink = {&c, take_node, take_pod, NULL, NULL, NULL, NULL};
    assert_int_equal(c.npods, 4);
    /* without a storage sink no storage object is made */
    collected_free(&c);
    ms_generate_volumes(&g, &d, &(ms_generator_sink){&st, NULL, NULL, take_storage, NULL, NULL, NULL}, &err);
    assert_int_equal(st.n, 1 + 3 + 3);
    assert_int_equal(st.objs[0]->kind, MS_SK_STORAGE_CLASS);
    assert_int_equal(st.objs[0]->u.sc.binding_mode, MS_BINDING_WAIT_FOR_FIRST_CONSUMER);
    assert_string_equal(ms_str_get(in, st.objs[0]->u.sc.provisioner), "kubernetes.io/no-provisioner");
    for (int i = 0; i < 3; i++) {
        const ms_storage_object *pv = st.objs[1 + i], *pvc = st.objs[4 + i];
        char want[16];
        assert_int_equal(pv->kind, MS_SK_PV);
        assert_int_equal(pv->u.pv.phase, MS_PV_AVAILABLE);
        snprintf(want, sizeof want, "node-%d", i % 2);
        assert_string_equal(ms_str_get(in, pv->u.pv.node_affinity.terms[0].expr[0].values[0]), want);
        assert_int_equal(pvc->kind, MS_SK_PVC);
        snprintf(want, sizeof want, "pvc-%d", i);
        assert_string_equal(ms_str_get(in, pvc->meta.name), want);
        assert_int_equal(pvc->u.pvc.request, 1LL << 30);
    }
    for (uint32_t i = 0; i < st.n; i++) ms_storage_unref(st.objs[i]);
    /* the pending pods use their claims, the bound one none */
    if (ms_generate(&g, &d, &sink, &err) != MS_OK) fail_msg("%s", err.msg);
    assert_int_equal(c.pods[0]->nvolumes, 0);
    for (uint32_t i = 1; i < c.npods; i++) {
        char want[16];
        snprintf(want, sizeof want, "pvc-%u", i - 1);
        assert_int_equal(c.pods[i]->nvolumes, 1);
        assert_string_equal(ms_str_get(in, c.pods[i]->volumes[0].id), want);
    }
    collected_free(&c);
    ms_interner_free(in);
}

static void test_generated_objects(void **state) {
    (void)state;
    ms_interner *in = NULL;
    ms_decoder d;
    ms_generator_spec g;
    collected c = {0};
    generate("nodes=4,pods=5,bound-pods=3,zones=2,priorities=3", &in, &d, &g, &c);
    assert_int_equal(c.nnodes, 4);
    assert_int_equal(c.npods, 8);

    ms_str zone = ms_intern_cstr(in, "topology.kubernetes.io/zone");
    ms_str host = ms_intern_cstr(in, "kubernetes.io/hostname");
    for (uint32_t i = 0; i < 4; i++) {
        const ms_node *n = c.nodes[i];
        char want[32];
        snprintf(want, sizeof want, "node-%u", i);
        assert_string_equal(ms_str_get(in, n->meta.name), want);
        assert_string_equal(ms_str_get(in, ms_labels_get(&n->meta.labels, host)), want);
        snprintf(want, sizeof want, "zone-%u", i % 2);
        assert_string_equal(ms_str_get(in, ms_labels_get(&n->meta.labels, zone)), want);
        assert_int_equal(n->allocatable.v[MS_RES_CPU], 4000);
        assert_int_equal(n->allocatable.v[MS_RES_MEMORY], 32LL << 30);
        assert_int_equal(n->allocatable.v[MS_RES_PODS], 110);
        assert_false(n->unschedulable);
    }
    /* Bound pods first, round-robin, running; then pending pods. */
    for (uint32_t i = 0; i < 3; i++) {
        const ms_pod *p = c.pods[i];
        char want[32];
        snprintf(want, sizeof want, "bound-%u", i);
        assert_string_equal(ms_str_get(in, p->meta.name), want);
        snprintf(want, sizeof want, "node-%u", i);
        assert_string_equal(ms_str_get(in, p->node_name), want);
        assert_int_equal(p->phase, MS_PHASE_RUNNING);
    }
    int priorities_seen = 0;
    for (uint32_t i = 3; i < 8; i++) {
        const ms_pod *p = c.pods[i];
        char want[32];
        snprintf(want, sizeof want, "pod-%u", i - 3);
        assert_string_equal(ms_str_get(in, p->meta.name), want);
        assert_string_equal(ms_str_get(in, p->meta.namespace_), "default");
        assert_int_equal(p->node_name, MS_STR_NONE);
        assert_int_equal(p->phase, MS_PHASE_PENDING);
        assert_int_equal(p->requests.v[MS_RES_CPU], 100);
        assert_int_equal(p->requests.v[MS_RES_MEMORY], 500LL << 20);
        assert_int_equal(p->qos, MS_QOS_GUARANTEED);
        assert_true(p->priority >= 0 && p->priority < 3);
        priorities_seen |= 1 << p->priority;
        assert_string_equal(ms_str_get(in, p->scheduler_name), "default-scheduler");
    }
    assert_true(priorities_seen != 1 && priorities_seen != 2 && priorities_seen != 4);

    collected_free(&c);
    ms_interner_free(in);
}

/* scheduler_perf's Preemption shape: low-priority bound pods, four per
 * node, and high-priority pending pods too big for what is left. */
static void test_preemption_shape(void **state) {
    (void)state;
    ms_interner *in = NULL;
    ms_decoder d;
    ms_generator_spec g;
    ms_generator_spec_default(&g);
    assert_string_equal(g.shape, "basic");
    collected c = {0};
    generate("shape=preemption,nodes=2,bound-pods=8,pods=2,pod-cpu=1", &in, &d, &g, &c);
    assert_string_equal(g.shape, "preemption");
    ms_error err = {0};
    assert_int_equal(c.nnodes, 2);
    assert_int_equal(c.npods, 10);
    int64_t used[2] = {0, 0};
    for (uint32_t i = 0; i < 8; i++) {
        const ms_pod *p = c.pods[i];
        assert_int_equal(p->priority, 0);
        assert_int_equal(p->requests.v[MS_RES_CPU], 900);
        assert_int_equal(p->requests.v[MS_RES_MEMORY], 500LL << 20);
        assert_int_not_equal(p->node_name, MS_STR_NONE);
        used[strcmp(ms_str_get(in, p->node_name), "node-1") == 0] += p->requests.v[MS_RES_CPU];
    }
    assert_int_equal(used[0], 3600);
    assert_int_equal(used[1], 3600);
    for (uint32_t i = 8; i < 10; i++) {
        const ms_pod *p = c.pods[i];
        assert_int_equal(p->priority, 10);
        assert_int_equal(p->requests.v[MS_RES_CPU], 3000);
        assert_int_equal(p->node_name, MS_STR_NONE);
    }
    ms_generator_spec_default(&g);
    assert_int_equal(ms_generator_parse("shape=square", &g, &err), MS_EINVAL);
    assert_string_equal(err.msg, "--generate: shape: expected basic, preemption, pod-anti-affinity, "
                                 "node-affinity, volumes, deschedule or a scheduler_perf test case "
                                 "(SchedulingPodAffinity, MixedSchedulingBasePod, Unschedulable, ...: "
                                 "docs/performance.md), got \"square\"");
    collected_free(&c);
    ms_interner_free(in);
}

/* spread=hard / soft: scheduler_perf's topology spreading pods; bound pods
 * stay plain. */
static void test_spreading_pods(void **state) {
    (void)state;
    static const struct {
        const char *spec;
        uint8_t when;
    } cases[] = {{"nodes=3,pods=2,bound-pods=1,zones=3,spread=hard", MS_DO_NOT_SCHEDULE},
                 {"nodes=3,pods=2,bound-pods=1,zones=3,spread=soft", MS_SCHEDULE_ANYWAY}};
    for (size_t k = 0; k < 2; k++) {
        ms_interner *in = NULL;
        ms_decoder d;
        ms_generator_spec g;
        collected c = {0};
        generate(cases[k].spec, &in, &d, &g, &c);
        assert_int_equal(c.npods, 3);
        assert_int_equal(c.pods[0]->ntopology_spread, 0);
        assert_int_equal(c.pods[0]->meta.labels.n, 0);
        ms_str color = ms_intern_cstr(in, "color"), blue = ms_intern_cstr(in, "blue");
        for (uint32_t i = 1; i < 3; i++) {
            const ms_pod *p = c.pods[i];
            assert_int_equal(ms_labels_get(&p->meta.labels, color), blue);
            assert_int_equal(p->ntopology_spread, 1);
            const ms_topology_spread *t = &p->topology_spread[0];
            assert_int_equal(t->max_skew, 5);
            assert_string_equal(ms_str_get(in, t->topology_key), "topology.kubernetes.io/zone");
            assert_int_equal(t->when_unsatisfiable, cases[k].when);
            assert_true(ms_label_selector_matches(&t->selector, &p->meta.labels, in));
            assert_int_equal(t->selector.n, 1);
        }
        collected_free(&c);
        ms_interner_free(in);
    }
}

/* shape=pod-anti-affinity: scheduler_perf's SchedulingPodAntiAffinity
 * (pod-with-pod-anti-affinity.yaml); setup pods bound in sched-setup,
 * measured ones pending in sched-test. */
static void test_pod_anti_affinity_shape(void **state) {
    (void)state;
    ms_interner *in = NULL;
    ms_decoder d;
    ms_generator_spec g;
    collected c = {0};
    generate("shape=pod-anti-affinity,nodes=3,bound-pods=2,pods=2", &in, &d, &g, &c);
    assert_int_equal(c.npods, 4);
    ms_str color = ms_intern_cstr(in, "color");
    ms_str test_ns = ms_intern_cstr(in, "sched-test"), setup_ns = ms_intern_cstr(in, "sched-setup");
    for (uint32_t i = 0; i < 4; i++) {
        const ms_pod *p = c.pods[i];
        assert_string_equal(ms_str_get(in, p->meta.namespace_), i < 2 ? "sched-setup" : "sched-test");
        assert_int_equal(i < 2, p->node_name != MS_STR_NONE);
        assert_string_equal(ms_str_get(in, ms_labels_get(&p->meta.labels, color)), "green");
        assert_int_equal(p->pod_anti_affinity.nrequired, 1);
        assert_int_equal(p->pod_affinity.nrequired, 0);
        const ms_pod_affinity_term *t = &p->pod_anti_affinity.required[0];
        assert_string_equal(ms_str_get(in, t->topology_key), "kubernetes.io/hostname");
        assert_int_equal(t->nnamespaces, 2);
        assert_true((t->namespaces[0] == test_ns && t->namespaces[1] == setup_ns) ||
                    (t->namespaces[0] == setup_ns && t->namespaces[1] == test_ns));
        assert_true(ms_label_selector_matches(&t->selector, &p->meta.labels, in));
        assert_int_equal(p->requests.v[MS_RES_CPU], 100);
    }
    /* the nodes are plain */
    assert_int_equal(c.nodes[0]->meta.labels.n, 2);
    collected_free(&c);
    ms_interner_free(in);
}

/* shape=node-affinity: scheduler_perf's SchedulingNodeAffinity (1.20):
 * every node labelled failure-domain.beta.kubernetes.io/zone=zone1, pods
 * (pod-with-node-affinity.yaml) requiring that key In [zone1, zone2]. */
static void test_node_affinity_shape(void **state) {
    (void)state;
    ms_interner *in = NULL;
    ms_decoder d;
    ms_generator_spec g;
    collected c = {0};
    generate("shape=node-affinity,nodes=2,bound-pods=1,pods=2,zones=2", &in, &d, &g, &c);
    assert_int_equal(c.nnodes, 2);
    assert_int_equal(c.npods, 3);
    ms_str key = ms_intern_cstr(in, "failure-domain.beta.kubernetes.io/zone");
    for (uint32_t i = 0; i < 2; i++) {
        assert_string_equal(ms_str_get(in, ms_labels_get(&c.nodes[i]->meta.labels, key)), "zone1");
        /* zones= still labels topology.kubernetes.io/zone */
        assert_int_equal(c.nodes[i]->meta.labels.n, 5);
    }
    for (uint32_t i = 0; i < 3; i++) {
        const ms_pod *p = c.pods[i];
        assert_true(p->has_node_affinity_required);
        assert_int_equal(p->node_affinity_required.n, 1);
        const ms_node_selector_term *t = &p->node_affinity_required.terms[0];
        assert_int_equal(t->nexpr, 1);
        assert_int_equal(t->expr[0].key, key);
        assert_int_equal(t->expr[0].nvalues, 2);
        assert_true(ms_requirement_matches(&t->expr[0], &c.nodes[0]->meta.labels, in));
        assert_string_equal(ms_str_get(in, p->meta.namespace_), "default");
        assert_int_equal(p->meta.labels.n, 0);
    }
    collected_free(&c);
    ms_interner_free(in);
}

/* the one term of an affinity, required or preferred (weight 1) */
static const ms_pod_affinity_term *one_term(const ms_pod_affinity *a, bool preferred) {
    assert_int_equal(preferred ? a->npreferred : a->nrequired, 1);
    assert_int_equal(preferred ? a->nrequired : a->npreferred, 0);
    if (preferred) assert_int_equal(a->preferred[0].weight, 1);
    return preferred ? &a->preferred[0].term : &a->required[0];
}

/* TERM selects color=COLOR on KEY; over sched-1 and sched-0, or over the
 * namespaces labelled team=devops */
static void check_term(ms_interner *in, const ms_pod_affinity_term *t, const char *color, const char *key,
                       bool ns_selector) {
    assert_int_equal(t->selector.n, 1);
    assert_string_equal(ms_str_get(in, t->selector.reqs[0].key), "color");
    assert_string_equal(ms_str_get(in, t->selector.reqs[0].values[0]), color);
    assert_string_equal(ms_str_get(in, t->topology_key), key);
    assert_int_equal(t->has_namespace_selector, ns_selector);
    if (ns_selector) {
        assert_int_equal(t->nnamespaces, 0);
        assert_int_equal(t->namespace_selector.n, 1);
        assert_string_equal(ms_str_get(in, t->namespace_selector.reqs[0].key), "team");
        assert_string_equal(ms_str_get(in, t->namespace_selector.reqs[0].values[0]), "devops");
    } else {
        assert_int_equal(t->nnamespaces, 2);
        assert_string_equal(ms_str_get(in, t->namespaces[0]), "sched-1");
        assert_string_equal(ms_str_get(in, t->namespaces[1]), "sched-0");
    }
}

/* scheduler_perf's test cases by name: each one's nodes, namespaces, init
 * pods (bound round-robin) and measured pods, with upstream's labels and
 * terms. */
static void test_upstream_shapes(void **state) {
    (void)state;
    static const struct {
        const char *spec;
        uint32_t nodes, bound, pending, nss;
        const char *color, *key, *ns; /* the measured pods' label, term key and namespace */
        bool anti, preferred, ns_selector;
    } cases[] = {
        {"shape=SchedulingPodAffinity,nodes=3,bound-pods=2,pods=2", 3, 2, 2, 2, "blue",
         "topology.kubernetes.io/zone", "sched-1", false, false, false},
        {"shape=SchedulingPreferredPodAffinity,nodes=3,bound-pods=2,pods=2", 3, 2, 2, 2, "red",
         "kubernetes.io/hostname", "sched-1", false, true, false},
        {"shape=SchedulingPreferredPodAntiAffinity,nodes=3,bound-pods=2,pods=2", 3, 2, 2, 2, "yellow",
         "kubernetes.io/hostname", "sched-1", true, true, false},
        {"shape=SchedulingRequiredPodAntiAffinityWithNSSelector,nodes=3,bound-pods=4,pods=2,init-namespaces=2", 3,
         4, 2, 3, "green", "kubernetes.io/hostname", "measure-ns-0", true, false, true},
        {"shape=SchedulingPreferredAffinityWithNSSelector,nodes=3,bound-pods=4,pods=2,init-namespaces=2", 3, 4, 2,
         3, "red", "kubernetes.io/hostname", "measure-ns-0", false, true, true},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ms_interner *in = NULL;
        ms_decoder d;
        ms_generator_spec g;
        collected c = {0};
        collected nss = {0};
        generate(cases[k].spec, &in, &d, &g, &c);
        ms_error err = {0};
        assert_int_equal(c.nnodes, cases[k].nodes);
        assert_int_equal(c.npods, cases[k].bound + cases[k].pending);
        for (uint32_t i = 0; i < c.npods; i++) {
            const ms_pod *p = c.pods[i];
            bool bound = i < cases[k].bound;
            assert_int_equal(p->node_name != MS_STR_NONE, bound);
            if (bound) {
                char want[16];
                snprintf(want, sizeof want, "node-%u", i % cases[k].nodes);
                assert_string_equal(ms_str_get(in, p->node_name), want);
            } else {
                assert_string_equal(ms_str_get(in, p->meta.namespace_), cases[k].ns);
            }
            assert_string_equal(ms_str_get(in, ms_labels_get(&p->meta.labels, ms_intern_cstr(in, "color"))),
                                cases[k].color);
            const ms_pod_affinity *a = cases[k].anti ? &p->pod_anti_affinity : &p->pod_affinity;
            const ms_pod_affinity *none = cases[k].anti ? &p->pod_affinity : &p->pod_anti_affinity;
            assert_int_equal(none->nrequired + none->npreferred, 0);
            check_term(in, one_term(a, cases[k].preferred), cases[k].color, cases[k].key, cases[k].ns_selector);
            assert_int_equal(p->requests.v[MS_RES_CPU], 100);
        }
        if (cases[k].ns_selector) {
            /* init pods spread evenly over init-ns-0 and init-ns-1 */
            assert_string_equal(ms_str_get(in, c.pods[0]->meta.namespace_), "init-ns-0");
            assert_string_equal(ms_str_get(in, c.pods[3]->meta.namespace_), "init-ns-1");
        } else {
            assert_string_equal(ms_str_get(in, c.pods[0]->meta.namespace_), "sched-0");
        }
        collected_free(&c);

        /* the namespaces, labelled team=devops for the selector cases */
        ms_generator_sink only_ns = {&nss, NULL, NULL, NULL, take_namespace, NULL, NULL};
        ms_generator_spec none = g;
        none.nodes = none.bound_pods = none.pods = 0;
        if (ms_generate(&none, &d, &only_ns, &err) != MS_OK) fail_msg("%s: %s", cases[k].spec, err.msg);
        assert_int_equal(nss.nnss, cases[k].nss);
        assert_string_equal(ms_str_get(in, nss.nss[nss.nnss - 1]->meta.name),
                            cases[k].ns_selector ? "measure-ns-0" : "sched-1");
        ms_str team = ms_intern_cstr(in, "team");
        for (uint32_t i = 0; i < nss.nnss; i++) {
            ms_str v = ms_labels_get(&nss.nss[i]->meta.labels, team);
            if (cases[k].ns_selector) assert_string_equal(ms_str_get(in, v), "devops");
            else assert_int_equal(v, MS_STR_NONE);
            ms_namespace_unref(nss.nss[i]);
        }
        ms_interner_free(in);
    }
}

/* The kinds of the resource.k8s.io objects generated, in order, and the
 * last pod's claim (decoded, so checked as the API server would). */
typedef struct dra_seen {
    collected c;                   /* first: take_node and take_pod's */
    char kinds[64];
    uint32_t n;
    ms_decoder *d;
    ms_dra_object *last_claim;
} dra_seen;

static ms_rc take_dra(void *ctx, ms_dra_kind kind, const cJSON *obj, ms_error *err) {
    dra_seen *s = ctx;
    assert_true(s->n < sizeof s->kinds - 1);
    s->kinds[s->n++] = "CSRT"[kind];
    ms_dra_object *o = NULL;
    ms_rc rc = ms_dra_decode(s->d, kind, obj, &o, err);
    if (rc != MS_OK) return rc;
    if (kind == MS_DK_RESOURCE_CLAIM) {
        ms_dra_unref(s->last_claim);
        s->last_claim = o;
    } else {
        ms_dra_unref(o);
    }
    return MS_OK;
}

/* shape=SchedulingWithResourceClaimTemplate: the class and the template,
 * one slice of 10 devices per node, and per pod its generated claim
 * (owned by the pod, named in its status) before the pod. */
static void test_dra_shape(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_decoder d;
    ms_decoder_init(&d, in);
    ms_generator_spec g;
    ms_generator_spec_default(&g);
    ms_error err = {0};
    assert_int_equal(ms_generator_parse("shape=SchedulingWithResourceClaimTemplate,nodes=2,pods=3", &g, &err), MS_OK);
    dra_seen ds = {.d = &d};
    collected *cp = &ds.c;
    ms_generator_sink sink = {&ds, take_node, take_pod, NULL, NULL, take_dra, NULL};
    if (ms_generate(&g, &d, &sink, &err) != MS_OK) fail_msg("%s", err.msg);
    assert_string_equal(ds.kinds, "CTSSRRR");
    assert_int_equal(cp->nnodes, 2);
    assert_int_equal(cp->npods, 3);
    const ms_pod *p = cp->pods[2];
    assert_int_equal(p->nresource_claims, 1);
    assert_int_equal(p->nresource_claim_statuses, 1);
    assert_string_equal(ms_str_get(in, p->resource_claim_statuses[0].claim_name), "pod-2-resource");
    assert_string_equal(ms_str_get(in, ds.last_claim->meta.name), "pod-2-resource");
    assert_string_equal(ms_meta_controller(&ds.last_claim->meta)->uid, p->meta.uid);
    ms_dra_unref(ds.last_claim);
    sink.dra = NULL;
    assert_int_equal(ms_generate(&g, &d, &sink, &err), MS_EINVAL);
    collected_free(cp);
    ms_interner_free(in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dra_shape),
        cmocka_unit_test(test_preemption_shape),
        cmocka_unit_test(test_spec_defaults_and_parse),
        cmocka_unit_test(test_generated_objects),
        cmocka_unit_test(test_volumes_shape),
        cmocka_unit_test(test_spreading_pods),
        cmocka_unit_test(test_pod_anti_affinity_shape),
        cmocka_unit_test(test_node_affinity_shape),
        cmocka_unit_test(test_upstream_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
