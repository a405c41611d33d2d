/* List/watch of one resource on its own thread, decoding into deltas.
 *
 * The informer remembers every object it has delivered (key, resourceVersion
 * and a reference to the decoded object) so that a relist can tell what
 * changed while it was not watching: objects listed again with another
 * resourceVersion become updates, new ones adds, and the ones that are no
 * longer listed deletes that carry the last state it had. */
#include "client/informer.h"
#include "client/informer_internal.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/array.h"
#include "base/clock.h"
#include "base/map.h"
#include "base/rng.h"
#include "client/backoff.h"
#include "moonsched/namespaces.h"
#include "moonsched/pdb.h"

#define PATH_MAX_LEN 8192
#define WATCH_SLACK 30.0   /* seconds beyond timeoutSeconds before the client gives up */

typedef struct entry {
    char *key;
    char *rv;
    void *obj;
    uint32_t gen;          /* the list generation that last saw it */
    struct entry *next;    /* same 64-bit key hash */
} entry;

typedef enum watch_result { W_STOP, W_GONE, W_ENDED, W_FAIL } watch_result;

struct ms_informer {
    ms_informer_options o;
    const ms_informer_resource *res;
    char *label_selector;
    const ms_logger *log;
    pthread_t thread;
    bool started;
    ms_kube_cancel *cancel;
    atomic_bool synced;
    atomic_bool fallback;      /* res->fallback_path is the one in use */
    bool closed;               /* the queue refused a push: nobody consumes */

    ms_map known;              /* hash of key -> entry chain */
    size_t nknown;
    uint32_t gen;
    char *rv;                  /* where the next watch resumes */

    ms_rng rng;
    /* Two spells, as client-go's reflector keeps two backoffs: requests
     * that fail (ended by an answered LIST or a watch that held), and
     * relists because a watch met 410 again right after a relist (ended
     * by a watch that held only: those LISTs are answered). */
    ms_backoff backoff;
    ms_backoff relist_backoff;
    double retry_after;        /* the Retry-After of the failed answer, seconds; 0: none */

    /* deltas waiting to be pushed in one go */
    ms_delta *batch;
    uint32_t nbatch, cbatch;   /* one per object held: bounded by memory */

    /* the watch in progress */
    bool held;                 /* the server accepted it (2xx) */
    bool gone;
    bool watch_error;
    uint64_t watch_events;

    pthread_mutex_t stats_mu;
    ms_informer_stats stats;
};

/* ---- resources ---- */

static ms_rc decode_pod(const void *ctx, ms_object_kind kind, const cJSON *obj, void **out, ms_error *err) {
    (void)kind;
    ms_pod *p = NULL;
    ms_rc rc = ms_pod_decode(ctx, obj, &p, err);
    *out = p;
    return rc;
}

static void *ref_pod(void *obj) { return ms_pod_ref(obj); }
static void unref_pod(void *obj) { ms_pod_unref(obj); }

static ms_rc decode_node(const void *ctx, ms_object_kind kind, const cJSON *obj, void **out, ms_error *err) {
    (void)kind;
    ms_node *n = NULL;
    ms_rc rc = ms_node_decode(ctx, obj, &n, err);
    *out = n;
    return rc;
}

static void *ref_node(void *obj) { return ms_node_ref(obj); }
static void unref_node(void *obj) { ms_node_unref(obj); }

const ms_informer_resource ms_informer_pods = {
    .kind = MS_KIND_POD,
    .path = "/api/v1/pods",
    .field_selector = "status.phase!=Succeeded,status.phase!=Failed",
    .decode = decode_pod,
    .ref = ref_pod,
    .unref = unref_pod,
};

const ms_informer_resource ms_informer_nodes = {
    .kind = MS_KIND_NODE,
    .path = "/api/v1/nodes",
    .field_selector = NULL,
    .decode = decode_node,
    .ref = ref_node,
    .unref = unref_node,
};

static ms_rc decode_namespace(const void *ctx, ms_object_kind kind, const cJSON *obj, void **out, ms_error *err) {
    (void)kind;
    ms_namespace *ns = NULL;
    ms_rc rc = ms_namespace_decode(ctx, obj, &ns, err);
    *out = ns;
    return rc;
}

static void *ref_namespace(void *obj) { return ms_namespace_ref(obj); }
static void unref_namespace(void *obj) { ms_namespace_unref(obj); }

static ms_rc decode_pdb(const void *ctx, ms_object_kind kind, const cJSON *obj, void **out, ms_error *err) {
    (void)kind;
    ms_pdb *p = NULL;
    ms_rc rc = ms_pdb_decode(ctx, obj, &p, err);
    *out = p;
    return rc;
}

static void *ref_pdb(void *obj) { return ms_pdb_ref(obj); }
static void unref_pdb(void *obj) { ms_pdb_unref(obj); }

const ms_informer_resource ms_informer_namespaces = {
    .kind = MS_KIND_NAMESPACE,
    .path = "/api/v1/namespaces",
    /* Only namespaceSelector terms need them, and v1.20's
     * system:kube-scheduler role may not read namespaces. */
    .optional = true,
    .decode = decode_namespace,
    .ref = ref_namespace,
    .unref = unref_namespace,
};

