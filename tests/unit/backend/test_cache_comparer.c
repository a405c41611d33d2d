/* The cache comparer: two views in, the differences out; and the views
 * built from a cache and a queue. */
#include "testutil.h"

#include "backend/cache.h"
#include "backend/cache_comparer.h"
#include "backend/queue.h"
#include "cache_view_fixtures.h"

typedef struct fx {
    ms_interner *in;
    ms_cache_view cached, actual;
    ms_cache_diff diffs[16];
    uint32_t ndiffs;
} fx;

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    f->in = ms_interner_new();
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    ms_cache_view_free(&f->cached);
    ms_cache_view_free(&f->actual);
    ms_interner_free(f->in);
    free(f);
    return 0;
}

static ms_str S(fx *f, const char *s) { return ms_intern_cstr(f->in, s); }

static ms_node *mknode(fx *f, const char *name, int64_t cpu) { return cvf_node(f->in, name, cpu); }
static ms_pod *mkpod(fx *f, const char *name, const char *uid, const char *node) {
    return cvf_pod(f->in, name, uid, node);
}
static void add_node(fx *f, ms_cache_view *v, const char *name, int64_t cpu) { cvf_add_node(f->in, v, name, cpu); }
static void add_pod(fx *f, ms_cache_view *v, const char *name, const char *uid, const char *node) {
    cvf_add_pod(f->in, v, name, uid, node);
}

static void collect(void *ctx, const ms_cache_diff *d) {
    fx *f = ctx;
    assert_true(f->ndiffs < 16);
    f->diffs[f->ndiffs++] = *d;
}

static uint32_t compare(fx *f) {
    f->ndiffs = 0;
    return ms_cache_compare(&f->cached, &f->actual, collect, f);
}

/* The difference about this name, or NULL. */
static const ms_cache_diff *diff_of(fx *f, const char *name) {
    for (uint32_t i = 0; i < f->ndiffs; i++)
        if (f->diffs[i].name == S(f, name)) return &f->diffs[i];
    return NULL;
}

static void test_equal_views(void **state) {
    fx *f = *state;
    add_node(f, &f->cached, "n1", 4000);
    add_node(f, &f->cached, "n2", 4000);
    add_node(f, &f->actual, "n2", 4000);   /* another order */
    add_node(f, &f->actual, "n1", 4000);
    add_pod(f, &f->cached, "a", "uid-a", "n1");
    add_pod(f, &f->cached, "b", "uid-b", NULL);
    add_pod(f, &f->actual, "b", "uid-b", NULL);
    add_pod(f, &f->actual, "a", "uid-a", "n1");
    assert_int_equal(compare(f), 0);
    assert_int_equal(f->ndiffs, 0);
}

static void test_empty_views(void **state) {
    fx *f = *state;
    assert_int_equal(ms_cache_compare(&f->cached, &f->actual, NULL, NULL), 0);
}

static void test_nodes(void **state) {
    fx *f = *state;
    add_node(f, &f->cached, "same", 4000);
    add_node(f, &f->cached, "gone", 4000);
    add_node(f, &f->cached, "resized", 4000);
    add_node(f, &f->actual, "same", 4000);
    add_node(f, &f->actual, "new", 4000);
    add_node(f, &f->actual, "resized", 8000);
    assert_int_equal(compare(f), 3);
    assert_int_equal(diff_of(f, "gone")->kind, MS_CACHE_NODE_REDUNDANT);
    assert_int_equal(diff_of(f, "new")->kind, MS_CACHE_NODE_MISSING);
    assert_int_equal(diff_of(f, "resized")->kind, MS_CACHE_NODE_DIFFERENT);
    assert_null(diff_of(f, "same"));
    assert_string_equal(ms_cache_diff_kind_name(MS_CACHE_NODE_DIFFERENT), "different");
}

