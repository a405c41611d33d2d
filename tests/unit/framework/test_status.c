#include "testutil.h"

#include "moonsched/status.h"
#include "framework/reason_tally.h"
#include "base/rng.h"

static ms_status failed(ms_code code, const char *r1, const char *r2) {
    ms_status s = {0};
    ms_status_set(&s, code, r1);
    s.plugin = 0;
    if (r2) ms_status_add_reason(&s, r2);
    return s;
}

static int cmp_entries(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_code_names(void **state) {
    (void)state;
    static const struct { ms_code code; const char *name; } cases[] = {
        {MS_SUCCESS, "Success"},
        {MS_ERROR, "Error"},
        {MS_UNSCHEDULABLE, "Unschedulable"},
        {MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "UnschedulableAndUnresolvable"},
        {MS_WAIT, "Wait"},
        {MS_SKIP, "Skip"},
        {MS_PENDING, "Pending"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(ms_code_str(cases[i].code), cases[i].name);
    assert_string_equal(ms_code_str((ms_code)99), "Unknown");
}

/* Reasons are counted by text (each node builds its own taint reason), every
 * reason of a status counts, and "COUNT REASON" entries sort as strings. */
static void test_histogram_counts_and_sorts(void **state) {
    (void)state;
    char taint_a[] = "node(s) had untolerated taint {k: v}";
    char taint_b[] = "node(s) had untolerated taint {k: v}";
    ms_status st[] = {
        failed(MS_UNSCHEDULABLE, "Insufficient cpu", NULL),
        failed(MS_UNSCHEDULABLE, "Insufficient cpu", "Insufficient memory"),
        failed(MS_UNSCHEDULABLE_AND_UNRESOLVABLE, taint_a, NULL),
        failed(MS_UNSCHEDULABLE_AND_UNRESOLVABLE, taint_b, NULL),
    };
    char buf[256];
    size_t n = ms_fit_error_message(buf, sizeof buf, 5, st, 4, NULL);
    const char *want = "0/5 nodes are available: 1 Insufficient memory, 2 Insufficient cpu, "
                       "2 node(s) had untolerated taint {k: v}.";
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
}

/* String order, not numeric: "12 ..." sorts before "3 ...". */
static void test_histogram_sorts_counts_as_strings(void **state) {
    (void)state;
    ms_status st[15];
    for (int i = 0; i < 12; i++) st[i] = failed(MS_UNSCHEDULABLE, "node(s) were unschedulable", NULL);
    for (int i = 12; i < 15; i++) st[i] = failed(MS_UNSCHEDULABLE, "Insufficient cpu", NULL);
    char buf[256];
    ms_fit_error_message(buf, sizeof buf, 15, st, 15, NULL);
    assert_string_equal(buf, "0/15 nodes are available: 12 node(s) were unschedulable, "
                             "3 Insufficient cpu.");
}

static void test_histogram_ignores_success_and_counts_duplicates(void **state) {
    (void)state;
    ms_status ok;
    ms_status_ok(&ok);
    ms_status st[] = {
        ok,
        failed(MS_UNSCHEDULABLE, "Insufficient cpu", "Insufficient cpu"),
    };
    char buf[128];
    ms_fit_error_message(buf, sizeof buf, 2, st, 2, NULL);
    assert_string_equal(buf, "0/2 nodes are available: 2 Insufficient cpu.");
}

static void test_prefilter_message(void **state) {
    (void)state;
    ms_status st[] = {failed(MS_UNSCHEDULABLE, "Insufficient cpu", NULL)};
    char buf[128];
    size_t n = ms_fit_error_message(buf, sizeof buf, 3, st, 1,
                                    "node(s) didn't match pod topology spread constraints");
    assert_string_equal(buf, "0/3 nodes are available: node(s) didn't match pod topology "
                             "spread constraints.");
    assert_int_equal(n, strlen(buf));
}

static void test_no_reasons(void **state) {
    (void)state;
    char buf[64];
    assert_int_equal(ms_fit_error_message(buf, sizeof buf, 0, NULL, 0, NULL),
                     strlen("0/0 nodes are available:"));
    assert_string_equal(buf, "0/0 nodes are available:");
}

static void test_truncation(void **state) {
    (void)state;
    ms_status st[] = {failed(MS_UNSCHEDULABLE, "Insufficient cpu", NULL)};
    const char *full = "0/1 nodes are available: 1 Insufficient cpu.";
    char buf[11];
    memset(buf, 'x', sizeof buf);
    size_t n = ms_fit_error_message(buf, sizeof buf, 1, st, 1, NULL);
    assert_int_equal(n, strlen(full));
    assert_string_equal(buf, "0/1 nodes ");
    /* Measuring only. */
    assert_int_equal(ms_fit_error_message(NULL, 0, 1, st, 1, NULL), strlen(full));
    char one[1] = {'x'};
    assert_int_equal(ms_fit_error_message(one, 1, 1, st, 1, "r"), strlen("0/1 nodes are available: r."));
    assert_int_equal(one[0], '\0');
    /* Exactly enough room. */
    char exact[64];
    n = ms_fit_error_message(exact, strlen(full) + 1, 1, st, 1, NULL);
    assert_string_equal(exact, full);
}

/* Many nodes, more distinct reason pointers than are tallied at once, the
 * same texts at different addresses, two reasons per status: the counts
 * are the same as one count per node and reason. */
static void test_histogram_many_pointers(void **state) {
    (void)state;
    enum { N = 600, K = 12 };
    static char texts[K][32];
    static char copies[K][32];
    for (int k = 0; k < K; k++) {
        snprintf(texts[k], sizeof texts[k], "reason %02d", k);
        snprintf(copies[k], sizeof copies[k], "reason %02d", k);
    }
    static ms_status st[N];
    size_t want[K] = {0};
    for (int i = 0; i < N; i++) {
        int a = (i * 7) % K, b = (i / 3) % K;
        const char *ra = (i % 5) ? texts[a] : copies[a];
        st[i] = failed(MS_UNSCHEDULABLE, ra, b == a ? NULL : texts[b]);
        want[a]++;
        if (b != a) want[b]++;
    }
    st[17].code = MS_SUCCESS;   /* a node that passed: not counted */
    want[(17 * 7) % K]--;
    if ((17 / 3) % K != (17 * 7) % K) want[(17 / 3) % K]--;

    char *entries[K], exp[1024];
    for (int k = 0; k < K; k++) {
        entries[k] = malloc(48);
        snprintf(entries[k], 48, "%zu reason %02d", want[k], k);
    }
    qsort(entries, K, sizeof *entries, cmp_entries);
    size_t len = (size_t)snprintf(exp, sizeof exp, "0/%d nodes are available: ", N);
    for (int k = 0; k < K; k++) {
        len += (size_t)snprintf(exp + len, sizeof exp - len, "%s%s", k ? ", " : "", entries[k]);
        free(entries[k]);
    }
    snprintf(exp + len, sizeof exp - len, ".");
    char buf[1024];
    ms_fit_error_message(buf, sizeof buf, N, st, N, NULL);
    assert_string_equal(buf, exp);
}

/* Every node with its own copy of one text (more pointers than the
 * message's stack table holds), beside a literal shared by many. */
static void test_histogram_per_node_copies(void **state) {
    (void)state;
    enum { N = 1300, TAINTED = 1000 };
    static ms_status st[N];
    static char copies[TAINTED][48];
    for (int i = 0; i < N; i++) {
        if (i % 13 < 10 && i / 13 * 10 + i % 13 < TAINTED) {
            char *c = copies[i / 13 * 10 + i % 13];
            snprintf(c, sizeof copies[0], "node(s) had untolerated taint {k: v}");
            st[i] = failed(MS_UNSCHEDULABLE_AND_UNRESOLVABLE, c, NULL);
        } else {
            st[i] = failed(MS_UNSCHEDULABLE, "Insufficient cpu", NULL);
        }
    }
    char buf[256];
    size_t n = ms_fit_error_message(buf, sizeof buf, N, st, N, NULL);
    const char *want = "0/1300 nodes are available: 1000 node(s) had untolerated taint {k: v}, "
                       "300 Insufficient cpu.";
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
}

/* Counts that are prefixes of each other sort as strings: "1 x" before
 * "12 x" before "120 x"; equal counts by text. */
static void test_histogram_count_prefixes(void **state) {
    (void)state;
    static ms_status st[145];
    int k = 0;
    st[k++] = failed(MS_UNSCHEDULABLE, "zeta", NULL);
    for (int i = 0; i < 12; i++) st[k++] = failed(MS_UNSCHEDULABLE, "beta", NULL);
    for (int i = 0; i < 12; i++) st[k++] = failed(MS_UNSCHEDULABLE, "alpha", NULL);
    for (int i = 0; i < 120; i++) st[k++] = failed(MS_UNSCHEDULABLE, "gamma", NULL);
    char buf[256];
    ms_fit_error_message(buf, sizeof buf, 145, st, 145, NULL);
    assert_string_equal(buf, "0/145 nodes are available: 1 zeta, 12 alpha, 12 beta, 120 gamma.");
}

/* More distinct texts than the stack table takes: all listed, in order. */
static void test_histogram_many_texts(void **state) {
    (void)state;
    enum { N = 300 };
    static ms_status st[N];
    static char texts[N][16];
    for (int i = 0; i < N; i++) {
        snprintf(texts[i], sizeof texts[i], "r%03d", N - 1 - i);
        st[i] = failed(MS_UNSCHEDULABLE, texts[i], NULL);
    }
    static char buf[8192], want[8192];
    size_t len = (size_t)snprintf(want, sizeof want, "0/%d nodes are available: ", N);
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(want + len, sizeof want - len, "%s1 r%03d", i ? ", " : "", i);
    snprintf(want + len, sizeof want - len, ".");
    ms_fit_error_message(buf, sizeof buf, N, st, N, NULL);
    assert_string_equal(buf, want);
}

/* upstream's message written the plain way: each reason counted by text
 * (one status and reason at a time), "COUNT REASON" strings sorted. */
static void plain_message(char *out, size_t cap, uint32_t num_all, const ms_status *st, uint32_t n) {
    enum { MAX = 16 };
    const char *text[MAX];
    size_t count[MAX], k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (st[i].code == MS_SUCCESS) continue;
        for (uint32_t j = 0; j < st[i].nreasons; j++) {
            const char *r = st[i].reasons[j] ? st[i].reasons[j] : "";
            size_t at = 0;
            while (at < k && strcmp(text[at], r) != 0) at++;
            if (at == k) {
                assert_true(k < MAX);
                text[k] = r;
                count[k++] = 0;
            }
            count[at]++;
        }
    }
    char *entries[MAX];
    for (size_t e = 0; e < k; e++) {
        entries[e] = malloc(64);
        snprintf(entries[e], 64, "%zu %s", count[e], text[e]);
    }
    qsort(entries, k, sizeof *entries, cmp_entries);
    size_t len = (size_t)snprintf(out, cap, "0/%u nodes are available:", num_all);
    for (size_t e = 0; e < k; e++) {
        len += (size_t)snprintf(out + len, cap - len, "%s%s", e ? ", " : " ", entries[e]);
        free(entries[e]);
    }
    if (k) snprintf(out + len, cap - len, ".");
}

/* The FitError message from the statuses, and from a tally of the failing
 * ones as the Filter pass with kept verdicts keeps one, are upstream's
 * message written the plain way: random statuses with up to 4 reasons
 * drawn from texts that repeat under other pointers (up to 20 pointers:
 * more than the tally's slots, so the message's spill table counts too),
 * in runs or scattered, a few with none; a tally without a spill table
 * says it is full instead. */
static void test_tally_gives_the_same_message(void **state) {
    (void)state;
    static const char *const texts[] = {"Insufficient cpu", "Insufficient memory", "node(s) were unschedulable",
                                        "node(s) had untolerated taint {k: v}", "Too many pods"};
    char copies[20][48];
    for (int i = 0; i < 20; i++) snprintf(copies[i], sizeof copies[i], "%s", texts[i % 5]);
    ms_rng r;
    ms_rng_seed(&r, 42);
    ms_status st[300];
    uint32_t full = 0, tallied = 0;
    for (int round = 0; round < 400; round++) {
        uint32_t n = 1 + (uint32_t)ms_rng_below(&r, 300), ncopies = 1 + (uint32_t)ms_rng_below(&r, 20);
        ms_reason_tally t;
        ms_reason_tally_reset(&t);
        uint64_t plugins = 0;
        const char *run = copies[0];
        for (uint32_t i = 0; i < n; i++) {
            ms_status *s = &st[i];
            ms_status_set(s, ms_rng_below(&r, 2) ? MS_UNSCHEDULABLE : MS_UNSCHEDULABLE_AND_UNRESOLVABLE, NULL);
            s->plugin = (int16_t)ms_rng_below(&r, 8);
            plugins |= 1ull << s->plugin;
            uint32_t nr = (uint32_t)ms_rng_below(&r, 5);
            for (uint32_t j = 0; j < nr; j++) {
                if (ms_rng_below(&r, 3) == 0) run = copies[ms_rng_below(&r, ncopies)];
                ms_status_add_reason(s, ms_rng_below(&r, 50) ? run : NULL);
            }
            ms_reason_tally_add(&t, s);
        }
        ms_reason_tally_flush(&t);
        assert_int_equal(t.plugins, plugins);
        char want[4096], got[4096];
        plain_message(want, sizeof want, n + 1, st, n);
        size_t nw = ms_fit_error_message(got, sizeof got, n + 1, st, n, NULL);
        assert_string_equal(got, want);
        assert_int_equal(nw, strlen(want));
        if (t.full) {
            assert_true(ncopies > MS_REASON_TALLY_SLOTS - 1);
            full++;
            continue;
        }
        size_t ng = ms_fit_error_message_tally(got, sizeof got, n + 1, &t);
        assert_string_equal(got, want);
        assert_int_equal(ng, nw);
        tallied++;
    }
    assert_true(full > 0);
    assert_true(tallied > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_histogram_per_node_copies),
        cmocka_unit_test(test_histogram_count_prefixes),
        cmocka_unit_test(test_histogram_many_texts),
        cmocka_unit_test(test_code_names),
        cmocka_unit_test(test_histogram_counts_and_sorts),
        cmocka_unit_test(test_histogram_sorts_counts_as_strings),
        cmocka_unit_test(test_histogram_ignores_success_and_counts_duplicates),
        cmocka_unit_test(test_histogram_many_pointers),
        cmocka_unit_test(test_prefilter_message),
        cmocka_unit_test(test_no_reasons),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_tally_gives_the_same_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
