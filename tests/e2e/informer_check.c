/* End-to-end checks of the client and the informers against a real
 * kube-apiserver (started by tests/e2e/test_informer.sh). Prints TAP lines.
 *
 *   informer_check run ADMIN.kubeconfig SCHEDULER.kubeconfig ETCD_URL
 *       objects through the admin client; informers with the scheduler's
 *       own credentials (system:kube-scheduler and upstream's RBAC role);
 *       a relist after etcd compacted the revision a watch resumes from;
 *       namespaces and PodDisruptionBudgets (policy/v1beta1 on 1.20)
 *   informer_check probe KUBECONFIG ok|forbidden|tls-error
 *       one LIST of nodes and what it should give
 *   informer_check perf ADMIN.kubeconfig NPODS
 *       creates NPODS pods, then times a LIST through an informer and the
 *       stages of decoding a full list (diagnostics only) */
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "moonsched/decode.h"
#include "client/informer.h"
#include "client/kube_client.h"
#include "client/kubeconfig.h"
#include "moonsched/labels.h"
#include "moonsched/namespaces.h"
#include "moonsched/pdb.h"

static int failures;
static int checks;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("%s %d - ", ok ? "ok" : "not ok", ++checks);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    if (!ok) failures++;
}

static double now_s(void) { return ms_monotonic_now(NULL); }

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static const ms_logger quiet_log = {.level = MS_LOG_WARN, .fd = 2};

static ms_kube_client *client_from(const char *kubeconfig, double qps) {
    ms_kubeconfig kc;
    ms_error err = {0};
    if (ms_kubeconfig_load_file(&kc, kubeconfig, NULL, &err) != MS_OK) {
        check(false, "load %s: %s", kubeconfig, err.msg);
        return NULL;
    }
    ms_kube_client_options o = {.config = &kc, .qps = qps, .burst = (int32_t)qps, .log = &quiet_log};
    ms_kube_client *c = NULL;
    if (ms_kube_client_new(&o, &c, &err) != MS_OK) check(false, "client for %s: %s", kubeconfig, err.msg);
    ms_kubeconfig_free(&kc);
    return c;
}

static long call(ms_kube_client *c, const char *method, const char *path, const char *body) {
    ms_kube_request r = {.method = method, .path = path, .body = body, .body_len = body ? strlen(body) : 0,
                         .content_type = !strcmp(method, "PATCH") ? "application/merge-patch+json" : NULL};
    ms_kube_response resp;
    ms_error err = {0};
    long status = ms_kube_do(c, &r, &resp, &err) == MS_OK ? resp.status : -1;
    if (status < 200 || status >= 300) {
        char msg[300];
        ms_kube_status_message(&resp, msg, sizeof msg);
        fprintf(stderr, "%s %s: %ld %s %s\n", method, path, status, msg, err.msg);
    }
    ms_kube_response_free(&resp);
    return status;
}

static long create_pod(ms_kube_client *c, const char *name) {
    char body[1024];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"labels\":{\"app\":\"e2e\"}},"
             "\"spec\":{\"schedulerName\":\"moonsched-e2e\",\"containers\":[{\"name\":\"c\",\"image\":\"registry.invalid/"
             "pause:3.2\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]}}",
             name);
    return call(c, "POST", "/api/v1/namespaces/default/pods", body);
}

static long create_node(ms_kube_client *c, const char *name) {
    char body[1024];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":{\"zone\":\"a\"}},"
             "\"status\":{\"capacity\":{\"cpu\":\"8\",\"memory\":\"32Gi\",\"pods\":\"110\"},"
             "\"allocatable\":{\"cpu\":\"8\",\"memory\":\"32Gi\",\"pods\":\"110\"}}}",
             name);
    return call(c, "POST", "/api/v1/nodes", body);
}

static long label_pod(ms_kube_client *c, const char *name, const char *v) {
    char path[256], body[128];
    snprintf(path, sizeof path, "/api/v1/namespaces/default/pods/%s", name);
    snprintf(body, sizeof body, "{\"metadata\":{\"labels\":{\"v\":\"%s\"}}}", v);
    return call(c, "PATCH", path, body);
}

static long delete_pod(ms_kube_client *c, const char *name) {
    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/default/pods/%s?gracePeriodSeconds=0", name);
    return call(c, "DELETE", path, NULL);
}

/* A decoded core/v1 Event (the generic informer's object). */
typedef struct ev_obj {
    atomic_int refs;
    char name[64];
    char message[16];
} ev_obj;

/* ---- what the consumer saw ---- */

typedef struct seen_delta {
    uint8_t type, kind;
    bool unknown;
    char name[64];
    char label_v[16];
} seen_delta;