static void test_pods(void **state) {
    fx *f = *state;
    add_node(f, &f->cached, "n1", 4000);
    add_node(f, &f->actual, "n1", 4000);
    add_pod(f, &f->cached, "ok", "uid-ok", "n1");
    add_pod(f, &f->actual, "ok", "uid-ok", "n1");
    add_pod(f, &f->cached, "deleted", "uid-del", "n1");        /* gone from the server */
    add_pod(f, &f->actual, "created", "uid-new", NULL);        /* never seen */
    add_pod(f, &f->cached, "moved", "uid-mv", "n1");           /* bound elsewhere */
    add_pod(f, &f->actual, "moved", "uid-mv", "n2");
    add_pod(f, &f->cached, "unbound", "uid-ub", NULL);         /* bound on the server, pending here */
    add_pod(f, &f->actual, "unbound", "uid-ub", "n1");
    add_pod(f, &f->cached, "renewed", "uid-old", "n1");        /* same name, another uid */
    add_pod(f, &f->actual, "renewed", "uid-renewed", "n1");
    assert_int_equal(compare(f), 6);
    assert_int_equal(diff_of(f, "deleted")->kind, MS_CACHE_POD_REDUNDANT);
    assert_int_equal(diff_of(f, "deleted")->cached_node, S(f, "n1"));
    assert_int_equal(diff_of(f, "created")->kind, MS_CACHE_POD_MISSING);
    const ms_cache_diff *d = diff_of(f, "moved");
    assert_int_equal(d->kind, MS_CACHE_POD_WRONG_NODE);
    assert_int_equal(d->cached_node, S(f, "n1"));
    assert_int_equal(d->actual_node, S(f, "n2"));
    d = diff_of(f, "unbound");
    assert_int_equal(d->kind, MS_CACHE_POD_WRONG_NODE);
    assert_int_equal(d->cached_node, MS_STR_NONE);
    assert_int_equal(d->namespace_, S(f, "default"));
    assert_null(diff_of(f, "ok"));
    uint32_t missing = 0, redundant = 0;
    for (uint32_t i = 0; i < f->ndiffs; i++)
        if (f->diffs[i].name == S(f, "renewed")) {
            missing += f->diffs[i].kind == MS_CACHE_POD_MISSING;
            redundant += f->diffs[i].kind == MS_CACHE_POD_REDUNDANT;
        }
    assert_int_equal(missing, 1);
    assert_int_equal(redundant, 1);
}

/* The same pod twice in one view (in the cache and in the queue): the
 * second is redundant. */
static void test_duplicate(void **state) {
    fx *f = *state;
    add_pod(f, &f->cached, "twice", "uid-2", "n1");
    add_pod(f, &f->cached, "twice", "uid-2", "n1");
    add_pod(f, &f->actual, "twice", "uid-2", "n1");
    assert_int_equal(compare(f), 1);
    assert_int_equal(f->diffs[0].kind, MS_CACHE_POD_REDUNDANT);
}

/* A cache with a bound and an assumed pod, and a queue with a pending
 * one, against the same cluster as the API server lists it. */
