/* The one entry point of cluster changes (core/scheduler/apply.c): each
 * kind's add, update and delete reach its event handler, storage kinds
 * and resource.k8s.io kinds land in their stores under their own kind, a
 * resource.k8s.io object makes the store visible to plugins, a namespace's update counts as
 * an add, and what is not the scheduler's (synced markers, generic
 * objects) changes nothing. */
#include "scheduler_env.h"

#include "backend/cache.h"
#include "backend/queue.h"
#include "fixtures.h"
#include "scheduler/apply.h"
#include "scheduler/cluster_view.h"
#include "scheduler/dra_events.h"
#include "scheduler/scheduler_priv.h"
#include "scheduler/storage_events.h"

static void apply(env *e, ms_delta_type type, ms_object_kind kind, const void *obj, double now) {
    ms_delta d = {.type = (uint8_t)type, .kind = (uint8_t)kind, .obj = (void *)obj};
    ms_scheduler_apply(e->s, &d, now);
}

static void test_pods_and_nodes(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    ms_cache *cache = ms_scheduler_cache(e->s);
    ms_queue *q = ms_scheduler_queue(e->s);
    ms_node *small = mknode(e, "n", "1", NULL, NULL);
    apply(e, MS_DELTA_ADD, MS_KIND_NODE, small, 0);
    ms_node_unref(small);
    assert_int_equal(ms_cache_node_count(cache), 1);

    ms_pod *big = mkpod(e, "big", "2", NULL);
    apply(e, MS_DELTA_ADD, MS_KIND_POD, big, 0);
    assert_int_equal(ms_queue_len_active(q), 1);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 1);

    /* a node update with room moves the pod, which then fits */
    ms_node *grown = mknode(e, "n", "4", NULL, NULL);
    apply(e, MS_DELTA_UPDATE, MS_KIND_NODE, grown, 1);
    ms_node_unref(grown);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    ms_scheduler_tick(e->s, 100);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_string_equal(node_of_last(e), "n");

    /* a pending pod's delete takes it out of the queue */
    ms_pod *gone = mkpod(e, "gone", "100m", NULL);
    apply(e, MS_DELTA_ADD, MS_KIND_POD, gone, 100);
    assert_int_equal(ms_queue_len_active(q), 1);
    apply(e, MS_DELTA_DELETE, MS_KIND_POD, gone, 100);
    assert_int_equal(ms_queue_len_active(q), 0);

    /* a bound pod's update and delete reach the cache (beside the assumed "big") */
    int64_t before = requested_cpu(e, "n");
    ms_pod *bound = mkpod(e, "bound", "500m", ",\"nodeName\":\"n\"");
    apply(e, MS_DELTA_ADD, MS_KIND_POD, bound, 101);
    assert_int_equal(requested_cpu(e, "n"), before + 500);
    ms_pod *bigger = mkpod(e, "bound", "1500m", ",\"nodeName\":\"n\"");
    apply(e, MS_DELTA_UPDATE, MS_KIND_POD, bigger, 102);
    assert_int_equal(requested_cpu(e, "n"), before + 1500);
    apply(e, MS_DELTA_DELETE, MS_KIND_POD, bigger, 103);
    assert_int_equal(requested_cpu(e, "n"), before);

    ms_node *n = mknode(e, "n", "4", NULL, NULL);
    apply(e, MS_DELTA_DELETE, MS_KIND_NODE, n, 104);
    ms_node_unref(n);
    assert_int_equal(ms_cache_node_count(cache), 0);
    env_free(e);
}