typedef struct consumer {
    ms_delta_queue *q;
    ms_interner *in;
    seen_delta *log;
    size_t n, cap;
    int synced[MS_KIND_PDB + 1];
} consumer;

static void drain(consumer *c, double timeout) {
    ms_delta d[256];
    size_t n = ms_delta_queue_pop(c->q, d, 256, timeout);
    ms_str v = ms_intern_cstr(c->in, "v");
    for (size_t i = 0; i < n; i++) {
        if (c->n == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 1024;
            c->log = realloc(c->log, c->cap * sizeof *c->log);
        }
        seen_delta *s = &c->log[c->n++];
        memset(s, 0, sizeof *s);
        s->type = d[i].type;
        s->kind = d[i].kind;
        s->unknown = d[i].final_state_unknown;
        if (d[i].type == MS_DELTA_SYNCED) {
            if (d[i].kind <= MS_KIND_PDB) c->synced[d[i].kind]++;
        } else if (d[i].kind == MS_KIND_OTHER) {
            const ev_obj *e = d[i].obj;
            snprintf(s->name, sizeof s->name, "%s", e->name);
            snprintf(s->label_v, sizeof s->label_v, "%s", e->message);
        } else if (d[i].kind == MS_KIND_NAMESPACE) {
            /* label_v: the namespace's "team" label */
            snprintf(s->name, sizeof s->name, "%s", ms_str_get(c->in, d[i].ns->meta.name));
            ms_str team = ms_labels_get(&d[i].ns->meta.labels, ms_intern_cstr(c->in, "team"));
            snprintf(s->label_v, sizeof s->label_v, "%s", team == MS_STR_NONE ? "" : ms_str_get(c->in, team));
        } else if (d[i].kind == MS_KIND_PDB) {
            /* label_v: the API version the PDB was decoded as, and its minAvailable */
            snprintf(s->name, sizeof s->name, "%s", ms_str_get(c->in, d[i].pdb->meta.name));
            snprintf(s->label_v, sizeof s->label_v, "%s/%d",
                     d[i].pdb->api_version == MS_PDB_POLICY_V1BETA1 ? "v1beta1" : "v1",
                     (int)d[i].pdb->min_available.value);
        } else if (d[i].kind == MS_KIND_POD) {
            snprintf(s->name, sizeof s->name, "%s", ms_str_get(c->in, d[i].pod->meta.name));
            snprintf(s->label_v, sizeof s->label_v, "%s", ms_str_get(c->in, ms_labels_get(&d[i].pod->meta.labels, v)));
        } else {
            snprintf(s->name, sizeof s->name, "%s", ms_str_get(c->in, d[i].node->meta.name));
        }
        ms_delta_release(&d[i]);
    }
}

/* Index of the first delta at or after `from` matching, waiting up to timeout. */
static long wait_delta(consumer *c, size_t from, uint8_t type, const char *name, double timeout) {
    double deadline = now_s() + timeout;
    for (;;) {
        for (size_t i = from; i < c->n; i++)
            if (c->log[i].type == type && !strcmp(c->log[i].name, name)) return (long)i;
        if (now_s() > deadline) return -1;
        drain(c, 0.1);
    }
}

/* ---- the pause hook: holds the informer before a watch ---- */

typedef struct pauser {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool want_pause, paused, release;
    char override_rv[32];
} pauser;

static void before_watch(void *ctx, char *rv, size_t n) {
    pauser *p = ctx;
    pthread_mutex_lock(&p->mu);
    if (p->want_pause) {
        p->want_pause = false;
        p->paused = true;
        pthread_cond_broadcast(&p->cv);
        while (!p->release) pthread_cond_wait(&p->cv, &p->mu);
        p->paused = false;
        if (p->override_rv[0]) snprintf(rv, n, "%s", p->override_rv);
    }
    pthread_mutex_unlock(&p->mu);
}

static bool wait_paused(pauser *p, double timeout) {
    double deadline = now_s() + timeout;
    pthread_mutex_lock(&p->mu);
    while (!p->paused && now_s() < deadline) {
        pthread_mutex_unlock(&p->mu);
        sleep_s(0.05);
        pthread_mutex_lock(&p->mu);
    }
    bool ok = p->paused;
    pthread_mutex_unlock(&p->mu);
    return ok;
}

static int count_type(consumer *c, size_t from, uint8_t type, uint8_t kind, bool unknown) {
    int n = 0;
    for (size_t i = from; i < c->n; i++)
        if (c->log[i].type == type && c->log[i].kind == kind && c->log[i].unknown == unknown) n++;
    return n;
}

