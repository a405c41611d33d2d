#include "testutil.h"

#include <poll.h>

#include "fake_http.h"
#include "client/leader_election.h"
#include "base/clock.h"
#include "codec/decode_internal.h"

/* ---- the decision ------------------------------------------------------------ */

static ms_lease_record rec_of(const char *holder, const char *renew) {
    ms_lease_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.holder_identity, sizeof r.holder_identity, "%s", holder);
    snprintf(r.renew_time, sizeof r.renew_time, "%s", renew);
    r.lease_duration_seconds = 15;
    return r;
}

static void test_decide_table(void **state) {
    (void)state;
    static const struct {
        bool valid;
        const char *holder;
        double observed, now;
        ms_leader_action want;
    } cases[] = {
        /* nothing observed yet: never act on it */
        {false, "", 0, 100, MS_LEADER_WAIT},
        /* an empty holder (a released lease) is free at once */
        {true, "", 100, 100, MS_LEADER_ACQUIRE},
        {true, "", 100, 100.5, MS_LEADER_ACQUIRE},
        /* another holder: expires leaseDuration (15) after we observed it */
        {true, "other", 100, 100, MS_LEADER_WAIT},
        {true, "other", 100, 114.999, MS_LEADER_WAIT},
        {true, "other", 100, 115, MS_LEADER_ACQUIRE},      /* not After: expired */
        {true, "other", 100, 115.001, MS_LEADER_ACQUIRE},
        {true, "other", 100, 99, MS_LEADER_WAIT},          /* now before observation */
        {true, "other", 0, 15, MS_LEADER_ACQUIRE},         /* observed at time 0 */
        /* ours: renew, however old (a leader renews its own record) */
        {true, "me", 100, 100, MS_LEADER_RENEW},
        {true, "me", 100, 1000, MS_LEADER_RENEW},
        /* a prefix of our identity is someone else */
        {true, "m", 100, 101, MS_LEADER_WAIT},
        {true, "me2", 100, 116, MS_LEADER_ACQUIRE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_leader_observation obs = {.valid = cases[i].valid, .time = cases[i].observed};
        obs.record = rec_of(cases[i].holder, "t");
        ms_leader_action got = ms_leader_decide(&obs, "me", 15, cases[i].now);
        if (got != cases[i].want)
            fail_msg("case %zu: holder=%s observed=%g now=%g: got %d want %d", i, cases[i].holder,
                     cases[i].observed, cases[i].now, got, cases[i].want);
    }
}

static void test_observe_moves_only_on_change(void **state) {
    (void)state;
    ms_leader_observation obs = {0};
    ms_lease_record a = rec_of("other", "2026-01-01T00:00:00.000000Z");
    ms_leader_observe(&obs, &a, 10);
    assert_true(obs.valid);
    assert_true(obs.time == 10);
    /* the same record again (a dead leader): the clock keeps running */
    ms_leader_observe(&obs, &a, 20);
    assert_true(obs.time == 10);
    assert_int_equal(ms_leader_decide(&obs, "me", 15, 24.9), MS_LEADER_WAIT);
    assert_int_equal(ms_leader_decide(&obs, "me", 15, 25), MS_LEADER_ACQUIRE);
    /* a renewal (renewTime changed) restarts it, whatever the remote time says */
    ms_lease_record b = rec_of("other", "1970-01-01T00:00:00.000000Z");
    ms_leader_observe(&obs, &b, 24);
    assert_true(obs.time == 24);
    assert_int_equal(ms_leader_decide(&obs, "me", 15, 25), MS_LEADER_WAIT);
    assert_int_equal(ms_leader_decide(&obs, "me", 15, 39), MS_LEADER_ACQUIRE);
    /* every field counts as a change */
    ms_lease_record c = b;
    c.lease_transitions = 1;
    ms_leader_observe(&obs, &c, 30);
    assert_true(obs.time == 30);
    c.lease_duration_seconds = 1;
    ms_leader_observe(&obs, &c, 31);
    assert_true(obs.time == 31);
    snprintf(c.acquire_time, sizeof c.acquire_time, "x");
    ms_leader_observe(&obs, &c, 32);
    assert_true(obs.time == 32);
    snprintf(c.holder_identity, sizeof c.holder_identity, "third");
    ms_leader_observe(&obs, &c, 33);
    assert_true(obs.time == 33);
    ms_leader_observe(&obs, &c, 40);
    assert_true(obs.time == 33);
}

static void test_micro_time(void **state) {
    (void)state;
    char buf[40];
    ms_lease_micro_time(1700000000.123456, buf, sizeof buf);
    assert_string_equal(buf, "2023-11-14T22:13:20.123456Z");
    ms_lease_micro_time(0, buf, sizeof buf);
    assert_string_equal(buf, "1970-01-01T00:00:00.000000Z");
    /* rounding never prints 1000000 microseconds */
    ms_lease_micro_time(1700000000.9999999, buf, sizeof buf);
    assert_string_equal(buf, "2023-11-14T22:13:21.000000Z");
    ms_lease_micro_time(1700000000.000001, buf, sizeof buf);
    assert_string_equal(buf, "2023-11-14T22:13:20.000001Z");
}

static void test_next_record(void **state) {
    (void)state;
    const double wall = 1700000000.5;
    ms_lease_record n;
    /* a new Lease */
    ms_leader_next_record(NULL, MS_LEADER_ACQUIRE, "me", 15, wall, &n);
    assert_string_equal(n.holder_identity, "me");
    assert_int_equal(n.lease_duration_seconds, 15);
    assert_string_equal(n.renew_time, "2023-11-14T22:13:20.500000Z");
    assert_string_equal(n.acquire_time, n.renew_time);
    assert_int_equal(n.lease_transitions, 0);

    ms_lease_record old = rec_of("other", "2023-11-14T22:00:00.000000Z");
    snprintf(old.acquire_time, sizeof old.acquire_time, "2023-11-14T21:00:00.000000Z");
    old.lease_transitions = 4;
    /* a takeover counts a transition and starts a new acquireTime */
    ms_leader_next_record(&old, MS_LEADER_ACQUIRE, "me", 15.9, wall, &n);
    assert_string_equal(n.holder_identity, "me");
    assert_int_equal(n.lease_duration_seconds, 15);   /* whole seconds, as upstream */
    assert_int_equal(n.lease_transitions, 5);
    assert_string_equal(n.acquire_time, "2023-11-14T22:13:20.500000Z");
    /* a renewal keeps both */
    ms_lease_record mine = n;
    ms_leader_next_record(&mine, MS_LEADER_RENEW, "me", 15, wall + 2, &n);
    assert_int_equal(n.lease_transitions, 5);
    assert_string_equal(n.acquire_time, "2023-11-14T22:13:20.500000Z");
    assert_string_equal(n.renew_time, "2023-11-14T22:13:22.500000Z");
    /* sub-second durations still write a lease that lasts */
    ms_leader_next_record(NULL, MS_LEADER_ACQUIRE, "me", 0.4, wall, &n);
    assert_int_equal(n.lease_duration_seconds, 1);
    /* release: no holder, 1 s, transitions kept */
    ms_leader_release_record(&mine, wall + 3, &n);
    assert_string_equal(n.holder_identity, "");
    assert_int_equal(n.lease_duration_seconds, 1);
    assert_int_equal(n.lease_transitions, 5);
    assert_string_equal(n.renew_time, "2023-11-14T22:13:23.500000Z");
    assert_string_equal(n.acquire_time, n.renew_time);
}

static void test_lease_json(void **state) {
    (void)state;
    ms_lease_record r = rec_of("host_1234", "2023-11-14T22:13:20.500000Z");
    snprintf(r.acquire_time, sizeof r.acquire_time, "2023-11-14T22:13:00.000000Z");
    r.lease_transitions = 3;
    char *js = ms_lease_encode(&r, "kube-system", "kube-scheduler", "42");
    assert_non_null(js);
    assert_non_null(strstr(js, "\"apiVersion\":\"coordination.k8s.io/v1\""));
    assert_non_null(strstr(js, "\"resourceVersion\":\"42\""));
    assert_non_null(strstr(js, "\"namespace\":\"kube-system\""));
    ms_lease_record back;
    char rv[16];
    ms_error err = {0};
    assert_int_equal(ms_lease_decode(js, strlen(js), &back, rv, sizeof rv, &err), MS_OK);
    assert_true(ms_lease_record_equal(&r, &back));
    assert_string_equal(rv, "42");
    free(js);
    /* a create carries no resourceVersion; a release writes the empty holder */
    ms_lease_record rel;
    ms_leader_release_record(&r, 0, &rel);
    js = ms_lease_encode(&rel, "ns", "n", NULL);
    assert_null(strstr(js, "resourceVersion"));
    assert_non_null(strstr(js, "\"holderIdentity\":\"\""));
    free(js);
    /* as the apiserver answers a Lease created without a spec */
    const char *bare = "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\","
                       "\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"7\"},\"spec\":{}}";
    assert_int_equal(ms_lease_decode(bare, strlen(bare), &back, rv, sizeof rv, &err), MS_OK);
    assert_string_equal(back.holder_identity, "");
    assert_int_equal(back.lease_transitions, 0);
    assert_string_equal(rv, "7");
    const char *status = "{\"kind\":\"Status\",\"metadata\":{},\"code\":404}";
    assert_int_equal(ms_lease_decode(status, strlen(status), &back, NULL, 0, &err), MS_EINVAL);
    assert_int_equal(ms_lease_decode("{", 1, &back, NULL, 0, &err), MS_EINVAL);
}

static void test_identity(void **state) {
    (void)state;
    char a[320], b[320], host[256];
    ms_leader_identity(a, sizeof a);
    ms_leader_identity(b, sizeof b);
    assert_int_equal(gethostname(host, sizeof host), 0);
    size_t hl = strlen(host);
    assert_int_equal(strncmp(a, host, hl), 0);
    assert_int_equal(a[hl], '_');
    const char *u = a + hl + 1;
    assert_int_equal(strlen(u), 36);
    for (int i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) assert_int_equal(u[i], '-');
        else assert_non_null(strchr("0123456789abcdef", u[i]));
    }
    assert_int_equal(u[14], '4');                  /* version 4 */
    assert_non_null(strchr("89ab", u[19]));        /* RFC 4122 variant */
    assert_string_not_equal(a, b);
}

