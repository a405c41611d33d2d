#include "testutil.h"

#include "backend/cache.h"
#include "backend/node_tree.h"
#include "backend/cache_snapshot.h"
#include "base/map.h"
#include "moonsched/labels.h"

#define MI (1024LL * 1024)

/* Objects built by hand: only the fields the cache reads. */
typedef struct fx {
    ms_interner *in;
    ms_cache *c;
    ms_snapshot snap;
} fx;

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    f->in = ms_interner_new();
    f->c = ms_cache_new(f->in, 30.0);
    ms_snapshot_init(&f->snap);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    ms_cache_free(f->c);
    ms_snapshot_free(&f->snap);
    ms_interner_free(f->in);
    free(f);
    return 0;
}

static ms_str S(fx *f, const char *s) {
    return ms_intern_cstr(f->in, s);
}

static ms_pod *mkpod(fx *f, const char *name, const char *node, int64_t cpu, int64_t mem) {
    ms_pod *p = ms_pod_alloc();
    assert_non_null(p);
    p->meta.name = S(f, name);
    p->meta.namespace_ = S(f, "default");
    p->meta.uid = ms_arena_strdup(&p->arena, name);
    p->meta.uid_hash = ms_hash_bytes(name, strlen(name));
    p->node_name = node ? S(f, node) : MS_STR_NONE;
    p->requests.v[MS_RES_CPU] = cpu;
    p->requests.v[MS_RES_MEMORY] = mem;
    p->non_zero_cpu = cpu ? cpu : MS_DEFAULT_MILLI_CPU_REQUEST;
    p->non_zero_mem = mem ? mem : MS_DEFAULT_MEMORY_REQUEST;
    p->phase = MS_PHASE_RUNNING;
    return p;
}

static void with_affinity(ms_pod *p) {
    p->pod_affinity.nrequired = 1;
    p->pod_affinity.required = MS_ARENA_NEW(&p->arena, ms_pod_affinity_term, 1);
}

static void with_required_anti_affinity(ms_pod *p) {
    p->pod_anti_affinity.nrequired = 1;
    p->pod_anti_affinity.required = MS_ARENA_NEW(&p->arena, ms_pod_affinity_term, 1);
}

typedef struct image_spec {
    const char *names[3];
    int64_t size;
} image_spec;

/* labels: "key=value" strings, NULL-terminated. */
static ms_node *mknode_full(fx *f, const char *name, const char *const *labels, const image_spec *imgs,
                            uint32_t nimgs) {
    ms_node *n = ms_node_alloc();
    assert_non_null(n);
    n->meta.name = S(f, name);
    n->meta.uid_hash = ms_hash_bytes(name, strlen(name));
    n->allocatable.v[MS_RES_CPU] = 4000;
    n->allocatable.v[MS_RES_MEMORY] = 8192 * MI;
    n->allocatable.v[MS_RES_PODS] = 110;
    uint32_t nl = 0;
    while (labels && labels[nl]) nl++;
    n->meta.labels.items = MS_ARENA_NEW(&n->arena, ms_label, nl ? nl : 1);
    for (uint32_t i = 0; i < nl; i++) {
        const char *eq = strchr(labels[i], '=');
        n->meta.labels.items[i].key = ms_intern(f->in, labels[i], (size_t)(eq - labels[i]));
        n->meta.labels.items[i].value = ms_intern_cstr(f->in, eq + 1);
    }
    n->meta.labels.n = nl;
    ms_labels_sort(&n->meta.labels);
    if (nimgs) {
        n->images = MS_ARENA_NEW(&n->arena, ms_container_image, nimgs);
        for (uint32_t i = 0; i < nimgs; i++) {
            uint32_t k = 0;
            while (k < 3 && imgs[i].names[k]) k++;
            n->images[i].names = MS_ARENA_NEW(&n->arena, ms_str, k);
            for (uint32_t j = 0; j < k; j++) n->images[i].names[j] = S(f, imgs[i].names[j]);
            n->images[i].nnames = k;
            n->images[i].size_bytes = imgs[i].size;
        }
        n->nimages = nimgs;
    }
    return n;
}

static ms_node *mknode(fx *f, const char *name, const char *zone) {
    char zl[128];
    snprintf(zl, sizeof zl, "topology.kubernetes.io/zone=%s", zone ? zone : "");
    const char *labels[] = {zl, NULL};
    return mknode_full(f, name, zone ? labels : NULL, NULL, 0);
}

/* The cache takes its own references: tests drop theirs at once. */
static void add_node(fx *f, const char *name, const char *zone) {
    ms_node *n = mknode(f, name, zone);
    assert_int_equal(ms_cache_add_node(f->c, n), MS_OK);
    ms_node_unref(n);
}

static void add_pod(fx *f, const char *name, const char *node, int64_t cpu, int64_t mem) {
    ms_pod *p = mkpod(f, name, node, cpu, mem);
    assert_int_equal(ms_cache_add_pod(f->c, p), MS_OK);
    ms_pod_unref(p);
}

static const ms_node_info *live(fx *f, const char *node) {
    return ms_cache_node_info(f->c, S(f, node));
}

static int64_t cpu_on(fx *f, const char *node) {
    const ms_node_info *ni = live(f, node);
    assert_non_null(ni);
    return ni->requested.v[MS_RES_CPU];
}

static void update_snap(fx *f) {
    assert_int_equal(ms_cache_update_snapshot(f->c, &f->snap), MS_OK);
}

/* ---- nodes and pods ---- */

static void test_nodes_add_update_remove(void **state) {
    fx *f = *state;
    add_node(f, "n1", "a");
    add_node(f, "n2", "a");
    assert_int_equal(ms_cache_node_count(f->c), 2);
    ms_node *n1 = mknode(f, "n1", "a");
    n1->unschedulable = true;
    assert_int_equal(ms_cache_update_node(f->c, n1), MS_OK);
    assert_int_equal(n1->refs, 2);
    assert_ptr_equal(live(f, "n1")->node, n1);
    assert_true(live(f, "n1")->node->unschedulable);
    assert_int_equal(ms_cache_node_count(f->c), 2);
    /* update of an unknown node adds it, as upstream */
    ms_node *n3 = mknode(f, "n3", "b");
    assert_int_equal(ms_cache_update_node(f->c, n3), MS_OK);
    assert_int_equal(ms_cache_node_count(f->c), 3);
    assert_int_equal(ms_cache_remove_node(f->c, S(f, "n3")), MS_OK);
    assert_int_equal(ms_cache_remove_node(f->c, S(f, "n3")), MS_ENOENT);
    assert_int_equal(ms_cache_remove_node(f->c, S(f, "nope")), MS_ENOENT);
    assert_null(live(f, "n3"));
    assert_int_equal(ms_cache_node_count(f->c), 2);
    update_snap(f);   /* releases what the cache dropped */
    assert_int_equal(n1->refs, 2);
    assert_int_equal(n3->refs, 1);
    ms_node_unref(n1);
    ms_node_unref(n3);
}