const ms_informer_resource ms_informer_pdbs = {
    .kind = MS_KIND_PDB,
    .path = "/apis/policy/v1/poddisruptionbudgets",
    .fallback_path = "/apis/policy/v1beta1/poddisruptionbudgets",
    .decode = decode_pdb,
    .ref = ref_pdb,
    .unref = unref_pdb,
};

const char *ms_informer_path(const ms_informer *inf) {
    return atomic_load(&inf->fallback) ? inf->res->fallback_path : inf->res->path;
}

/* ---- resourceVersion ---- */

static bool parse_u64(const char *s, unsigned long long *v) {
    if (!s || !*s) return false;
    unsigned long long x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        unsigned d = (unsigned)(*s - '0');
        if (x > (~0ULL - d) / 10) return false;
        x = x * 10 + d;
    }
    *v = x;
    return true;
}

int ms_resource_version_compare(const char *a, const char *b) {
    unsigned long long x, y;
    if (!parse_u64(a, &x) || !parse_u64(b, &y)) return 0;
    return x < y ? -1 : x > y;
}

/* The resume point only moves forward. */
static void set_rv(ms_informer *inf, const char *rv, bool from_list) {
    if (!rv || !*rv) return;
    if (inf->rv && ms_resource_version_compare(rv, inf->rv) < 0) {
        if (from_list)
            ms_log(inf->log, MS_LOG_WARN, "list resourceVersion is older than one already seen; keeping the newer",
                   "resource", ms_informer_path(inf), "list", rv, "current", inf->rv, NULL);
        return;
    }
    if (inf->rv && strcmp(inf->rv, rv) == 0) return;
    char *n = strdup(rv);
    if (!n) return;
    free(inf->rv);
    inf->rv = n;
}

/* ---- stats ---- */

#define STAT_ADD(inf, field, n)                  \
    do {                                         \
        pthread_mutex_lock(&(inf)->stats_mu);    \
        (inf)->stats.field += (n);               \
        pthread_mutex_unlock(&(inf)->stats_mu);  \
    } while (0)

void ms_informer_stats_get(ms_informer *inf, ms_informer_stats *out) {
    pthread_mutex_lock(&inf->stats_mu);
    *out = inf->stats;
    pthread_mutex_unlock(&inf->stats_mu);
}

static void publish_state(ms_informer *inf) {
    pthread_mutex_lock(&inf->stats_mu);
    inf->stats.objects = inf->nknown;
    snprintf(inf->stats.resource_version, sizeof inf->stats.resource_version, "%s", inf->rv ? inf->rv : "");
    inf->stats.fallback = atomic_load(&inf->fallback);
    pthread_mutex_unlock(&inf->stats_mu);
}

bool ms_informer_has_synced(const ms_informer *inf) { return atomic_load(&inf->synced); }

/* ---- known objects ---- */

static uint64_t key_hash(const char *key) { return ms_hash_bytes(key, strlen(key)); }

static entry *known_find(ms_informer *inf, const char *key) {
    for (entry *e = ms_map_get(&inf->known, key_hash(key)); e; e = e->next)
        if (strcmp(e->key, key) == 0) return e;
    return NULL;
}

static entry *known_add(ms_informer *inf, const char *key, const char *rv, void *obj) {
    entry *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    if (!(e->key = strdup(key)) || !(e->rv = strdup(rv ? rv : ""))) goto fail;
    uint64_t h = key_hash(key);
    e->next = ms_map_get(&inf->known, h);
    if (ms_map_put(&inf->known, h, e) != 0) goto fail;
    e->obj = obj;
    e->gen = inf->gen;
    inf->nknown++;
    return e;
fail:
    free(e->key);
    free(e->rv);
    free(e);
    return NULL;
}

/* Unlinks e; the caller owns it (and its object reference). */
static void known_unlink(ms_informer *inf, entry *e) {
    uint64_t h = key_hash(e->key);
    entry *head = ms_map_get(&inf->known, h);
    if (head == e) {
        if (e->next)
            ms_map_put(&inf->known, h, e->next);   /* replacing an existing key cannot fail */
        else
            ms_map_del(&inf->known, h);
    } else {
        for (entry *p = head; p; p = p->next)
            if (p->next == e) {
                p->next = e->next;
                break;
            }
    }
    inf->nknown--;
}

static void entry_free(entry *e, void (*unref)(void *)) {
    if (e->obj && unref) unref(e->obj);
    free(e->key);
    free(e->rv);
    free(e);
}

static bool set_entry_rv(entry *e, const char *rv) {
    char *n = strdup(rv ? rv : "");
    if (!n) return false;
    free(e->rv);
    e->rv = n;
    return true;
}

/* ---- deltas ---- */

