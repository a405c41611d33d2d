/* leader_election_master_status: absent until an election reports,
 * then 1 or 0 under the lease's name, escaped. */
#include "testutil.h"

#include "metrics_states.h"

static char *render(ms_leader_metrics *m) {
    size_t len = 0;
    char *t = metrics_render_one(ms_leader_metrics_collect, m, &len);
    assert_non_null(t);
    return t;
}

static void test_leader_election_gauge(void **state) {
    (void)state;
    ms_leader_metrics *m = ms_leader_metrics_new();
    char *t = render(m);
    /* no election: no series, as upstream registers it with the elector */
    assert_null(strstr(t, "leader_election_master_status"));
    free(t);
    ms_leader_metrics_changed(m, "kube-scheduler", false);
    t = render(m);
    assert_non_null(strstr(t, "# TYPE leader_election_master_status gauge\n"));
    assert_true(tu_series(t, "leader_election_master_status{name=\"kube-scheduler\"}") == 0);
    free(t);
    ms_leader_metrics_changed(m, "kube-scheduler", true);
    t = render(m);
    assert_true(tu_series(t, "leader_election_master_status{name=\"kube-scheduler\"}") == 1);
    free(t);
    ms_leader_metrics_changed(m, "a\"b", false);
    t = render(m);
    assert_true(tu_series(t, "leader_election_master_status{name=\"a\\\"b\"}") == 0);
    free(t);
    ms_leader_metrics_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leader_election_gauge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