static void test_pod_accounting(void **state) {
    fx *f = *state;
    add_node(f, "n1", NULL);
    add_pod(f, "a", "n1", 500, 100 * MI);
    add_pod(f, "b", "n1", 250, 0);
    assert_int_equal(ms_cache_pod_count(f->c), 2);
    const ms_node_info *ni = live(f, "n1");
    assert_int_equal(ni->requested.v[MS_RES_CPU], 750);
    assert_int_equal(ni->requested.v[MS_RES_MEMORY], 100 * MI);
    assert_int_equal(ni->requested.v[MS_RES_PODS], 2);
    assert_int_equal(ni->non_zero_mem, 100 * MI + 200 * MI);

    /* update: resources follow the new version */
    ms_pod *old = ms_cache_get_pod(f->c, ms_hash_bytes("a", 1));
    assert_non_null(old);
    ms_pod *a2 = mkpod(f, "a", "n1", 1000, 100 * MI);
    assert_int_equal(ms_cache_update_pod(f->c, old, a2), MS_OK);
    assert_ptr_equal(ms_cache_get_pod(f->c, a2->meta.uid_hash), a2);
    assert_int_equal(ni->requested.v[MS_RES_CPU], 1250);
    assert_int_equal(ni->requested.v[MS_RES_PODS], 2);
    assert_int_equal(ms_cache_pod_count(f->c), 2);

    /* errors */
    ms_pod *dup = mkpod(f, "b", "n1", 1, 1);
    assert_int_equal(ms_cache_add_pod(f->c, dup), MS_EEXIST);
    assert_int_equal(ni->requested.v[MS_RES_CPU], 1250);
    ms_pod *ghost = mkpod(f, "ghost", "n1", 1, 1);
    assert_int_equal(ms_cache_remove_pod(f->c, ghost), MS_ENOENT);
    assert_int_equal(ms_cache_update_pod(f->c, ghost, ghost), MS_ENOENT);
    ms_pod *pending = mkpod(f, "pending", NULL, 1, 1);
    assert_int_equal(ms_cache_add_pod(f->c, pending), MS_EINVAL);
    assert_int_equal(ms_cache_pod_count(f->c), 2);

    assert_int_equal(ms_cache_remove_pod(f->c, a2), MS_OK);
    assert_int_equal(ni->requested.v[MS_RES_CPU], 250);
    assert_int_equal(ni->requested.v[MS_RES_PODS], 1);
    assert_null(ms_cache_get_pod(f->c, a2->meta.uid_hash));
    assert_int_equal(ms_cache_pod_count(f->c), 1);
    ms_pod_unref(a2);
    ms_pod_unref(dup);
    ms_pod_unref(ghost);
    ms_pod_unref(pending);
}

/* Delete and re-create under the same name: the update carries two uids. */
static void test_update_with_new_uid(void **state) {
    fx *f = *state;
    add_node(f, "n1", NULL);
    add_node(f, "n2", NULL);
    ms_pod *a = mkpod(f, "a", "n1", 100, 0);
    assert_int_equal(ms_cache_add_pod(f->c, a), MS_OK);
    ms_pod *b = mkpod(f, "a-v2", "n2", 300, 0);
    assert_int_equal(ms_cache_update_pod(f->c, a, b), MS_OK);
    assert_int_equal(cpu_on(f, "n1"), 0);
    assert_int_equal(cpu_on(f, "n2"), 300);
    assert_null(ms_cache_get_pod(f->c, a->meta.uid_hash));
    assert_int_equal(ms_cache_pod_count(f->c), 1);
    ms_pod_unref(a);
    ms_pod_unref(b);
}

static void test_terminal_pods(void **state) {
    fx *f = *state;
    add_node(f, "n1", NULL);
    ms_pod *done = mkpod(f, "done", "n1", 100, 0);
    done->phase = MS_PHASE_SUCCEEDED;
    assert_int_equal(ms_cache_add_pod(f->c, done), MS_OK);   /* ignored */
    assert_int_equal(ms_cache_pod_count(f->c), 0);
    assert_int_equal(cpu_on(f, "n1"), 0);

    ms_pod *run = mkpod(f, "run", "n1", 200, 0);
    assert_int_equal(ms_cache_add_pod(f->c, run), MS_OK);
    assert_int_equal(cpu_on(f, "n1"), 200);
    ms_pod *failed = mkpod(f, "run", "n1", 200, 0);
    failed->phase = MS_PHASE_FAILED;
    assert_int_equal(ms_cache_update_pod(f->c, run, failed), MS_OK);
    assert_int_equal(cpu_on(f, "n1"), 0);
    assert_int_equal(live(f, "n1")->requested.v[MS_RES_PODS], 0);
    assert_int_equal(ms_cache_pod_count(f->c), 0);
    /* its later deletion finds nothing to do */
    assert_int_equal(ms_cache_remove_pod(f->c, failed), MS_ENOENT);
    /* another terminal update of an unknown pod is fine */
    assert_int_equal(ms_cache_update_pod(f->c, failed, failed), MS_OK);

    /* a terminal add for a pod the cache has removes it */
    ms_pod *x = mkpod(f, "x", "n1", 50, 0);
    assert_int_equal(ms_cache_add_pod(f->c, x), MS_OK);
    ms_pod *x_done = mkpod(f, "x", "n1", 50, 0);
    x_done->phase = MS_PHASE_SUCCEEDED;
    assert_int_equal(ms_cache_add_pod(f->c, x_done), MS_OK);
    assert_int_equal(cpu_on(f, "n1"), 0);
    assert_int_equal(ms_cache_pod_count(f->c), 0);
    ms_pod_unref(done);
    ms_pod_unref(run);
    ms_pod_unref(failed);
    ms_pod_unref(x);
    ms_pod_unref(x_done);
}

