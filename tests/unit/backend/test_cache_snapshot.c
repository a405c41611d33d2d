/* The snapshot's change journal: what a consumer that last looked at a
 * generation has to apply, through the real cache. */
#include "testutil.h"

#include "backend/cache.h"
#include "backend/cache_snapshot.h"

typedef struct fx {
    ms_interner *in;
    ms_cache *c;
    ms_snapshot s;
} fx;

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    f->in = ms_interner_new();
    f->c = ms_cache_new(f->in, 0);
    ms_snapshot_init(&f->s);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    ms_cache_free(f->c);
    ms_snapshot_free(&f->s);
    ms_interner_free(f->in);
    free(f);
    return 0;
}

static ms_str S(fx *f, const char *s) { return ms_intern_cstr(f->in, s); }

static void add_node(fx *f, const char *name) {
    ms_node *n = ms_node_alloc();
    n->meta.name = S(f, name);
    n->allocatable.v[MS_RES_PODS] = 110;
    assert_int_equal(ms_cache_add_node(f->c, n), MS_OK);
    ms_node_unref(n);
}

static ms_pod *mkpod(fx *f, const char *name, const char *node) {
    ms_pod *p = ms_pod_alloc();
    p->meta.name = S(f, name);
    p->meta.namespace_ = S(f, "default");
    p->meta.uid_hash = ms_hash_bytes(name, strlen(name));
    p->node_name = S(f, node);
    p->phase = MS_PHASE_RUNNING;
    return p;
}

static void add_pod(fx *f, const char *name, const char *node) {
    ms_pod *p = mkpod(f, name, node);
    assert_int_equal(ms_cache_add_pod(f->c, p), MS_OK);
    ms_pod_unref(p);
}

static void update(fx *f) { assert_int_equal(ms_cache_update_snapshot(f->c, &f->s), MS_OK); }

/* The names in the changes since `seen`, sorted and deduplicated, as text. */
static const char *changes(fx *f, uint64_t seen) {
    static char buf[256];
    const ms_snapshot_change *ch;
    uint32_t n;
    if (!ms_snapshot_changes(&f->s, seen, &ch, &n)) return "(rebuild)";
    const char *names[64];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n && k < 64; i++) {
        const char *s = ms_str_get(f->in, ch[i].name);
        uint32_t j = 0;
        while (j < k && strcmp(names[j], s) < 0) j++;
        if (j < k && strcmp(names[j], s) == 0) continue;
        memmove(names + j + 1, names + j, (k - j) * sizeof *names);
        names[j] = s;
        k++;
    }
    buf[0] = 0;
    for (uint32_t j = 0; j < k; j++) {
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, "%s%s", j ? " " : "", names[j]);
    }
    return buf;
}

static void test_changes_since_a_generation(void **state) {
    fx *f = *state;
    uint64_t g0 = f->s.generation;
    add_node(f, "a");
    add_node(f, "b");
    add_node(f, "c");
    update(f);
    assert_string_equal(changes(f, g0), "a b c");
    uint64_t g1 = f->s.generation;
    assert_string_equal(changes(f, g1), "");

    add_pod(f, "p1", "b");
    update(f);
    uint64_t g2 = f->s.generation;
    assert_string_equal(changes(f, g1), "b");
    add_pod(f, "p2", "c");
    add_pod(f, "p3", "c");
    update(f);
    /* Each consumer sees exactly what is newer than its last look. */
    assert_string_equal(changes(f, g2), "c");
    assert_string_equal(changes(f, g1), "b c");
    assert_string_equal(changes(f, g0), "a b c");

    /* A dropped node is named too; the snapshot no longer has it. */
    uint64_t g3 = f->s.generation;
    assert_int_equal(ms_cache_remove_node(f->c, S(f, "a")), MS_OK);
    update(f);
    assert_string_equal(changes(f, g3), "a");
    assert_null(ms_snapshot_get(&f->s, S(f, "a")));

    /* A generation the snapshot has not reached: rebuild. */
    assert_string_equal(changes(f, f->s.generation + 1), "(rebuild)");
}

/* A consumer further behind than the journal reaches rebuilds; one that
 * keeps up does not. */
static void test_journal_is_bounded(void **state) {
    fx *f = *state;
    add_node(f, "a");
    add_node(f, "b");
    update(f);
    uint64_t old = f->s.generation;
    uint64_t recent = old;
    char name[32];
    for (int i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, "p%d", i);
        add_pod(f, name, i % 2 ? "a" : "b");
        update(f);
        if (i == 19990) recent = f->s.generation;
        /* The journal holds what consumers may still ask for, not more. */
        assert_true(f->s.nchanges <= 8192);
    }
    assert_string_equal(changes(f, old), "(rebuild)");
    assert_string_equal(changes(f, recent), "a b");
    assert_string_equal(changes(f, f->s.generation), "");
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_changes_since_a_generation),
        T(test_journal_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
