/* One built-in plugin instance and a scheduling cycle around one pod, for
 * the plugin tests. Include after "testutil.h". */
#ifndef MOONSCHED_TEST_PLUGIN_HARNESS_H
#define MOONSCHED_TEST_PLUGIN_HARNESS_H

#include "moonsched/plugin.h"
#include "taint_fixtures.h"

/* A plugin instance and a cycle around one pod. */
typedef struct harness {
    const ms_plugin_ops *ops;
    void *self;
    ms_handle h;
    ms_arena arena;
    void *slots[1];
    ms_cycle c;
} harness;

static inline void harness_init(harness *hx, const char *plugin, ms_pod *pod) {
    memset(hx, 0, sizeof *hx);
    hx->ops = ms_plugin_lookup(plugin);
    assert_non_null(hx->ops);
    hx->h.in = in;
    hx->h.wildcard_ip = S("0.0.0.0");
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

static inline ms_code run_filter(harness *hx, ms_node *node, ms_status *st) {
    ms_node_info ni = {0};
    ni.name = node ? node->meta.name : S("unknown");
    ni.node = node;
    ms_status_ok(st);
    return hx->ops->filter(hx->self, &hx->c, &ni, st);
}

#endif
