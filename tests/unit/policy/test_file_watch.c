/* The file watcher: edits in place, renames over the file, a ConfigMap
 * volume's ..data symlink swap, delete and re-create, changes made before
 * the start, and files that do not change. */
#include "testutil.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "policy/file_watch.h"

typedef struct env {
    char dir[64];
    ms_watch *w;
    _Atomic uint32_t changed[4];
    _Atomic uint32_t wakes;
} env;

static void on_changed(void *ctx, uint32_t index) {
    env *e = ctx;
    if (index < 4) atomic_fetch_add(&e->changed[index], 1);
}

static void on_wake(void *ctx) { atomic_fetch_add(&((env *)ctx)->wakes, 1); }

static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Waits up to 3 s for the counter to reach n. */
static bool wait_for(_Atomic uint32_t *c, uint32_t n) {
    for (int i = 0; i < 300; i++) {
        if (atomic_load(c) >= n) return true;
        sleep_ms(10);
    }
    return false;
}

static void path_in(const env *e, const char *name, char *out, size_t n) {
    snprintf(out, n, "%s/%s", e->dir, name);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static env *env_new(void) {
    env *e = calloc(1, sizeof *e);
    assert_non_null(e);
    snprintf(e->dir, sizeof e->dir, "/tmp/ms-watch-XXXXXX");
    assert_non_null(mkdtemp(e->dir));
    ms_watch_options o = {.changed = on_changed, .wake = on_wake, .ctx = e, .settle = 0.005,
                          .rescan = 60};
    ms_error err = {0};
    assert_int_equal(ms_watch_new(&o, &e->w, &err), MS_OK);
    return e;
}

static void env_free(env *e) {
    ms_watch_free(e->w);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", e->dir);
    assert_int_equal(system(cmd), 0);
    free(e);
}

static uint32_t add(env *e, const char *path) {
    uint32_t idx = 99;
    ms_error err = {0};
    assert_int_equal(ms_watch_add(e->w, path, &idx, &err), MS_OK);
    return idx;
}

static void test_edit_and_rename(void **state) {
    (void)state;
    env *e = env_new();
    char a[128], b[128], tmp[128];
    path_in(e, "a.lua", a, sizeof a);
    path_in(e, "b.lua", b, sizeof b);
    path_in(e, "b.lua.tmp", tmp, sizeof tmp);
    write_file(a, "one");
    write_file(b, "one");
    assert_int_equal(add(e, a), 0);
    assert_int_equal(add(e, b), 1);
    ms_error err = {0};
    assert_int_equal(ms_watch_start(e->w, &err), MS_OK);
    sleep_ms(50);
    assert_int_equal(atomic_load(&e->changed[0]), 0);

    write_file(a, "two, written in place");
    assert_true(wait_for(&e->changed[0], 1));
    /* An editor's save: a new file renamed over the old one. */
    write_file(tmp, "two");
    assert_int_equal(rename(tmp, b), 0);
    assert_true(wait_for(&e->changed[1], 1));
    sleep_ms(50);
    assert_int_equal(atomic_load(&e->changed[0]), 1);
    assert_int_equal(atomic_load(&e->changed[1]), 1);

    ms_watch_wake(e->w);
    assert_true(wait_for(&e->wakes, 1));
    env_free(e);
}

/* The layout kubelet makes for a ConfigMap volume, and its update. */
static void test_configmap_swap(void **state) {
    (void)state;
    env *e = env_new();
    char cmd[512], path[128];
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir ..2024_01_01_00_00_00.1 && echo v1 > ..2024_01_01_00_00_00.1/p.lua && "
             "ln -s ..2024_01_01_00_00_00.1 ..data && ln -s ..data/p.lua p.lua",
             e->dir);
    assert_int_equal(system(cmd), 0);
    path_in(e, "p.lua", path, sizeof path);
    add(e, path);
    ms_error err = {0};
    assert_int_equal(ms_watch_start(e->w, &err), MS_OK);
    sleep_ms(30);
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir ..2024_01_01_00_05_00.2 && echo v2 > ..2024_01_01_00_05_00.2/p.lua && "
             "ln -s ..2024_01_01_00_05_00.2 ..data_tmp && mv -T ..data_tmp ..data && "
             "rm -rf ..2024_01_01_00_00_00.1",
             e->dir);
    assert_int_equal(system(cmd), 0);
    assert_true(wait_for(&e->changed[0], 1));
    /* The watch follows the new target's directory: a second swap is seen. */
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir ..2024_01_01_00_10_00.3 && echo v3 > ..2024_01_01_00_10_00.3/p.lua && "
             "ln -s ..2024_01_01_00_10_00.3 ..data_tmp && mv -T ..data_tmp ..data && "
             "rm -rf ..2024_01_01_00_05_00.2",
             e->dir);
    assert_int_equal(system(cmd), 0);
    assert_true(wait_for(&e->changed[0], 2));
    sleep_ms(50);
    assert_int_equal(atomic_load(&e->changed[0]), 2);
    env_free(e);
}

/* Delete then create: nothing while the file is missing, one change once
 * it is back. A change made between add and start is seen at the start. */
static void test_delete_create_and_before_start(void **state) {
    (void)state;
    env *e = env_new();
    char a[128], b[128];
    path_in(e, "a.lua", a, sizeof a);
    path_in(e, "b.lua", b, sizeof b);
    write_file(a, "one");
    write_file(b, "one");
    add(e, a);
    add(e, b);
    write_file(b, "changed before the start");
    ms_error err = {0};
    assert_int_equal(ms_watch_start(e->w, &err), MS_OK);
    assert_true(wait_for(&e->changed[1], 1));
    assert_int_equal(unlink(a), 0);
    sleep_ms(60);
    assert_int_equal(atomic_load(&e->changed[0]), 0);
    write_file(a, "back");
    assert_true(wait_for(&e->changed[0], 1));
    env_free(e);
}

static void test_errors(void **state) {
    (void)state;
    ms_watch *w = NULL;
    ms_error err = {0};
    ms_watch_options o = {0};
    assert_int_equal(ms_watch_new(&o, &w, &err), MS_EINVAL);
    assert_null(w);
    env *e = env_new();
    assert_int_equal(ms_watch_start(e->w, &err), MS_OK);
    assert_int_equal(ms_watch_add(e->w, "/tmp/x", NULL, &err), MS_ESTATE);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edit_and_rename),
        cmocka_unit_test(test_configmap_swap),
        cmocka_unit_test(test_delete_create_and_before_start),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
