/* Reloading a DeschedulerPolicy and its Lua files: a version that loads
 * replaces the running one, a broken one is refused once and the running
 * one keeps being served, a file rewritten with the same text is no new
 * version, a file gone and back is seen. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/desched_lua.h"
#include "descheduler/config_source.h"
#include "moonsched/intern.h"
#include "moonsched/lua_policy.h"

typedef struct env {
    char dir[64], yaml[128], lua[128];
    ms_desched_policy_source src;
} env;

#define QUIET "local p = {name = 'hot'}\nfunction p.deschedule(nodes) return {} end\nreturn p\n"
#define EVICTS "local p = {name = 'hot'}\nfunction p.deschedule(nodes) return {} end\n" \
               "function p.evictable(pod) return true end\nreturn p\n"
#define BROKEN "local p = {name = 'hot'\nreturn p\n"

static int setup(void **state) {
    env *e = calloc(1, sizeof *e);
    snprintf(e->dir, sizeof e->dir, "/tmp/ms-psrc-XXXXXX");
    assert_non_null(mkdtemp(e->dir));
    snprintf(e->yaml, sizeof e->yaml, "%s/policy.yaml", e->dir);
    snprintf(e->lua, sizeof e->lua, "%s/hot.lua", e->dir);
    char text[512];
    snprintf(text, sizeof text,
             "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
             "  pluginConfig:\n  - {name: 'lua:hot', args: {file: '%s'}}\n"
             "  plugins:\n    deschedule: {enabled: ['lua:hot']}\n",
             e->lua);
    tu_put(e->yaml, text);
    tu_put(e->lua, QUIET);
    ms_desched_policy_source_init(&e->src, e->yaml, &ms_desched_lua_extension);
    *state = e;
    return 0;
}

static int teardown(void **state) {
    env *e = *state;
    ms_desched_policy_source_free(&e->src);
    unlink(e->yaml);
    unlink(e->lua);
    rmdir(e->dir);
    free(e);
    return 0;
}

/* The running version, loaded through the source's reader: whether its
 * Lua policy has the evictable hook. */
static bool running_has_evictable(env *e) {
    ms_interner *in = ms_interner_new();
    ms_desched_policy p;
    ms_error err = {0};
    ms_rc rc = ms_desched_policy_load_with(&p, e->yaml, ms_desched_policy_source_reader(&e->src), &ms_desched_lua_extension, in, &err);
    assert_int_equal(rc, MS_OK);
    assert_int_equal(p.nprofiles, 1);
    assert_int_equal(p.profiles[0].npolicies, 1);
    bool has = ms_policy_hooks(p.profiles[0].policies[0].policy) & MS_LUA_HOOK_EVICTABLE;
    ms_desched_policy_free(&p);
    ms_interner_free(in);
    return has;
}

static void test_reload(void **state) {
    env *e = *state;
    ms_error err = {0};
    assert_null(ms_desched_policy_source_reader(&e->src));
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_OK);
    assert_false(running_has_evictable(e));
    /* Nothing changed; then the same text written again. */
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_SAME);
    tu_put(e->lua, QUIET);
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_SAME);
    /* A broken edit: refused once, with the Lua message; the running
     * version is still what the reader serves. */
    tu_put(e->lua, BROKEN);
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_REFUSED);
    assert_non_null(strstr(err.msg, "hot.lua:2:"));
    assert_non_null(strstr(err.msg, "'}' expected"));
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_SAME);
    assert_false(running_has_evictable(e));
    /* Fixed with a new version: it runs. */
    tu_put(e->lua, EVICTS);
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_OK);
    assert_true(running_has_evictable(e));
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_SAME);
}

static void test_broken_policy_file_and_file_gone(void **state) {
    env *e = *state;
    ms_error err = {0};
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_OK);
    /* The DeschedulerPolicy itself broken: upstream's message. */
    char good[1024];
    FILE *f = fopen(e->yaml, "r");
    size_t n = fread(good, 1, sizeof good - 1, f);
    fclose(f);
    good[n] = '\0';
    tu_put(e->yaml, "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                 "  plugins:\n    deschedule: {enabled: [NoSuchPlugin]}\n");
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_REFUSED);
    assert_non_null(strstr(err.msg, "NoSuchPlugin"));
    tu_put(e->yaml, good);
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_SAME);
    /* The Lua file gone: refused; back with a new text: runs. */
    unlink(e->lua);
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_REFUSED);
    assert_false(running_has_evictable(e));
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_SAME);
    tu_put(e->lua, EVICTS);
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_OK);
    assert_true(running_has_evictable(e));
}

static void test_first_load_refused(void **state) {
    env *e = *state;
    ms_error err = {0};
    tu_put(e->lua, BROKEN);
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_REFUSED);
    assert_null(ms_desched_policy_source_reader(&e->src));
    /* Still broken: the caller stops before a second look, but a second
     * look without a running version reports it again. */
    assert_int_equal(ms_desched_policy_source_check(&e->src, &err), MS_DESCHED_RELOAD_REFUSED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reload, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broken_policy_file_and_file_gone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_load_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