static void flush(ms_informer *inf) {
    if (!inf->nbatch) return;
    ms_rc rc = ms_delta_queue_push_many(inf->o.queue, inf->batch, inf->nbatch);
    if (rc == MS_OK) {
        STAT_ADD(inf, deltas, inf->nbatch);
    } else {
        if (rc == MS_ENOMEM) {
            for (size_t i = 0; i < inf->nbatch; i++) ms_delta_release(&inf->batch[i]);
            ms_log(inf->log, MS_LOG_ERROR, "delta queue out of memory; deltas dropped", "resource", ms_informer_path(inf),
                   NULL);
        }
        if (rc == MS_ESTATE) inf->closed = true;   /* the references were released by the queue */
    }
    inf->nbatch = 0;
}

/* Queues a delta carrying its own reference to obj (taken here). */
static void emit(ms_informer *inf, ms_delta_type type, void *obj, bool final_unknown, bool take_ref) {
    if (!ms_array_grow((void **)&inf->batch, &inf->cbatch, inf->nbatch + 1, sizeof *inf->batch)) {
        flush(inf);
        if (inf->nbatch == inf->cbatch) {   /* no batch at all */
            if (!take_ref && obj) inf->res->unref(obj);
            return;
        }
    }
    ms_delta *d = &inf->batch[inf->nbatch++];
    memset(d, 0, sizeof *d);
    d->type = (uint8_t)type;
    d->kind = inf->res->kind;
    d->final_state_unknown = final_unknown;
    d->unref = inf->res->unref;
    d->obj = obj && take_ref ? inf->res->ref(obj) : obj;
}

/* ---- object metadata ---- */

typedef struct meta {
    const char *ns, *name, *rv;
    char key[512];
} meta;

static bool read_meta(const cJSON *obj, meta *m) {
    memset(m, 0, sizeof *m);
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(md, "namespace");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(md, "name");
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(md, "resourceVersion");
    m->ns = cJSON_IsString(ns) && *ns->valuestring ? ns->valuestring : NULL;
    m->name = cJSON_IsString(name) ? name->valuestring : NULL;
    m->rv = cJSON_IsString(rv) ? rv->valuestring : "";
    if (!m->name || !*m->name) return false;
    int n = m->ns ? snprintf(m->key, sizeof m->key, "%s/%s", m->ns, m->name)
                  : snprintf(m->key, sizeof m->key, "%s", m->name);
    return n > 0 && (size_t)n < sizeof m->key;
}

static void *decode(ms_informer *inf, const cJSON *obj, const meta *m) {
    void *out = NULL;
    ms_error err = {0};
    if (inf->res->decode(inf->o.decode_ctx, (ms_object_kind)inf->res->kind, obj, &out, &err) == MS_OK && out)
        return out;
    STAT_ADD(inf, decode_errors, 1);
    ms_log(inf->log, MS_LOG_WARN, "object skipped: it does not decode", "kind",
           ms_object_kind_name((ms_object_kind)inf->res->kind), "object", m->key, "resourceVersion", m->rv, "error",
           err.msg, NULL);
    return NULL;
}

/* An object seen by a LIST or an ADDED/MODIFIED event; returns the known
 * entry's key (stable while it is known) when a delta was queued for it,
 * else NULL. */
static const char *apply_upsert(ms_informer *inf, const cJSON *obj, const meta *m, bool from_list) {
    entry *e = known_find(inf, m->key);
    if (e) e->gen = inf->gen;
    if (from_list && e && strcmp(e->rv, m->rv) == 0 && *m->rv) return NULL;   /* unchanged since we saw it */
    void *o = decode(inf, obj, m);
    if (!o) return NULL;   /* the consumer keeps the last good version, if any */
    if (e) {
        if (!set_entry_rv(e, m->rv)) {
            inf->res->unref(o);
            return NULL;
        }
        inf->res->unref(e->obj);
        e->obj = o;
        emit(inf, MS_DELTA_UPDATE, o, false, true);
    } else {
        if (!(e = known_add(inf, m->key, m->rv, o))) {
            inf->res->unref(o);
            ms_log(inf->log, MS_LOG_ERROR, "out of memory; object dropped", "object", m->key, NULL);
            return NULL;
        }
        emit(inf, MS_DELTA_ADD, o, false, true);
    }
    return e->key;
}

static void apply_delete(ms_informer *inf, const cJSON *obj, const meta *m) {
    entry *e = known_find(inf, m->key);
    if (!e) return;   /* never delivered: nothing to take back */
    known_unlink(inf, e);
    void *o = decode(inf, obj, m);
    if (o) {
        emit(inf, MS_DELTA_DELETE, o, false, false);
        inf->res->unref(e->obj);
    } else {
        emit(inf, MS_DELTA_DELETE, e->obj, false, false);
    }
    e->obj = NULL;
    entry_free(e, inf->res->unref);
}

/* ---- LIST ---- */

/* unpaged: a LIST without limit (client-go's full list after an expired
 * continue token). A first list (rv "0") may be served by the API
 * server's watch cache, in one answer whatever the limit, as client-go's
 * reflector asks for its initial list; a relist (after 410) reads from
 * etcd ("" : the latest), in pages. */