/* ---- a generic informer: core/v1 Events ----
 * Events have no watch cache in kube-apiserver 1.20, so their watches read
 * etcd directly: once etcd compacts the revision a watch resumes from, the
 * server answers 410 Gone, as it does to a long-disconnected informer. */

static ms_rc ev_decode(const void *ctx, ms_object_kind kind, const cJSON *obj, void **out, ms_error *err) {
    (void)ctx;
    (void)kind;
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(md, "name");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(obj, "message");
    if (!cJSON_IsString(name)) return ms_error_set(err, MS_EINVAL, "Event: metadata.name: Required value");
    ev_obj *e = calloc(1, sizeof *e);
    if (!e) return ms_error_set(err, MS_ENOMEM, "out of memory");
    atomic_init(&e->refs, 1);
    snprintf(e->name, sizeof e->name, "%s", name->valuestring);
    snprintf(e->message, sizeof e->message, "%s", cJSON_IsString(msg) ? msg->valuestring : "");
    *out = e;
    return MS_OK;
}

static void *ev_ref(void *o) {
    atomic_fetch_add(&((ev_obj *)o)->refs, 1);
    return o;
}

static void ev_unref(void *o) {
    if (atomic_fetch_sub(&((ev_obj *)o)->refs, 1) == 1) free(o);
}

static const ms_informer_resource events_resource = {
    .kind = MS_KIND_OTHER, .path = "/api/v1/namespaces/default/events",
    .decode = ev_decode, .ref = ev_ref, .unref = ev_unref,
};

static long put_event(ms_kube_client *c, const char *name, const char *message) {
    char body[1024];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"%s\"},\"involvedObject\":{"
             "\"kind\":\"Pod\",\"name\":\"p-1\",\"namespace\":\"default\"},\"reason\":\"Check\",\"message\":"
             "\"%s\",\"type\":\"Normal\"}",
             name, message);
    return call(c, "POST", "/api/v1/namespaces/default/events", body);
}

static long patch_event(ms_kube_client *c, const char *name, const char *message) {
    char path[256], body[128];
    snprintf(path, sizeof path, "/api/v1/namespaces/default/events/%s", name);
    snprintf(body, sizeof body, "{\"message\":\"%s\"}", message);
    return call(c, "PATCH", path, body);
}

