/* Lua policies in a DeschedulerPolicy: lua:NAME at deschedule runs the
 * policy's deschedule(nodes), at filter its evictable(pod) joins
 * DefaultEvictor's checks for every strategy; their errors. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

#define HEAD "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n"

static void drained(dx_env *e) {
    dx_node(e, "n1", 8000, 8192, 110, "moonsched.io/drain: 'true'", "");
    dx_node(e, "n2", 8000, 8192, 110, "", "taints: [{key: k, effect: NoSchedule}]");
    dx_pod(e, "low", "n1", 100, 100, "", ", priority: 1");
    dx_pod(e, "high", "n1", 100, 100, "", ", priority: 10");
    dx_pod(e, "pinned", "n1", 100, 100, ", annotations: {moonsched.io/pinned: 'true'}", ", priority: 0");
    dx_pod(e, "other", "n2", 100, 100, "", ", tolerations: [{key: k, operator: Exists}]");
    dx_pod(e, "tainted", "n2", 100, 100, ", annotations: {moonsched.io/pinned: 'true'}", "");
}

static void test_deschedule_hook(void **state) {
    (void)state;
    dx_env e;
    dx_init(&e);
    drained(&e);
    dx_policy(&e, HEAD "profiles:\n- name: p\n  pluginConfig:\n"
                       "  - {name: 'lua:drain', args: {file: policies/deschedule-drain.lua, args: {per_pass: 2}}}\n"
                       "  plugins:\n    deschedule: {enabled: ['lua:drain']}\n");
    dx_run(&e);
    char buf[128];
    assert_string_equal(dx_evicted(&e, buf, sizeof buf), "low,high");
    assert_string_equal(e.pass.evictions[0].strategy, "lua:drain");
    assert_string_equal(e.pass.evictions[0].reason, "node n1 is being drained");
    dx_free(&e);
}

static void test_evictable_hook_guards_other_strategies(void **state) {
    (void)state;
    dx_env e;
    dx_init(&e);
    drained(&e);
    dx_policy(&e, HEAD "profiles:\n- name: p\n  pluginConfig:\n"
                       "  - {name: 'lua:drain', args: {file: policies/deschedule-drain.lua}}\n"
                       "  - {name: RemovePodsViolatingNodeTaints}\n"
                       "  plugins:\n    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}\n"
                       "    filter: {enabled: [DefaultEvictor, 'lua:drain']}\n");
    dx_run(&e);
    assert_int_equal(e.pass.nevictions, 0);
    assert_string_equal(dx_skip_reason(&e, "tainted"), "pinned by the annotation moonsched.io/pinned");
    dx_free(&e);
}

static void test_errors(void **state) {
    (void)state;
    static const struct {
        const char *yaml, *msg;
    } cases[] = {
        {HEAD "profiles:\n- name: p\n  plugins:\n    deschedule: {enabled: ['lua:x']}\n",
         "unable to create \"p\" profile: unable to build lua:x plugin: unable to find \"lua:x\" plugin config"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n  - {name: 'lua:x', args: {}}\n",
         "profiles[0].pluginConfig[0].args.file: Required value: the policy's file"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n  - {name: 'lua:x', args: {file: policies/gpu-binpack.lua}}\n"
              "  plugins:\n    deschedule: {enabled: ['lua:x']}\n",
         "profile \"p\": lua:x is enabled at deschedule but defines no deschedule hook"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n  - {name: 'lua:x', args: {file: /nonexistent.lua}}\n"
              "  plugins:\n    balance: {enabled: ['lua:x']}\n",
         "profile \"p\": lua:x: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dx_env e;
        dx_init(&e);
        ms_error err = {0};
        const char *msg = dx_policy_error(&e, cases[i].yaml, &err);
        if (strncmp(msg, cases[i].msg, strlen(cases[i].msg)) != 0)
            fail_msg("case %zu:\n got: %s\nwant: %s", i, msg, cases[i].msg);
        dx_free(&e);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deschedule_hook),
        cmocka_unit_test(test_evictable_hook_guards_other_strategies),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