static bool build_path(ms_informer *inf, char *buf, size_t n, bool watch, const char *rv, uint32_t timeout,
                       const char *cont, bool unpaged) {
    int w = snprintf(buf, n, "%s?", ms_informer_path(inf));
    if (w < 0 || (size_t)w >= n) return false;
    char tmp[128];
    if (watch) {
        snprintf(tmp, sizeof tmp, "watch=1&allowWatchBookmarks=true&timeoutSeconds=%u&resourceVersion=", timeout);
        if (strlen(buf) + strlen(tmp) >= n) return false;
        strcat(buf, tmp);
        if (!ms_kube_query_escape(buf, n, rv)) return false;
    } else {
        if (!unpaged) {
            snprintf(tmp, sizeof tmp, "limit=%u", inf->o.page_size ? inf->o.page_size : 500);
            if (strlen(buf) + strlen(tmp) >= n) return false;
            strcat(buf, tmp);
        }
        if (cont) {
            if (strlen(buf) + 10 >= n) return false;
            strcat(buf, unpaged ? "continue=" : "&continue=");
            if (!ms_kube_query_escape(buf, n, cont)) return false;
        } else if (rv && *rv) {   /* a continue token carries its own */
            if (strlen(buf) + 18 >= n) return false;
            strcat(buf, unpaged ? "resourceVersion=" : "&resourceVersion=");
            if (!ms_kube_query_escape(buf, n, rv)) return false;
        }
    }
    /* "&" between parameters, none after the "?" */
    bool first = buf[strlen(buf) - 1] == '?';
    if (inf->res->field_selector) {
        if (strlen(buf) + 16 >= n) return false;
        strcat(buf, first ? "fieldSelector=" : "&fieldSelector=");
        first = false;
        if (!ms_kube_query_escape(buf, n, inf->res->field_selector)) return false;
    }
    if (inf->label_selector) {
        if (strlen(buf) + 16 >= n) return false;
        strcat(buf, first ? "labelSelector=" : "&labelSelector=");
        if (!ms_kube_query_escape(buf, n, inf->label_selector)) return false;
    }
    return true;
}

typedef enum list_result { L_OK, L_STOP, L_FAIL } list_result;

static void log_http(ms_informer *inf, const char *what, const ms_kube_response *resp) {
    char msg[300], st[24];
    ms_kube_status_message(resp, msg, sizeof msg);
    snprintf(st, sizeof st, "%ld", resp->status);
    ms_log(inf->log, MS_LOG_WARN, what, "resource", ms_informer_path(inf), "status", st, "error", msg, NULL);
}

/* Deletes for what the completed list no longer has. */
static void drop_unlisted(ms_informer *inf) {
    size_t cap = inf->nknown, n = 0;
    entry **gone = cap ? malloc(cap * sizeof *gone) : NULL;
    if (cap && !gone) return;   /* next relist catches them */
    uint64_t k;
    void *v;
    for (size_t it = 0; ms_map_next(&inf->known, &it, &k, &v);)
        for (entry *e = v; e; e = e->next)
            if (e->gen != inf->gen && n < cap) gone[n++] = e;
    for (size_t i = 0; i < n; i++) {
        known_unlink(inf, gone[i]);
        emit(inf, MS_DELTA_DELETE, gone[i]->obj, true, false);
        gone[i]->obj = NULL;
        entry_free(gone[i], inf->res->unref);
    }
    free(gone);
}

/* A list answer other than 200, freed here: true when listing goes on
 * (in one LIST without pages after an expired continue token, or with the
 * other version of the resource); false when it ends (logged). */
static bool list_answer_retried(ms_informer *inf, ms_kube_response *resp, char **cont, bool *unpaged,
                                bool *switched) {
    bool again = false;
    if (resp->status == 410 && *cont && !*unpaged) {
        /* The continue token outlived etcd's compaction. Starting over in
         * pages could meet the same fate again on a busy server: client-go's
         * pager lists everything in one answer instead (FullListIfExpired),
         * which replaces the pages read so far. */
        log_http(inf, "list continue token expired; listing again without pages", resp);
        /* once: a server that pages and expires that list too is a failed
         * list, backed off */
        free(*cont);
        *cont = NULL;
        *unpaged = true;
        inf->gen++;   /* what the pages brought counts only if listed again */
        again = true;
    } else if (resp->status == 404 && !*cont && !*switched && inf->res->fallback_path &&
               !atomic_load(&inf->synced)) {
        /* This version of the resource is not served (policy/v1 PDBs
         * before 1.21): the other one, once; kept after the first sync. */
        const char *from = ms_informer_path(inf);
        atomic_store(&inf->fallback, !atomic_load(&inf->fallback));
        ms_log(inf->log, MS_LOG_INFO, "resource not served (404); trying the other version", "resource", from,
               "next", ms_informer_path(inf), NULL);
        *switched = true;
        again = true;
    } else if ((resp->status == 403 || resp->status == 404) && inf->res->optional && !atomic_load(&inf->synced)) {
        log_http(inf, resp->status == 403 ? "list forbidden; going on without this resource and retrying"
                                          : "resource not served; going on without it and retrying",
                 resp);
        emit(inf, MS_DELTA_SYNCED, NULL, false, false);
        flush(inf);
        atomic_store(&inf->synced, true);
    } else if ((resp->status == 403 || resp->status == 404) && inf->res->optional) {
        /* still not served, or still refused: said once, above (a cluster
         * without the group, or an RBAC without its rules, would otherwise
         * log a warning per kind every backoff) */
        ms_log(inf->log, MS_LOG_DEBUG, resp->status == 404 ? "resource not served" : "list still forbidden", "resource",
               ms_informer_path(inf), NULL);
    } else {
        log_http(inf, "list failed", resp);
        inf->retry_after = resp->retry_after;
    }
    ms_kube_response_free(resp);
    return again;
}