static void test_views_of_cache_and_queue(void **state) {
    fx *f = *state;
    ms_cache *c = ms_cache_new(f->in, 30);
    ms_node *n1 = mknode(f, "n1", 4000), *n2 = mknode(f, "n2", 2000);
    assert_int_equal(ms_cache_add_node(c, n1), MS_OK);
    assert_int_equal(ms_cache_add_node(c, n2), MS_OK);
    ms_pod *bound = mkpod(f, "bound", "uid-b", "n1"), *assumed = mkpod(f, "assumed", "uid-a", "n2");
    ms_pod *pending = mkpod(f, "pending", "uid-p", NULL);
    assert_int_equal(ms_cache_add_pod(c, bound), MS_OK);
    assert_int_equal(ms_cache_assume_pod(c, assumed), MS_OK);
    ms_queue *q = ms_queue_new(NULL);
    assert_int_equal(ms_queue_add(q, pending, 1), MS_OK);
    /* a pod popped and assumed (its bind in flight) is counted once */
    ms_pod *popped = mkpod(f, "popped", "uid-popped", NULL);
    assert_int_equal(ms_queue_add(q, popped, 0), MS_OK);
    ms_queued_pod *qp = ms_queue_pop(q, 2);
    assert_ptr_equal(qp->pod, popped);
    ms_pod *placed = ms_pod_with_node(popped, S(f, "n1"));
    assert_int_equal(ms_cache_assume_pod(c, placed), MS_OK);

    assert_int_equal(ms_cache_view_of_cache(&f->cached, c), 0);
    assert_int_equal(ms_cache_view_of_queue(&f->cached, q, c), 0);
    assert_int_equal(f->cached.nnodes, 2);
    assert_int_equal(f->cached.npods, 4);
    assert_int_equal(ms_cache_view_add_node(&f->actual, n1), 0);
    assert_int_equal(ms_cache_view_add_node(&f->actual, n2), 0);
    assert_int_equal(ms_cache_view_add_pod(&f->actual, bound, bound->node_name), 0);
    assert_int_equal(ms_cache_view_add_pod(&f->actual, pending, MS_STR_NONE), 0);
    assert_int_equal(ms_cache_view_add_pod(&f->actual, popped, MS_STR_NONE), 0);
    /* the assumed pods' bindings have not reached the server yet */
    assert_int_equal(compare(f), 2);
    assert_int_equal(diff_of(f, "assumed")->kind, MS_CACHE_POD_REDUNDANT);
    assert_int_equal(diff_of(f, "assumed")->cached_node, S(f, "n2"));
    assert_int_equal(diff_of(f, "popped")->kind, MS_CACHE_POD_WRONG_NODE);
    assert_int_equal(diff_of(f, "popped")->cached_node, S(f, "n1"));
    assert_int_equal(diff_of(f, "popped")->actual_node, MS_STR_NONE);

    ms_queue_done(q, qp);
    ms_queue_free(q);
    ms_cache_free(c);
    ms_pod_unref(popped);
    ms_pod_unref(placed);
    ms_node_unref(n1);
    ms_node_unref(n2);
    ms_pod_unref(bound);
    ms_pod_unref(assumed);
    ms_pod_unref(pending);
}

/* Pods left on a node that was removed are the cache's too: a pod the
 * API server no longer has there is redundant. */
static void test_pods_of_a_node_that_is_gone(void **state) {
    fx *f = *state;
    ms_cache *c = ms_cache_new(f->in, 30);
    ms_node *n1 = mknode(f, "n1", 4000), *n2 = mknode(f, "n2", 2000);
    assert_int_equal(ms_cache_add_node(c, n1), MS_OK);
    assert_int_equal(ms_cache_add_node(c, n2), MS_OK);
    ms_pod *left = mkpod(f, "left", "uid-l", "n1"), *kept = mkpod(f, "kept", "uid-k", "n2");
    assert_int_equal(ms_cache_add_pod(c, left), MS_OK);
    assert_int_equal(ms_cache_add_pod(c, kept), MS_OK);
    assert_int_equal(ms_cache_remove_node(c, S(f, "n1")), MS_OK);
    assert_int_equal(ms_cache_view_of_cache(&f->cached, c), 0);
    assert_int_equal(f->cached.nnodes, 1);
    assert_int_equal(f->cached.npods, 2);
    assert_int_equal(ms_cache_view_add_node(&f->actual, n2), 0);
    assert_int_equal(ms_cache_view_add_pod(&f->actual, kept, kept->node_name), 0);
    assert_int_equal(compare(f), 1);
    assert_int_equal(diff_of(f, "left")->kind, MS_CACHE_POD_REDUNDANT);
    assert_int_equal(diff_of(f, "left")->cached_node, S(f, "n1"));
    ms_cache_free(c);
    ms_node_unref(n1);
    ms_node_unref(n2);
    ms_pod_unref(left);
    ms_pod_unref(kept);
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_equal_views), T(test_empty_views), T(test_nodes), T(test_pods), T(test_duplicate),
        T(test_views_of_cache_and_queue), T(test_pods_of_a_node_that_is_gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
