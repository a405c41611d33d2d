/* Reloading a DeschedulerPolicy and its Lua files: each version is the
 * set of texts read while loading it (recorded by a reader that reads the
 * disk), compared by content so that a file touched or rewritten with the
 * same text is no new version, and loaded in a scratch interner only to
 * learn whether it loads: the pass loads the running one again, in its
 * own interner, from memory. The same for a scheduling policy file, with
 * its own `load`. */
#include "descheduler/config_source.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "moonsched/decode.h"
#include "moonsched/intern.h"

/* Files larger than this are no policy (the policy's own limit). */
#define SOURCE_MAX_BYTES (4u << 20)

static void files_free(ms_desched_files *f) {
    for (uint32_t i = 0; i < f->n; i++) {
        free(f->v[i].path);
        free(f->v[i].text);
    }
    free(f->v);
    memset(f, 0, sizeof *f);
}

/* Same text, or both unreadable (text NULL). */
static bool same_text(const struct ms_desched_file *e, const char *text, size_t len) {
    if (!e->text || !text) return !e->text && !text;
    return e->len == len && memcmp(e->text, text, len) == 0;
}

static bool files_equal(const ms_desched_files *a, const ms_desched_files *b) {
    if (a->n != b->n) return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i].path, b->v[i].path) != 0 || !same_text(&a->v[i], b->v[i].text, b->v[i].len))
            return false;
    return true;
}

static const struct ms_desched_file *files_find(const ms_desched_files *f, const char *path) {
    for (uint32_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].path, path) == 0) return &f->v[i];
    return NULL;
}

static char *copy(const char *text, size_t len) {
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, text, len);
        c[len] = '\0';
    }
    return c;
}

/* Reads the disk and keeps a copy of what it read; a file it could not
 * read is kept too (text NULL), so that its coming back is a change. */
static ms_rc record(void *ctx, const char *path, char **text, size_t *len, ms_error *err) {
    ms_desched_files *f = ctx;
    *text = NULL;
    ms_rc rc = ms_read_file(path, SOURCE_MAX_BYTES, text, len, err);
    if (files_find(f, path)) return rc;
    struct ms_desched_file *e = NULL;
    if (ms_array_grow((void **)&f->v, &f->cap, f->n + 1, sizeof *f->v)) {
        e = &f->v[f->n];
        memset(e, 0, sizeof *e);
        e->path = strdup(path);
        if (e->path && rc == MS_OK && !(e->text = copy(*text, *len))) {
            free(e->path);
            e->path = NULL;
        }
    }
    if (!e || !e->path) {
        free(*text);
        *text = NULL;
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    }
    e->len = rc == MS_OK ? *len : 0;
    f->n++;
    return rc;
}

/* Serves the running version from memory. */
static ms_rc replay(void *ctx, const char *path, char **text, size_t *len, ms_error *err) {
    const struct ms_desched_file *e = files_find(ctx, path);
    if (!e || !e->text) return ms_error_set(err, MS_EINVAL, "%s: not part of the running policy", path);
    if (!(*text = copy(e->text, e->len))) return ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    *len = e->len;
    return MS_OK;
}

/* Whether every file of `f` still has the same text on the disk (a file
 * gone or unreadable differs): then loading would give the same result. */
static bool unchanged(const ms_desched_files *f) {
    if (f->n == 0) return false;
    for (uint32_t i = 0; i < f->n; i++) {
        char *text = NULL;
        size_t len = 0;
        ms_error e = {0};
        if (ms_read_file(f->v[i].path, SOURCE_MAX_BYTES, &text, &len, &e) != MS_OK) {
            free(text);
            text = NULL;
        }
        bool same = same_text(&f->v[i], text, len);
        free(text);
        if (!same) return false;
    }
    return true;
}

/* Loads the DeschedulerPolicy in a scratch interner. */
static ms_rc load_policy(const char *path, const ms_desched_reader *rd, const ms_desched_extension *ext,
                         ms_error *err) {
    ms_interner *in = ms_interner_new();
    if (!in) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_desched_policy p;
    ms_rc rc = ms_desched_policy_load_with(&p, path, rd, ext, in, err);
    if (rc == MS_OK) ms_desched_policy_free(&p);
    ms_interner_free(in);
    return rc;
}

void ms_desched_policy_source_init(ms_desched_policy_source *s, const char *path,
                                   const ms_desched_extension *ext) {
    memset(s, 0, sizeof *s);
    s->path = path;
    s->ext = ext;
    s->load = load_policy;
    s->reader = (ms_desched_reader){replay, &s->good};
}

void ms_desched_policy_source_free(ms_desched_policy_source *s) {
    files_free(&s->good);
    files_free(&s->refused);
}

/* Loads the files as they are on the disk, recording them in `f`. */
static ms_rc try_load(const ms_desched_policy_source *s, ms_desched_files *f, ms_error *err) {
    ms_desched_reader rd = {record, f};
    return s->load(s->path, &rd, s->ext, err);
}

ms_desched_reload ms_desched_policy_source_check(ms_desched_policy_source *s, ms_error *err) {
    if (s->has_good && unchanged(&s->good)) return MS_DESCHED_RELOAD_SAME;
    if (s->has_good && unchanged(&s->refused)) return MS_DESCHED_RELOAD_SAME;
    ms_desched_files f = {0};
    if (try_load(s, &f, err) != MS_OK) {
        /* A version that reads the same as the running one failed for a
         * reason outside its files (memory): nothing to refuse. */
        bool same = s->has_good && files_equal(&f, &s->good);
        files_free(&s->refused);
        s->refused = f;
        return same ? MS_DESCHED_RELOAD_SAME : MS_DESCHED_RELOAD_REFUSED;
    }
    files_free(&s->refused);
    if (s->has_good && files_equal(&f, &s->good)) {
        files_free(&f);
        return MS_DESCHED_RELOAD_SAME;
    }
    files_free(&s->good);
    s->good = f;
    s->has_good = true;
    return MS_DESCHED_RELOAD_OK;
}

const ms_desched_reader *ms_desched_policy_source_reader(const ms_desched_policy_source *s) {
    return s->has_good ? &s->reader : NULL;
}