/* ---- assume / confirm / forget / expire ---- */

static ms_pod *assume(fx *f, const char *name, const char *node, int64_t cpu) {
    ms_pod *pending = mkpod(f, name, NULL, cpu, 0);
    ms_pod *assumed = ms_pod_with_node(pending, S(f, node));
    ms_pod_unref(pending);
    assert_int_equal(ms_cache_assume_pod(f->c, assumed), MS_OK);
    return assumed;
}

static void test_assume_finish_expire(void **state) {
    fx *f = *state;   /* ttl 30 s */
    add_node(f, "n1", NULL);
    ms_pod *p = assume(f, "p", "n1", 500);
    assert_true(ms_cache_is_assumed(f->c, p));
    assert_int_equal(cpu_on(f, "n1"), 500);
    assert_int_equal(ms_cache_assume_pod(f->c, p), MS_EEXIST);
    assert_int_equal(cpu_on(f, "n1"), 500);

    /* the bind is in flight: never expires, however late */
    assert_int_equal(ms_cache_cleanup_assumed(f->c, 1e9), 0);
    assert_true(ms_cache_is_assumed(f->c, p));

    assert_int_equal(ms_cache_finish_binding(f->c, p, 100.0), MS_OK);
    assert_int_equal(ms_cache_cleanup_assumed(f->c, 129.0), 0);
    assert_int_equal(ms_cache_cleanup_assumed(f->c, 130.0), 0);   /* deadline itself: not after it */
    assert_true(ms_cache_is_assumed(f->c, p));
    assert_int_equal(ms_cache_cleanup_assumed(f->c, 130.5), 1);
    assert_false(ms_cache_is_assumed(f->c, p));
    assert_null(ms_cache_get_pod(f->c, p->meta.uid_hash));
    assert_int_equal(cpu_on(f, "n1"), 0);
    assert_int_equal(ms_cache_pod_count(f->c), 0);

    /* the informer's add after expiry simply adds it back (upstream) */
    ms_pod *bound = mkpod(f, "p", "n1", 500, 0);
    assert_int_equal(ms_cache_add_pod(f->c, bound), MS_OK);
    assert_int_equal(cpu_on(f, "n1"), 500);
    assert_false(ms_cache_is_assumed(f->c, bound));
    ms_pod_unref(p);
    ms_pod_unref(bound);
}

static void test_ttl_zero_never_expires(void **state) {
    fx *f = *state;
    ms_cache_free(f->c);
    f->c = ms_cache_new(f->in, 0);
    add_node(f, "n1", NULL);
    ms_pod *p = assume(f, "p", "n1", 500);
    assert_int_equal(ms_cache_finish_binding(f->c, p, 1.0), MS_OK);
    assert_int_equal(ms_cache_cleanup_assumed(f->c, 1e12), 0);
    assert_true(ms_cache_is_assumed(f->c, p));
    assert_int_equal(cpu_on(f, "n1"), 500);
    ms_pod_unref(p);
}

static void test_assume_then_add_confirms(void **state) {
    fx *f = *state;
    add_node(f, "n1", NULL);
    ms_pod *p = assume(f, "p", "n1", 500);
    assert_int_equal(ms_cache_finish_binding(f->c, p, 0.0), MS_OK);
    update_snap(f);
    uint64_t gen = live(f, "n1")->generation;

    ms_pod *bound = mkpod(f, "p", "n1", 500, 0);
    assert_int_equal(ms_cache_add_pod(f->c, bound), MS_OK);
    assert_false(ms_cache_is_assumed(f->c, bound));
    assert_ptr_equal(ms_cache_get_pod(f->c, bound->meta.uid_hash), bound);
    /* counted once */
    assert_int_equal(cpu_on(f, "n1"), 500);
    assert_int_equal(live(f, "n1")->npods, 1);
    assert_int_equal(ms_cache_pod_count(f->c), 1);
    /* nothing changed on the node: no new generation, nothing to copy */
    assert_int_equal(live(f, "n1")->generation, gen);
    /* confirmed pods do not expire */
    assert_int_equal(ms_cache_cleanup_assumed(f->c, 1e9), 0);
    assert_int_equal(cpu_on(f, "n1"), 500);
    /* a second add is a duplicate; forget is refused */
    assert_int_equal(ms_cache_add_pod(f->c, bound), MS_EEXIST);
    assert_int_equal(ms_cache_forget_pod(f->c, p), MS_ESTATE);
    /* finish binding after the confirmation is harmless */
    assert_int_equal(ms_cache_finish_binding(f->c, p, 0.0), MS_OK);
    assert_int_equal(ms_cache_cleanup_assumed(f->c, 1e9), 0);
    /* later updates and the delete work on the confirmed pod */
    ms_pod *bigger = mkpod(f, "p", "n1", 700, 0);
    assert_int_equal(ms_cache_update_pod(f->c, bound, bigger), MS_OK);
    assert_int_equal(cpu_on(f, "n1"), 700);
    assert_int_equal(ms_cache_remove_pod(f->c, bigger), MS_OK);
    assert_int_equal(cpu_on(f, "n1"), 0);
    assert_int_equal(live(f, "n1")->npods, 0);
    ms_pod_unref(p);
    ms_pod_unref(bound);
    ms_pod_unref(bigger);
}

static void test_assumed_confirmed_elsewhere_moves(void **state) {
    fx *f = *state;
    add_node(f, "n1", NULL);
    add_node(f, "n2", NULL);
    ms_pod *p = assume(f, "p", "n1", 500);
    ms_pod *bound = mkpod(f, "p", "n2", 500, 0);
    assert_int_equal(ms_cache_add_pod(f->c, bound), MS_OK);
    assert_false(ms_cache_is_assumed(f->c, bound));
    assert_int_equal(cpu_on(f, "n1"), 0);
    assert_int_equal(live(f, "n1")->npods, 0);
    assert_int_equal(cpu_on(f, "n2"), 500);
    assert_ptr_equal(live(f, "n2")->pods[0], bound);
    assert_int_equal(ms_cache_pod_count(f->c), 1);
    ms_pod_unref(p);
    ms_pod_unref(bound);
}

/* The informer may report the bound pod as an update (it was pending in
 * its store): that confirms the assumption too. */