/* One answer of a list as it arrives: its items one at a time. The
 * watch cache answers in no set order (a map's), etcd in its keys' order;
 * the answer's deltas are handed on in key order once it is read, so that
 * the queue's and the node tree's insertion order, which break ties, is
 * the same on every start and the same as `simulate` of a snapshot. */
typedef struct list_reader {
    ms_informer *inf;
    char api_version[96];   /* of the listed path: items of a List come without one */
    uint32_t start;         /* the batch's length when the answer began */
    const char **keys;      /* of the batch's deltas from start on */
    uint32_t nkeys, ckeys;
    bool unsorted;          /* a key could not be kept, or the batch moved */
    bool bad;               /* an item that is not JSON: the list failed */
} list_reader;

typedef struct keyed_delta {
    const char *key;
    ms_delta d;
} keyed_delta;

static int keyed_cmp(const void *a, const void *b) {
    return strcmp(((const keyed_delta *)a)->key, ((const keyed_delta *)b)->key);
}

/* The answer's deltas in key order (left as they came when a key is
 * missing or memory is short). */
static void sort_answer(ms_informer *inf, list_reader *l) {
    uint32_t n = inf->nbatch - l->start;
    if (l->unsorted || n < 2 || n != l->nkeys) return;
    keyed_delta *kd = malloc((size_t)n * sizeof *kd);
    if (!kd) return;
    for (uint32_t i = 0; i < n; i++) kd[i] = (keyed_delta){l->keys[i], inf->batch[l->start + i]};
    qsort(kd, n, sizeof *kd, keyed_cmp);
    for (uint32_t i = 0; i < n; i++) inf->batch[l->start + i] = kd[i].d;
    free(kd);
}

/* "/api/v1/pods" is "v1", "/apis/policy/v1beta1/..." "policy/v1beta1":
 * the List's apiVersion, known before its items (a decoder may care:
 * policy/v1beta1 PDBs), while the answer's own comes in its envelope,
 * which may follow them. */
static void path_api_version(const char *path, char *out, size_t n) {
    const char *p = strncmp(path, "/apis/", 6) == 0 ? path + 6 : strncmp(path, "/api/", 5) == 0 ? path + 5 : "";
    const char *end = strchr(p, '/');
    if (end && strncmp(path, "/apis/", 6) == 0) end = strchr(end + 1, '/');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), p);
}

static int on_list_item(void *ctx, char *text, size_t len) {
    list_reader *l = ctx;
    ms_informer *inf = l->inf;
    cJSON *it = NULL;
    ms_error err = {0};
    if (ms_json_parse(text, len, &it, &err) != MS_OK) {
        ms_log(inf->log, MS_LOG_WARN, "list item is not JSON", "resource", ms_informer_path(inf), "error", err.msg, NULL);
        l->bad = true;
        return 1;
    }
    if (*l->api_version && cJSON_IsObject(it) && !cJSON_GetObjectItemCaseSensitive(it, "apiVersion")) {
        cJSON *ref = cJSON_CreateStringReference(l->api_version);
        if (ref) cJSON_AddItemToObjectCS(it, "apiVersion", ref);
    }
    meta m;
    if (read_meta(it, &m)) {
        uint32_t before = inf->nbatch;
        const char *key = apply_upsert(inf, it, &m, true);
        if (inf->nbatch != before + (key ? 1 : 0) || before != l->start + l->nkeys) {
            l->unsorted = true;   /* flushed meanwhile (out of memory) */
        } else if (key) {
            if (ms_array_grow((void **)&l->keys, &l->ckeys, l->nkeys + 1, sizeof *l->keys))
                l->keys[l->nkeys++] = key;
            else
                l->unsorted = true;
        }
    } else {
        STAT_ADD(inf, decode_errors, 1);
        ms_log(inf->log, MS_LOG_WARN, "object skipped: no metadata.name", "resource", ms_informer_path(inf), NULL);
    }
    cJSON_Delete(it);
    return inf->closed ? 1 : 0;
}

/* The whole list is in: objects it did not name are deleted, the watch
 * starts from its resourceVersion, the first list marks the sync. */
