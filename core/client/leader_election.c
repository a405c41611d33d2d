/* Leader election on a coordination.k8s.io/v1 Lease. See
 * client/leader_election.h. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "client/leader_election.h"
#include "base/clock.h"
#include "base/mailbox.h"
#include "client/event_recorder.h"
#include "moonsched/pod.h"

/* ---- the decision, pure ---------------------------------------------------- */

bool ms_lease_record_equal(const ms_lease_record *a, const ms_lease_record *b) {
    return strcmp(a->holder_identity, b->holder_identity) == 0 &&
           a->lease_duration_seconds == b->lease_duration_seconds &&
           strcmp(a->acquire_time, b->acquire_time) == 0 && strcmp(a->renew_time, b->renew_time) == 0 &&
           a->lease_transitions == b->lease_transitions;
}

void ms_leader_observe(ms_leader_observation *obs, const ms_lease_record *rec, double now) {
    if (obs->valid && ms_lease_record_equal(&obs->record, rec)) return;
    obs->valid = true;
    obs->record = *rec;
    obs->time = now;
}

ms_leader_action ms_leader_decide(const ms_leader_observation *obs, const char *identity,
                                  double lease_duration, double now) {
    if (!obs->valid) return MS_LEADER_WAIT;
    const char *holder = obs->record.holder_identity;
    if (holder[0] && strcmp(holder, identity) == 0) return MS_LEADER_RENEW;
    if (holder[0] && obs->time + lease_duration > now) return MS_LEADER_WAIT;
    return MS_LEADER_ACQUIRE;
}

void ms_lease_micro_time(double wall, char *buf, size_t n) {
    /* Rounded as a whole, where ms_time_rfc3339 truncates: a double holds
     * today's time to ~0.2 us, so a renewTime written at .000001 would
     * read back as .000000. */
    long long total = llround(wall * 1e6);
    ms_time_rfc3339((double)(total / 1000000), 0, buf, n);
    size_t k = strlen(buf);
    if (k) snprintf(buf + k - 1, n - (k - 1), ".%06lldZ", total % 1000000);
}

void ms_leader_next_record(const ms_lease_record *old, ms_leader_action a, const char *identity,
                           double lease_duration, double wall, ms_lease_record *out) {
    ms_lease_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.holder_identity, sizeof r.holder_identity, "%s", identity);
    /* upstream truncates to whole seconds; 0 would read as "expired at once" */
    int32_t secs = (int32_t)lease_duration;
    r.lease_duration_seconds = secs < 1 ? 1 : secs;
    ms_lease_micro_time(wall, r.renew_time, sizeof r.renew_time);
    if (old && a == MS_LEADER_RENEW) {
        snprintf(r.acquire_time, sizeof r.acquire_time, "%s", old->acquire_time);
        r.lease_transitions = old->lease_transitions;
    } else {
        memcpy(r.acquire_time, r.renew_time, sizeof r.acquire_time);
        r.lease_transitions = old ? old->lease_transitions + 1 : 0;
    }
    *out = r;
}

void ms_leader_release_record(const ms_lease_record *old, double wall, ms_lease_record *out) {
    ms_lease_record r;
    memset(&r, 0, sizeof r);
    r.lease_duration_seconds = 1;
    ms_lease_micro_time(wall, r.renew_time, sizeof r.renew_time);
    memcpy(r.acquire_time, r.renew_time, sizeof r.acquire_time);
    r.lease_transitions = old ? old->lease_transitions : 0;
    *out = r;
}

/* ---- Lease JSON ---------------------------------------------------------------- */

static void copy_str(const cJSON *obj, const char *key, char *buf, size_t n) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    snprintf(buf, n, "%s", cJSON_IsString(v) && v->valuestring ? v->valuestring : "");
}

static int32_t get_int(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? (int32_t)v->valuedouble : 0;
}