static long delete_event(ms_kube_client *c, const char *name) {
    char path[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/default/events/%s", name);
    return call(c, "DELETE", path, NULL);
}

/* etcd's JSON gateway: compact everything up to rev. */
static long compact_etcd(const char *etcd_url, const char *rev) {
    ms_kubeconfig kc = {.server = strdup(etcd_url)};
    ms_kube_client_options o = {.config = &kc, .log = &quiet_log};
    ms_kube_client *c;
    ms_error err = {0};
    long status = -1;
    if (ms_kube_client_new(&o, &c, &err) == MS_OK) {
        char body[128];
        snprintf(body, sizeof body, "{\"revision\":\"%s\",\"physical\":true}", rev);
        status = call(c, "POST", "/v3/kv/compaction", body);
        ms_kube_client_free(c);
    }
    ms_kubeconfig_free(&kc);
    return status;
}

static int relist_after_compaction(ms_kube_client *admin, const char *etcd_url) {
    int before = failures;
    for (int i = 0; i < 10; i++) {
        char name[32];
        snprintf(name, sizeof name, "ev-%d", i);
        put_event(admin, name, "m0");
    }
    ms_interner *in = ms_interner_new();
    consumer c = {.q = ms_delta_queue_new(), .in = in};
    pauser pz = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    ms_informer_options o = {
        .client = admin, .resource = &events_resource, .queue = c.q, .log = &quiet_log,
        .page_size = 4, .watch_timeout = 1, .before_watch = before_watch, .before_watch_ctx = &pz,
    };
    ms_informer *inf;
    ms_error err = {0};
    if (ms_informer_start(&o, &inf, &err) != MS_OK) {
        check(false, "events informer: %s", err.msg);
        return 1;
    }
    double t0 = now_s();
    while (!c.synced[0] && now_s() - t0 < 10) {
        drain(&c, 0.1);
        for (size_t i = 0; i < c.n; i++) c.synced[0] |= c.log[i].type == MS_DELTA_SYNCED;
    }
    ms_informer_stats es;
    ms_informer_stats_get(inf, &es);
    /* no watch cache: resourceVersion=0 is read from etcd, in pages */
    check(count_type(&c, 0, MS_DELTA_ADD, MS_KIND_OTHER, false) == 10 && es.pages == 3,
          "generic informer (core/v1 events, no watch cache) listed 10 objects in 3 pages of 4 (pages %llu)",
          (unsigned long long)es.pages);

    /* hold it before its next watch; meanwhile change things and let etcd
     * compact past where it will resume */
    pthread_mutex_lock(&pz.mu);
    pz.want_pause = true;
    pthread_mutex_unlock(&pz.mu);
    check(wait_paused(&pz, 10), "events informer held before its next watch");
    ms_informer_stats st;
    ms_informer_stats_get(inf, &st);
    char resume[64];
    snprintf(resume, sizeof resume, "%s", st.resource_version);
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "ev-%d", i);
        delete_event(admin, name);
        snprintf(name, sizeof name, "ev-%d", i + 3);
        patch_event(admin, name, "m1");
        snprintf(name, sizeof name, "ev-new-%d", i);
        put_event(admin, name, "m0");
    }
    /* the revision of now: a LIST's resourceVersion */
    ms_kube_response r;
    char rev[64] = "";
    if (ms_kube_get(admin, "/api/v1/namespaces/default/events?limit=1", &r, &err) == MS_OK && r.body) {
        cJSON *j = cJSON_Parse(r.body);
        const cJSON *rv = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "metadata"), "resourceVersion");
        if (cJSON_IsString(rv)) snprintf(rev, sizeof rev, "%s", rv->valuestring);
        cJSON_Delete(j);
    }
    ms_kube_response_free(&r);
    check(compact_etcd(etcd_url, rev) == 200 && ms_resource_version_compare(resume, rev) < 0,
          "etcd compacted to revision %s, past the informer's %s", rev, resume);
    drain(&c, 0.1);
    size_t mark = c.n;
    pthread_mutex_lock(&pz.mu);
    pz.release = true;
    pthread_cond_broadcast(&pz.cv);
    pthread_mutex_unlock(&pz.mu);
    t0 = now_s();
    do {
        drain(&c, 0.1);
        ms_informer_stats_get(inf, &st);
        /* the resume point is published after the relist's deltas are
         * queued: wait for it too, not for a fixed time */
    } while ((st.lists < 2 || c.n - mark < 9 || ms_resource_version_compare(st.resource_version, rev) < 0) &&
             now_s() - t0 < 10);
    drain(&c, 0.3);
    int del = count_type(&c, mark, MS_DELTA_DELETE, MS_KIND_OTHER, true);
    int upd = 0, add = count_type(&c, mark, MS_DELTA_ADD, MS_KIND_OTHER, false);
    for (size_t i = mark; i < c.n; i++) upd += c.log[i].type == MS_DELTA_UPDATE && !strcmp(c.log[i].label_v, "m1");
    check(st.relists_gone == 1 && st.lists == 2, "410 Gone from the real server: one relist (relists %llu, lists %llu)",
          (unsigned long long)st.relists_gone, (unsigned long long)st.lists);
    check(del == 3 && upd == 3 && add == 3 && c.n - mark == 9,
          "relist deltas: 3 deletes (final state unknown), 3 updates, 3 adds, nothing else (got %d, %d, %d of %zu)", del,
          upd, add, c.n - mark);
    check(ms_resource_version_compare(st.resource_version, rev) >= 0, "resumes from %s, not before the compaction (%s)",
          st.resource_version, rev);
    int synced = 0;
    for (size_t i = 0; i < c.n; i++) synced += c.log[i].type == MS_DELTA_SYNCED;
    check(synced == 1, "one synced marker, none after the relist");
    ms_informer_stop(inf);
    drain(&c, 0);
    ms_delta_queue_free(c.q);
    free(c.log);
    ms_interner_free(in);
    return failures - before != 0;
}

/* ---- namespaces and PodDisruptionBudgets ---- */

static long create_namespace(ms_kube_client *c, const char *name, const char *team) {
    char body[512];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\",\"labels\":{\"team\":\"%s\"}}}",
             name, team);
    return call(c, "POST", "/api/v1/namespaces", body);
}

static long create_pdb(ms_kube_client *c, const char *name, int min_available) {
    char body[512];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"policy/v1beta1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"%s\"},"
             "\"spec\":{\"minAvailable\":%d,\"selector\":{\"matchLabels\":{\"app\":\"e2e\"}}}}",
             name, min_available);
    return call(c, "POST", "/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets", body);
}

