/* Test fixtures: pods and nodes from JSON or YAML text, through the real
 * loader and decoder. Include after "testutil.h".
 *
 *   fx_env env; fx_env_init(&env);
 *   ms_pod *p = fx_pod(&env.d, "metadata: {name: p}\nspec: {containers: [{name: c}]}");
 *   ...
 *   ms_pod_unref(p); fx_env_free(&env);
 *
 * The text is one object (kind may be omitted) or a List / stream whose
 * first object of the wanted kind is returned. Failures fail the test with
 * the decoder's message. */
#ifndef MOONSCHED_TEST_FIXTURES_H
#define MOONSCHED_TEST_FIXTURES_H

#include <cjson/cJSON.h>
#include <string.h>

#include "api/storage.h"

#include "moonsched/arena.h"
#include "moonsched/decode.h"
#include "moonsched/intern.h"
#include "moonsched/labels.h"
#include "moonsched/node.h"
#include "moonsched/pod.h"
#include "codec/decode_dra.h"
#include "codec/decode_storage.h"
#include "codec/decode_workload.h"

typedef struct fx_env {
    ms_interner *in;
    ms_decoder d;
} fx_env;

static inline void fx_env_init(fx_env *e) {
    e->in = ms_interner_new();
    assert_non_null(e->in);
    ms_decoder_init(&e->d, e->in);
}

static inline void fx_env_free(fx_env *e) {
    ms_interner_free(e->in);
    e->in = NULL;
}

/* The decoder fixture of a test file whose tests share one environment:
 * at file scope, FX_DECODER_FIXTURE defines `env`, fx_group_setup and
 * fx_group_teardown (for cmocka_run_group_tests), S to intern a string and
 * T to read one back (NULL for MS_STR_NONE, so that "absent" and "empty"
 * differ in assertions). */
#define FX_DECODER_FIXTURE                                                                   \
    static fx_env env;                                                                       \
    static int fx_group_setup(void **state) {                                                \
        (void)state;                                                                         \
        fx_env_init(&env);                                                                   \
        return 0;                                                                            \
    }                                                                                        \
    static int fx_group_teardown(void **state) {                                             \
        (void)state;                                                                         \
        fx_env_free(&env);                                                                   \
        return 0;                                                                            \
    }                                                                                        \
    static inline ms_str S(const char *s) { return ms_intern_cstr(env.in, s); }              \
    static inline const char *T(ms_str id) { return id == MS_STR_NONE ? NULL : ms_str_get(env.in, id); }

/* The one YAML (or JSON) document of text; anything else fails the test.
 * The caller deletes it. */
static inline cJSON *fx_yaml(const char *text) {
    cJSON **docs = NULL;
    size_t n = 0;
    ms_error err = {0};
    if (ms_yaml_parse(text, strlen(text), &docs, &n, &err) != MS_OK || n != 1) fail_msg("yaml: %s", err.msg);
    cJSON *j = docs[0];
    free(docs);
    return j;
}

typedef struct fx_find {
    const ms_decoder *d;
    const char *kind;
    ms_pod *pod;
    ms_node *node;
} fx_find;

static inline ms_rc fx_find_cb(fx_find *f, const char *kind, const cJSON *obj, ms_error *err) {
    if (f->pod || f->node || strcmp(kind, f->kind) != 0) return MS_OK;
    if (strcmp(f->kind, "Pod") == 0) return ms_pod_decode(f->d, obj, &f->pod, err);
    return ms_node_decode(f->d, obj, &f->node, err);
}

/* Decodes the first object of `kind` in text (JSON or YAML; a List's items
 * count; an object without kind is taken to be of `kind`). Returns MS_OK or
 * the error (with err filled); *pod / *node receive the object. */
static inline ms_rc fx_decode(const ms_decoder *d, const char *kind, const char *text, ms_pod **pod,
                              ms_node **node, ms_error *err) {
    fx_find f = {d, kind, NULL, NULL};
    cJSON **docs = NULL;
    size_t ndocs = 0;
    size_t len = strlen(text);
    const char *p = text;
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
    ms_rc rc = *p == '{' || *p == '[' ? ms_json_parse_stream(text, len, &docs, &ndocs, err)
                                      : ms_yaml_parse(text, len, &docs, &ndocs, err);
    for (size_t i = 0; i < ndocs && rc == MS_OK; i++) {
        if (!cJSON_IsObject(docs[i])) continue;
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(docs[i], "kind");
        const char *dk = cJSON_IsString(k) ? k->valuestring : kind;
        const cJSON *items = cJSON_GetObjectItemCaseSensitive(docs[i], "items");
        size_t dl = strlen(dk);
        if (cJSON_IsArray(items) && dl >= 4 && strcmp(dk + dl - 4, "List") == 0) {
            const cJSON *it;
            cJSON_ArrayForEach(it, items) {
                const cJSON *ik = cJSON_GetObjectItemCaseSensitive(it, "kind");
                if ((rc = fx_find_cb(&f, cJSON_IsString(ik) ? ik->valuestring : kind, it, err)) != MS_OK)
                    break;
            }
        } else {
            rc = fx_find_cb(&f, dk, docs[i], err);
        }
    }
    for (size_t i = 0; i < ndocs; i++) cJSON_Delete(docs[i]);
    free(docs);
    if (rc == MS_OK && !f.pod && !f.node) rc = ms_error_set(err, MS_ENOENT, "no %s in the text", kind);
    if (pod) *pod = f.pod;
    else ms_pod_unref(f.pod);
    if (node) *node = f.node;
    else ms_node_unref(f.node);
    return rc;
}