static void test_assumed_confirmed_by_update(void **state) {
    fx *f = *state;
    add_node(f, "n1", NULL);
    ms_pod *p = assume(f, "p", "n1", 500);
    ms_pod *pending = mkpod(f, "p", NULL, 500, 0);
    ms_pod *bound = mkpod(f, "p", "n1", 500, 0);
    assert_int_equal(ms_cache_update_pod(f->c, pending, bound), MS_OK);
    assert_false(ms_cache_is_assumed(f->c, bound));
    assert_int_equal(cpu_on(f, "n1"), 500);
    assert_int_equal(ms_cache_pod_count(f->c), 1);
    ms_pod_unref(p);
    ms_pod_unref(pending);
    ms_pod_unref(bound);
}

static void test_forget(void **state) {
    fx *f = *state;
    add_node(f, "n1", NULL);
    ms_pod *p = assume(f, "p", "n1", 500);
    ms_pod *wrong = ms_pod_with_node(p, S(f, "n2"));
    assert_int_equal(ms_cache_forget_pod(f->c, wrong), MS_ESTATE);   /* assumed elsewhere */
    assert_true(ms_cache_is_assumed(f->c, p));
    assert_int_equal(ms_cache_forget_pod(f->c, p), MS_OK);
    assert_false(ms_cache_is_assumed(f->c, p));
    assert_int_equal(cpu_on(f, "n1"), 0);
    assert_int_equal(live(f, "n1")->requested.v[MS_RES_PODS], 0);
    assert_int_equal(ms_cache_pod_count(f->c), 0);
    assert_int_equal(ms_cache_forget_pod(f->c, p), MS_ENOENT);
    assert_int_equal(ms_cache_finish_binding(f->c, p, 0), MS_ENOENT);
    /* it can be assumed again (next cycle) */
    assert_int_equal(ms_cache_assume_pod(f->c, p), MS_OK);
    assert_int_equal(cpu_on(f, "n1"), 500);
    /* an assumed pod's deletion removes it too */
    assert_int_equal(ms_cache_remove_pod(f->c, p), MS_OK);
    assert_int_equal(cpu_on(f, "n1"), 0);
    assert_int_equal(ms_cache_cleanup_assumed(f->c, 1e9), 0);
    ms_pod_unref(p);
    ms_pod_unref(wrong);
}

static void test_many_assumed_expire_in_any_order(void **state) {
    fx *f = *state;
    add_node(f, "n1", NULL);
    ms_pod *ps[6];
    char name[32];
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof name, "p%d", i);
        ps[i] = assume(f, name, "n1", 10);
        if (i % 2 == 0) assert_int_equal(ms_cache_finish_binding(f->c, ps[i], (double)i), MS_OK);
    }
    /* p0 (deadline 30) and p2 (32) expire; p4 (34) not yet; odd ones are in flight */
    assert_int_equal(ms_cache_cleanup_assumed(f->c, 33.0), 2);
    assert_int_equal(cpu_on(f, "n1"), 40);
    assert_true(ms_cache_is_assumed(f->c, ps[4]));
    assert_false(ms_cache_is_assumed(f->c, ps[2]));
    assert_int_equal(ms_cache_forget_pod(f->c, ps[3]), MS_OK);
    assert_int_equal(ms_cache_cleanup_assumed(f->c, 1e9), 1);
    assert_int_equal(cpu_on(f, "n1"), 20);
    for (int i = 0; i < 6; i++) ms_pod_unref(ps[i]);
}

/* ---- removed nodes ---- */

static void test_node_removed_with_pods(void **state) {
    fx *f = *state;
    add_node(f, "n1", NULL);
    add_node(f, "n2", NULL);
    add_pod(f, "a", "n1", 100, 0);
    add_pod(f, "b", "n1", 200, 0);
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 2);

    assert_int_equal(ms_cache_remove_node(f->c, S(f, "n1")), MS_OK);
    assert_int_equal(ms_cache_node_count(f->c), 1);
    const ms_node_info *ni = live(f, "n1");
    assert_non_null(ni);   /* kept for its pods */
    assert_null(ni->node);
    assert_int_equal(ni->requested.v[MS_RES_CPU], 300);
    assert_int_equal(ms_cache_pod_count(f->c), 2);
    assert_int_equal(ms_cache_remove_node(f->c, S(f, "n1")), MS_ENOENT);
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 1);
    assert_int_equal(f->snap.nodes[0]->name, S(f, "n2"));
    assert_null(ms_snapshot_get(&f->snap, S(f, "n1")));
    assert_int_equal(f->snap.by_name.len, 1);

    /* a pod added for the removed node still lands on its NodeInfo */
    add_pod(f, "c", "n1", 50, 0);
    assert_int_equal(live(f, "n1")->requested.v[MS_RES_CPU], 350);
    update_snap(f);
    assert_null(ms_snapshot_get(&f->snap, S(f, "n1")));

    ms_pod *a = mkpod(f, "a", "n1", 100, 0), *b = mkpod(f, "b", "n1", 200, 0), *c = mkpod(f, "c", "n1", 50, 0);
    assert_int_equal(ms_cache_remove_pod(f->c, a), MS_OK);
    assert_int_equal(ms_cache_remove_pod(f->c, b), MS_OK);
    assert_non_null(live(f, "n1"));
    assert_int_equal(ms_cache_remove_pod(f->c, c), MS_OK);
    assert_null(live(f, "n1"));   /* last pod gone: so is the NodeInfo */
    assert_int_equal(ms_cache_pod_count(f->c), 0);
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 1);

    /* the node comes back */
    add_node(f, "n1", NULL);
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 2);
    assert_int_equal(ms_snapshot_get(&f->snap, S(f, "n1"))->npods, 0);
    ms_pod_unref(a);
    ms_pod_unref(b);
    ms_pod_unref(c);
}

/* Pods can arrive before their node (separate watches). */
static void test_pod_before_node(void **state) {
    fx *f = *state;
    add_pod(f, "a", "late", 100, 0);
    assert_int_equal(ms_cache_node_count(f->c), 0);
    assert_null(live(f, "late")->node);
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 0);
    assert_int_equal(f->snap.by_name.len, 0);
    add_node(f, "late", NULL);
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 1);
    assert_int_equal(f->snap.nodes[0]->requested.v[MS_RES_CPU], 100);
    assert_int_equal(f->snap.nodes[0]->npods, 1);
}

/* ---- images ---- */

