/* Pods with spec.volumes written as YAML flow lists (upstream's volume
 * test tables), and one volume plugin's PreFilter and Filter around a pod:
 * for the volume plugins' tests. Include after
 * "testutil.h"; setup and teardown make and free `env`. */
#ifndef MOONSCHED_TEST_VOLUME_FIXTURES_H
#define MOONSCHED_TEST_VOLUME_FIXTURES_H

#include "fixtures.h"
#include "backend/volume_store.h"
#include "framework/runners.h"
#include "moonsched/config.h"
#include "moonsched/framework.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/plugin.h"

static fx_env env;
/* The storage objects the plugins see (ms_handle.volumes); empty unless a
 * test adds some with store_add. */
static ms_volume_store *store;

static inline int setup(void **state) {
    (void)state;
    fx_env_init(&env);
    store = ms_volume_store_new(env.in);
    return 0;
}

static inline int teardown(void **state) {
    (void)state;
    ms_volume_store_free(store);
    fx_env_free(&env);
    return 0;
}

static inline void store_add(ms_storage_kind kind, const char *yaml) {
    ms_storage_object *o = fx_storage(&env.d, kind, yaml);
    assert_int_equal(ms_volume_store_set(store, o, NULL), MS_OK);
    ms_storage_unref(o);
}

/* Empties the store between cases. */
static inline void store_reset(void) {
    ms_volume_store_free(store);
    store = ms_volume_store_new(env.in);
}

/* A pod named `name` with spec.volumes = volumes (a YAML flow list; NULL:
 * no volumes). */
static inline ms_pod *pod_with(const char *name, const char *volumes) {
    char text[2048];
    snprintf(text, sizeof text, "metadata: {name: %s}\nspec: {containers: [{name: c}]%s%s}\n", name,
             volumes ? ", volumes: " : "", volumes ? volumes : "");
    return fx_pod(&env.d, text);
}

typedef struct harness {
    const ms_plugin_ops *ops;
    void *self;                    /* from create (default args), when the plugin has one */
    ms_handle h;
    ms_arena arena;
    void *slots[1];
    ms_cycle c;
} harness;

static inline void harness_init(harness *hx, const char *plugin, ms_pod *pod) {
    memset(hx, 0, sizeof *hx);
    hx->ops = ms_plugin_lookup(plugin);
    assert_non_null(hx->ops);
    hx->h.in = env.in;
    hx->h.volumes = store;
    if (hx->ops->create) {
        ms_error err = {0};
        assert_int_equal(hx->ops->create(NULL, &hx->h, &hx->self, &err), MS_OK);
    }
    ms_arena_init(&hx->arena, 1024);
    hx->c.pod = pod;
    hx->c.arena = &hx->arena;
    hx->c.state = hx->slots;
    hx->c.h = &hx->h;
}

static inline void harness_free(harness *hx) {
    if (hx->ops->destroy) hx->ops->destroy(hx->self);
    ms_arena_free(&hx->arena);
}

/* The code Filter returns for pod on a node holding `existing` (n pods);
 * *reason receives the first reason. */
static inline ms_code run_filter(const char *plugin, ms_pod *pod, ms_pod **existing, uint32_t n,
                          const char **reason) {
    harness hx;
    harness_init(&hx, plugin, pod);
    ms_node_info *ni = ms_node_info_new(ms_intern_cstr(env.in, "node-1"));
    assert_non_null(ni);
    for (uint32_t i = 0; i < n; i++) assert_int_equal(ms_node_info_add_pod(ni, existing[i], env.in), 0);
    ms_status st;
    ms_status_ok(&st);
    ms_code code = hx.ops->filter(NULL, &hx.c, ni, &st);
    assert_int_equal(st.code, code);
    *reason = st.nreasons ? st.reasons[0] : NULL;
    ms_node_info_free(ni);
    harness_free(&hx);
    return code;
}

static inline ms_code run_pre_filter(const char *plugin, ms_pod *pod) {
    harness hx;
    harness_init(&hx, plugin, pod);
    ms_status st;
    ms_status_ok(&st);
    ms_code code = hx.ops->pre_filter(NULL, &hx.c, &st);
    harness_free(&hx);
    return code;
}

#define GCE_FOO "[{name: v, gcePersistentDisk: {pdName: foo}}]"
#define GCE_BAR "[{name: v, gcePersistentDisk: {pdName: bar}}]"
#define GCE_FOO_RO "[{name: v, gcePersistentDisk: {pdName: foo, readOnly: true}}]"
#define AWS_FOO "[{name: v, awsElasticBlockStore: {volumeID: foo}}]"
#define AWS_BAR "[{name: v, awsElasticBlockStore: {volumeID: bar}}]"
#define AWS_FOO_RO "[{name: v, awsElasticBlockStore: {volumeID: foo, readOnly: true}}]"
#define RBD_AB "[{name: v, rbd: {monitors: [a, b], pool: foo, image: bar, fsType: ext4}}]"
#define RBD_CD "[{name: v, rbd: {monitors: [c, d], pool: foo, image: bar, fsType: ext4}}]"
#define RBD_BC "[{name: v, rbd: {monitors: [b, c], pool: foo, image: bar}}]"
#define RBD_BC_RO "[{name: v, rbd: {monitors: [b, c], pool: foo, image: bar, readOnly: true}}]"
#define RBD_AB_RO "[{name: v, rbd: {monitors: [a, b], pool: foo, image: bar, readOnly: true}}]"
#define RBD_AB_POOL2 "[{name: v, rbd: {monitors: [a, b], pool: baz, image: bar}}]"
#define RBD_AB_IMG2 "[{name: v, rbd: {monitors: [a, b], pool: foo, image: qux}}]"
#define RBD_A_NOPOOL "[{name: v, rbd: {monitors: [a], image: bar}}]"
#define RBD_A_RBDPOOL "[{name: v, rbd: {monitors: [a], pool: rbd, image: bar}}]"
#define ISCSI_16 \
    "[{name: v, iscsi: {targetPortal: \"127.0.0.1:3260\", iqn: \"iqn.2016-12.server:storage.target01\", " \
    "fsType: ext4, lun: 0}}]"
#define ISCSI_17 \
    "[{name: v, iscsi: {targetPortal: \"127.0.0.1:3260\", iqn: \"iqn.2017-12.server:storage.target01\", " \
    "fsType: ext4, lun: 0}}]"
#define ISCSI_16_RO \
    "[{name: v, iscsi: {targetPortal: \"127.0.0.1:3260\", iqn: \"iqn.2016-12.server:storage.target01\", " \
    "lun: 0, readOnly: true}}]"
#define PVC_A "[{name: v, persistentVolumeClaim: {claimName: a}}]"
#define EMPTY_DIR "[{name: v, emptyDir: {}}]"

#endif