/* Also the object's uid, for Events about it. */
static ms_rc lease_decode(const char *json, size_t len, ms_lease_record *rec, char *rv, size_t rvn,
                          char *uid, size_t uidn, ms_error *err) {
    memset(rec, 0, sizeof *rec);
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!root) return ms_error_set(err, MS_EINVAL, "lease: not JSON");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
    if (!cJSON_IsObject(root) || !cJSON_IsString(kind) || strcmp(kind->valuestring, "Lease") != 0 ||
        !cJSON_IsObject(meta)) {
        cJSON_Delete(root);
        return ms_error_set(err, MS_EINVAL, "lease: not a Lease object");
    }
    if (rv) copy_str(meta, "resourceVersion", rv, rvn);
    if (uid) copy_str(meta, "uid", uid, uidn);
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(root, "spec");
    if (cJSON_IsObject(spec)) {
        copy_str(spec, "holderIdentity", rec->holder_identity, sizeof rec->holder_identity);
        copy_str(spec, "acquireTime", rec->acquire_time, sizeof rec->acquire_time);
        copy_str(spec, "renewTime", rec->renew_time, sizeof rec->renew_time);
        rec->lease_duration_seconds = get_int(spec, "leaseDurationSeconds");
        rec->lease_transitions = get_int(spec, "leaseTransitions");
    }
    cJSON_Delete(root);
    return MS_OK;
}

ms_rc ms_lease_decode(const char *json, size_t len, ms_lease_record *rec, char *rv, size_t rvn,
                      ms_error *err) {
    return lease_decode(json, len, rec, rv, rvn, NULL, 0, err);
}

char *ms_lease_encode(const ms_lease_record *rec, const char *ns, const char *name, const char *rv) {
    cJSON *root = cJSON_CreateObject(), *meta = cJSON_CreateObject(), *spec = cJSON_CreateObject();
    if (!root || !meta || !spec) {
        cJSON_Delete(root);
        cJSON_Delete(meta);
        cJSON_Delete(spec);
        return NULL;
    }
    cJSON_AddStringToObject(root, "apiVersion", "coordination.k8s.io/v1");
    cJSON_AddStringToObject(root, "kind", "Lease");
    cJSON_AddItemToObject(root, "metadata", meta);
    cJSON_AddStringToObject(meta, "name", name);
    cJSON_AddStringToObject(meta, "namespace", ns);
    if (rv && *rv) cJSON_AddStringToObject(meta, "resourceVersion", rv);
    cJSON_AddItemToObject(root, "spec", spec);
    /* an empty holder is written, as upstream's release does */
    cJSON_AddStringToObject(spec, "holderIdentity", rec->holder_identity);
    cJSON_AddNumberToObject(spec, "leaseDurationSeconds", rec->lease_duration_seconds);
    if (rec->acquire_time[0]) cJSON_AddStringToObject(spec, "acquireTime", rec->acquire_time);
    if (rec->renew_time[0]) cJSON_AddStringToObject(spec, "renewTime", rec->renew_time);
    cJSON_AddNumberToObject(spec, "leaseTransitions", rec->lease_transitions);
    char *s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return s;
}

/* ---- identity and randomness --------------------------------------------------- */

