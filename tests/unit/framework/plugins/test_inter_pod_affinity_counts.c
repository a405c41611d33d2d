/* The counts per topology pair (ipa_pair_counts): what Filter and Score read
 * must equal a plain recount, whatever mix of adds, take-backs and clears
 * led there, including the values the per-value bits say have no pair. */
#include "testutil.h"

#include "framework/plugins/inter_pod_affinity.h"

enum { KEYS = 3, VALUES = 300 };

typedef struct reference {
    int64_t v[KEYS][VALUES];
} reference;

static void assert_same(const ipa_pair_counts *pc, const reference *r) {
    uint32_t nonzero = 0;
    for (uint32_t k = 0; k < KEYS; k++)
        for (uint32_t v = 1; v < VALUES; v++) {
            assert_int_equal(ipa_pc_get(pc, (ms_str)(k + 2), (ms_str)v), r->v[k][v]);
            assert_int_equal(ipa_pc_lookup(pc, (ms_str)(k + 2), (ms_str)v), r->v[k][v]);
            nonzero += r->v[k][v] != 0;
        }
    assert_int_equal(pc->nonzero, nonzero);
}

static void test_counts_equal_a_recount(void **state) {
    (void)state;
    ipa_pair_counts pc = {0};
    ms_map_init(&pc.slot);
    reference *r = calloc(1, sizeof *r);
    assert_non_null(r);
    uint32_t rnd = 99;
    for (int step = 0; step < 5000; step++) {
        rnd = rnd * 1103515245u + 12345u;
        uint32_t x = rnd >> 8;
        if (x % 500 == 0) {
            ipa_pc_clear(&pc);
            memset(r, 0, sizeof *r);
        } else {
            /* Values spread over several 64-bit words, some never used. */
            uint32_t k = x % KEYS, v = 1 + (x / KEYS) % (VALUES - 1);
            int64_t d = (int64_t)((x >> 12) % 5) - 2;
            /* A take-back only of what was added, as ipa_retract does. */
            if (d < 0 && r->v[k][v] + d < 0) d = -r->v[k][v];
            assert_int_equal(ipa_pc_add(&pc, (ms_str)(k + 2), (ms_str)v, d), 0);
            r->v[k][v] += d;
        }
        if (step % 50 == 0) assert_same(&pc, r);
    }
    assert_same(&pc, r);
    /* A value far past the others: the bits grow, and the ones in between
     * read as no pair. */
    assert_int_equal(ipa_pc_add(&pc, 2, 100000, 1), 0);
    assert_int_equal(ipa_pc_get(&pc, 2, 100000), 1);
    assert_int_equal(ipa_pc_get(&pc, 3, 100000), 0);
    assert_int_equal(ipa_pc_get(&pc, 2, 99999), 0);
    ipa_pc_clear(&pc);
    assert_int_equal(ipa_pc_get(&pc, 2, 100000), 0);
    ipa_pc_free(&pc);
    free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_equal_a_recount),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