static void list_done(ms_informer *inf, const char *list_rv) {
    drop_unlisted(inf);
    set_rv(inf, list_rv, true);
    bool first = !atomic_load(&inf->synced);
    /* before the synced delta: its consumer tells a served resource (a
     * list) from an optional one not served (none) by this count */
    STAT_ADD(inf, lists, 1);
    if (first) emit(inf, MS_DELTA_SYNCED, NULL, false, false);
    flush(inf);
    if (first) atomic_store(&inf->synced, true);
    char cnt[32];
    snprintf(cnt, sizeof cnt, "%zu", inf->nknown);
    ms_log(inf->log, MS_LOG_INFO, first ? "listed" : "relisted", "resource", ms_informer_path(inf), "objects", cnt,
           "resourceVersion", inf->rv ? inf->rv : "", NULL);
}

static list_result list_all(ms_informer *inf) {
    inf->gen++;
    char *cont = NULL, *list_rv = NULL;
    char path[PATH_MAX_LEN];
    list_result res = L_FAIL;
    bool unpaged = false, switched = false;
    for (;;) {
        if (!build_path(inf, path, sizeof path, false, inf->rv || unpaged ? NULL : "0", 0, cont, unpaged)) {
            ms_log(inf->log, MS_LOG_ERROR, "list path too long", "resource", ms_informer_path(inf), NULL);
            break;
        }
        ms_kube_request req = {.method = "GET", .path = path, .cancel = inf->cancel};
        ms_kube_response resp;
        ms_error err = {0};
        list_reader reader = {.inf = inf, .start = inf->nbatch};
        path_api_version(ms_informer_path(inf), reader.api_version, sizeof reader.api_version);
        ms_rc rc = ms_kube_list(inf->o.client, &req, on_list_item, &reader, &resp, &err);
        sort_answer(inf, &reader);
        free(reader.keys);
        flush(inf);
        if (rc == MS_ESTATE) {
            ms_kube_response_free(&resp);
            res = L_STOP;
            break;
        }
        if (rc != MS_OK) {
            ms_log(inf->log, MS_LOG_WARN, "list failed", "resource", ms_informer_path(inf), "error", err.msg, NULL);
            ms_kube_response_free(&resp);
            break;
        }
        if (resp.status != 200) {
            if (list_answer_retried(inf, &resp, &cont, &unpaged, &switched)) continue;
            break;
        }
        if (reader.bad || inf->closed) {
            ms_kube_response_free(&resp);
            break;
        }
        STAT_ADD(inf, pages, 1);
        cJSON *doc = NULL;
        rc = ms_json_parse(resp.body ? resp.body : "", resp.len, &doc, &err);
        ms_kube_response_free(&resp);
        if (rc != MS_OK) {
            ms_log(inf->log, MS_LOG_WARN, "list answer is not JSON", "resource", ms_informer_path(inf), "error", err.msg, NULL);
            break;
        }
        const cJSON *md = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
        const cJSON *rv = cJSON_GetObjectItemCaseSensitive(md, "resourceVersion");
        const cJSON *ct = cJSON_GetObjectItemCaseSensitive(md, "continue");
        free(list_rv);
        list_rv = cJSON_IsString(rv) ? strdup(rv->valuestring) : NULL;
        free(cont);
        cont = cJSON_IsString(ct) && *ct->valuestring ? strdup(ct->valuestring) : NULL;
        cJSON_Delete(doc);
        if (!cont) {
            res = L_OK;
            break;
        }
        if (inf->closed) break;
    }
    free(cont);
    if (res == L_OK) list_done(inf, list_rv);
    free(list_rv);
    publish_state(inf);
    return res;
}

/* ---- WATCH ---- */

static bool status_is_gone(const cJSON *status) {
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(status, "code");
    const cJSON *reason = cJSON_GetObjectItemCaseSensitive(status, "reason");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(status, "message");
    if (cJSON_IsNumber(code) && code->valueint == 410) return true;
    if (cJSON_IsString(reason) && (!strcmp(reason->valuestring, "Expired") || !strcmp(reason->valuestring, "Gone")))
        return true;
    return cJSON_IsString(msg) && strstr(msg->valuestring, "too old resource version");
}