static uint32_t num_nodes(fx *f, const char *node, const char *image) {
    const ms_node_info *ni = live(f, node);
    assert_non_null(ni);
    const ms_image_state *is = ms_node_info_image(ni, S(f, image));
    return is ? is->num_nodes : 0;
}

static void test_image_num_nodes(void **state) {
    fx *f = *state;
    image_spec i1[] = {{{"nginx:1.19", "nginx@sha256:aa", NULL}, 100}, {{"redis:6", NULL, NULL}, 50}};
    image_spec i2[] = {{{"nginx:1.19", NULL, NULL}, 999}};
    image_spec i3[] = {{{"redis:6", NULL, NULL}, 50}, {{"nginx:1.19", NULL, NULL}, 100}};
    ms_node *n1 = mknode_full(f, "n1", NULL, i1, 2);
    ms_node *n2 = mknode_full(f, "n2", NULL, i2, 1);
    ms_node *n3 = mknode_full(f, "n3", NULL, i3, 2);
    assert_int_equal(ms_cache_add_node(f->c, n1), MS_OK);
    assert_int_equal(ms_cache_add_node(f->c, n2), MS_OK);
    assert_int_equal(ms_cache_add_node(f->c, n3), MS_OK);
    assert_int_equal(num_nodes(f, "n1", "nginx:1.19"), 3);
    assert_int_equal(num_nodes(f, "n2", "nginx:1.19"), 3);
    assert_int_equal(num_nodes(f, "n1", "nginx@sha256:aa"), 1);
    assert_int_equal(num_nodes(f, "n1", "redis:6"), 2);
    assert_int_equal(num_nodes(f, "n3", "redis:6"), 2);
    assert_int_equal(live(f, "n1")->nimages, 3);
    /* the size is the one of the first node that reported the image */
    assert_int_equal(ms_node_info_image(live(f, "n2"), S(f, "nginx:1.19"))->size, 100);
    update_snap(f);
    assert_int_equal(ms_node_info_image(ms_snapshot_get(&f->snap, S(f, "n2")), S(f, "nginx:1.19"))->num_nodes, 3);

    /* n3 drops nginx */
    image_spec i3b[] = {{{"redis:6", NULL, NULL}, 50}};
    ms_node *n3b = mknode_full(f, "n3", NULL, i3b, 1);
    assert_int_equal(ms_cache_update_node(f->c, n3b), MS_OK);
    assert_int_equal(num_nodes(f, "n1", "nginx:1.19"), 2);
    assert_int_equal(num_nodes(f, "n3", "nginx:1.19"), 0);
    assert_int_equal(num_nodes(f, "n3", "redis:6"), 2);
    /* the snapshot sees it too: every holder was recopied */
    update_snap(f);
    assert_int_equal(ms_node_info_image(ms_snapshot_get(&f->snap, S(f, "n2")), S(f, "nginx:1.19"))->num_nodes, 2);

    /* n1 is deleted */
    assert_int_equal(ms_cache_remove_node(f->c, S(f, "n1")), MS_OK);
    assert_int_equal(num_nodes(f, "n2", "nginx:1.19"), 1);
    assert_int_equal(num_nodes(f, "n3", "redis:6"), 1);
    update_snap(f);
    assert_int_equal(ms_node_info_image(ms_snapshot_get(&f->snap, S(f, "n3")), S(f, "redis:6"))->num_nodes, 1);

    /* an update that changes nothing about images leaves the counts and
     * does not touch other nodes */
    uint64_t gen_n3 = live(f, "n3")->generation;
    ms_node *n2b = mknode_full(f, "n2", NULL, i2, 1);
    assert_int_equal(ms_cache_update_node(f->c, n2b), MS_OK);
    assert_int_equal(num_nodes(f, "n2", "nginx:1.19"), 1);
    assert_int_equal(live(f, "n3")->generation, gen_n3);

    /* every image gone: a new node re-creates the state with its own size */
    assert_int_equal(ms_cache_remove_node(f->c, S(f, "n2")), MS_OK);
    image_spec i4[] = {{{"nginx:1.19", NULL, NULL}, 7}};
    ms_node *n4 = mknode_full(f, "n4", NULL, i4, 1);
    assert_int_equal(ms_cache_add_node(f->c, n4), MS_OK);
    assert_int_equal(num_nodes(f, "n4", "nginx:1.19"), 1);
    assert_int_equal(ms_node_info_image(live(f, "n4"), S(f, "nginx:1.19"))->size, 7);

    ms_node *all[] = {n1, n2, n3, n3b, n2b, n4};
    for (int i = 0; i < 6; i++) ms_node_unref(all[i]);
}

/* ---- node tree ---- */

static void test_node_tree_round_robin(void **state) {
    fx *f = *state;
    /* zones a, b, c; nodes added a1 a2 b1 c1 a3 b2 */
    const char *adds[][2] = {{"a1", "a"}, {"a2", "a"}, {"b1", "b"}, {"c1", "c"}, {"a3", "a"}, {"b2", "b"}};
    for (int i = 0; i < 6; i++) add_node(f, adds[i][0], adds[i][1]);
    const char *want[] = {"a1", "b1", "c1", "a2", "b2", "a3"};
    assert_int_equal(ms_cache_node_count(f->c), 6);
    for (uint32_t i = 0; i < 6; i++) assert_int_equal(ms_cache_node_at(f->c, i)->name, S(f, want[i]));
    assert_null(ms_cache_node_at(f->c, 6));
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 6);
    for (uint32_t i = 0; i < 6; i++) assert_int_equal(f->snap.nodes[i]->name, S(f, want[i]));

    /* zone b empties and leaves the zone list; a later b node goes last */
    assert_int_equal(ms_cache_remove_node(f->c, S(f, "b1")), MS_OK);
    assert_int_equal(ms_cache_remove_node(f->c, S(f, "b2")), MS_OK);
    add_node(f, "b3", "b");
    const char *want2[] = {"a1", "c1", "b3", "a2", "a3"};
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 5);
    for (uint32_t i = 0; i < 5; i++) assert_int_equal(f->snap.nodes[i]->name, S(f, want2[i]));

    /* a node that changes zone moves in the order */
    ms_node *a1 = mknode(f, "a1", "c");
    assert_int_equal(ms_cache_update_node(f->c, a1), MS_OK);
    ms_node_unref(a1);
    const char *want3[] = {"a2", "c1", "b3", "a3", "a1"};
    update_snap(f);
    for (uint32_t i = 0; i < 5; i++) assert_int_equal(f->snap.nodes[i]->name, S(f, want3[i]));
    for (uint32_t i = 0; i < 5; i++) assert_int_equal(ms_cache_node_at(f->c, i)->name, S(f, want3[i]));
}