static int namespaces_and_pdbs(ms_kube_client *admin, ms_kube_client *sched) {
    int before = failures;
    int made = 0;
    made += create_namespace(admin, "team-a", "a") == 201;
    made += create_namespace(admin, "team-b", "b") == 201;
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "pdb-%d", i);
        made += create_pdb(admin, name, i + 1) == 201;
    }
    check(made == 5, "created 2 namespaces and 3 policy/v1beta1 PDBs with the admin client");
    check(call(admin, "GET", "/apis/policy/v1/poddisruptionbudgets", NULL) == 404,
          "the 1.20 server has no policy/v1 PDBs (404)");

    ms_interner *in = ms_interner_new();
    ms_decoder dec;
    ms_decoder_init(&dec, in);
    consumer c = {.q = ms_delta_queue_new(), .in = in};
    ms_informer_options o = {.client = sched, .resource = &ms_informer_namespaces, .decode_ctx = &dec, .queue = c.q,
                             .log = &quiet_log, .page_size = 2, .watch_timeout = 3};
    ms_informer *nsi = NULL, *pdbi = NULL;
    ms_error err = {0};
    if (ms_informer_start(&o, &nsi, &err) != MS_OK) {
        check(false, "namespaces informer: %s", err.msg);
        return 1;
    }
    o.resource = &ms_informer_pdbs;
    if (ms_informer_start(&o, &pdbi, &err) != MS_OK) {
        check(false, "PDB informer: %s", err.msg);
        ms_informer_stop(nsi);
        return 1;
    }
    double t0 = now_s();
    while ((!c.synced[MS_KIND_NAMESPACE] || !c.synced[MS_KIND_PDB]) && now_s() - t0 < 15) drain(&c, 0.1);
    check(c.synced[MS_KIND_NAMESPACE] == 1 && c.synced[MS_KIND_PDB] == 1,
          "namespaces and PDBs synced as system:kube-scheduler (%.2f s)", now_s() - t0);

    /* namespaces: default, kube-system, kube-public, kube-node-lease and ours */
    ms_informer_stats ns, ps;
    /* the counts are published just after the synced marker is queued */
    t0 = now_s();
    do {
        ms_informer_stats_get(nsi, &ns);
        ms_informer_stats_get(pdbi, &ps);
    } while ((ns.objects != 6 || ps.objects != 3) && now_s() - t0 < 2 && (sleep_s(0.01), 1));
    int ns_adds = count_type(&c, 0, MS_DELTA_ADD, MS_KIND_NAMESPACE, false);
    long ta = wait_delta(&c, 0, MS_DELTA_ADD, "team-a", 0);
    check(ns_adds == 6 && ns.objects == 6 && ns.pages == 1 && ta >= 0 && !strcmp(c.log[ta].label_v, "a"),
          "namespaces listed: 6 adds in one answer from the watch cache (limit 2), team-a with its label team=a (adds %d, objects %llu, pages %llu, "
          "team-a at %ld with team=%s)", ns_adds, (unsigned long long)ns.objects, (unsigned long long)ns.pages, ta,
          ta >= 0 ? c.log[ta].label_v : "");

    int pdb_adds = count_type(&c, 0, MS_DELTA_ADD, MS_KIND_PDB, false);
    int v1beta1 = 0;
    for (size_t i = 0; i < c.n; i++)
        v1beta1 += c.log[i].kind == MS_KIND_PDB && c.log[i].type == MS_DELTA_ADD &&
                   !strncmp(c.log[i].label_v, "v1beta1/", 8);
    check(pdb_adds == 3 && ps.objects == 3 && ps.fallback && strstr(ms_informer_path(pdbi), "/v1beta1/") != NULL,
          "PDBs listed through the policy/v1beta1 fallback after v1's 404: 3 adds (got %d, path %s)", pdb_adds,
          ms_informer_path(pdbi));
    check(v1beta1 == 3, "list items decoded as policy/v1beta1 PDBs (apiVersion taken from the list): %d of 3",
          v1beta1);
    long p1 = wait_delta(&c, 0, MS_DELTA_ADD, "pdb-1", 0);
    check(p1 >= 0 && !strcmp(c.log[p1].label_v, "v1beta1/2"), "pdb-1 has minAvailable 2 (got %s)",
          p1 >= 0 ? c.log[p1].label_v : "none");

    /* watch: a namespace relabelled, a PDB added and deleted */
    size_t mark = c.n;
    call(admin, "PATCH", "/api/v1/namespaces/team-b", "{\"metadata\":{\"labels\":{\"team\":\"a\"}}}");
    long u = wait_delta(&c, mark, MS_DELTA_UPDATE, "team-b", 10);
    while (u >= 0 && strcmp(c.log[u].label_v, "a") != 0) u = wait_delta(&c, (size_t)u + 1, MS_DELTA_UPDATE, "team-b", 10);
    check(u >= 0, "namespace team-b relabelled team=a: an update with the new label");
    create_pdb(admin, "pdb-late", 5);
    call(admin, "DELETE", "/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets/pdb-late", NULL);
    long a = wait_delta(&c, mark, MS_DELTA_ADD, "pdb-late", 10);
    long d = a >= 0 ? wait_delta(&c, (size_t)a, MS_DELTA_DELETE, "pdb-late", 10) : -1;
    check(a >= 0 && d > a && !strcmp(c.log[a].label_v, "v1beta1/5"),
          "PDB watch (v1beta1) delivered add (minAvailable 5) and delete");
    /* without a namespace controller, a deleted namespace stays Terminating
     * until its finalizer is removed by hand */
    call(admin, "DELETE", "/api/v1/namespaces/team-a", NULL);
    call(admin, "PUT", "/api/v1/namespaces/team-a/finalize",
         "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team-a\"},\"spec\":{\"finalizers\":[]}}");
    long nd = wait_delta(&c, mark, MS_DELTA_DELETE, "team-a", 10);
    check(nd >= 0, "namespace team-a deleted and finalized: a delete");

    ms_informer_stats_get(nsi, &ns);
    ms_informer_stats_get(pdbi, &ps);
    check(ns.decode_errors + ps.decode_errors == 0 && ps.relists_gone + ns.relists_gone == 0 && ps.lists == 1,
          "every namespace and PDB decoded, one list each");
    ms_informer_stop(nsi);
    ms_informer_stop(pdbi);
    drain(&c, 0);
    ms_delta_queue_free(c.q);
    free(c.log);
    ms_interner_free(in);
    return failures - before != 0;
}