static inline ms_pod *fx_pod(const ms_decoder *d, const char *text) {
    ms_error err = {0};
    ms_pod *p = NULL;
    ms_rc rc = fx_decode(d, "Pod", text, &p, NULL, &err);
    if (rc != MS_OK) fail_msg("fx_pod: %s", err.msg);
    return p;
}

static inline ms_node *fx_node(const ms_decoder *d, const char *text) {
    ms_error err = {0};
    ms_node *n = NULL;
    ms_rc rc = fx_decode(d, "Node", text, NULL, &n, &err);
    if (rc != MS_OK) fail_msg("fx_node: %s", err.msg);
    return n;
}

/* A storage object (PersistentVolume, claim, StorageClass, CSINode, ...)
 * from one YAML document. */
static inline ms_storage_object *fx_storage(const ms_decoder *d, ms_storage_kind kind, const char *text) {
    ms_error err = {0};
    cJSON **docs = NULL;
    size_t n = 0;
    if (ms_yaml_parse(text, strlen(text), &docs, &n, &err) != MS_OK || n != 1)
        fail_msg("fx_storage: %s", err.msg);
    ms_storage_object *o = NULL;
    ms_rc rc = ms_storage_decode(d, kind, docs[0], &o, &err);
    cJSON_Delete(docs[0]);
    free(docs);
    if (rc != MS_OK) fail_msg("fx_storage: %s", err.msg);
    return o;
}

/* A resource.k8s.io object (DeviceClass, ResourceSlice, claim, template)
 * from one YAML document. */
static inline ms_dra_object *fx_dra(const ms_decoder *d, ms_dra_kind kind, const char *text) {
    ms_error err = {0};
    cJSON **docs = NULL;
    size_t n = 0;
    if (ms_yaml_parse(text, strlen(text), &docs, &n, &err) != MS_OK || n != 1) fail_msg("fx_dra: %s", err.msg);
    ms_dra_object *o = NULL;
    ms_rc rc = ms_dra_decode(d, kind, docs[0], &o, &err);
    cJSON_Delete(docs[0]);
    free(docs);
    if (rc != MS_OK) fail_msg("fx_dra: %s", err.msg);
    return o;
}

/* A Service, ReplicationController, ReplicaSet or StatefulSet from one
 * YAML document; kind < 0 takes it from the document's kind. */
static inline ms_workload *fx_workload(const ms_decoder *d, int kind, const char *text) {
    ms_error err = {0};
    cJSON *doc = fx_yaml(text);
    if (kind < 0) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(doc, "kind");
        kind = ms_workload_kind_from_name(cJSON_IsString(k) ? k->valuestring : NULL);
        if (kind < 0) fail_msg("fx_workload: no kind a workload has");
    }
    ms_workload *w = NULL;
    ms_rc rc = ms_workload_decode(d, (ms_workload_kind)kind, doc, &w, &err);
    cJSON_Delete(doc);
    if (rc != MS_OK) fail_msg("fx_workload: %s", err.msg);
    return w;
}

/* The error message of a text that must not decode (as a Pod or Node). */
static inline const char *fx_pod_error(const ms_decoder *d, const char *text, ms_error *err) {
    ms_pod *p = NULL;
    ms_rc rc = fx_decode(d, "Pod", text, &p, NULL, err);
    if (rc == MS_OK) {
        ms_pod_unref(p);
        fail_msg("fx_pod_error: the pod decoded");
    }
    return err->msg;
}

static inline const char *fx_node_error(const ms_decoder *d, const char *text, ms_error *err) {
    ms_node *n = NULL;
    ms_rc rc = fx_decode(d, "Node", text, NULL, &n, err);
    if (rc == MS_OK) {
        ms_node_unref(n);
        fail_msg("fx_node_error: the node decoded");
    }
    return err->msg;
}

/* An interner and an arena (selectors, label sets), as a cmocka fixture. */
typedef struct fx_labels_env {
    ms_interner *in;
    ms_arena a;
} fx_labels_env;

static inline int fx_labels_setup(void **state) {
    fx_labels_env *f = calloc(1, sizeof *f);
    if (!f) return -1;
    f->in = ms_interner_new();
    ms_arena_init(&f->a, 4096);
    *state = f;
    return 0;
}

static inline int fx_labels_teardown(void **state) {
    fx_labels_env *f = *state;
    ms_arena_free(&f->a);
    ms_interner_free(f->in);
    free(f);
    return 0;
}

/* "k=v;k2=v2" (";" so that values may hold commas; "k=" is an empty value). */
static inline ms_labels fx_labels(fx_labels_env *f, const char *spec) {
    ms_labels l = {0, NULL};
    size_t len = strlen(spec);
    if (len == 0) return l;
    l.items = MS_ARENA_NEW(&f->a, ms_label, len);
    const char *p = spec;
    while (*p) {
        const char *end = strchr(p, ';');
        if (!end) end = p + strlen(p);
        const char *eq = memchr(p, '=', (size_t)(end - p));
        assert_non_null(eq);
        l.items[l.n].key = ms_intern(f->in, p, (size_t)(eq - p));
        l.items[l.n].value = ms_intern(f->in, eq + 1, (size_t)(end - eq - 1));
        l.n++;
        p = *end ? end + 1 : end;
    }
    ms_labels_sort(&l);
    return l;
}

#endif
