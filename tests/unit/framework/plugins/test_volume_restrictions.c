/* VolumeRestrictions, with pods decoded from YAML so that the cases read
 * as upstream's volume_restrictions_test.go; both volume plugins in the
 * registry and in upstream's default profile. */
#include "testutil.h"

#include "backend/snapshot.h"
#include "base/map.h"
#include "volume_fixtures.h"

typedef struct conflict_case {
    const char *name;
    const char *pod;           /* the incoming pod's volumes */
    const char *existing;      /* the volumes of the one pod on the node; NULL: empty node */
    bool conflict;
} conflict_case;

/* upstream TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts,
 * TestISCSIDiskConflicts (each: nothing, one state, same state, different
 * state), then the read-only and identity rules the four share. */
static const conflict_case conflict_cases[] = {
    {"GCE nothing", NULL, NULL, false},
    {"GCE one state", NULL, GCE_FOO, false},
    {"GCE same state", GCE_FOO, GCE_FOO, true},
    {"GCE different state", GCE_BAR, GCE_FOO, false},
    {"GCE same disk, both read-only", GCE_FOO_RO, GCE_FOO_RO, false},
    {"GCE same disk, incoming read-only", GCE_FOO_RO, GCE_FOO, true},
    {"GCE same disk, existing read-only", GCE_FOO, GCE_FOO_RO, true},

    {"AWS nothing", NULL, NULL, false},
    {"AWS one state", NULL, AWS_FOO, false},
    {"AWS same state", AWS_FOO, AWS_FOO, true},
    {"AWS different state", AWS_BAR, AWS_FOO, false},
    {"AWS same volume, both read-only: still a conflict", AWS_FOO_RO, AWS_FOO_RO, true},

    {"RBD nothing", NULL, NULL, false},
    {"RBD one state", NULL, RBD_AB, false},
    {"RBD same state", RBD_AB, RBD_AB, true},
    {"RBD different state (no monitor in common)", RBD_CD, RBD_AB, false},
    {"RBD one monitor in common", RBD_BC, RBD_AB, true},
    {"RBD one monitor in common, both read-only", RBD_BC_RO, RBD_AB_RO, false},
    {"RBD one monitor in common, one read-only", RBD_BC_RO, RBD_AB, true},
    {"RBD other pool", RBD_AB_POOL2, RBD_AB, false},
    {"RBD other image", RBD_AB_IMG2, RBD_AB, false},
    {"RBD empty pool is the default pool rbd", RBD_A_NOPOOL, RBD_A_RBDPOOL, true},

    {"ISCSI nothing", NULL, NULL, false},
    {"ISCSI one state", NULL, ISCSI_16, false},
    {"ISCSI same state", ISCSI_16, ISCSI_16, true},
    {"ISCSI different state", ISCSI_17, ISCSI_16, false},
    {"ISCSI same IQN, both read-only", ISCSI_16_RO, ISCSI_16_RO, false},
    {"ISCSI same IQN, one read-only", ISCSI_16_RO, ISCSI_16, true},

    {"different kinds with the same identity", GCE_FOO, AWS_FOO, false},
    {"PVCs are not inline disks", PVC_A, PVC_A, false},
    {"emptyDir never conflicts", EMPTY_DIR, EMPTY_DIR, false},
    {"second volume conflicts",
     "[{name: a, emptyDir: {}}, {name: b, awsElasticBlockStore: {volumeID: x}}]",
     "[{name: c, gcePersistentDisk: {pdName: x}}, {name: d, awsElasticBlockStore: {volumeID: x}}]", true},
};

static void test_disk_conflicts(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof conflict_cases / sizeof conflict_cases[0]; i++) {
        const conflict_case *tc = &conflict_cases[i];
        ms_pod *pod = pod_with("incoming", tc->pod);
        ms_pod *other = tc->existing ? pod_with("existing", tc->existing) : NULL;
        const char *reason = NULL;
        ms_code code = run_filter("VolumeRestrictions", pod, &other, other ? 1 : 0, &reason);
        if (code != (tc->conflict ? MS_UNSCHEDULABLE : MS_SUCCESS))
            fail_msg("%s: got %s", tc->name, ms_code_str(code));
        if (tc->conflict) assert_string_equal(reason, "node(s) had no available disk");
        else assert_null(reason);
        ms_pod_unref(pod);
        if (other) ms_pod_unref(other);
    }
}