/* upstream GetZoneKey: beta labels first, then topology.kubernetes.io;
 * region and zone together make the key. */
static void test_zone_key(void **state) {
    fx *f = *state;
    ms_node_tree t;
    ms_node_tree_init(&t, f->in);
    static const struct {
        const char *labels[4];
        const char *region, *zone;
    } cases[] = {
        {{NULL}, NULL, NULL},
        {{"topology.kubernetes.io/zone=z1", NULL}, NULL, "z1"},
        {{"failure-domain.beta.kubernetes.io/zone=z2", NULL}, NULL, "z2"},
        {{"failure-domain.beta.kubernetes.io/zone=beta", "topology.kubernetes.io/zone=ga", NULL}, NULL, "beta"},
        {{"topology.kubernetes.io/region=r", "topology.kubernetes.io/zone=z", NULL}, "r", "z"},
        {{"failure-domain.beta.kubernetes.io/region=r", "topology.kubernetes.io/zone=z", NULL}, "r", "z"},
        /* present but empty beta label wins and counts as no zone */
        {{"failure-domain.beta.kubernetes.io/zone=", "topology.kubernetes.io/zone=z", NULL}, NULL, NULL},
        {{"kubernetes.io/hostname=h", NULL}, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_node *n = mknode_full(f, "n", cases[i].labels, NULL, 0);
        ms_zone_key k = ms_node_tree_zone_key(&t, n);
        ms_str wr = cases[i].region ? S(f, cases[i].region) : MS_STR_NONE;
        ms_str wz = cases[i].zone ? S(f, cases[i].zone) : MS_STR_NONE;
        if (k.region != wr || k.zone != wz) fail_msg("case %zu: wrong zone key", i);
        ms_node_unref(n);
    }
    /* same zone name in two regions: two zones */
    ms_zone_key r1 = {S(f, "r1"), S(f, "z")}, r2 = {S(f, "r2"), S(f, "z")};
    assert_int_equal(ms_node_tree_add(&t, S(f, "x1"), r1), MS_OK);
    assert_int_equal(ms_node_tree_add(&t, S(f, "x2"), r1), MS_OK);
    assert_int_equal(ms_node_tree_add(&t, S(f, "y1"), r2), MS_OK);
    assert_int_equal(ms_node_tree_add(&t, S(f, "y1"), r2), MS_EEXIST);
    assert_int_equal(t.nzones, 2);
    ms_str out[3];
    assert_int_equal(ms_node_tree_list(&t, out), 3);
    assert_int_equal(out[0], S(f, "x1"));
    assert_int_equal(out[1], S(f, "y1"));
    assert_int_equal(out[2], S(f, "x2"));
    assert_int_equal(ms_node_tree_remove(&t, S(f, "y1"), r1), MS_ENOENT);
    assert_int_equal(ms_node_tree_remove(&t, S(f, "y1"), r2), MS_OK);
    assert_int_equal(t.nzones, 1);
    assert_int_equal(t.num_nodes, 2);
    ms_node_tree_free(&t);
}

/* ---- snapshot ---- */

static uint32_t newer_than(const ms_snapshot *s, uint64_t gen) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->nnodes; i++) n += s->nodes[i]->generation > gen;
    return n;
}

static void test_snapshot_incremental(void **state) {
    fx *f = *state;
    char name[32];
    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof name, "n%02d", i);
        add_node(f, name, i % 3 ? "a" : "b");
    }
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 50);
    assert_int_equal(f->snap.by_name.len, 50);
    ms_node_info *before[50];
    ms_str before_names[50];
    memcpy(before, f->snap.nodes, sizeof before);
    for (int i = 0; i < 50; i++) before_names[i] = before[i]->name;
    ms_node_info *n07 = ms_snapshot_get(&f->snap, S(f, "n07"));
    assert_non_null(n07);
    assert_true(n07->borrowed);

    /* One bind: exactly one NodeInfo is newer than the snapshot, and only
     * that one is copied (a marker written into another copy survives). */
    uint64_t g0 = f->snap.generation;
    ms_node_info *n08 = ms_snapshot_get(&f->snap, S(f, "n08"));
    n08->non_zero_cpu = -12345;
    ms_pod *p = assume(f, "p", "n07", 300);
    assert_int_equal(newer_than(&f->snap, g0), 0);   /* not copied yet */
    update_snap(f);
    assert_int_equal(newer_than(&f->snap, g0), 1);
    assert_int_equal(n08->non_zero_cpu, -12345);
    n08->non_zero_cpu = 0;
    assert_true(n07->generation > g0);
    assert_int_equal(n07->requested.v[MS_RES_CPU], 300);
    assert_int_equal(n07->npods, 1);
    assert_ptr_equal(n07->pods[0], p);
    assert_int_equal(f->snap.generation, n07->generation);
    /* same NodeInfo objects, same order */
    assert_memory_equal(before, f->snap.nodes, sizeof before);

    /* Nothing changed: nothing copied, the generation stays. */
    uint64_t g1 = f->snap.generation;
    update_snap(f);
    assert_int_equal(f->snap.generation, g1);
    assert_int_equal(newer_than(&f->snap, g1), 0);

    /* The node list is not rebuilt for pod changes: a marker order
     * survives; a node add rebuilds it. */
    ms_node_info *tmp = f->snap.nodes[0];
    f->snap.nodes[0] = f->snap.nodes[1];
    f->snap.nodes[1] = tmp;
    ms_pod *q = assume(f, "q", "n11", 100);
    update_snap(f);
    assert_ptr_equal(f->snap.nodes[0], before[1]);
    assert_int_equal(newer_than(&f->snap, g1), 1);
    assert_int_equal(ms_snapshot_get(&f->snap, S(f, "n11"))->requested.v[MS_RES_CPU], 100);
    add_node(f, "n50", "b");
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 51);
    assert_ptr_equal(f->snap.nodes[0], before[0]);
    for (int i = 0; i < 50; i++) assert_ptr_equal(ms_snapshot_get(&f->snap, before[i]->name), before[i]);

    /* Removing a node: it disappears from by_name and the list; the other
     * NodeInfos keep their addresses. */
    assert_int_equal(ms_cache_remove_node(f->c, S(f, "n20")), MS_OK);
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 50);
    assert_int_equal(f->snap.by_name.len, 50);
    assert_null(ms_snapshot_get(&f->snap, S(f, "n20")));
    for (uint32_t i = 0; i < f->snap.nnodes; i++) assert_int_not_equal(f->snap.nodes[i]->name, S(f, "n20"));
    for (int i = 0; i < 50; i++)
        if (before_names[i] != S(f, "n20")) assert_ptr_equal(ms_snapshot_get(&f->snap, before_names[i]), before[i]);
    /* Each NodeInfo knows its position in the rebuilt list (state kept per
     * node is sized by the node count, not by the name ids). */
    for (uint32_t i = 0; i < f->snap.nnodes; i++) assert_int_equal(f->snap.nodes[i]->index, i);
    ms_pod_unref(p);
    ms_pod_unref(q);
}

