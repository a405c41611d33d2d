/* A Lua policy's pick_devices through a scheduler given it by the policy
 * layer's hooks (policy/policy_list.h): DynamicResources allocates the
 * devices the policy chooses (the last of the four free GPUs here), the
 * allocator's first without the policy or with a policy that does not
 * define the hook. */
#include "testutil.h"
#include "fixtures.h"

#include <cjson/cJSON.h>

#include "codec/decode_dra.h"
#include "framework/plugins/dynamic_resources.h"
#include "moonsched/config.h"
#include "moonsched/lua_policy.h"
#include "moonsched/scheduler.h"
#include "scheduler/dra_events.h"
#include "sched_policy.h"

typedef struct env {
    fx_env fx;
    ms_config cfg;
    sched_policy sp;
    ms_scheduler *s;
} env;

static ms_scheduler *bound_to;

static ms_rc bind_now(void *ctx, const ms_pod *pod, ms_str node) {
    (void)ctx, (void)node;
    ms_scheduler_bind_done(bound_to, pod, true, false, NULL, 0);
    return MS_OK;
}

static void dra(env *e, const char *text) {
    cJSON **docs = NULL;
    size_t n = 0;
    ms_error err = {0};
    if (ms_yaml_parse(text, strlen(text), &docs, &n, &err) != MS_OK || n != 1) fail_msg("yaml: %s", err.msg);
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(docs[0], "kind");
    ms_dra_object *o = NULL;
    if (ms_dra_decode(&e->fx.d, (ms_dra_kind)ms_dra_kind_from_name(k->valuestring), docs[0], &o, &err) != MS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(ms_scheduler_dra_set(e->s, o, 0), MS_OK);
    ms_dra_unref(o);
    cJSON_Delete(docs[0]);
    free(docs);
}

/* src: a policy, or NULL. Returns the device the pod's claim got. */
static const char *schedule(const char *src) {
    static char device[64];
    env *e = calloc(1, sizeof *e);
    assert_non_null(e);
    fx_env_init(&e->fx);
    static const char *const names[] = {"PrioritySort", "DynamicResources", "DefaultBinder"};
    sched_profile(&e->cfg, names, 3);
    ms_error err = {0};
    ms_scheduler_options o = {.config = &e->cfg, .in = e->fx.in, .binder = {e, bind_now}, .seed = 1};
    if (src) sched_policy_add(&e->sp, e->fx.in, src, &e->cfg.profiles[0], &o);
    if (ms_scheduler_new(&o, &e->s, &err) != MS_OK) fail_msg("ms_scheduler_new: %s", err.msg);
    bound_to = e->s;
    ms_scheduler_dra_provided(e->s);
    dra(e, "kind: DeviceClass\nmetadata: {name: gpu}\nspec: {selectors: [{cel: {expression: 'device.driver == \"d\"'}}]}\n");
    dra(e, "kind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d, nodeName: n1, pool: {name: p, generation: 1, "
           "resourceSliceCount: 1}, devices: [{name: gpu-0}, {name: gpu-1}, {name: gpu-2}, {name: gpu-3}]}\n");
    dra(e, "kind: ResourceClaim\nmetadata: {name: c, namespace: default}\n"
           "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n");
    ms_node *n = fx_node(&e->fx.d, "metadata: {name: n1}\nstatus: {allocatable: {cpu: '2', memory: 8Gi, pods: '110'}}\n");
    ms_scheduler_node_add(e->s, n, 0);
    ms_node_unref(n);
    ms_pod *p = fx_pod(&e->fx.d, "metadata: {name: job, namespace: default, uid: job-uid}\n"
                                 "spec: {containers: [{name: c}], resourceClaims: [{name: gpu, resourceClaimName: c}]}\n");
    ms_scheduler_pod_add(e->s, p, 0);
    ms_pod_unref(p);
    for (double now = 0; now < 5; now += 1) {
        ms_scheduler_tick(e->s, now);
        while (ms_scheduler_schedule_one(e->s, now)) {}
    }
    const ms_dra_object *c = ms_dra_store_get(ms_scheduler_dra_store(e->s), MS_DK_RESOURCE_CLAIM,
                                              ms_intern_cstr(e->fx.in, "default"), ms_intern_cstr(e->fx.in, "c"));
    snprintf(device, sizeof device, "%s",
             c && c->u.claim.allocated && c->u.claim.nresults == 1 ? ms_str_get(e->fx.in, c->u.claim.results[0].device)
                                                                   : "(none)");
    ms_scheduler_free(e->s);
    sched_policy_free(&e->sp);
    ms_config_free(&e->cfg);
    fx_env_free(&e->fx);
    free(e);
    return device;
}

static void test_policy_chooses(void **state) {
    (void)state;
    assert_string_equal(schedule(NULL), "gpu-0");
    assert_string_equal(schedule("local p = {name = 'last'}\n"
                                 "function p.pick_devices(pod, node, options) return #options end\n"
                                 "return p\n"),
                        "gpu-3");
    assert_string_equal(schedule("local p = {name = 'scores'}\n"
                                 "function p.pick_devices(pod, node, options)\n"
                                 "  local s = {}\n"
                                 "  for i, o in ipairs(options) do s[i] = o.devices[1].name == 'gpu-2' and 1 or 0 end\n"
                                 "  return s\n"
                                 "end\n"
                                 "return p\n"),
                        "gpu-2");
    assert_string_equal(schedule("local p = {name = 'other'}\n"
                                 "function p.filter() return true end\n"
                                 "return p\n"),
                        "gpu-0");
}

/* With two profiles, only the one that names the policy gets its
 * pick_devices; a profile beyond the list's room gets nothing. */
static void test_only_profiles_naming_it(void **state) {
    (void)state;
    fx_env fx;
    fx_env_init(&fx);
    ms_config cfg;
    static const char *const names[] = {"PrioritySort", "DynamicResources", "DefaultBinder"};
    sched_profile(&cfg, names, 3);
    ms_profile_config other = cfg.profiles[0];
    ms_scheduler_options o = {0};
    sched_policy sp = {0};
    ms_policy_devices room[2];
    sched_policy_add(&sp, fx.in, "local p = {name = 'last'}\n"
                                 "function p.pick_devices(pod, node, options) return #options end\n"
                                 "return p\n",
                     &cfg.profiles[0], &o);
    sp.list.devices = room;
    sp.list.nprofiles = 2;
    const ms_dra_hooks *h = o.policy_hooks.devices(o.policy_hooks.ctx, 0, &cfg.profiles[0]);
    assert_non_null(h);
    assert_ptr_equal(h->ctx, &room[0]);
    assert_true(h->wants(h->ctx));
    assert_null(o.policy_hooks.devices(o.policy_hooks.ctx, 1, &other));
    assert_null(o.policy_hooks.devices(o.policy_hooks.ctx, 2, &cfg.profiles[0]));
    sched_policy_free(&sp);
    ms_config_free(&cfg);
    fx_env_free(&fx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_chooses),
        cmocka_unit_test(test_only_profiles_naming_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
