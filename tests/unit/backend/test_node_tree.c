/* The node tree: zones in order of first appearance, names in insertion
 * order, round-robin listing, duplicates refused, and loads that stay
 * linear (the zone and member maps). */
#include "testutil.h"

#include "moonsched/error.h"
#include "backend/node_tree.h"

typedef struct fx {
    ms_interner *in;
    ms_node_tree t;
} fx;

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    f->in = ms_interner_new();
    ms_node_tree_init(&f->t, f->in);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    ms_node_tree_free(&f->t);
    ms_interner_free(f->in);
    free(f);
    return 0;
}

static ms_str S(fx *f, const char *s) { return ms_intern_cstr(f->in, s); }

static ms_zone_key Z(fx *f, const char *zone) {
    return (ms_zone_key){.region = MS_STR_NONE, .zone = zone ? S(f, zone) : MS_STR_NONE};
}

/* The listing as "a b c". */
static void listing(fx *f, char *buf, size_t n) {
    ms_str *out = calloc(f->t.num_nodes + 1, sizeof *out);
    uint32_t k = ms_node_tree_list(&f->t, out);
    assert_int_equal(k, f->t.num_nodes);
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < k; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? " " : "", ms_str_get(f->in, out[i]));
    free(out);
}

/* A 50,000-node single-zone load: every add succeeds, a second add of any
 * name is refused, and the order is the insertion order. */
static void test_large_zone(void **state) {
    fx *f = *state;
    enum { N = 50000 };
    ms_str *names = malloc(N * sizeof *names);
    char name[32];
    for (uint32_t i = 0; i < N; i++) {
        snprintf(name, sizeof name, "node-%u", i);
        names[i] = S(f, name);
        assert_int_equal(ms_node_tree_add(&f->t, names[i], Z(f, NULL)), MS_OK);
    }
    assert_int_equal(f->t.num_nodes, N);
    assert_int_equal(f->t.nzones, 1);
    for (uint32_t i = 0; i < N; i += 997)
        assert_int_equal(ms_node_tree_add(&f->t, names[i], Z(f, NULL)), MS_EEXIST);
    assert_int_equal(f->t.num_nodes, N);
    ms_str *out = malloc(N * sizeof *out);
    assert_int_equal(ms_node_tree_list(&f->t, out), N);
    for (uint32_t i = 0; i < N; i++) assert_int_equal(out[i], names[i]);
    /* Removal keeps the order of the others; the name can come back (last). */
    assert_int_equal(ms_node_tree_remove(&f->t, names[7], Z(f, NULL)), MS_OK);
    assert_int_equal(ms_node_tree_remove(&f->t, names[7], Z(f, NULL)), MS_ENOENT);
    assert_int_equal(ms_node_tree_add(&f->t, names[7], Z(f, NULL)), MS_OK);
    assert_int_equal(ms_node_tree_list(&f->t, out), N);
    assert_int_equal(out[6], names[6]);
    assert_int_equal(out[7], names[8]);
    assert_int_equal(out[N - 1], names[7]);
    free(out);
    free(names);
}

/* The same name may sit in two zones (the tree does not forbid it; the
 * cache never does it): duplicates are per zone. */
static void test_duplicates_are_per_zone(void **state) {
    fx *f = *state;
    assert_int_equal(ms_node_tree_add(&f->t, S(f, "n"), Z(f, "a")), MS_OK);
    assert_int_equal(ms_node_tree_add(&f->t, S(f, "n"), Z(f, "b")), MS_OK);
    assert_int_equal(ms_node_tree_add(&f->t, S(f, "n"), Z(f, "a")), MS_EEXIST);
    assert_int_equal(ms_node_tree_remove(&f->t, S(f, "n"), Z(f, "c")), MS_ENOENT);
    assert_int_equal(ms_node_tree_remove(&f->t, S(f, "n"), Z(f, "b")), MS_OK);
    assert_int_equal(ms_node_tree_add(&f->t, S(f, "n"), Z(f, "a")), MS_EEXIST);
    assert_int_equal(f->t.num_nodes, 1);
}

/* Dropping an emptied zone shifts the zones after it: they must still be
 * found (their duplicates refused, their names listed in place). */
static void test_zone_dropped_in_the_middle(void **state) {
    fx *f = *state;
    static const char *const adds[][2] = {
        {"a1", "a"}, {"b1", "b"}, {"c1", "c"}, {"a2", "a"}, {"b2", "b"}, {"c2", "c"}, {"d1", "d"},
    };
    for (size_t i = 0; i < sizeof adds / sizeof adds[0]; i++)
        assert_int_equal(ms_node_tree_add(&f->t, S(f, adds[i][0]), Z(f, adds[i][1])), MS_OK);
    char buf[256];
    listing(f, buf, sizeof buf);
    assert_string_equal(buf, "a1 b1 c1 d1 a2 b2 c2");

    assert_int_equal(ms_node_tree_remove(&f->t, S(f, "b1"), Z(f, "b")), MS_OK);
    assert_int_equal(ms_node_tree_remove(&f->t, S(f, "b2"), Z(f, "b")), MS_OK);
    assert_int_equal(f->t.nzones, 3);
    assert_int_equal(ms_node_tree_add(&f->t, S(f, "c2"), Z(f, "c")), MS_EEXIST);
    assert_int_equal(ms_node_tree_add(&f->t, S(f, "d1"), Z(f, "d")), MS_EEXIST);
    assert_int_equal(ms_node_tree_add(&f->t, S(f, "c3"), Z(f, "c")), MS_OK);
    assert_int_equal(ms_node_tree_add(&f->t, S(f, "d2"), Z(f, "d")), MS_OK);
    /* A zone that comes back is new: last in the zone order. */
    assert_int_equal(ms_node_tree_add(&f->t, S(f, "b3"), Z(f, "b")), MS_OK);
    listing(f, buf, sizeof buf);
    assert_string_equal(buf, "a1 c1 d1 b3 a2 c2 d2 c3");

    /* Moving a node between zones. */
    assert_int_equal(ms_node_tree_update(&f->t, S(f, "a2"), Z(f, "a"), Z(f, "d")), MS_OK);
    listing(f, buf, sizeof buf);
    assert_string_equal(buf, "a1 c1 d1 b3 c2 d2 c3 a2");
    assert_int_equal(f->t.num_nodes, 8);
}

/* Region and zone together make the key. */
static void test_region_is_part_of_the_key(void **state) {
    fx *f = *state;
    ms_zone_key r1 = {S(f, "r1"), S(f, "z")}, r2 = {S(f, "r2"), S(f, "z")};
    assert_int_equal(ms_node_tree_add(&f->t, S(f, "x"), r1), MS_OK);
    assert_int_equal(ms_node_tree_add(&f->t, S(f, "y"), r2), MS_OK);
    assert_int_equal(f->t.nzones, 2);
    assert_int_equal(ms_node_tree_remove(&f->t, S(f, "x"), r2), MS_ENOENT);
    assert_int_equal(ms_node_tree_remove(&f->t, S(f, "x"), r1), MS_OK);
    assert_int_equal(f->t.nzones, 1);
    assert_int_equal(f->t.zones[0].key.region, S(f, "r2"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_large_zone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicates_are_per_zone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_zone_dropped_in_the_middle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_region_is_part_of_the_key, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