static ms_pdb *mkpdb(env *e, const char *name) {
    char buf[256];
    snprintf(buf, sizeof buf,
             "{\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\"},"
             "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"db\"}}},\"status\":{\"disruptionsAllowed\":0}}",
             name);
    cJSON *j = parse(buf);
    ms_pdb *pdb = NULL;
    ms_error err = {0};
    if (ms_pdb_decode(&e->dec, j, &pdb, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    return pdb;
}

static void test_pdbs(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    ms_pdb *a = mkpdb(e, "a"), *b = mkpdb(e, "b");
    apply(e, MS_DELTA_ADD, MS_KIND_PDB, a, 0);
    apply(e, MS_DELTA_ADD, MS_KIND_PDB, b, 0);
    assert_int_equal(ms_scheduler_pdb_count(e->s), 2);
    apply(e, MS_DELTA_UPDATE, MS_KIND_PDB, a, 1);
    assert_int_equal(ms_scheduler_pdb_count(e->s), 2);
    apply(e, MS_DELTA_DELETE, MS_KIND_PDB, a, 2);
    assert_int_equal(ms_scheduler_pdb_count(e->s), 1);
    ms_pdb_unref(a);
    ms_pdb_unref(b);
    env_free(e);
}

/* MS_KIND_SERVICE + workload kind: kept by kind, namespace and name (a
 * Service and a ReplicaSet of one name are two objects), and in the
 * scheduler's view in kind order. */
static void test_workloads(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    ms_workload *rs = fx_workload(&e->dec, MS_WK_REPLICA_SET,
                                  "metadata: {name: web}\nspec: {selector: {matchLabels: {app: web}}}");
    ms_workload *svc = fx_workload(&e->dec, MS_WK_SERVICE, "metadata: {name: web}\nspec: {selector: {app: web}}");
    apply(e, MS_DELTA_ADD, MS_KIND_REPLICA_SET, rs, 0);
    apply(e, MS_DELTA_ADD, MS_KIND_SERVICE, svc, 0);
    apply(e, MS_DELTA_UPDATE, MS_KIND_SERVICE, svc, 1);
    ms_cluster_view v;
    assert_int_equal(ms_scheduler_view(e->s, &v), MS_OK);
    assert_int_equal(v.nworkloads, 2);
    assert_ptr_equal(v.workloads[0], svc);
    assert_ptr_equal(v.workloads[1], rs);
    ms_cluster_view_free(&v);
    apply(e, MS_DELTA_DELETE, MS_KIND_SERVICE, svc, 2);
    assert_int_equal(ms_scheduler_view(e->s, &v), MS_OK);
    assert_int_equal(v.nworkloads, 1);
    assert_ptr_equal(v.workloads[0], rs);
    ms_cluster_view_free(&v);
    ms_workload_unref(rs);
    ms_workload_unref(svc);
    env_free(e);
}

/* MS_KIND_PV + storage kind: each object lands under its own kind. */
static void test_storage_kinds(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    ms_volume_store *vs = ms_scheduler_volume_store(e->s);
    ms_storage_object *pv = fx_storage(&e->dec, MS_SK_PV, "metadata: {name: pv1}\nspec: {capacity: {storage: 1Gi}}");
    ms_storage_object *drv = fx_storage(&e->dec, MS_SK_CSI_DRIVER, "metadata: {name: d.example.com}");
    apply(e, MS_DELTA_ADD, MS_KIND_PV, pv, 0);
    apply(e, MS_DELTA_UPDATE, MS_KIND_CSI_DRIVER, drv, 0);
    assert_int_equal(ms_volume_store_count(vs, MS_SK_PV), 1);
    assert_int_equal(ms_volume_store_count(vs, MS_SK_CSI_DRIVER), 1);
    assert_int_equal(ms_volume_store_count(vs, MS_SK_PVC), 0);
    apply(e, MS_DELTA_DELETE, MS_KIND_CSI_DRIVER, drv, 1);
    assert_int_equal(ms_volume_store_count(vs, MS_SK_CSI_DRIVER), 0);
    assert_int_equal(ms_volume_store_count(vs, MS_SK_PV), 1);
    ms_storage_unref(pv);
    ms_storage_unref(drv);
    env_free(e);
}

/* MS_KIND_DEVICE_CLASS + DRA kind: each object lands under its own kind,
 * and the first one shows the store to the plugins (the server serves the
 * group). */
static void test_dra_kinds(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    const ms_dra_store *store = ms_scheduler_dra_store(e->s);
    ms_dra_object *cls = fx_dra(&e->dec, MS_DK_DEVICE_CLASS, "metadata: {name: gpu.example.com}");
    ms_dra_object *claim = fx_dra(&e->dec, MS_DK_RESOURCE_CLAIM, "metadata: {name: c, namespace: default}");
    assert_null(e->s->handle.dra);
    apply(e, MS_DELTA_ADD, MS_KIND_DEVICE_CLASS, cls, 0);
    assert_ptr_equal(e->s->handle.dra, store);
    apply(e, MS_DELTA_UPDATE, MS_KIND_RESOURCE_CLAIM, claim, 1);
    assert_int_equal(ms_dra_store_len(store, MS_DK_DEVICE_CLASS), 1);
    assert_int_equal(ms_dra_store_len(store, MS_DK_RESOURCE_CLAIM), 1);
    assert_int_equal(ms_dra_store_len(store, MS_DK_RESOURCE_SLICE), 0);
    apply(e, MS_DELTA_DELETE, MS_KIND_RESOURCE_CLAIM, claim, 2);
    assert_int_equal(ms_dra_store_len(store, MS_DK_RESOURCE_CLAIM), 0);
    assert_int_equal(ms_dra_store_len(store, MS_DK_DEVICE_CLASS), 1);
    ms_dra_unref(cls);
    ms_dra_unref(claim);
    env_free(e);
}

static ms_namespace *mkns(env *e, const char *labels) {
    char buf[256];
    snprintf(buf, sizeof buf, "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"db\",\"labels\":%s}}", labels);
    cJSON *j = parse(buf);
    ms_namespace *ns = NULL;
    ms_error err = {0};
    if (ms_namespace_decode(&e->dec, j, &ns, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    return ns;
}

/* A namespace's update replaces it as an add does; its delete removes it. */
static void test_namespaces(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    ms_str db = ms_intern_cstr(e->in, "db");
    ms_namespace *a = mkns(e, "{\"team\":\"a\"}"), *b = mkns(e, "{\"team\":\"b\"}");
    apply(e, MS_DELTA_ADD, MS_KIND_NAMESPACE, a, 0);
    assert_ptr_equal(ms_namespaces_get(&e->s->namespaces, db), a);
    apply(e, MS_DELTA_UPDATE, MS_KIND_NAMESPACE, b, 1);
    assert_ptr_equal(ms_namespaces_get(&e->s->namespaces, db), b);
    apply(e, MS_DELTA_DELETE, MS_KIND_NAMESPACE, b, 2);
    assert_null(ms_namespaces_get(&e->s->namespaces, db));
    ms_namespace_unref(a);
    ms_namespace_unref(b);
    env_free(e);
}

/* Synced markers carry no object and generic objects are not the
 * scheduler's: neither reaches a handler. */
static void test_not_the_schedulers(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    ms_pod *p = mkpod(e, "p", "100m", NULL);
    apply(e, MS_DELTA_ADD, MS_KIND_OTHER, p, 0);
    ms_delta synced = {.type = MS_DELTA_SYNCED, .kind = MS_KIND_POD};
    ms_scheduler_apply(e->s, &synced, 0);
    assert_int_equal(ms_queue_len_active(ms_scheduler_queue(e->s)), 0);
    assert_int_equal(ms_cache_node_count(ms_scheduler_cache(e->s)), 0);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pods_and_nodes),
        cmocka_unit_test(test_pdbs),
        cmocka_unit_test(test_workloads),
        cmocka_unit_test(test_storage_kinds),
        cmocka_unit_test(test_dra_kinds),
        cmocka_unit_test(test_namespaces),
        cmocka_unit_test(test_not_the_schedulers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
