/* The running versions a long-running descheduler passes from. See
 * run/deschedule_sources.h. */
#include "run/deschedule_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/desched_lua.h"
#include "moonsched/intern.h"
#include "moonsched/lua_policy.h"

/* A --policy file loads when it compiles and its init runs, in a scratch
 * runtime: what the pass's policy set would refuse. */
static ms_rc load_lua(const char *path, const ms_desched_reader *rd, const ms_desched_extension *ext,
                      ms_error *err) {
    (void)ext;
    char *text = NULL, chunk[4200];
    size_t len = 0;
    ms_rc rc = rd->read(rd->ctx, path, &text, &len, err);
    if (rc != MS_OK) return rc;
    ms_interner *in = ms_interner_new();
    ms_lua_runtime *rt = NULL;
    ms_lua_state *st = NULL;
    ms_lua_options lo;
    ms_lua_options_default(&lo);
    if (!in) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (rc == MS_OK) rc = ms_lua_runtime_new(&lo, in, &rt, err);
    snprintf(chunk, sizeof chunk, "@%s", path);
    if (rc == MS_OK) rc = ms_lua_state_load_ex(rt, NULL, chunk, text, len, NULL, &st, err);
    if (st) ms_lua_state_free(st);
    if (rt) ms_lua_runtime_free(rt);
    if (in) ms_interner_free(in);
    free(text);
    return rc;
}

/* "lua:NAME" of a file, as `run` names a --policy file that did not load. */
static char *plugin_name(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".lua") == 0) n -= 4;
    char *p = malloc(n + 5);
    if (p) snprintf(p, n + 5, "lua:%.*s", (int)n, base);
    return p;
}

static ms_rc add_file(ms_desched_sources *s, const char *arg, ms_error *err) {
    struct ms_desched_policy_file *f = &s->files[s->n];
    const char *opt = strstr(arg, ",onLoadError=");
    f->path = opt ? strndup(arg, (size_t)(opt - arg)) : strdup(arg);
    f->plugin = f->path ? plugin_name(f->path) : NULL;
    if (!f->plugin) {
        free(f->path);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    s->n++;
    ms_desched_policy_source_init(&f->src, f->path, NULL);
    f->src.load = load_lua;
    if (ms_desched_policy_source_check(&f->src, err) != MS_DESCHED_RELOAD_OK) {
        ms_error_prefix(err, "--policy %s", f->path);
        return MS_EINVAL;
    }
    return MS_OK;
}

ms_rc ms_desched_sources_start(ms_desched_sources *s, const char *policy_file, const char *const *files, uint32_t n,
                               ms_error *err) {
    memset(s, 0, sizeof *s);
    ms_desched_policy_source_init(&s->policy, policy_file, &ms_desched_lua_extension);
    if (n && !(s->files = calloc(n, sizeof *s->files))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    if (ms_desched_policy_source_check(&s->policy, err) != MS_DESCHED_RELOAD_OK) return MS_EINVAL;
    for (uint32_t i = 0; i < n; i++) {
        ms_rc rc = add_file(s, files[i], err);
        if (rc != MS_OK) return rc;
    }
    return MS_OK;
}

void ms_desched_sources_free(ms_desched_sources *s) {
    ms_desched_policy_source_free(&s->policy);
    for (uint32_t i = 0; i < s->n; i++) {
        ms_desched_policy_source_free(&s->files[i].src);
        free(s->files[i].path);
        free(s->files[i].plugin);
    }
    free(s->files);
    memset(s, 0, sizeof *s);
}

static void check_one(ms_desched_policy_source *src, const char *plugin, ms_desched_sources_report report,
                      void *ctx) {
    ms_error e = {0};
    ms_desched_reload r = ms_desched_policy_source_check(src, &e);
    if (r != MS_DESCHED_RELOAD_SAME) report(ctx, plugin, src->path, r == MS_DESCHED_RELOAD_OK, e.msg);
}

void ms_desched_sources_check(ms_desched_sources *s, ms_desched_sources_report report, void *ctx) {
    check_one(&s->policy, "DeschedulerPolicy", report, ctx);
    for (uint32_t i = 0; i < s->n; i++) check_one(&s->files[i].src, s->files[i].plugin, report, ctx);
}

static bool holds(const ms_desched_policy_source *src, const char *path) {
    for (uint32_t i = 0; src->has_good && i < src->good.n; i++)
        if (strcmp(src->good.v[i].path, path) == 0) return true;
    return false;
}

ms_rc ms_desched_sources_read(void *ctx, const char *path, char **text, size_t *len, ms_error *err) {
    const ms_desched_sources *s = ctx;
    const ms_desched_policy_source *src = holds(&s->policy, path) ? &s->policy : NULL;
    for (uint32_t i = 0; !src && i < s->n; i++)
        if (holds(&s->files[i].src, path)) src = &s->files[i].src;
    if (!src) return ms_lua_read_file(path, text, len, err);
    const ms_desched_reader *rd = ms_desched_policy_source_reader(src);
    return rd->read(rd->ctx, path, text, len, err);
}
