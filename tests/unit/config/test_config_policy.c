/* Lua policies in the configuration: plugin names, pluginConfig args and
 * their errors, and adding a policy to a built profile. */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <stdio.h>

#include "moonsched/config.h"

static ms_rc load(const char *yaml, ms_config *c, ms_error *err) {
    char path[] = "/tmp/ms-cfgpol-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(yaml, f);
    fclose(f);
    ms_rc rc = ms_config_load_file(c, path, NULL, NULL, err);
    remove(path);
    return rc;
}

#define HEAD                                                                                   \
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n" \
    "- plugins:\n    multiPoint:\n      enabled: [{name: 'lua:gpu', weight: 5}]\n"

static void test_valid_policy_plugin(void **state) {
    (void)state;
    ms_config c;
    ms_error err = {0};
    ms_rc rc = load(HEAD "  pluginConfig:\n  - name: 'lua:gpu'\n    args:\n"
                         "      file: policies/gpu-binpack.lua\n"
                         "      args: {resource: nvidia.com/gpu}\n"
                         "      budgetMs: 2.5\n      initBudgetMs: 2000\n      memoryLimitMiB: 16\n"
                         "      onError: skip\n"
                         "      onLoadError: skip\n      maxConsecutiveFailures: 0\n",
                    &c, &err);
    if (rc != MS_OK) fail_msg("%s", err.msg);
    assert_true(ms_config_has_policies(&c));
    const ms_profile_config *p = &c.profiles[0];
    const ms_plugin_config *pc = NULL;
    for (uint32_t i = 0; i < p->nplugins; i++)
        if (strcmp(p->plugins[i].name, "lua:gpu") == 0) pc = &p->plugins[i];
    assert_non_null(pc);
    assert_int_equal(pc->weight, 5);
    ms_policy_args a;
    assert_int_equal(ms_config_policy_args(pc->args, NULL, &a, &err), MS_OK);
    assert_string_equal(a.file, "policies/gpu-binpack.lua");
    assert_true(a.budget > 0.0024 && a.budget < 0.0026);
    assert_true(a.init_budget == 2.0);
    assert_int_equal(a.memory, 16u << 20);
    assert_int_equal(a.on_error, 1);
    assert_int_equal(a.on_load_error, 1);
    assert_int_equal(a.max_failures, 0);
    assert_string_equal(cJSON_GetObjectItem(a.args, "resource")->valuestring, "nvidia.com/gpu");
    ms_config_free(&c);

    assert_int_equal(ms_config_default(&c), MS_OK);
    assert_false(ms_config_has_policies(&c));
    ms_config_free(&c);
}