/* ---- the elector against a fake apiserver holding one Lease ------------------ */

#define LEASE_PATH "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler"

typedef struct fake_lease {
    pthread_mutex_t mu;
    bool exists, down;
    ms_lease_record rec;
    char replaced[256];            /* the holder the last accepted PUT replaced */
    int rv;
    int events, gets, puts, conflicts;
} fake_lease;

static bool lease_handler(fake_http *srv, int fd, const fh_request *req, void *ctx) {
    (void)srv;
    fake_lease *f = ctx;
    pthread_mutex_lock(&f->mu);
    char rv[16];
    snprintf(rv, sizeof rv, "%d", f->rv);
    int status = 200;
    char *body = NULL;
    if (f->down) {
        status = 503;
    } else if (strcmp(req->method, "POST") == 0 && strstr(req->path, "/events")) {
        f->events++;
        status = 201;
    } else if (strcmp(req->method, "GET") == 0 && strcmp(req->path, LEASE_PATH) == 0) {
        f->gets++;
        if (f->exists) body = ms_lease_encode(&f->rec, "kube-system", "kube-scheduler", rv);
        else status = 404;
    } else if (strcmp(req->method, "POST") == 0 &&
               strcmp(req->path, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases") == 0) {
        ms_lease_record r;
        if (f->exists) {
            status = 409;
        } else if (ms_lease_decode(req->body, req->body_len, &r, NULL, 0, NULL) != MS_OK) {
            status = 400;
        } else {
            f->exists = true;
            f->rec = r;
            snprintf(rv, sizeof rv, "%d", ++f->rv);
            body = ms_lease_encode(&f->rec, "kube-system", "kube-scheduler", rv);
            status = 201;
        }
    } else if (strcmp(req->method, "PUT") == 0 && strcmp(req->path, LEASE_PATH) == 0) {
        ms_lease_record r;
        char got[16];
        f->puts++;
        if (!f->exists) {
            status = 404;
        } else if (ms_lease_decode(req->body, req->body_len, &r, got, sizeof got, NULL) != MS_OK) {
            status = 400;
        } else if (strcmp(got, rv) != 0) {
            f->conflicts++;
            status = 409;
        } else {
            snprintf(f->replaced, sizeof f->replaced, "%s", f->rec.holder_identity);
            f->rec = r;
            snprintf(rv, sizeof rv, "%d", ++f->rv);
            body = ms_lease_encode(&f->rec, "kube-system", "kube-scheduler", rv);
        }
    } else {
        status = 404;
    }
    pthread_mutex_unlock(&f->mu);
    bool ok = fh_reply(fd, status, "Content-Type: application/json\r\n", body ? body : "{}");
    free(body);
    return ok;
}

typedef struct elect_fx {
    fake_lease lease;
    fake_http *srv;
    ms_kubeconfig kc;
    ms_kube_client_options co;
    ms_leader_election cfg;
    ms_logger quiet;
} elect_fx;

static int elect_setup(void **state) {
    elect_fx *f = calloc(1, sizeof *f);
    pthread_mutex_init(&f->lease.mu, NULL);
    f->lease.rv = 1;
    f->srv = fh_start(lease_handler, &f->lease);
    f->kc.server = strdup(f->srv->url);
    f->co = (ms_kube_client_options){.config = &f->kc};
    f->cfg = (ms_leader_election){.leader_elect = true, .lease_duration = 0.6, .renew_deadline = 0.3,
                                  .retry_period = 0.1};
    snprintf(f->cfg.resource_lock, sizeof f->cfg.resource_lock, "leases");
    snprintf(f->cfg.resource_name, sizeof f->cfg.resource_name, "kube-scheduler");
    snprintf(f->cfg.resource_namespace, sizeof f->cfg.resource_namespace, "kube-system");
    f->quiet = ms_log_default;
    f->quiet.level = MS_LOG_ERROR;
    *state = f;
    return 0;
}

static int elect_teardown(void **state) {
    elect_fx *f = *state;
    fh_stop(f->srv);
    ms_kubeconfig_free(&f->kc);
    pthread_mutex_destroy(&f->lease.mu);
    free(f);
    return 0;
}

static ms_leader_elector *start(elect_fx *f, const char *id) {
    ms_leader_elector_options o = {.config = &f->cfg, .client = &f->co, .identity = id, .log = &f->quiet,
                                   .post_events = true};
    ms_leader_elector *e = NULL;
    ms_error err = {0};
    if (ms_leader_elector_start(&o, &e, &err) != MS_OK) fail_msg("start: %s", err.msg);
    assert_string_equal(ms_leader_elector_identity(e), id);
    return e;
}

static bool wait_leading(ms_leader_elector *e, double secs) {
    double end = fh_now() + secs;
    while (fh_now() < end) {
        if (ms_leader_elector_leading(e)) return true;
        fh_sleep(0.01);
    }
    return ms_leader_elector_leading(e);
}

static void holder(elect_fx *f, char *buf, size_t n, int *transitions) {
    pthread_mutex_lock(&f->lease.mu);
    snprintf(buf, n, "%s", f->lease.rec.holder_identity);
    if (transitions) *transitions = f->lease.rec.lease_transitions;
    pthread_mutex_unlock(&f->lease.mu);
}

static void test_elector_validates(void **state) {
    elect_fx *f = *state;
    ms_leader_elector *e = NULL;
    ms_error err = {0};
    ms_leader_elector_options o = {.config = &f->cfg, .client = &f->co, .log = &f->quiet};
    f->cfg.retry_period = 0.25;   /* 0.25 * 1.2 = 0.3: not below renewDeadline */
    assert_int_equal(ms_leader_elector_start(&o, &e, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "renewDeadline must be greater than retryPeriod"));
    f->cfg.retry_period = 0.1;
    f->cfg.renew_deadline = 0.6;
    assert_int_equal(ms_leader_elector_start(&o, &e, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "leaseDuration must be greater than renewDeadline"));
    assert_null(e);
}

/* One leads, the other waits; releasing hands over at once. */
static void test_elector_handover_on_release(void **state) {
    elect_fx *f = *state;
    /* long enough that a keeps its lease on a loaded machine */
    f->cfg.lease_duration = 1.2;
    f->cfg.renew_deadline = 0.9;
    ms_leader_elector *a = start(f, "a"), *b = NULL;
    assert_true(wait_leading(a, 2));
    char h[256];
    int tr = -1;
    holder(f, h, sizeof h, &tr);
    assert_string_equal(h, "a");
    assert_int_equal(tr, 0);
    /* readable: the state changed */
    struct pollfd p = {.fd = ms_leader_elector_fd(a), .events = POLLIN};
    assert_int_equal(poll(&p, 1, 0), 1);

    b = start(f, "b");
    /* two lease durations: a keeps renewing, b never gets it */
    fh_sleep(2 * f->cfg.lease_duration);
    assert_false(ms_leader_elector_leading(b));
    assert_true(ms_leader_elector_leading(a));
    holder(f, h, sizeof h, NULL);
    assert_string_equal(h, "a");

    ms_leader_elector_stop(a, true);
    holder(f, h, sizeof h, NULL);
    assert_true(strcmp(h, "") == 0 || strcmp(h, "b") == 0);
    /* b's next try (retryPeriod, jittered up to 2.2x) takes it over
     * because it was released, not because it expired: what b's update
     * replaced had no holder (how soon depends on the machine's load) */
    assert_true(wait_leading(b, 5));
    holder(f, h, sizeof h, &tr);
    assert_string_equal(h, "b");
    assert_int_equal(tr, 1);
    pthread_mutex_lock(&f->lease.mu);
    assert_string_equal(f->lease.replaced, "");
    pthread_mutex_unlock(&f->lease.mu);
    ms_leader_elector_stop(b, true);
    holder(f, h, sizeof h, &tr);
    assert_string_equal(h, "");
    assert_int_equal(tr, 1);
    pthread_mutex_lock(&f->lease.mu);
    int events = f->lease.events;
    pthread_mutex_unlock(&f->lease.mu);
    assert_int_equal(events, 2);   /* "a became leader", "b became leader" */
}

/* A leader that stops without releasing (killed) is taken over only once
 * its record has stood still for leaseDuration on the standby's clock. */
static void test_elector_takeover_after_expiry(void **state) {
    elect_fx *f = *state;
    ms_leader_elector *a = start(f, "a");
    assert_true(wait_leading(a, 2));
    ms_leader_elector *b = start(f, "b");
    fh_sleep(0.3);
    ms_leader_elector_stop(a, false);
    /* a's last renewal: b saw it no sooner than it was written */
    char last[40];
    pthread_mutex_lock(&f->lease.mu);
    snprintf(last, sizeof last, "%s", f->lease.rec.renew_time);
    pthread_mutex_unlock(&f->lease.mu);
    assert_true(wait_leading(b, 5));
    char h[256], acquired[40];
    int tr;
    pthread_mutex_lock(&f->lease.mu);
    snprintf(h, sizeof h, "%s", f->lease.rec.holder_identity);
    snprintf(acquired, sizeof acquired, "%s", f->lease.rec.acquire_time);
    tr = f->lease.rec.lease_transitions;
    pthread_mutex_unlock(&f->lease.mu);
    assert_string_equal(h, "b");
    assert_int_equal(tr, 1);
    /* Not before leaseDuration after that renewal, on the same clock
     * (how much later depends on the machine's load, so no upper bound:
     * the wait above ends a run that never takes over). */
    double t_last, t_acq;
    assert_int_equal(ms_parse_rfc3339(last, &t_last), MS_OK);
    assert_int_equal(ms_parse_rfc3339(acquired, &t_acq), MS_OK);
    if (t_acq - t_last < 0.6 - 1e-6)
        fail_msg("taken over %.6f s after the last renewal, before leaseDuration 0.6 s", t_acq - t_last);
    ms_leader_elector_stop(b, true);
}

/* Renewals that fail for renewDeadline: lost, sticky, and not released. */
static void test_elector_lost_after_renew_deadline(void **state) {
    elect_fx *f = *state;
    /* long enough that a renewal slowed by a loaded machine is not lost */
    f->cfg.lease_duration = 3;
    f->cfg.renew_deadline = 1.5;
    ms_leader_elector *a = start(f, "a");
    assert_true(wait_leading(a, 2));
    uint64_t v;
    assert_int_equal(read(ms_leader_elector_fd(a), &v, sizeof v), (ssize_t)sizeof v);
    fh_sleep(0.25);
    assert_true(ms_leader_elector_leading(a));
    assert_false(ms_leader_elector_lost(a));
    pthread_mutex_lock(&f->lease.mu);
    f->lease.down = true;
    pthread_mutex_unlock(&f->lease.mu);
    struct pollfd p = {.fd = ms_leader_elector_fd(a), .events = POLLIN};
    assert_int_equal(poll(&p, 1, 5000), 1);
    double lost_at = ms_clock_wall();
    assert_true(ms_leader_elector_lost(a));
    assert_false(ms_leader_elector_leading(a));
    /* The round that failed began retryPeriod after the last renewal
     * that was written, and gave up renewDeadline after it began (how
     * much later depends on the machine's load: no upper bound but the
     * poll's). */
    char last[40];
    pthread_mutex_lock(&f->lease.mu);
    snprintf(last, sizeof last, "%s", f->lease.rec.renew_time);
    pthread_mutex_unlock(&f->lease.mu);
    double t_last;
    assert_int_equal(ms_parse_rfc3339(last, &t_last), MS_OK);
    if (lost_at - t_last < f->cfg.renew_deadline)
        fail_msg("lost %.3f s after the last renewal, before renewDeadline %g s", lost_at - t_last,
                 f->cfg.renew_deadline);
    pthread_mutex_lock(&f->lease.mu);
    f->lease.down = false;
    int puts = f->lease.puts;
    pthread_mutex_unlock(&f->lease.mu);
    fh_sleep(0.3);
    ms_leader_elector_stop(a, true);
    pthread_mutex_lock(&f->lease.mu);
    assert_int_equal(f->lease.puts, puts);   /* no renewal after the loss, no release */
    assert_string_equal(f->lease.rec.holder_identity, "a");
    pthread_mutex_unlock(&f->lease.mu);
}

static void counts(elect_fx *f, int *gets, int *puts, int *conflicts) {
    pthread_mutex_lock(&f->lease.mu);
    *gets = f->lease.gets;
    *puts = f->lease.puts;
    *conflicts = f->lease.conflicts;
    pthread_mutex_unlock(&f->lease.mu);
}

/* Until the fake apiserver has answered `puts` updates (false after
 * `secs`, a generous bound: it only ends a broken run). */
static bool wait_puts(elect_fx *f, int puts, double secs) {
    double end = fh_now() + secs;
    int g, p, c;
    do {
        counts(f, &g, &p, &c);
        if (p >= puts) return true;
        fh_sleep(0.01);
    } while (fh_now() < end);
    return false;
}

/* As client-go: a leader whose lease is valid renews with one update,
 * without reading the Lease first (under a slow API server a read and a
 * write in a row use up renewDeadline twice as fast). */
static void test_elector_renews_without_reading(void **state) {
    elect_fx *f = *state;
    ms_leader_elector *a = start(f, "a");
    assert_true(wait_leading(a, 2));
    int g0, p0, c0;
    counts(f, &g0, &p0, &c0);
    assert_true(wait_puts(f, p0 + 4, 10));
    int g, p, c;
    counts(f, &g, &p, &c);
    ms_leader_elector_stop(a, false);
    assert_int_equal(g, g0);
    assert_int_equal(c, 0);
}

/* Someone else's edit of the Lease (its resourceVersion moves, the holder
 * stays): the optimistic renewal conflicts, and the same round reads the
 * Lease and renews with the new version; the leader keeps its lease. */
static void test_elector_renewal_falls_back_on_conflict(void **state) {
    elect_fx *f = *state;
    /* long enough that a slow round on a loaded machine loses nothing */
    f->cfg.lease_duration = 6;
    f->cfg.renew_deadline = 4;
    ms_leader_elector *a = start(f, "a");
    assert_true(wait_leading(a, 2));
    pthread_mutex_lock(&f->lease.mu);
    f->lease.rv += 10;
    int g0 = f->lease.gets, p0 = f->lease.puts;
    pthread_mutex_unlock(&f->lease.mu);
    /* the conflicting update, then two more */
    assert_true(wait_puts(f, p0 + 3, 10));
    int g, p, c;
    counts(f, &g, &p, &c);
    assert_int_equal(c, 1);
    assert_int_equal(g, g0 + 1);
    assert_true(ms_leader_elector_leading(a));
    assert_false(ms_leader_elector_lost(a));
    char h[256];
    holder(f, h, sizeof h, NULL);
    assert_string_equal(h, "a");
    ms_leader_elector_stop(a, true);
}

typedef struct leading_log {
    pthread_mutex_t mu;
    char seen[16];                 /* '0' / '1' per call */
    char lease[64];
} leading_log;

static void record_leading(void *ctx, const char *lease, bool leading) {
    leading_log *l = ctx;
    pthread_mutex_lock(&l->mu);
    size_t n = strlen(l->seen);
    if (n + 1 < sizeof l->seen) l->seen[n] = leading ? '1' : '0';
    snprintf(l->lease, sizeof l->lease, "%s", lease);
    pthread_mutex_unlock(&l->mu);
}

/* The state is told as it changes: not leading at the start (the gauge
 * exists before the lease is won), leading, and not leading once stopped. */
static void test_elector_tells_leading(void **state) {
    elect_fx *f = *state;
    leading_log l = {.mu = PTHREAD_MUTEX_INITIALIZER};
    ms_leader_elector_options o = {.config = &f->cfg, .client = &f->co, .identity = "a", .log = &f->quiet,
                                   .leading_changed = record_leading, .leading_ctx = &l};
    ms_leader_elector *e = NULL;
    ms_error err = {0};
    assert_int_equal(ms_leader_elector_start(&o, &e, &err), MS_OK);
    assert_true(wait_leading(e, 2));
    ms_leader_elector_stop(e, true);
    assert_string_equal(l.seen, "010");
    assert_string_equal(l.lease, "kube-scheduler");
    pthread_mutex_lock(&f->lease.mu);
    assert_int_equal(f->lease.events, 0);   /* post_events off */
    pthread_mutex_unlock(&f->lease.mu);
}

/* Two candidates racing for a missing Lease: exactly one creates it. */
static void test_elector_create_race(void **state) {
    elect_fx *f = *state;
    ms_leader_elector *a = start(f, "a"), *b = start(f, "b");
    double end = fh_now() + 2;
    while (fh_now() < end && !ms_leader_elector_leading(a) && !ms_leader_elector_leading(b)) fh_sleep(0.01);
    fh_sleep(0.5);
    assert_true(ms_leader_elector_leading(a) != ms_leader_elector_leading(b));
    char h[256];
    holder(f, h, sizeof h, NULL);
    assert_string_equal(h, ms_leader_elector_leading(a) ? "a" : "b");
    ms_leader_elector_stop(a, true);
    ms_leader_elector_stop(b, true);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decide_table),
        cmocka_unit_test(test_observe_moves_only_on_change),
        cmocka_unit_test(test_micro_time),
        cmocka_unit_test(test_next_record),
        cmocka_unit_test(test_lease_json),
        cmocka_unit_test(test_identity),
        cmocka_unit_test_setup_teardown(test_elector_validates, elect_setup, elect_teardown),
        cmocka_unit_test_setup_teardown(test_elector_handover_on_release, elect_setup, elect_teardown),
        cmocka_unit_test_setup_teardown(test_elector_takeover_after_expiry, elect_setup, elect_teardown),
        cmocka_unit_test_setup_teardown(test_elector_lost_after_renew_deadline, elect_setup, elect_teardown),
        cmocka_unit_test_setup_teardown(test_elector_create_race, elect_setup, elect_teardown),
        cmocka_unit_test_setup_teardown(test_elector_renews_without_reading, elect_setup, elect_teardown),
        cmocka_unit_test_setup_teardown(test_elector_renewal_falls_back_on_conflict, elect_setup, elect_teardown),
        cmocka_unit_test_setup_teardown(test_elector_tells_leading, elect_setup, elect_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