static int run(const char *admin_cfg, const char *sched_cfg, const char *etcd_url) {
    ms_kube_client *admin = client_from(admin_cfg, 0);
    ms_kube_client *sched = client_from(sched_cfg, 50);
    if (!admin || !sched) return 1;

    int created = 0;
    for (int i = 0; i < 30; i++) {
        char name[32];
        snprintf(name, sizeof name, "p-%d", i);
        created += create_pod(admin, name) == 201;
    }
    int nodes = 0;
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "node-%d", i);
        nodes += create_node(admin, name) == 201;
    }
    check(created == 30 && nodes == 3, "created 30 pods and 3 nodes with the admin client (POST)");

    ms_interner *in = ms_interner_new();
    ms_decoder dec;
    ms_decoder_init(&dec, in);
    consumer c = {.q = ms_delta_queue_new(), .in = in};
    pauser pz = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    ms_informer_options po = {
        .client = sched, .resource = &ms_informer_pods, .decode_ctx = &dec, .queue = c.q, .log = &quiet_log,
        .page_size = 7, .watch_timeout = 2, .before_watch = before_watch, .before_watch_ctx = &pz,
    };
    ms_informer_options no = {
        .client = sched, .resource = &ms_informer_nodes, .decode_ctx = &dec, .queue = c.q, .log = &quiet_log,
        .page_size = 2, .watch_timeout = 4,
    };
    ms_informer *pods = NULL, *nodes_inf = NULL;
    ms_error err = {0};
    if (ms_informer_start(&po, &pods, &err) != MS_OK || ms_informer_start(&no, &nodes_inf, &err) != MS_OK) {
        check(false, "informers start: %s", err.msg);
        return 1;
    }
    double t0 = now_s();
    while ((!c.synced[MS_KIND_POD] || !c.synced[MS_KIND_NODE]) && now_s() - t0 < 15) drain(&c, 0.1);
    check(c.synced[MS_KIND_POD] == 1 && c.synced[MS_KIND_NODE] == 1, "pods and nodes synced as system:kube-scheduler (%.2f s)",
          now_s() - t0);
    int pod_adds_before_sync = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (c.log[i].type == MS_DELTA_SYNCED && c.log[i].kind == MS_KIND_POD) break;
        pod_adds_before_sync += c.log[i].type == MS_DELTA_ADD && c.log[i].kind == MS_KIND_POD;
    }
    ms_informer_stats ps, ns;
    ms_informer_stats_get(pods, &ps);
    ms_informer_stats_get(nodes_inf, &ns);
    check(pod_adds_before_sync == 30, "30 pod adds before the pods' synced marker (got %d)", pod_adds_before_sync);
    /* the first LIST asks for resourceVersion=0, as client-go's: the watch
     * cache answers it whole whatever the limit (pages from etcd are
     * checked with the events, which have no watch cache) */
    check(ps.pages == 1 && ns.pages == 1,
          "first LIST from the watch cache: one answer of 30 pods (limit 7), one of 3 nodes (limit 2) (got %llu, %llu)",
          (unsigned long long)ps.pages, (unsigned long long)ns.pages);
    check(count_type(&c, 0, MS_DELTA_ADD, MS_KIND_NODE, false) == 3, "3 node adds");

    /* watch: add, update, delete */
    size_t mark = c.n;
    create_pod(admin, "late-1");
    label_pod(admin, "late-1", "2");
    delete_pod(admin, "late-1");
    long a = wait_delta(&c, mark, MS_DELTA_ADD, "late-1", 10);
    long u = a >= 0 ? wait_delta(&c, (size_t)a, MS_DELTA_UPDATE, "late-1", 10) : -1;
    while (u >= 0 && strcmp(c.log[u].label_v, "2") != 0) u = wait_delta(&c, (size_t)u + 1, MS_DELTA_UPDATE, "late-1", 10);
    long d = u >= 0 ? wait_delta(&c, (size_t)u, MS_DELTA_DELETE, "late-1", 10) : -1;
    check(a >= 0 && u > a && d > u && !c.log[d].unknown, "watch delivered add, update (label v=2) and delete in order");

    /* the server ends the watch after timeoutSeconds (2-4 s): resume without a relist */
    t0 = now_s();
    do {
        drain(&c, 0.1);
        ms_informer_stats_get(pods, &ps);
    } while (ps.watch_ends < 2 && now_s() - t0 < 20);
    mark = c.n;
    create_pod(admin, "late-2");
    long a2 = wait_delta(&c, mark, MS_DELTA_ADD, "late-2", 10);
    ms_informer_stats_get(pods, &ps);
    check(ps.watch_ends >= 2 && a2 >= 0 && ps.lists == 1 && ps.relists_gone == 0,
          "watch resumed from its resourceVersion after the server closed it (%llu closes, %llu lists)",
          (unsigned long long)ps.watch_ends, (unsigned long long)ps.lists);

    check(ps.relists_gone == 0 && c.synced[MS_KIND_POD] == 1, "no relist and one synced marker so far");
    check(ms_resource_version_compare(ps.resource_version, "1") > 0, "pods resume point is a real revision (rv %s)",
          ps.resource_version);
    failures += relist_after_compaction(admin, etcd_url);
    failures += namespaces_and_pdbs(admin, sched);

    /* the scheduler's role does not reach secrets */
    check(call(sched, "GET", "/api/v1/namespaces/default/secrets", NULL) == 403,
          "system:kube-scheduler is refused secrets (403): RBAC is in force");

    ms_informer_stats_get(pods, &ps);
    ms_informer_stats_get(nodes_inf, &ns);
    /* 1.20 sends a bookmark only when the resource changed since the watch
     * began, so their number varies: reported, not checked */
    printf("# bookmarks received: %llu\n", (unsigned long long)(ps.bookmarks + ns.bookmarks));
    check(ps.decode_errors + ns.decode_errors == 0, "every pod and node the server sent decoded");
    t0 = now_s();
    ms_informer_stop(pods);
    ms_informer_stop(nodes_inf);
    check(now_s() - t0 < 1.0, "informers stopped in %.3f s", now_s() - t0);

    ms_kube_client_stats st;
    ms_kube_client_stats_get(sched, &st);
    check(st.http2 == st.requests && st.connections <= 4,
          "scheduler client: %llu requests, all over HTTP/2 (%llu), on %llu connections", (unsigned long long)st.requests,
          (unsigned long long)st.http2, (unsigned long long)st.connections);
    drain(&c, 0);
    ms_delta_queue_free(c.q);
    free(c.log);
    ms_interner_free(in);
    ms_kube_client_free(admin);
    ms_kube_client_free(sched);
    return failures != 0;
}