static void random_bytes(void *buf, size_t n) {
    uint8_t *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom(p + got, n - got, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    if (got < n) {
        /* no getrandom: still unique enough per process and instant */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
        for (size_t i = got; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            p[i] = (uint8_t)x;
        }
    }
}

void ms_leader_identity(char *buf, size_t n) {
    char host[256];
    if (gethostname(host, sizeof host) != 0) host[0] = 0;
    host[sizeof host - 1] = 0;
    uint8_t u[16];
    random_bytes(u, sizeof u);
    u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);   /* version 4 */
    u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);   /* RFC 4122 variant */
    snprintf(buf, n,
             "%s_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", host, u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* ---- the elector ------------------------------------------------------------------ */

struct ms_leader_elector {
    ms_leader_election cfg;
    char identity[320];
    char leases_path[400], lease_path[700];
    const ms_logger *log;
    void (*leading_changed)(void *ctx, const char *lease, bool leading);
    void *leading_ctx;
    ms_event_recorder *events;     /* NULL: no Events */
    ms_kube_client *client;
    ms_kube_cancel *cancel;
    pthread_t thread;
    bool started;
    atomic_bool leading, lost;
    /* A create or update was sent and its answer not read (the stop cut
     * it short): the lease may be ours without our knowing. */
    atomic_bool writing;
    ms_mailbox changed;            /* readable when leading or lost changes */
    uint64_t rng;

    /* The election thread's; the stopping thread reads them after join. */
    ms_leader_observation obs;
    char rv[64], uid[64];
    char waiting_on[256];          /* holder last logged as "held by" */
};

static double rand01(ms_leader_elector *e) {
    uint64_t x = e->rng;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    e->rng = x;
    return (double)(x >> 11) / 9007199254740992.0;
}

static void notify(ms_leader_elector *e) { ms_mailbox_wake(&e->changed); }

static void tell_leading(ms_leader_elector *e, bool leading) {
    if (e->leading_changed) e->leading_changed(e->leading_ctx, e->cfg.resource_name, leading);
}

static void set_leading(ms_leader_elector *e, bool leading) {
    atomic_store(&e->leading, leading);
    tell_leading(e, leading);
    notify(e);
}

static double left_until(double deadline) {
    double t = deadline - ms_clock_monotonic();
    return t < 0.05 ? 0.05 : t;
}

static ms_rc request(ms_leader_elector *e, const char *method, const char *path, const char *body,
                     double deadline, bool cancellable, ms_kube_response *resp, ms_error *err) {
    ms_kube_request rq = {.method = method, .path = path, .body = body, .body_len = body ? strlen(body) : 0,
                          .timeout = left_until(deadline), .cancel = cancellable ? e->cancel : NULL};
    return ms_kube_do(e->client, &rq, resp, err);
}

static void log_status(ms_leader_elector *e, const char *msg, ms_rc rc, const ms_error *err,
                       const ms_kube_response *resp) {
    char why[600], code[16];
    if (rc != MS_OK) snprintf(why, sizeof why, "%s", err->msg);
    else ms_kube_status_message(resp, why, sizeof why);
    snprintf(code, sizeof code, "%ld", resp->status);
    ms_log(e->log, MS_LOG_WARN, msg, "lease", e->lease_path, "status", code, "error", why, NULL);
}

/* Sends a create (POST) or an update (PUT) of the lease; on success,
 * observes what the server stored (or, without a readable answer, what
 * was sent). */
static bool write_lease(ms_leader_elector *e, const char *method, const char *path, const ms_lease_record *rec,
                        const char *rv, double deadline, ms_kube_response *resp, ms_rc *rc, ms_error *err) {
    char *body = ms_lease_encode(rec, e->cfg.resource_namespace, e->cfg.resource_name, rv);
    if (!body) {
        *rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        memset(resp, 0, sizeof *resp);
        return false;
    }
    atomic_store(&e->writing, true);
    *rc = request(e, method, path, body, deadline, true, resp, err);
    free(body);
    if (*rc != MS_ESTATE) atomic_store(&e->writing, false);
    bool created = strcmp(method, "POST") == 0;
    if (*rc != MS_OK || !(resp->status == 200 || (created && resp->status == 201))) return false;
    ms_lease_record got;
    if (!resp->body || lease_decode(resp->body, resp->len, &got, e->rv, sizeof e->rv, e->uid, sizeof e->uid,
                                    err) != MS_OK)
        got = *rec;
    ms_leader_observe(&e->obs, &got, ms_clock_monotonic());
    return true;
}

/* No Lease yet: create it, holding it. */
static bool create_lease(ms_leader_elector *e, double deadline) {
    ms_lease_record rec;
    ms_leader_next_record(NULL, MS_LEADER_ACQUIRE, e->identity, e->cfg.lease_duration, ms_clock_wall(), &rec);
    ms_kube_response resp;
    ms_error err = {0};
    ms_rc rc;
    bool ok = write_lease(e, "POST", e->leases_path, &rec, NULL, deadline, &resp, &rc, &err);
    if (!ok && rc != MS_ESTATE && rc != MS_ENOMEM)
        log_status(e, "error initially creating leader election record", rc, &err, &resp);
    ms_kube_response_free(&resp);
    return ok;
}

/* The Lease as read: wait while another holds it, else take it over or
 * renew it. */
static bool acquire_or_renew(ms_leader_elector *e, const ms_lease_record *rec, double deadline) {
    ms_leader_observe(&e->obs, rec, ms_clock_monotonic());
    ms_leader_action action =
        ms_leader_decide(&e->obs, e->identity, e->cfg.lease_duration, ms_clock_monotonic());
    if (action == MS_LEADER_WAIT) {
        if (strcmp(e->waiting_on, rec->holder_identity) != 0) {
            snprintf(e->waiting_on, sizeof e->waiting_on, "%s", rec->holder_identity);
            ms_log(e->log, MS_LOG_INFO, "lock is held by another and has not yet expired", "lease",
                   e->lease_path, "holder", rec->holder_identity, NULL);
        }
        return false;
    }
    ms_lease_record next;
    ms_leader_next_record(rec, action, e->identity, e->cfg.lease_duration, ms_clock_wall(), &next);
    ms_kube_response resp;
    ms_error err = {0};
    ms_rc rc;
    bool ok = write_lease(e, "PUT", e->lease_path, &next, e->rv, deadline, &resp, &rc, &err);
    if (ok) e->waiting_on[0] = 0;
    else if (rc == MS_OK && resp.status == 409)
        ms_log(e->log, MS_LOG_INFO, "lost the race to update the lease", "lease", e->lease_path, NULL);
    else if (rc != MS_ESTATE && rc != MS_ENOMEM)
        log_status(e, "failed to update lock", rc, &err, &resp);
    ms_kube_response_free(&resp);
    return ok;
}

/* client-go's fast path: while the lease we last wrote is still valid on
 * our clock, renew it with that write's resourceVersion, without reading
 * it first. One request per renewal instead of two: when the API server
 * answers slowly, a GET and a PUT in a row use up renewDeadline twice as
 * fast, and the leader gives up a lease nobody else wanted. A conflict (an
 * edit of the Lease by anyone) or any failure falls back to the read. */
static bool renew_optimistically(ms_leader_elector *e, double deadline, bool *cancelled) {
    const ms_leader_observation *o = &e->obs;
    if (!o->valid || !e->rv[0] || strcmp(o->record.holder_identity, e->identity) != 0 ||
        o->time + e->cfg.lease_duration <= ms_clock_monotonic())
        return false;
    ms_lease_record next;
    ms_leader_next_record(&o->record, MS_LEADER_RENEW, e->identity, e->cfg.lease_duration, ms_clock_wall(), &next);
    ms_kube_response resp;
    ms_error err = {0};
    ms_rc rc;
    bool ok = write_lease(e, "PUT", e->lease_path, &next, e->rv, deadline, &resp, &rc, &err);
    *cancelled = rc == MS_ESTATE;
    if (!ok && rc != MS_ESTATE && rc != MS_ENOMEM)
        log_status(e, "failed to update lock optimistically, falling back to slow path", rc, &err, &resp);
    ms_kube_response_free(&resp);
    return ok;
}

/* One round of upstream's tryAcquireOrRenew; true when we hold the lease
 * afterwards. */
static bool try_acquire_or_renew(ms_leader_elector *e, double deadline) {
    bool cancelled = false;
    if (renew_optimistically(e, deadline, &cancelled)) return true;
    if (cancelled) return false;
    ms_kube_response resp;
    ms_error err = {0};
    ms_rc rc = request(e, "GET", e->lease_path, NULL, deadline, true, &resp, &err);
    bool missing = rc == MS_OK && resp.status == 404;
    ms_lease_record rec;
    bool read = false;
    if (rc == MS_ESTATE || missing) {
        /* cancelled, or nothing to read */
    } else if (rc != MS_OK || resp.status != 200) {
        log_status(e, "error retrieving resource lock", rc, &err, &resp);
    } else if (lease_decode(resp.body ? resp.body : "", resp.len, &rec, e->rv, sizeof e->rv, e->uid,
                            sizeof e->uid, &err) != MS_OK) {
        ms_log(e->log, MS_LOG_WARN, "error retrieving resource lock", "lease", e->lease_path, "error", err.msg,
               NULL);
    } else {
        read = true;
    }
    ms_kube_response_free(&resp);
    if (missing) return create_lease(e, deadline);
    return read && acquire_or_renew(e, &rec, deadline);
}

/* Like upstream's LeaseLock.RecordEvent: a core/v1 Event on the Lease. */
static void post_became_leader(ms_leader_elector *e) {
    char msg[400];
    snprintf(msg, sizeof msg, "%s became leader", e->identity);
    ms_object_ref lease = {"coordination.k8s.io/v1", "Lease", e->cfg.resource_namespace, e->cfg.resource_name,
                           e->uid};
    ms_event ev = {.regarding = &lease, .type = "Normal", .reason = "LeaderElection", .note = msg};
    ms_event_post post;
    if (ms_event_recorder_build(e->events, &ev, ms_clock_wall(), &post) != MS_OK) return;
    ms_event_send_options so = {.timeout = e->cfg.retry_period, .cancel = e->cancel};
    ms_kube_response resp;
    ms_error err = {0};
    ms_rc rc = ms_event_recorder_send(e->events, e->client, &post, &so, &resp, &err);
    if (rc != MS_ESTATE && (rc != MS_OK || resp.status >= 300))
        log_status(e, "leader election event not recorded", rc, &err, &resp);
    ms_kube_response_free(&resp);
    ms_event_post_free(&post);
}

static void *elector_main(void *arg) {
    ms_leader_elector *e = arg;
    double retry = e->cfg.retry_period, renew = e->cfg.renew_deadline;
    ms_log(e->log, MS_LOG_INFO, "attempting to acquire leader lease", "lease", e->lease_path, "identity",
           e->identity, NULL);
    /* Acquire: retries jittered as upstream's JitterUntil, so replicas
     * started together do not stay in step. */
    while (!try_acquire_or_renew(e, ms_clock_monotonic() + renew)) {
        double wait = retry * (1 + MS_LEADER_JITTER_FACTOR * rand01(e));
        if (ms_kube_cancel_sleep(e->cancel, wait)) return NULL;
    }
    ms_log(e->log, MS_LOG_INFO, "successfully acquired lease", "lease", e->lease_path, "identity", e->identity,
           NULL);
    set_leading(e, true);
    if (e->events) post_became_leader(e);

    /* Renew every retryPeriod; each renewal may retry every retryPeriod
     * until renewDeadline has passed since it began. */
    for (;;) {
        if (ms_kube_cancel_sleep(e->cancel, retry)) return NULL;
        double deadline = ms_clock_monotonic() + renew;
        bool ok = false;
        while (!ok) {
            ok = try_acquire_or_renew(e, deadline);
            if (ms_kube_cancel_fired(e->cancel)) return NULL;
            if (ok) break;
            double left = deadline - ms_clock_monotonic();
            if (left <= 0) break;
            if (ms_kube_cancel_sleep(e->cancel, left < retry ? left : retry)) return NULL;
            if (deadline - ms_clock_monotonic() <= 0) break;
        }
        if (!ok) break;
    }
    char secs[32];
    snprintf(secs, sizeof secs, "%g", renew);
    ms_log(e->log, MS_LOG_ERROR, "lost lease: not renewed within renewDeadline", "lease", e->lease_path,
           "identity", e->identity, "renew_deadline_seconds", secs, NULL);
    atomic_store(&e->lost, true);
    set_leading(e, false);
    return NULL;
}

ms_rc ms_leader_elector_start(const ms_leader_elector_options *o, ms_leader_elector **out, ms_error *err) {
    *out = NULL;
    const ms_leader_election *c = o->config;
    if (c->lease_duration <= 0 || c->renew_deadline <= 0 || c->retry_period <= 0)
        return ms_error_set(err, MS_EINVAL, "leaderElection: durations must be greater than zero");
    if (c->lease_duration <= c->renew_deadline)
        return ms_error_set(err, MS_EINVAL, "leaderElection: leaseDuration must be greater than renewDeadline");
    if (c->renew_deadline <= MS_LEADER_JITTER_FACTOR * c->retry_period)
        return ms_error_set(err, MS_EINVAL,
                            "leaderElection: renewDeadline must be greater than retryPeriod*%g",
                            MS_LEADER_JITTER_FACTOR);
    ms_leader_elector *e = calloc(1, sizeof *e);
    if (!e) return ms_error_set(err, MS_ENOMEM, "out of memory");
    e->changed.fd = -1;
    e->cfg = *c;
    if (!e->cfg.resource_name[0]) snprintf(e->cfg.resource_name, sizeof e->cfg.resource_name, "kube-scheduler");
    if (!e->cfg.resource_namespace[0])
        snprintf(e->cfg.resource_namespace, sizeof e->cfg.resource_namespace, "kube-system");
    e->log = o->log ? o->log : &ms_log_default;
    e->leading_changed = o->leading_changed;
    e->leading_ctx = o->leading_ctx;
    if (o->identity && *o->identity) snprintf(e->identity, sizeof e->identity, "%s", o->identity);
    else ms_leader_identity(e->identity, sizeof e->identity);
    random_bytes(&e->rng, sizeof e->rng);
    e->rng |= 1;
    snprintf(e->leases_path, sizeof e->leases_path, "/apis/coordination.k8s.io/v1/namespaces/%s/leases",
             e->cfg.resource_namespace);
    snprintf(e->lease_path, sizeof e->lease_path, "%s/%s", e->leases_path, e->cfg.resource_name);
    const char *lock = e->cfg.resource_lock;
    if (lock[0] && strcmp(lock, "leases") != 0)
        /* the *leases migration locks also hold a Lease; the Endpoints or
         * ConfigMap half is only for replicas older than 1.17 */
        ms_log(e->log, MS_LOG_WARN, "resourceLock is treated as \"leases\"", "resourceLock", lock, NULL);
    atomic_init(&e->leading, false);
    atomic_init(&e->lost, false);
    atomic_init(&e->writing, false);

    ms_kube_client_options co = *o->client;
    co.max_retries = -1;
    co.user_agent = "moonsched/0.1 (leader-election)";
    co.log = e->log;
    ms_rc rc = ms_kube_client_new(&co, &e->client, err);
    if (rc != MS_OK) goto fail;
    e->cancel = ms_kube_cancel_new();
    ms_mailbox_init(&e->changed);
    if (o->post_events) {
        ms_event_recorder_options ro = {.controller = o->event_component ? o->event_component
                                                                         : MS_DEFAULT_SCHEDULER_NAME,
                                        .instance = e->identity,
                                        .core_only = true};
        e->events = ms_event_recorder_new(&ro);
    }
    if (!e->cancel || ms_mailbox_fd(&e->changed) < 0 || (o->post_events && !e->events)) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory or file descriptors");
        goto fail;
    }
    tell_leading(e, false);
    if (pthread_create(&e->thread, NULL, elector_main, e) != 0) {
        rc = ms_error_set(err, MS_ENOMEM, "cannot start the leader election thread");
        goto fail;
    }
    e->started = true;
    *out = e;
    return MS_OK;
fail:
    ms_leader_elector_stop(e, false);
    return rc;
}