/* The change list of each update: the NodeInfos copied, or updated_all
 * when NodeInfos were dropped. */
static void test_snapshot_updated_list(void **state) {
    fx *f = *state;
    add_node(f, "n1", "a");
    add_node(f, "n2", "b");
    add_node(f, "n3", "c");
    update_snap(f);
    uint64_t seq = f->snap.update_seq;
    assert_true(seq > 0);
    assert_int_equal(f->snap.nupdated, 3);
    assert_false(f->snap.updated_all);

    update_snap(f);
    assert_int_equal(f->snap.update_seq, seq + 1);
    assert_int_equal(f->snap.nupdated, 0);
    assert_false(f->snap.updated_all);

    add_pod(f, "p1", "n2", 100, 0);
    update_snap(f);
    assert_int_equal(f->snap.update_seq, seq + 2);
    assert_int_equal(f->snap.nupdated, 1);
    assert_ptr_equal(f->snap.updated[0], ms_snapshot_get(&f->snap, S(f, "n2")));
    assert_false(f->snap.updated_all);

    add_pod(f, "p2", "n1", 100, 0);
    add_pod(f, "p3", "n3", 100, 0);
    add_pod(f, "p4", "n1", 100, 0);
    update_snap(f);
    assert_int_equal(f->snap.nupdated, 2);
    ms_node_info *n1 = ms_snapshot_get(&f->snap, S(f, "n1")), *n3 = ms_snapshot_get(&f->snap, S(f, "n3"));
    assert_true((f->snap.updated[0] == n1 && f->snap.updated[1] == n3) ||
                (f->snap.updated[0] == n3 && f->snap.updated[1] == n1));

    assert_int_equal(ms_cache_remove_node(f->c, S(f, "n3")), MS_OK);
    update_snap(f);
    assert_true(f->snap.updated_all);
    update_snap(f);
    assert_false(f->snap.updated_all);
    assert_int_equal(f->snap.nupdated, 0);
}

static bool in_list(ms_node_info *const *list, uint32_t n, const ms_node_info *ni) {
    for (uint32_t i = 0; i < n; i++)
        if (list[i] == ni) return true;
    return false;
}

/* The affinity lists hold exactly the snapshot's nodes with such pods, each
 * once, however they were reached (rebuilt or kept up to date). */
static void assert_affinity_lists(const ms_snapshot *s) {
    uint32_t aff = 0, anti = 0;
    for (uint32_t i = 0; i < s->nnodes; i++) {
        ms_node_info *ni = s->nodes[i];
        assert_int_equal(in_list(s->have_pods_with_affinity, s->nhave_affinity, ni),
                         ni->npods_with_affinity > 0);
        assert_int_equal(in_list(s->have_pods_with_required_anti_affinity, s->nhave_anti, ni),
                         ni->npods_with_required_anti_affinity > 0);
        aff += ni->npods_with_affinity > 0;
        anti += ni->npods_with_required_anti_affinity > 0;
    }
    assert_int_equal(s->nhave_affinity, aff);
    assert_int_equal(s->nhave_anti, anti);
}

static void test_snapshot_affinity_lists(void **state) {
    fx *f = *state;
    add_node(f, "n1", "a");
    add_node(f, "n2", "b");
    add_node(f, "n3", "c");
    update_snap(f);
    assert_int_equal(f->snap.nhave_affinity, 0);
    assert_int_equal(f->snap.nhave_anti, 0);

    ms_pod *aff = mkpod(f, "aff", "n2", 0, 0);
    with_affinity(aff);
    ms_pod *anti = mkpod(f, "anti", "n3", 0, 0);
    with_required_anti_affinity(anti);
    assert_int_equal(ms_cache_add_pod(f->c, aff), MS_OK);
    assert_int_equal(ms_cache_add_pod(f->c, anti), MS_OK);
    update_snap(f);
    assert_int_equal(f->snap.nhave_affinity, 2);   /* anti-affinity counts as affinity */
    assert_true(in_list(f->snap.have_pods_with_affinity, 2, ms_snapshot_get(&f->snap, S(f, "n2"))));
    assert_true(in_list(f->snap.have_pods_with_affinity, 2, ms_snapshot_get(&f->snap, S(f, "n3"))));
    assert_int_equal(f->snap.nhave_anti, 1);
    assert_ptr_equal(f->snap.have_pods_with_required_anti_affinity[0], ms_snapshot_get(&f->snap, S(f, "n3")));

    assert_int_equal(ms_cache_remove_pod(f->c, anti), MS_OK);
    update_snap(f);
    assert_int_equal(f->snap.nhave_affinity, 1);
    assert_int_equal(f->snap.nhave_anti, 0);
    ms_pod_unref(aff);
    ms_pod_unref(anti);
}

/* Pods with and without (anti-)affinity added and removed at random, with
 * nodes added and removed now and then: after every update the lists kept
 * up to date equal a recount over the nodes. */