static int probe(const char *cfg, const char *expect) {
    ms_kubeconfig kc;
    ms_error err = {0};
    if (ms_kubeconfig_load_file(&kc, cfg, NULL, &err) != MS_OK) {
        check(false, "load %s: %s", cfg, err.msg);
        return 1;
    }
    ms_kube_client_options o = {.config = &kc, .log = &quiet_log, .max_retries = -1};
    ms_kube_client *c;
    if (ms_kube_client_new(&o, &c, &err) != MS_OK) {
        check(false, "client: %s", err.msg);
        ms_kubeconfig_free(&kc);
        return 1;
    }
    ms_kube_response r;
    ms_rc rc = ms_kube_get(c, "/api/v1/nodes?limit=1", &r, &err);
    const char *slash = strrchr(cfg, '/');
    if (slash && slash > cfg) {   /* "sub/file.kubeconfig": the last two parts */
        const char *prev = slash - 1;
        while (prev > cfg && prev[-1] != '/') prev--;
        cfg = prev;
    }
    if (!strcmp(expect, "ok")) {
        check(rc == MS_OK && r.status == 200, "%s: LIST nodes answered 200 (got %ld %s)", cfg, r.status, err.msg);
    } else if (!strcmp(expect, "forbidden")) {
        check(rc == MS_OK && (r.status == 403 || r.status == 401), "%s: refused (got %ld)", cfg, r.status);
    } else {
        check(rc == MS_EIO && (strstr(err.msg, "SSL") || strstr(err.msg, "certificate")),
              "%s: TLS verification fails (%s)", cfg, err.msg);
    }
    ms_kube_response_free(&r);
    ms_kube_client_free(c);
    ms_kubeconfig_free(&kc);
    return failures != 0;
}