static int on_event(void *ctx, char *line, size_t len) {
    ms_informer *inf = ctx;
    cJSON *ev = NULL;
    ms_error err = {0};
    /* A line that is not an event (a stream cut or mangled on its way) may
     * have been any event: skipping it would lose that change for good.
     * As client-go's watcher, end the watch and watch again from the last
     * event read whole, so that the server sends the rest again. */
    if (ms_json_parse(line, len, &ev, &err) != MS_OK) {
        ms_log(inf->log, MS_LOG_WARN, "watch event is not JSON; watching again from the last one read",
               "resource", ms_informer_path(inf), "resourceVersion", inf->rv ? inf->rv : "", "error", err.msg, NULL);
        inf->watch_error = true;
        return 1;
    }
    inf->watch_events++;
    STAT_ADD(inf, events, 1);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(ev, "object");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";
    int stop = 0;
    if (!strcmp(t, "ERROR")) {
        if (status_is_gone(obj)) {
            inf->gone = true;
        } else {
            inf->watch_error = true;
            ms_kube_response r = {.status = 200, .body = cJSON_PrintUnformatted(obj)};
            r.len = r.body ? strlen(r.body) : 0;
            log_http(inf, "watch error event", &r);
            free(r.body);
        }
        stop = 1;
    } else if (!cJSON_IsObject(obj)) {
        ms_log(inf->log, MS_LOG_WARN, "watch event without an object; watching again from the last one read", "resource",
               ms_informer_path(inf), "type", t, NULL);
        inf->watch_error = true;
        stop = 1;
    } else {
        meta m;
        bool ok = read_meta(obj, &m);
        if (!strcmp(t, "BOOKMARK")) {
            STAT_ADD(inf, bookmarks, 1);
            set_rv(inf, m.rv, false);
        } else if (!ok) {
            STAT_ADD(inf, decode_errors, 1);
            ms_log(inf->log, MS_LOG_WARN, "object skipped: no metadata.name", "resource", ms_informer_path(inf), "type", t,
                   NULL);
        } else if (!strcmp(t, "ADDED") || !strcmp(t, "MODIFIED")) {
            apply_upsert(inf, obj, &m, false);
            set_rv(inf, m.rv, false);
        } else if (!strcmp(t, "DELETED")) {
            apply_delete(inf, obj, &m);
            set_rv(inf, m.rv, false);
        } else {
            ms_log(inf->log, MS_LOG_WARN, "unknown watch event type; skipped", "resource", ms_informer_path(inf), "type", t,
                   NULL);
        }
        flush(inf);
        if (inf->closed) stop = 1;
    }
    cJSON_Delete(ev);
    publish_state(inf);
    return stop;
}

static watch_result watch_once(ms_informer *inf) {
    uint32_t base = inf->o.watch_timeout ? inf->o.watch_timeout : 300;
    uint32_t timeout = base + (uint32_t)ms_rng_below(&inf->rng, base);
    char rv[128];
    snprintf(rv, sizeof rv, "%s", inf->rv ? inf->rv : "");
    if (inf->o.before_watch) inf->o.before_watch(inf->o.before_watch_ctx, rv, sizeof rv);
    char path[PATH_MAX_LEN];
    if (!build_path(inf, path, sizeof path, true, rv, timeout, NULL, false)) {
        ms_log(inf->log, MS_LOG_ERROR, "watch path too long", "resource", ms_informer_path(inf), NULL);
        return W_FAIL;
    }
    inf->gone = inf->watch_error = false;
    inf->watch_events = 0;
    ms_kube_request req = {.method = "GET", .path = path, .cancel = inf->cancel, .timeout = timeout + WATCH_SLACK};
    ms_kube_response resp;
    ms_error err = {0};
    ms_rc rc = ms_kube_stream(inf->o.client, &req, on_event, inf, &resp, &err);
    long status = resp.status;
    watch_result res;
    if (rc == MS_ESTATE || inf->closed) {
        res = W_STOP;
    } else if (status == 410 || inf->gone) {
        char msg[300];
        if (inf->gone)
            snprintf(msg, sizeof msg, "ERROR event with code 410");
        else
            ms_kube_status_message(&resp, msg, sizeof msg);
        ms_log(inf->log, MS_LOG_INFO, "resourceVersion too old; relisting", "resource", ms_informer_path(inf),
               "resourceVersion", rv, "reason", msg, NULL);
        res = W_GONE;
    } else if (rc != MS_OK) {
        ms_log(inf->log, MS_LOG_WARN, "watch failed", "resource", ms_informer_path(inf), "error", err.msg, NULL);
        res = W_FAIL;
    } else if (status < 200 || status >= 300) {
        log_http(inf, "watch refused", &resp);
        inf->retry_after = resp.retry_after;
        res = W_FAIL;
    } else if (inf->watch_error) {
        res = W_FAIL;
    } else {
        res = W_ENDED;
    }
    inf->held = status >= 200 && status < 300;
    if (inf->held) STAT_ADD(inf, watches, 1);
    if (res == W_ENDED) STAT_ADD(inf, watch_ends, 1);
    ms_kube_response_free(&resp);
    return res;
}

/* ---- thread ---- */

/* Sleeps the next delay of spell b; false when stopped meanwhile. */
static bool backoff(ms_informer *inf, ms_backoff *b) {
    STAT_ADD(inf, failures, 1);
    double retry_after = inf->retry_after;
    inf->retry_after = 0;
    double jitter = (double)ms_rng_below(&inf->rng, 1000) / 1000.0;
    double delay = ms_backoff_next(b, ms_clock_monotonic(), retry_after, jitter);
    char d[32];
    snprintf(d, sizeof d, "%.1f", delay);
    ms_log(inf->log, MS_LOG_INFO, "backing off", "resource", ms_informer_path(inf), "seconds", d,
           retry_after > 0 ? "as" : NULL, "Retry-After", NULL);
    return !ms_kube_cancel_sleep(inf->cancel, delay);
}

