/* The sources of a long-running descheduler: a --policy file of the
 * predictions keeps its last version that loaded as the DeschedulerPolicy
 * does: a broken edit is refused and reported once, the running text is
 * still what the pass reads, a fixed edit is reported loaded; a file of
 * no running version is read from the disk. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/deschedule_sources.h"

typedef struct env {
    char dir[64], yaml[128], lua[128], other[128], arg[160];
    ms_desched_sources s;
    int ok, refused;
    char plugin[64], msg[512];
} env;

#define GOOD "local p = {name = 'spread'}\nfunction p.score(pod, node) return 1 end\nreturn p\n"
#define BETTER "local p = {name = 'spread'}\nfunction p.score(pod, node) return 2 end\nreturn p\n"
#define BROKEN "local p = {name = 'spread'\nreturn p\n"

static int setup(void **state) {
    env *e = calloc(1, sizeof *e);
    snprintf(e->dir, sizeof e->dir, "/tmp/ms-dsrc-XXXXXX");
    assert_non_null(mkdtemp(e->dir));
    snprintf(e->yaml, sizeof e->yaml, "%s/policy.yaml", e->dir);
    snprintf(e->lua, sizeof e->lua, "%s/spread.lua", e->dir);
    snprintf(e->other, sizeof e->other, "%s/other.lua", e->dir);
    snprintf(e->arg, sizeof e->arg, "%s,onLoadError=skip", e->lua);
    tu_put(e->yaml, "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                 "  pluginConfig:\n  - {name: RemovePodsViolatingNodeTaints}\n"
                 "  plugins:\n    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}\n");
    tu_put(e->lua, GOOD);
    tu_put(e->other, "-- not a running version\n");
    *state = e;
    return 0;
}

static int teardown(void **state) {
    env *e = *state;
    ms_desched_sources_free(&e->s);
    unlink(e->yaml);
    unlink(e->lua);
    unlink(e->other);
    rmdir(e->dir);
    free(e);
    return 0;
}

static void report(void *ctx, const char *plugin, const char *file, bool ok, const char *msg) {
    env *e = ctx;
    (void)file;
    if (ok) e->ok++;
    else e->refused++;
    snprintf(e->plugin, sizeof e->plugin, "%s", plugin);
    snprintf(e->msg, sizeof e->msg, "%s", msg);
}

/* What the pass reads for path, compared with `want`. */
static void reads(env *e, const char *path, const char *want) {
    char *text = NULL;
    size_t len = 0;
    ms_error err = {0};
    assert_int_equal(ms_desched_sources_read(&e->s, path, &text, &len, &err), MS_OK);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(text, want, len);
    free(text);
}

static void test_policy_file_last_good(void **state) {
    env *e = *state;
    ms_error err = {0};
    const char *files[] = {e->arg};
    ms_rc rc = ms_desched_sources_start(&e->s, e->yaml, files, 1, &err);
    if (rc != MS_OK) print_error("%s\n", err.msg);
    assert_int_equal(rc, MS_OK);
    assert_int_equal(e->s.n, 1);
    assert_string_equal(e->s.files[0].path, e->lua);   /* without ",onLoadError=skip" */
    ms_desched_sources_check(&e->s, report, e);
    assert_int_equal(e->ok + e->refused, 0);           /* nothing changed */

    tu_put(e->lua, BROKEN);
    ms_desched_sources_check(&e->s, report, e);
    assert_int_equal(e->refused, 1);
    assert_string_equal(e->plugin, "lua:spread");
    assert_non_null(strstr(e->msg, "spread.lua:2:"));
    reads(e, e->lua, GOOD);                            /* the running version stays */
    ms_desched_sources_check(&e->s, report, e);
    assert_int_equal(e->refused, 1);                   /* refused once */

    tu_put(e->lua, BETTER);
    ms_desched_sources_check(&e->s, report, e);
    assert_int_equal(e->ok, 1);
    assert_string_equal(e->plugin, "lua:spread");
    reads(e, e->lua, BETTER);
    reads(e, e->other, "-- not a running version\n");   /* the disk */
}

static void test_broken_at_start(void **state) {
    env *e = *state;
    ms_error err = {0};
    tu_put(e->lua, BROKEN);
    const char *files[] = {e->lua};
    assert_int_equal(ms_desched_sources_start(&e->s, e->yaml, files, 1, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "--policy "));
    assert_non_null(strstr(err.msg, "spread.lua:2:"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_policy_file_last_good, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broken_at_start, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