/* The conflicting pod may be any of the node's pods. */
static void test_conflict_with_any_pod_on_node(void **state) {
    (void)state;
    ms_pod *pod = pod_with("incoming", GCE_FOO);
    ms_pod *pods[3] = {pod_with("a", EMPTY_DIR), pod_with("b", NULL), pod_with("c", GCE_FOO)};
    const char *reason;
    assert_int_equal(run_filter("VolumeRestrictions", pod, pods, 3, &reason), MS_UNSCHEDULABLE);
    assert_int_equal(run_filter("VolumeRestrictions", pod, pods, 2, &reason), MS_SUCCESS);
    ms_pod_unref(pod);
    for (int i = 0; i < 3; i++) ms_pod_unref(pods[i]);
}

/* upstream's PreFilter: Skip unless the pod has a GCE PD, EBS, RBD or ISCSI
 * volume or a ReadWriteOncePod claim in use; a claim that does not exist
 * makes the pod unschedulable. */
static void test_volume_restrictions_pre_filter(void **state) {
    (void)state;
    static const struct {
        const char *volumes;
        ms_code want;
    } cases[] = {
        {NULL, MS_SKIP},          {EMPTY_DIR, MS_SKIP},  {PVC_A, MS_UNSCHEDULABLE_AND_UNRESOLVABLE},
        {GCE_FOO, MS_SUCCESS},    {AWS_FOO, MS_SUCCESS}, {RBD_AB, MS_SUCCESS},
        {ISCSI_16, MS_SUCCESS},
        {"[{name: a, emptyDir: {}}, {name: b, iscsi: {iqn: x, targetPortal: p}}]", MS_SUCCESS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with("p", cases[i].volumes);
        if (run_pre_filter("VolumeRestrictions", pod) != cases[i].want)
            fail_msg("case %zu: %s", i, cases[i].volumes ? cases[i].volumes : "no volumes");
        ms_pod_unref(pod);
    }
}

/* ReadWriteOncePod: a claim in use by any pod of the cluster (the
 * snapshot) makes every node reject a second user; a claim of another
 * access mode, or one nobody uses, does not. */
/* VolumeRestrictions' PreFilter for pod over snap, in hx (harness_free it). */
static ms_code pre_filter_over(harness *hx, ms_pod *pod, const ms_snapshot *snap) {
    harness_init(hx, "VolumeRestrictions", pod);
    hx->c.snap = snap;
    ms_status st;
    ms_status_ok(&st);
    return hx->ops->pre_filter(NULL, &hx->c, &st);
}

static void test_read_write_once_pod(void **state) {
    (void)state;
    store_add(MS_SK_PVC, "metadata: {name: a, namespace: default}\n"
                         "spec: {accessModes: [ReadWriteOncePod], resources: {requests: {storage: 1Gi}}}");
    store_add(MS_SK_PVC, "metadata: {name: b, namespace: default}\n"
                         "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}");
    ms_pod *holder = fx_pod(&env.d, "metadata: {name: h, namespace: default, uid: h}\n"
                                    "spec: {nodeName: n1, containers: [{name: c}], volumes: "
                                    "[{name: v, persistentVolumeClaim: {claimName: a}},"
                                    " {name: w, persistentVolumeClaim: {claimName: b}}]}");
    ms_node_info *ni = ms_node_info_new(ms_intern_cstr(env.in, "n1"));
    assert_int_equal(ms_node_info_add_pod(ni, holder, env.in), 0);
    ms_node_info *nodes[1] = {ni};
    ms_snapshot snap = {.nodes = nodes, .nnodes = 1};
    static const struct {
        const char *claim;
        ms_code pre_filter;
    } cases[] = {{"a", MS_SUCCESS}, {"b", MS_SKIP}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char vols[128];
        snprintf(vols, sizeof vols, "[{name: v, persistentVolumeClaim: {claimName: %s}}]", cases[i].claim);
        ms_pod *pod = pod_with("second", vols);
        harness hx;
        assert_int_equal(pre_filter_over(&hx, pod, &snap), cases[i].pre_filter);
        ms_status st;
        if (cases[i].pre_filter == MS_SUCCESS) {
            ms_node_info *empty = ms_node_info_new(ms_intern_cstr(env.in, "n2"));
            ms_status_ok(&st);
            assert_int_equal(hx.ops->filter(NULL, &hx.c, empty, &st), MS_UNSCHEDULABLE);
            assert_string_equal(st.reasons[0], "node has pod using PersistentVolumeClaim with the same name "
                                               "and ReadWriteOncePod access mode");
            ms_node_info_free(empty);
        }
        harness_free(&hx);
        ms_pod_unref(pod);
    }
    /* nobody uses it: Skip */
    snap.nnodes = 0;
    ms_pod *pod = pod_with("second", "[{name: v, persistentVolumeClaim: {claimName: a}}]");
    harness hx;
    assert_int_equal(pre_filter_over(&hx, pod, &snap), MS_SKIP);
    harness_free(&hx);
    ms_pod_unref(pod);
    ms_node_info_free(ni);
    ms_pod_unref(holder);
    store_reset();
}

/* upstream's AddPod/RemovePod: in a dry run (a working copy of a node,
 * victims removed or nominated pods added) the claims in use are counted
 * as the copy holds its pods, so the holder of a ReadWriteOncePod claim
 * can be preempted for a pod that wants it. */
static void test_read_write_once_pod_dry_run(void **state) {
    (void)state;
    store_add(MS_SK_PVC, "metadata: {name: a, namespace: default}\n"
                         "spec: {accessModes: [ReadWriteOncePod], resources: {requests: {storage: 1Gi}}}");
    ms_pod *holder = fx_pod(&env.d, "metadata: {name: h, namespace: default, uid: h}\n"
                                    "spec: {nodeName: n1, containers: [{name: c}], volumes: "
                                    "[{name: v, persistentVolumeClaim: {claimName: a}}]}");
    ms_pod *nominee = fx_pod(&env.d, "metadata: {name: nm, namespace: default, uid: nm}\n"
                                     "spec: {containers: [{name: c}], volumes: "
                                     "[{name: v, persistentVolumeClaim: {claimName: a}}]}");
    ms_pod *elsewhere = fx_pod(&env.d, "metadata: {name: e, namespace: other, uid: e}\n"
                                       "spec: {containers: [{name: c}], volumes: "
                                       "[{name: v, persistentVolumeClaim: {claimName: a}}]}");
    ms_node_info *n1 = ms_node_info_new(ms_intern_cstr(env.in, "n1"));
    assert_int_equal(ms_node_info_add_pod(n1, holder, env.in), 0);
    ms_node_info *nodes[1] = {n1};
    ms_snapshot snap = {.nodes = nodes, .nnodes = 1};
    ms_map_init(&snap.by_name);
    assert_int_equal(ms_map_put(&snap.by_name, n1->name, n1), 0);

    ms_pod *pod = pod_with("second", "[{name: v, persistentVolumeClaim: {claimName: a}}]");
    harness hx;
    assert_int_equal(pre_filter_over(&hx, pod, &snap), MS_SUCCESS);
    ms_status st;

    ms_node_info *copy = ms_node_info_new(MS_STR_NONE);
    copy->scratch = true;
    static const struct {
        const char *name;
        bool remove_holder, add_nominee, add_elsewhere;
        ms_code want;
    } cases[] = {
        {"the snapshot's copy, unchanged", false, false, false, MS_UNSCHEDULABLE},
        {"the holder removed (a victim)", true, false, false, MS_SUCCESS},
        {"the holder removed, a pod using the claim added (a nominee)", true, true, false, MS_UNSCHEDULABLE},
        {"the holder removed, a claim of that name in another namespace added", true, false, true, MS_SUCCESS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(ms_node_info_copy_into(copy, n1), 0);
        if (cases[i].remove_holder) assert_int_equal(ms_node_info_remove_pod(copy, holder, env.in), 0);
        if (cases[i].add_nominee) assert_int_equal(ms_node_info_add_pod(copy, nominee, env.in), 0);
        if (cases[i].add_elsewhere) assert_int_equal(ms_node_info_add_pod(copy, elsewhere, env.in), 0);
        ms_status_ok(&st);
        ms_code got = hx.ops->filter(NULL, &hx.c, copy, &st);
        if (got != cases[i].want) fail_msg("%s: got %s", cases[i].name, ms_code_str(got));
    }
    /* the snapshot's own NodeInfo is never a dry run */
    ms_status_ok(&st);
    assert_int_equal(hx.ops->filter(NULL, &hx.c, n1, &st), MS_UNSCHEDULABLE);

    ms_node_info_free(copy);
    harness_free(&hx);
    ms_pod_unref(pod);
    ms_map_free(&snap.by_name);
    ms_node_info_free(n1);
    ms_pod_unref(holder);
    ms_pod_unref(nominee);
    ms_pod_unref(elsewhere);
    store_reset();
}

static void test_registered(void **state) {
    (void)state;
    const ms_plugin_ops *vr = ms_plugin_lookup("VolumeRestrictions");
    const ms_plugin_ops *nvl = ms_plugin_lookup("NodeVolumeLimits");
    assert_non_null(vr);
    assert_non_null(nvl);
    assert_non_null(vr->pre_filter);
    assert_non_null(vr->filter);
    assert_null(vr->score);
    assert_non_null(nvl->pre_filter);
    assert_non_null(nvl->filter);
    assert_null(nvl->score);
    /* a disk frees up when its pod leaves */
    assert_true(vr->events & MS_EV_ASSIGNED_POD_DELETE);
    assert_true(vr->events & MS_EV_NODE_ADD);
    assert_false(vr->events & MS_EV_ASSIGNED_POD_UPDATE);
}

/* Through upstream's default profile: the node holding the disk is rejected
 * by VolumeRestrictions with upstream's message; a pod without volumes has
 * both volume plugins skipped. */
static void test_default_profile(void **state) {
    (void)state;
    ms_resource_names rn;
    ms_resource_names_init(&rn, env.in);
    ms_handle h = {.in = env.in, .rn = &rn, .wildcard_ip = ms_intern_cstr(env.in, "0.0.0.0")};
    ms_profile_config pc;
    ms_profile_config_default(&pc, "default-scheduler");
    ms_framework fw;
    ms_error err = {0};
    if (ms_framework_init(&fw, &pc, 0, &h, &err) != MS_OK) fail_msg("%s", err.msg);
    int32_t vr = -1, nvl = -1;
    for (uint32_t i = 0; i < fw.nplugins; i++) {
        if (strcmp(fw.plugins[i].ops->name, "VolumeRestrictions") == 0) vr = (int32_t)i;
        if (strcmp(fw.plugins[i].ops->name, "NodeVolumeLimits") == 0) nvl = (int32_t)i;
    }
    assert_true(vr >= 0 && nvl >= 0);

    ms_node *nd[2];
    ms_node_info *ni[2];
    for (int i = 0; i < 2; i++) {
        char text[128];
        snprintf(text, sizeof text, "metadata: {name: n%d}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}", i + 1);
        nd[i] = fx_node(&env.d, text);
        ni[i] = ms_node_info_new(nd[i]->meta.name);
        ms_node_info_set_node(ni[i], nd[i]);
    }
    ms_pod *db = fx_pod(&env.d, "metadata: {name: db, uid: u1}\nspec: {nodeName: n1, containers: [{name: c}],"
                                " volumes: [{name: d, gcePersistentDisk: {pdName: foo}}]}");
    assert_int_equal(ms_node_info_add_pod(ni[0], db, env.in), 0);

    ms_pod *pods[2] = {
        fx_pod(&env.d, "metadata: {name: p, uid: u2}\nspec: {containers: [{name: c}],"
                       " volumes: [{name: d, gcePersistentDisk: {pdName: foo}}]}"),
        fx_pod(&env.d, "metadata: {name: q, uid: u3}\nspec: {containers: [{name: c}]}"),
    };
    ms_arena arena;
    ms_arena_init(&arena, 4096);
    for (int k = 0; k < 2; k++) {
        ms_arena_reset(&arena);
        ms_cycle c = {.pod = pods[k], .arena = &arena};
        assert_int_equal(ms_framework_begin_cycle(&fw, &c), MS_OK);
        ms_status st[2];
        assert_int_equal(ms_framework_run_pre_filter(&fw, &c, &st[0]), MS_SUCCESS);
        /* the pod with a GCE PD is one upstream's NodeVolumeLimits filters
         * (CSI migration may count it); the other is skipped by both */
        assert_int_equal((c.skip_filter >> vr) & 1, k == 1);
        assert_int_equal((c.skip_filter >> nvl) & 1, k == 1);
        ms_code code0 = ms_framework_run_filter(&fw, &c, ni[0], &st[0]);
        ms_code code1 = ms_framework_run_filter(&fw, &c, ni[1], &st[1]);
        assert_int_equal(code1, MS_SUCCESS);
        if (k == 1) {
            assert_int_equal(code0, MS_SUCCESS);
            continue;
        }
        assert_int_equal(code0, MS_UNSCHEDULABLE);
        assert_string_equal(ms_framework_plugin_name(&fw, st[0].plugin), "VolumeRestrictions");
        char msg[256];
        ms_fit_error_message(msg, sizeof msg, 2, st, 1, NULL);
        assert_string_equal(msg, "0/2 nodes are available: 1 node(s) had no available disk.");
    }
    ms_arena_free(&arena);
    for (int k = 0; k < 2; k++) ms_pod_unref(pods[k]);
    ms_pod_unref(db);
    for (int i = 0; i < 2; i++) {
        ms_node_info_free(ni[i]);
        ms_node_unref(nd[i]);
    }
    ms_framework_destroy(&fw);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disk_conflicts),
        cmocka_unit_test(test_conflict_with_any_pod_on_node),
        cmocka_unit_test(test_volume_restrictions_pre_filter),
        cmocka_unit_test(test_read_write_once_pod),
        cmocka_unit_test(test_read_write_once_pod_dry_run),
        cmocka_unit_test(test_registered),
        cmocka_unit_test(test_default_profile),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