static void test_errors(void **state) {
    (void)state;
    static const struct {
        const char *yaml;
        const char *msg;
    } cases[] = {
        {HEAD, "profiles[0].pluginConfig: Required value: plugin \"lua:gpu\" needs an entry whose args "
               "name the policy's file"},
        {HEAD "  pluginConfig:\n  - {name: 'lua:gpu'}\n",
         "profiles[0].pluginConfig[0].args.file: Required value: the policy's file"},
        {HEAD "  pluginConfig:\n  - {name: 'lua:gpu', args: {file: 3}}\n",
         "profiles[0].pluginConfig[0].args.file: Invalid type: expected string, got number"},
        {HEAD "  pluginConfig:\n  - {name: 'lua:gpu', args: {file: x.lua, budget: 3}}\n",
         "profiles[0].pluginConfig[0].args.budget: Invalid value: unknown field"},
        {HEAD "  pluginConfig:\n  - {name: Other}\n  - {name: 'lua:gpu', args: {file: x.lua, budgetMs: 0}}\n",
         "profiles[0].pluginConfig[1].args.budgetMs: Invalid value: 0: must be greater than 0 and at most "
         "60000"},
        {HEAD "  pluginConfig:\n  - {name: 'lua:gpu', args: {file: x.lua, initBudgetMs: 60001}}\n",
         "profiles[0].pluginConfig[0].args.initBudgetMs: Invalid value: 60001: must be greater than 0 and "
         "at most 60000"},
        {HEAD "  pluginConfig:\n  - {name: 'lua:gpu', args: {file: x.lua, initBudgetMs: 0}}\n",
         "profiles[0].pluginConfig[0].args.initBudgetMs: Invalid value: 0: must be greater than 0 and "
         "at most 60000"},
        {HEAD "  pluginConfig:\n  - {name: 'lua:gpu', args: {file: x.lua, memoryLimitMiB: 1.5}}\n",
         "profiles[0].pluginConfig[0].args.memoryLimitMiB: Invalid value: 1.5: must be an integer between "
         "1 and 1048576"},
        {HEAD "  pluginConfig:\n  - {name: 'lua:gpu', args: {file: x.lua, onError: filter}}\n",
         "profiles[0].pluginConfig[0].args.onError: Unsupported value: \"filter\": supported values: "
         "\"reject\", \"skip\""},
        {HEAD "  pluginConfig:\n  - {name: 'lua:gpu', args: {file: x.lua, onLoadError: fail}}\n",
         "profiles[0].pluginConfig[0].args.onLoadError: Unsupported value: \"fail\": supported values: "
         "\"reject\", \"skip\""},
        {HEAD "  pluginConfig:\n  - {name: 'lua:gpu', args: {file: x.lua, maxConsecutiveFailures: -1}}\n",
         "profiles[0].pluginConfig[0].args.maxConsecutiveFailures: Invalid value: -1: must be a "
         "non-negative integer"},
        {HEAD "  pluginConfig:\n  - {name: 'lua:gpu', args: {file: x.lua, args: [1]}}\n",
         "profiles[0].pluginConfig[0].args.args: Invalid type: expected object, got list"},
        {"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
         "- plugins:\n    filter:\n      enabled: [{name: 'lua:has space'}]\n",
         "profiles[0].plugins: Invalid value: \"lua:has space\": a Lua policy plugin is named lua:NAME, "
         "NAME being 1 to 59 letters, digits, '-', '_' or '.'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_config c;
        ms_error err = {0};
        assert_int_equal(load(cases[i].yaml, &c, &err), MS_EINVAL);
        const char *colon = strstr(err.msg, ": profiles[0]");
        if (!colon || strcmp(colon + 2, cases[i].msg) != 0)
            fail_msg("case %zu: got \"%s\", want \"...: %s\"", i, err.msg, cases[i].msg);
        ms_config_free(&c);
    }
}

static void test_names(void **state) {
    (void)state;
    assert_true(ms_config_is_policy("lua:x"));
    assert_false(ms_config_is_policy("NodeAffinity"));
    assert_true(ms_config_policy_name_valid("lua:gpu-binpack_v2.1"));
    assert_false(ms_config_policy_name_valid("lua:"));
    assert_false(ms_config_policy_name_valid("lua:a/b"));
    char long_name[80];
    snprintf(long_name, sizeof long_name, "lua:%060d", 0);
    assert_false(ms_config_policy_name_valid(long_name));
    long_name[4 + 59] = 0;
    assert_true(ms_config_policy_name_valid(long_name));
}

static void test_profile_config_add(void **state) {
    (void)state;
    ms_profile_config p;
    ms_profile_config_default(&p, "default-scheduler");
    uint32_t n = p.nplugins;
    uint8_t nfilter = p.norder[MS_EP_FILTER];
    ms_error err = {0};
    uint32_t points = (1u << MS_EP_FILTER) | (1u << MS_EP_SCORE) | (1u << MS_EP_QUEUE_SORT);
    assert_int_equal(ms_profile_config_add(&p, "lua:x", points, 0, cJSON_CreateObject(), &err), MS_OK);
    assert_int_equal(p.nplugins, n + 1);
    assert_int_equal(p.plugins[n].weight, 1);
    assert_int_equal(p.plugins[n].explicit_points, 0);
    assert_int_equal(p.norder[MS_EP_FILTER], nfilter + 1);
    assert_int_equal(p.order[MS_EP_FILTER][nfilter], n);
    /* The new QueueSort replaces PrioritySort. */
    assert_int_equal(p.norder[MS_EP_QUEUE_SORT], 1);
    assert_int_equal(p.order[MS_EP_QUEUE_SORT][0], n);
    for (uint32_t i = 0; i < n; i++) assert_false(p.plugins[i].points & (1u << MS_EP_QUEUE_SORT));
    assert_int_equal(ms_profile_config_add(&p, "lua:x", points, 1, NULL, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "enabled already"));
    cJSON_Delete(p.plugins[n].args);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_policy_plugin),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_profile_config_add),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