typedef struct creator {
    ms_kube_client *c;
    int from, to;
    atomic_int *ok;
} creator;

static void *create_range(void *arg) {
    creator *k = arg;
    for (int i = k->from; i < k->to; i++) {
        char name[32];
        snprintf(name, sizeof name, "perf-%d", i);
        if (create_pod(k->c, name) == 201) atomic_fetch_add(k->ok, 1);
    }
    return NULL;
}

static int perf(const char *admin_cfg, int npods) {
    ms_kube_client *admin = client_from(admin_cfg, 0);
    if (!admin) return 1;
    atomic_int ok = 0;
    enum { T = 8 };
    pthread_t th[T];
    creator k[T];
    double t0 = now_s();
    for (int i = 0; i < T; i++) {
        k[i] = (creator){admin, npods * i / T, npods * (i + 1) / T, &ok};
        pthread_create(&th[i], NULL, create_range, &k[i]);
    }
    for (int i = 0; i < T; i++) pthread_join(th[i], NULL);
    double created = now_s() - t0;
    printf("# created %d pods in %.2f s (%.0f/s, %d threads)\n", atomic_load(&ok), created, atomic_load(&ok) / created, T);

    ms_interner *in = ms_interner_new();
    ms_decoder dec;
    ms_decoder_init(&dec, in);
    ms_delta_queue *q = ms_delta_queue_new();
    ms_informer_options o = {.client = admin, .resource = &ms_informer_pods, .decode_ctx = &dec, .queue = q,
                             .log = &quiet_log};
    ms_informer *inf;
    ms_error err = {0};
    t0 = now_s();
    ms_informer_start(&o, &inf, &err);
    size_t adds = 0;
    bool synced = false;
    ms_delta d[512];
    while (!synced && now_s() - t0 < 120) {
        size_t n = ms_delta_queue_pop(q, d, 512, 0.5);
        for (size_t i = 0; i < n; i++) {
            if (d[i].type == MS_DELTA_SYNCED) synced = true;
            if (d[i].type == MS_DELTA_ADD) adds++;
            ms_delta_release(&d[i]);
        }
    }
    double listed = now_s() - t0;
    ms_informer_stop(inf);
    check(synced && adds >= (size_t)atomic_load(&ok), "informer LIST of %zu pods (from the watch cache, item by item): %.3f s, %.0f pods/s", adds,
          listed, adds / listed);

    /* stages of one unpaginated LIST */
    ms_kube_response r;
    t0 = now_s();
    ms_kube_get(admin, "/api/v1/pods", &r, &err);
    double fetched = now_s() - t0;
    cJSON *doc = NULL;
    t0 = now_s();
    ms_json_parse(r.body, r.len, &doc, &err);
    double parsed = now_s() - t0;
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(doc, "items"), *it;
    size_t n = 0;
    t0 = now_s();
    cJSON_ArrayForEach(it, items) {
        ms_pod *p;
        if (ms_pod_decode(&dec, it, &p, &err) == MS_OK) {
            n++;
            ms_pod_unref(p);
        }
    }
    double decoded = now_s() - t0;
    printf("# one LIST without limit: %.1f MB in %.3f s; JSON parse %.3f s (%.0f MB/s); decode %zu pods %.3f s (%.0f pods/s)\n",
           (double)r.len / 1e6, fetched, parsed, (double)r.len / 1e6 / parsed, n, decoded, n / decoded);
    cJSON_Delete(doc);
    ms_kube_response_free(&r);
    ms_delta_queue_free(q);
    ms_interner_free(in);
    ms_kube_client_free(admin);
    return failures != 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 5 && !strcmp(argv[1], "run")) return run(argv[2], argv[3], argv[4]);
    if (argc == 4 && !strcmp(argv[1], "probe")) return probe(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "perf")) return perf(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: informer_check run ADMIN SCHED ETCD_URL | probe KUBECONFIG ok|forbidden|tls-error | perf ADMIN N\n");
    return 2;
}