int ms_leader_elector_fd(const ms_leader_elector *e) { return ms_mailbox_fd(&e->changed); }
bool ms_leader_elector_leading(const ms_leader_elector *e) {
    return atomic_load((atomic_bool *)&e->leading);
}
bool ms_leader_elector_lost(const ms_leader_elector *e) { return atomic_load((atomic_bool *)&e->lost); }
const char *ms_leader_elector_identity(const ms_leader_elector *e) { return e->identity; }

/* upstream's release(): only when we still hold it; GET first so that a
 * renewal cut short by the stop does not leave us with a stale
 * resourceVersion. */
static void release(ms_leader_elector *e) {
    double deadline = ms_clock_monotonic() + e->cfg.renew_deadline;
    ms_kube_response resp;
    ms_error err = {0};
    ms_lease_record rec;
    ms_rc rc = request(e, "GET", e->lease_path, NULL, deadline, false, &resp, &err);
    if (rc != MS_OK || resp.status != 200 ||
        lease_decode(resp.body ? resp.body : "", resp.len, &rec, e->rv, sizeof e->rv, NULL, 0, &err) != MS_OK) {
        log_status(e, "failed to release lock", rc, &err, &resp);
        ms_kube_response_free(&resp);
        return;
    }
    ms_kube_response_free(&resp);
    if (strcmp(rec.holder_identity, e->identity) != 0) return;
    ms_lease_record next;
    ms_leader_release_record(&rec, ms_clock_wall(), &next);
    char *body = ms_lease_encode(&next, e->cfg.resource_namespace, e->cfg.resource_name, e->rv);
    if (!body) return;
    rc = request(e, "PUT", e->lease_path, body, deadline, false, &resp, &err);
    free(body);
    if (rc == MS_OK && resp.status == 200)
        ms_log(e->log, MS_LOG_INFO, "released lease", "lease", e->lease_path, "identity", e->identity, NULL);
    else log_status(e, "failed to release lock", rc, &err, &resp);
    ms_kube_response_free(&resp);
}

void ms_leader_elector_stop(ms_leader_elector *e, bool release_lease) {
    if (!e) return;
    if (e->cancel) ms_kube_cancel_fire(e->cancel);
    if (e->started) pthread_join(e->thread, NULL);
    if (e->client && release_lease && !atomic_load(&e->lost) &&
        (atomic_load(&e->leading) || atomic_load(&e->writing)))
        release(e);
    if (atomic_load(&e->leading)) set_leading(e, false);
    if (e->client) ms_kube_client_free(e->client);
    if (e->cancel) ms_kube_cancel_free(e->cancel);
    ms_event_recorder_free(e->events);
    ms_mailbox_destroy(&e->changed, NULL);
    free(e);
}