static void test_snapshot_affinity_lists_follow_changes(void **state) {
    fx *f = *state;
    enum { NODES = 6, PODS = 24, STEPS = 600 };
    char name[32];
    for (int i = 0; i < NODES; i++) {
        snprintf(name, sizeof name, "n%d", i);
        add_node(f, name, "z");
    }
    update_snap(f);
    ms_pod *pods[PODS] = {0};
    bool node_gone[NODES] = {0};
    uint32_t rnd = 12345;
    for (int step = 0; step < STEPS; step++) {
        rnd = rnd * 1103515245u + 12345u;
        uint32_t r = rnd >> 8;
        int slot = (int)(r % PODS), node = (int)((r / PODS) % NODES);
        if (r % 97 == 0) {
            /* A node leaves (its pods with it) or comes back. */
            snprintf(name, sizeof name, "n%d", node);
            if (node_gone[node]) {
                add_node(f, name, "z");
            } else {
                for (int i = 0; i < PODS; i++)
                    if (pods[i] && pods[i]->node_name == S(f, name)) {
                        assert_int_equal(ms_cache_remove_pod(f->c, pods[i]), MS_OK);
                        ms_pod_unref(pods[i]);
                        pods[i] = NULL;
                    }
                assert_int_equal(ms_cache_remove_node(f->c, S(f, name)), MS_OK);
            }
            node_gone[node] = !node_gone[node];
        } else if (pods[slot]) {
            assert_int_equal(ms_cache_remove_pod(f->c, pods[slot]), MS_OK);
            ms_pod_unref(pods[slot]);
            pods[slot] = NULL;
        } else if (!node_gone[node]) {
            snprintf(name, sizeof name, "p%d-%d", slot, step);
            char node_name[32];
            snprintf(node_name, sizeof node_name, "n%d", node);
            ms_pod *p = mkpod(f, name, node_name, 0, 0);
            if ((r >> 3) % 3 == 1) with_affinity(p);
            if ((r >> 3) % 3 == 2) with_required_anti_affinity(p);
            assert_int_equal(ms_cache_add_pod(f->c, p), MS_OK);
            pods[slot] = p;
        }
        if (step % 3 == 0) {
            update_snap(f);
            assert_affinity_lists(&f->snap);
        }
    }
    for (int i = 0; i < PODS; i++) ms_pod_unref(pods[i]);
}

/* A pod the cache drops stays readable through the snapshot until the next
 * update (the ASan build checks this). */
static void test_snapshot_keeps_dropped_pods_alive(void **state) {
    fx *f = *state;
    add_node(f, "n1", NULL);
    ms_pod *p = mkpod(f, "p", "n1", 100, 0);
    assert_int_equal(ms_cache_add_pod(f->c, p), MS_OK);
    uint64_t uid = p->meta.uid_hash;
    update_snap(f);
    assert_int_equal(ms_cache_remove_pod(f->c, p), MS_OK);
    ms_pod_unref(p);   /* the test's reference: only the deferred one is left */
    ms_node_info *ni = ms_snapshot_get(&f->snap, S(f, "n1"));
    assert_int_equal(ni->npods, 1);
    assert_int_equal(ni->pods[0]->meta.uid_hash, uid);
    assert_int_equal(ni->pods[0]->requests.v[MS_RES_CPU], 100);
    update_snap(f);
    assert_int_equal(ni->npods, 0);
}

/* The point of the incremental snapshot: with many nodes, one change costs
 * one copy. Counted through generations, with a large cluster. */
static void test_snapshot_scale_one_change(void **state) {
    fx *f = *state;
    char name[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "node-%d", i);
        add_node(f, name, (const char *[]){"a", "b", "c"}[i % 3]);
    }
    update_snap(f);
    assert_int_equal(f->snap.nnodes, 5000);
    /* markers in every copy: an update that recopied untouched NodeInfos
     * would erase them */
    for (uint32_t i = 0; i < f->snap.nnodes; i++) f->snap.nodes[i]->non_zero_mem = -1;
    for (int i = 0; i < 200; i++) {
        uint64_t g = f->snap.generation;
        char pod[32], node[32];
        snprintf(pod, sizeof pod, "pod-%d", i);
        snprintf(node, sizeof node, "node-%d", (i * 37) % 5000);
        ms_pod *p = assume(f, pod, node, 10);
        /* the informer confirms it before the next cycle: no extra copy */
        ms_pod *bound = mkpod(f, pod, node, 10, 0);
        assert_int_equal(ms_cache_add_pod(f->c, bound), MS_OK);
        ms_pod_unref(bound);
        ms_pod_unref(p);
        update_snap(f);
        assert_int_equal(newer_than(&f->snap, g), 1);
    }
    assert_int_equal(ms_cache_pod_count(f->c), 200);
    uint32_t untouched = 0;
    for (uint32_t i = 0; i < f->snap.nnodes; i++) untouched += f->snap.nodes[i]->non_zero_mem == -1;
    assert_int_equal(untouched, 5000 - 200);   /* (i * 37) % 5000 hits 200 distinct nodes */
}

/* Without snapshot updates (an idle scheduler), dropped pods are still
 * released: the oldest beyond a bound go. ASan checks nothing leaks and
 * nothing is freed twice. */
static void test_dropped_pods_bounded_without_snapshots(void **state) {
    fx *f = *state;
    add_node(f, "n1", NULL);
    char name[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "churn-%d", i);
        ms_pod *p = mkpod(f, name, "n1", 1, 0);
        assert_int_equal(ms_cache_add_pod(f->c, p), MS_OK);
        assert_int_equal(ms_cache_remove_pod(f->c, p), MS_OK);
        ms_pod_unref(p);
    }
    assert_int_equal(ms_cache_pod_count(f->c), 0);
    assert_int_equal(cpu_on(f, "n1"), 0);
    update_snap(f);
    assert_int_equal(f->snap.nodes[0]->npods, 0);
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_nodes_add_update_remove),
        T(test_pod_accounting),
        T(test_update_with_new_uid),
        T(test_terminal_pods),
        T(test_assume_finish_expire),
        T(test_ttl_zero_never_expires),
        T(test_assume_then_add_confirms),
        T(test_assumed_confirmed_elsewhere_moves),
        T(test_assumed_confirmed_by_update),
        T(test_forget),
        T(test_many_assumed_expire_in_any_order),
        T(test_node_removed_with_pods),
        T(test_pod_before_node),
        T(test_image_num_nodes),
        T(test_node_tree_round_robin),
        T(test_zone_key),
        T(test_snapshot_incremental),
        T(test_snapshot_updated_list),
        T(test_snapshot_affinity_lists),
        T(test_snapshot_affinity_lists_follow_changes),
        T(test_snapshot_keeps_dropped_pods_alive),
        T(test_snapshot_scale_one_change),
        T(test_dropped_pods_bounded_without_snapshots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