static void *informer_main(void *arg) {
    ms_informer *inf = arg;
    bool need_list = true;
    bool gone_again = false;       /* the last watch met 410 too */
    while (!ms_kube_cancel_fired(inf->cancel) && !inf->closed) {
        if (need_list) {
            list_result l = list_all(inf);
            if (l == L_STOP) break;
            if (l == L_FAIL) {
                if (!backoff(inf, &inf->backoff)) break;
                continue;
            }
            /* The server answered in full: the failures before are over,
             * and a watch it then ends at once is a new spell, not the
             * 30 s wait where a long outage left the delay. */
            ms_backoff_reset(&inf->backoff);
            need_list = false;
        }
        double t0 = ms_clock_monotonic();
        watch_result w = watch_once(inf);
        double lasted = ms_clock_monotonic() - t0;
        if (w == W_STOP) break;
        /* A watch the server accepted and that held for a while was
         * healthy, with events or without (a quiet resource has none for
         * minutes): what fails after it is a new spell, backed off from the
         * initial delay, not from where failures seconds or minutes apart
         * left it (else one broken stream after a bad spell stalls the
         * informer for 30 s). */
        if (inf->held && lasted >= 1.0) {
            ms_backoff_reset(&inf->backoff);
            ms_backoff_reset(&inf->relist_backoff);
            gone_again = false;   /* a 410 after it is not "again" */
        }
        if (w == W_GONE) {
            STAT_ADD(inf, relists_gone, 1);
            need_list = true;
            /* 410 again on the watch that follows a relist: a server that
             * answers 410 to every watch would be listed in a tight loop
             * (dozens of LISTs a second); the first relist is at once. */
            if (gone_again && !backoff(inf, &inf->relist_backoff)) break;
            gone_again = true;
            continue;
        }
        gone_again = false;
        /* A watch the server ends at once without a word is a failure
         * in disguise: without a backoff it would spin. */
        if (w == W_FAIL || (lasted < 1.0 && inf->watch_events == 0)) {
            if (!backoff(inf, &inf->backoff)) break;
        }
    }
    flush(inf);
    return NULL;
}

ms_rc ms_informer_new_detached(const ms_informer_options *o, ms_informer **out, ms_error *err) {
    *out = NULL;
    if (!o->resource || !o->queue || !o->resource->decode || !o->resource->ref || !o->resource->unref)
        return ms_error_set(err, MS_EINVAL, "informer: resource and queue are required");
    ms_informer *inf = calloc(1, sizeof *inf);
    if (!inf) return ms_error_set(err, MS_ENOMEM, "out of memory");
    inf->o = *o;
    inf->res = o->resource;
    inf->log = o->log ? o->log : &ms_log_default;
    atomic_init(&inf->synced, false);
    atomic_init(&inf->fallback, false);
    ms_map_init(&inf->known);
    pthread_mutex_init(&inf->stats_mu, NULL);
    uint64_t seed = o->seed;
    if (!seed) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)(uintptr_t)inf;
    }
    ms_rng_seed(&inf->rng, seed);
    ms_backoff_init(&inf->backoff, o->backoff_initial, o->backoff_max, o->backoff_reset);
    ms_backoff_init(&inf->relist_backoff, o->backoff_initial, o->backoff_max, o->backoff_reset);
    if ((o->label_selector && !(inf->label_selector = strdup(o->label_selector))) ||
        !(inf->cancel = ms_kube_cancel_new())) {
        ms_informer_stop(inf);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    inf->o.label_selector = inf->label_selector;
    *out = inf;
    return MS_OK;
}

int ms_informer_watch_line(ms_informer *inf, char *line, size_t len) { return on_event(inf, line, len); }

ms_rc ms_informer_start(const ms_informer_options *o, ms_informer **out, ms_error *err) {
    *out = NULL;
    if (!o->client || !o->resource || !o->queue)
        return ms_error_set(err, MS_EINVAL, "informer: client, resource and queue are required");
    ms_informer *inf;
    ms_rc rc = ms_informer_new_detached(o, &inf, err);
    if (rc != MS_OK) return rc;
    if (pthread_create(&inf->thread, NULL, informer_main, inf) != 0) {
        ms_informer_stop(inf);
        return ms_error_set(err, MS_EIO, "informer: cannot start a thread");
    }
    inf->started = true;
    *out = inf;
    return MS_OK;
}

void ms_informer_stop(ms_informer *inf) {
    if (!inf) return;
    if (inf->cancel) {
        ms_kube_cancel_fire(inf->cancel);
        if (inf->started) pthread_join(inf->thread, NULL);
    }
    uint64_t k;
    void *v;
    for (size_t it = 0; ms_map_next(&inf->known, &it, &k, &v);) {
        for (entry *e = v; e;) {
            entry *next = e->next;
            entry_free(e, inf->res->unref);
            e = next;
        }
    }
    ms_map_free(&inf->known);
    for (size_t i = 0; i < inf->nbatch; i++) ms_delta_release(&inf->batch[i]);
    free(inf->batch);
    free(inf->rv);
    free(inf->label_selector);
    ms_kube_cancel_free(inf->cancel);
    pthread_mutex_destroy(&inf->stats_mu);
    free(inf);
}
