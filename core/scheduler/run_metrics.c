/* `run`'s metric set and its Prometheus text. See
 * scheduler/run_metrics.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/run_metrics.h"
#include "base/buf.h"
#include "base/prom.h"
#include "moonsched/config.h"

enum { MAX_CODES = 24, MAX_REST_RESULTS = 48, NAME_MAX_LEN = 128 };

/* upstream's buckets: ExponentialBuckets(0.001, 2, 15) for latencies,
 * ExponentialBuckets(1, 2, 5) for attempts, ExponentialBuckets(1, 2, 7)
 * for victims (LinearBuckets(5, 5, 10) until 1.22). */
static const double duration_le[] = {0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128,
                                     0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384};
static const double attempts_le[] = {1, 2, 4, 8, 16};
static const double victims_le[] = {1, 2, 4, 8, 16, 32, 64};
/* the taint eviction controller's (pkg/controller/tainteviction/metrics) */
static const double taint_deletion_le[] = {0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 60, 120, 180, 240};
/* client-go's request latency (component-base/metrics/prometheus/restclient) */
static const double rest_le[] = {0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60};

#define BOUNDS(a) {(a), (uint32_t)(sizeof(a) / sizeof(a)[0])}
static const ms_prom_bounds duration_bounds = BOUNDS(duration_le);
static const ms_prom_bounds attempts_bounds = BOUNDS(attempts_le);
static const ms_prom_bounds victims_bounds = BOUNDS(victims_le);
static const ms_prom_bounds taint_deletion_bounds = BOUNDS(taint_deletion_le);
static const ms_prom_bounds rest_bounds = BOUNDS(rest_le);

typedef ms_prom_histogram histogram;

/* rest_client_request_duration_seconds is per verb: the methods the
 * client uses, then anything else. */
static const char *const rest_verbs[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "other"};
enum { NREST_VERBS = sizeof rest_verbs / sizeof rest_verbs[0] };

typedef struct profile_metrics {
    char name[NAME_MAX_LEN];
    uint64_t attempts[MS_ATTEMPT_NRESULTS];
    histogram attempt_duration[MS_ATTEMPT_NRESULTS];
} profile_metrics;

typedef struct shadow_metrics {
    char profile[NAME_MAX_LEN], policy[NAME_MAX_LEN];
    uint64_t agree, disagree, skipped;
} shadow_metrics;

typedef struct policy_metrics {
    char profile[NAME_MAX_LEN], plugin[NAME_MAX_LEN];
    uint64_t calls, failures, budget_kills, reloads_ok, reloads_failed;
    bool disabled;
} policy_metrics;

struct ms_metrics {
    pthread_mutex_t mu;
    uint32_t nprofiles;
    profile_metrics *profiles;
    histogram pod_attempts, victims;
    uint64_t preemption_attempts;
    uint32_t pending[4];
    uint64_t bindings[MS_BIND_NRESULTS];
    uint64_t authentications[MS_AUTHN_NRESULTS];
    uint64_t conflicts[MS_BIND_CONFLICT_COUNT];
    struct {
        long code;
        uint64_t n;
    } codes[MAX_CODES];
    uint32_t ncodes;
    uint64_t codes_other;
    uint64_t events[3];
    policy_metrics *policies;
    uint32_t npolicies;
    shadow_metrics *shadows;
    uint32_t nshadows;
    /* leader_election_master_status: only once an election runs, as
     * upstream registers it with the elector. */
    bool has_leader;
    bool leading;
    char leader_name[256];
    bool taint_eviction;           /* the controller runs: its series are rendered */
    uint64_t taint_deletions;
    histogram taint_deletion_latency;
    /* rest_client_*: every client of `run`, one host */
    char rest_host[256];
    struct {
        uint8_t verb;
        long code;
        uint64_t n;
    } rest_results[MAX_REST_RESULTS];
    uint32_t nrest_results;
    histogram rest_latency[NREST_VERBS];
    uint32_t binds_in_flight;      /* scheduler_goroutines{operation="binding"} */
    /* What the scheduler thread rendered of its own families
     * (ms_scheduler_render_metrics), replaced whole. */
    char *scheduler_text;
    size_t scheduler_len;
};

static const char *const result_names[] = {"scheduled", "unschedulable", "error"};
static const char *const bind_names[] = {"ok", "failed", "gone", "conflict"};
static const char *const authn_names[] = {"success", "failure", "error", "throttled"};
static const char *const conflict_names[] = {
    [MS_BIND_CONFLICT_OTHER] = "other",
    [MS_BIND_CONFLICT_ALREADY_BOUND] = "already_bound",
    [MS_BIND_CONFLICT_GATED] = "gated",
    [MS_BIND_CONFLICT_UID_CHANGED] = "uid_changed",
    [MS_BIND_CONFLICT_BEING_DELETED] = "being_deleted",
};

ms_metrics *ms_metrics_new(const char *const *profiles, uint32_t nprofiles) {
    ms_metrics *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->nprofiles = nprofiles ? nprofiles : 1;
    m->profiles = calloc(m->nprofiles, sizeof *m->profiles);
    if (!m->profiles) {
        free(m);
        return NULL;
    }
    for (uint32_t i = 0; i < nprofiles; i++)
        snprintf(m->profiles[i].name, sizeof m->profiles[i].name, "%s", profiles[i] ? profiles[i] : "");
    if (!nprofiles)
        snprintf(m->profiles[0].name, sizeof m->profiles[0].name, "%s", MS_DEFAULT_SCHEDULER_NAME);
    pthread_mutex_init(&m->mu, NULL);
    return m;
}

void ms_metrics_free(ms_metrics *m) {
    if (!m) return;
    pthread_mutex_destroy(&m->mu);
    free(m->profiles);
    free(m->policies);
    free(m->shadows);
    free(m->scheduler_text);
    free(m);
}

static profile_metrics *profile_of(ms_metrics *m, uint32_t profile) {
    return &m->profiles[profile < m->nprofiles ? profile : 0];
}

void ms_metrics_attempt(ms_metrics *m, uint32_t profile, ms_attempt_result result, double seconds) {
    if (!m || result >= MS_ATTEMPT_NRESULTS) return;
    pthread_mutex_lock(&m->mu);
    profile_metrics *p = profile_of(m, profile);
    p->attempts[result]++;
    if (seconds >= 0) ms_prom_observe(&p->attempt_duration[result], &duration_bounds, seconds);
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_pod_scheduled(ms_metrics *m, uint32_t attempts) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    ms_prom_observe(&m->pod_attempts, &attempts_bounds, attempts);
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_preemption(ms_metrics *m, uint32_t nvictims) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->preemption_attempts++;
    if (nvictims > 0) ms_prom_observe(&m->victims, &victims_bounds, nvictims);
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_set_pending(ms_metrics *m, uint32_t active, uint32_t backoff, uint32_t unschedulable,
                           uint32_t gated) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->pending[0] = active;
    m->pending[1] = backoff;
    m->pending[2] = unschedulable;
    m->pending[3] = gated;
    pthread_mutex_unlock(&m->mu);
}

const char *ms_metrics_conflict_name(ms_bind_conflict why) {
    return (unsigned)why < MS_BIND_CONFLICT_COUNT ? conflict_names[why] : "other";
}

void ms_metrics_bind_conflict(ms_metrics *m, ms_bind_conflict why) {
    if (!m) return;
    if ((unsigned)why >= MS_BIND_CONFLICT_COUNT) why = MS_BIND_CONFLICT_OTHER;
    pthread_mutex_lock(&m->mu);
    m->conflicts[why]++;
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_authentication(ms_metrics *m, ms_authn_result result) {
    if (!m || result >= MS_AUTHN_NRESULTS) return;
    pthread_mutex_lock(&m->mu);
    m->authentications[result]++;
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_binding(ms_metrics *m, ms_bind_result result) {
    if (!m || result >= MS_BIND_NRESULTS) return;
    pthread_mutex_lock(&m->mu);
    m->bindings[result]++;
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_api_request(ms_metrics *m, long status) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    uint32_t i = 0;
    while (i < m->ncodes && m->codes[i].code != status) i++;
    if (i < m->ncodes) {
        m->codes[i].n++;
    } else if (m->ncodes < MAX_CODES) {
        /* Kept sorted so that the series come out in a stable order. */
        uint32_t at = 0;
        while (at < m->ncodes && m->codes[at].code < status) at++;
        memmove(&m->codes[at + 1], &m->codes[at], (m->ncodes - at) * sizeof m->codes[0]);
        m->codes[at].code = status;
        m->codes[at].n = 1;
        m->ncodes++;
    } else {
        m->codes_other++;
    }
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_events(ms_metrics *m, uint64_t posted, uint64_t failed, uint64_t suppressed) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->events[0] = posted;
    m->events[1] = failed;
    m->events[2] = suppressed;
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_set_policies(ms_metrics *m, const ms_metrics_policy *p, uint32_t n) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    if (n != m->npolicies) {
        policy_metrics *np = n ? calloc(n, sizeof *np) : NULL;
        if (n && !np) {
            pthread_mutex_unlock(&m->mu);
            return;   /* the previous figures stay */
        }
        free(m->policies);
        m->policies = np;
        m->npolicies = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        policy_metrics *d = &m->policies[i];
        snprintf(d->profile, sizeof d->profile, "%s", p[i].profile ? p[i].profile : "");
        snprintf(d->plugin, sizeof d->plugin, "%s", p[i].plugin ? p[i].plugin : "");
        d->calls = p[i].calls;
        d->failures = p[i].failures;
        d->budget_kills = p[i].budget_kills;
        d->reloads_ok = p[i].reloads_ok;
        d->reloads_failed = p[i].reloads_failed;
        d->disabled = p[i].disabled;
    }
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_set_shadows(ms_metrics *m, const ms_metrics_shadow *p, uint32_t n) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    if (n != m->nshadows) {
        shadow_metrics *ns = n ? calloc(n, sizeof *ns) : NULL;
        if (n && !ns) {
            pthread_mutex_unlock(&m->mu);
            return;   /* the previous figures stay */
        }
        free(m->shadows);
        m->shadows = ns;
        m->nshadows = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        shadow_metrics *d = &m->shadows[i];
        snprintf(d->profile, sizeof d->profile, "%s", p[i].profile ? p[i].profile : "");
        snprintf(d->policy, sizeof d->policy, "%s", p[i].policy ? p[i].policy : "");
        d->agree = p[i].agree;
        d->disagree = p[i].disagree;
        d->skipped = p[i].skipped;
    }
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_set_leader(ms_metrics *m, const char *name, bool leading) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->has_leader = true;
    m->leading = leading;
    snprintf(m->leader_name, sizeof m->leader_name, "%s", name ? name : "");
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_taint_eviction_enable(ms_metrics *m) {
    pthread_mutex_lock(&m->mu);
    m->taint_eviction = true;
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_taint_eviction_deletion(ms_metrics *m, double latency) {
    pthread_mutex_lock(&m->mu);
    m->taint_deletions++;
    ms_prom_observe(&m->taint_deletion_latency, &taint_deletion_bounds, latency > 0 ? latency : 0);
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_set_scheduler_text(ms_metrics *m, char *text, size_t len) {
    if (!m) {
        free(text);
        return;
    }
    pthread_mutex_lock(&m->mu);
    char *old = m->scheduler_text;
    m->scheduler_text = text;
    m->scheduler_len = text ? len : 0;
    pthread_mutex_unlock(&m->mu);
    free(old);
}

void ms_metrics_set_binds_in_flight(ms_metrics *m, uint32_t n) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->binds_in_flight = n;
    pthread_mutex_unlock(&m->mu);
}

void ms_metrics_set_rest_host(ms_metrics *m, const char *server) {
    if (!m) return;
    /* client-go's host label: the URL's host[:port] */
    const char *h = server ? strstr(server, "://") : NULL;
    h = h ? h + 3 : server ? server : "";
    size_t n = strcspn(h, "/");
    pthread_mutex_lock(&m->mu);
    snprintf(m->rest_host, sizeof m->rest_host, "%.*s", (int)n, h);
    pthread_mutex_unlock(&m->mu);
}

static uint8_t rest_verb(const char *method) {
    for (uint8_t i = 0; i + 1 < NREST_VERBS; i++)
        if (method && strcmp(method, rest_verbs[i]) == 0) return i;
    return NREST_VERBS - 1;
}

void ms_metrics_rest_request(void *ctx, const char *method, long status, double seconds) {
    ms_metrics *m = ctx;
    if (!m) return;
    uint8_t verb = rest_verb(method);
    pthread_mutex_lock(&m->mu);
    uint32_t i = 0;
    while (i < m->nrest_results && (m->rest_results[i].verb != verb || m->rest_results[i].code != status)) i++;
    if (i < m->nrest_results) {
        m->rest_results[i].n++;
    } else if (i < MAX_REST_RESULTS) {
        m->rest_results[i].verb = verb;
        m->rest_results[i].code = status;
        m->rest_results[i].n = 1;
        m->nrest_results++;
    }
    if (seconds >= 0) ms_prom_observe(&m->rest_latency[verb], &rest_bounds, seconds);
    pthread_mutex_unlock(&m->mu);
}

/* ---- rendering ---------------------------------------------------------- */


static void render_profiles(ms_buf *b, const ms_metrics *m) {
    char e[2 * NAME_MAX_LEN + 4], labels[3 * NAME_MAX_LEN];
    ms_prom_header(b, "scheduler_schedule_attempts_total", "counter",
           "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could "
           "not be scheduled, while 'error' means an internal scheduler problem.");
    for (uint32_t p = 0; p < m->nprofiles; p++)
        for (int r = 0; r < MS_ATTEMPT_NRESULTS; r++)
            ms_buf_printf(b, "scheduler_schedule_attempts_total{profile=\"%s\",result=\"%s\"} %llu\n",
                          ms_prom_escape(m->profiles[p].name, e, sizeof e), result_names[r],
                          (unsigned long long)m->profiles[p].attempts[r]);
    ms_prom_header(b, "scheduler_scheduling_attempt_duration_seconds", "histogram",
           "Scheduling attempt latency in seconds (scheduling algorithm + binding)");
    for (uint32_t p = 0; p < m->nprofiles; p++)
        for (int r = 0; r < MS_ATTEMPT_NRESULTS; r++) {
            snprintf(labels, sizeof labels, "profile=\"%s\",result=\"%s\"", ms_prom_escape(m->profiles[p].name, e, sizeof e),
                     result_names[r]);
            ms_prom_put_histogram(b, "scheduler_scheduling_attempt_duration_seconds", labels,
                                  &m->profiles[p].attempt_duration[r], &duration_bounds);
        }
}

/* client-go's rest_client_requests_total and
 * rest_client_request_duration_seconds, for every client `run` uses. */
static void render_rest(ms_buf *b, const ms_metrics *m) {
    char host[2 * sizeof m->rest_host + 4], labels[sizeof host + 64];
    ms_prom_escape(m->rest_host, host, sizeof host);
    ms_prom_header(b, "rest_client_requests_total", "counter",
           "Number of HTTP requests, partitioned by status code, method, and host.");
    for (uint32_t i = 0; i < m->nrest_results; i++) {
        char code[24];
        if (m->rest_results[i].code) snprintf(code, sizeof code, "%ld", m->rest_results[i].code);
        else snprintf(code, sizeof code, "<error>");   /* client-go's label for no answer */
        ms_buf_printf(b, "rest_client_requests_total{code=\"%s\",host=\"%s\",method=\"%s\"} %llu\n", code, host,
                      rest_verbs[m->rest_results[i].verb], (unsigned long long)m->rest_results[i].n);
    }
    ms_prom_header(b, "rest_client_request_duration_seconds", "histogram",
           "Request latency in seconds. Broken down by verb, and host.");
    for (int v = 0; v < NREST_VERBS; v++) {
        if (!m->rest_latency[v].count) continue;
        snprintf(labels, sizeof labels, "host=\"%s\",verb=\"%s\"", host, rest_verbs[v]);
        ms_prom_put_histogram(b, "rest_client_request_duration_seconds", labels, &m->rest_latency[v], &rest_bounds);
    }
}

static void render_policies(ms_buf *b, const ms_metrics *m) {
    char e1[2 * NAME_MAX_LEN + 4], e2[2 * NAME_MAX_LEN + 4];
#define POLICY_SERIES(fmt, ...)                                                                    \
    for (uint32_t i = 0; i < m->npolicies; i++) {                                                  \
        const policy_metrics *pm = &m->policies[i];                                                \
        ms_prom_escape(pm->profile, e1, sizeof e1);                                                           \
        ms_prom_escape(pm->plugin, e2, sizeof e2);                                                            \
        ms_buf_printf(b, fmt, __VA_ARGS__);                                                        \
    }
    ms_prom_header(b, "moonsched_policy_reloads_total", "counter",
           "Lua policy versions swapped in (ok) or refused, the running one staying (refused).");
    POLICY_SERIES("moonsched_policy_reloads_total{plugin=\"%s\",profile=\"%s\",result=\"ok\"} %llu\n"
                  "moonsched_policy_reloads_total{plugin=\"%s\",profile=\"%s\",result=\"refused\"} %llu\n",
                  e2, e1, (unsigned long long)pm->reloads_ok, e2, e1,
                  (unsigned long long)pm->reloads_failed)
    ms_prom_header(b, "moonsched_policy_calls_total", "counter", "Calls into Lua policies.");
    POLICY_SERIES("moonsched_policy_calls_total{plugin=\"%s\",profile=\"%s\"} %llu\n", e2, e1,
                  (unsigned long long)pm->calls)
    ms_prom_header(b, "moonsched_policy_call_failures_total", "counter",
           "Lua policy calls that failed (errors, budget or memory cap).");
    POLICY_SERIES("moonsched_policy_call_failures_total{plugin=\"%s\",profile=\"%s\"} %llu\n", e2, e1,
                  (unsigned long long)pm->failures)
    ms_prom_header(b, "moonsched_policy_budget_kills_total", "counter",
           "Lua policy calls stopped by the CPU budget.");
    POLICY_SERIES("moonsched_policy_budget_kills_total{plugin=\"%s\",profile=\"%s\"} %llu\n", e2, e1,
                  (unsigned long long)pm->budget_kills)
    ms_prom_header(b, "moonsched_policy_disabled", "gauge",
           "1 while the policy is disabled after too many consecutive failures.");
    POLICY_SERIES("moonsched_policy_disabled{plugin=\"%s\",profile=\"%s\"} %d\n", e2, e1,
                  pm->disabled ? 1 : 0)
#undef POLICY_SERIES
    if (m->nshadows == 0) return;
    ms_prom_header(b, "moonsched_shadow_decisions_total", "counter",
           "Choices of shadow policies, agreeing with their profile's (true) or not (false).");
    for (uint32_t i = 0; i < m->nshadows; i++) {
        const shadow_metrics *sm = &m->shadows[i];
        ms_prom_escape(sm->profile, e1, sizeof e1);
        ms_prom_escape(sm->policy, e2, sizeof e2);
        ms_buf_printf(b,
                      "moonsched_shadow_decisions_total{policy=\"%s\",profile=\"%s\",agree=\"true\"} %llu\n"
                      "moonsched_shadow_decisions_total{policy=\"%s\",profile=\"%s\",agree=\"false\"} %llu\n",
                      e2, e1, (unsigned long long)sm->agree, e2, e1, (unsigned long long)sm->disagree);
    }
    /* Apart, so that agree="true" over the family's sum stays the share
     * of real decisions the shadow agreed with. */
    ms_prom_header(b, "moonsched_shadow_skipped_total", "counter",
           "Cycles a shadow policy sat out while disabled or with no version loaded; not decisions.");
    for (uint32_t i = 0; i < m->nshadows; i++) {
        const shadow_metrics *sm = &m->shadows[i];
        ms_prom_escape(sm->profile, e1, sizeof e1);
        ms_prom_escape(sm->policy, e2, sizeof e2);
        ms_buf_printf(b, "moonsched_shadow_skipped_total{policy=\"%s\",profile=\"%s\"} %llu\n", e2, e1,
                      (unsigned long long)sm->skipped);
    }
}

static void render_taint_eviction(ms_buf *b, const ms_metrics *m) {
    if (!m->taint_eviction) return;
    ms_prom_header(b, "taint_eviction_controller_pod_deletions_total", "counter",
           "Total number of Pods deleted by TaintEvictionController since its start.");
    ms_buf_printf(b, "taint_eviction_controller_pod_deletions_total %llu\n",
                  (unsigned long long)m->taint_deletions);
    ms_prom_header(b, "taint_eviction_controller_pod_deletion_duration_seconds", "histogram",
           "Latency, in seconds, between the time when a taint effect has been activated for the Pod and "
           "its deletion via TaintEvictionController.");
    ms_prom_put_histogram(b, "taint_eviction_controller_pod_deletion_duration_seconds", "",
                          &m->taint_deletion_latency, &taint_deletion_bounds);
}

void ms_metrics_collect(void *ctx, ms_buf *b) {
    ms_metrics *m = ctx;
    pthread_mutex_lock(&m->mu);
    render_profiles(b, m);

    ms_prom_header(b, "scheduler_pending_pods", "gauge",
           "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; "
           "'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in "
           "unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the "
           "number of unschedulable pods that the scheduler never attempted to schedule because "
           "they are gated.");
    static const char *const queues[] = {"active", "backoff", "unschedulable", "gated"};
    for (int i = 0; i < 4; i++)
        ms_buf_printf(b, "scheduler_pending_pods{queue=\"%s\"} %u\n", queues[i], m->pending[i]);

    ms_prom_header(b, "scheduler_pod_scheduling_attempts", "histogram",
           "Number of attempts to successfully schedule a pod.");
    ms_prom_put_histogram(b, "scheduler_pod_scheduling_attempts", "", &m->pod_attempts, &attempts_bounds);
    ms_prom_header(b, "scheduler_preemption_attempts_total", "counter",
           "Total preemption attempts in the cluster till now");
    ms_buf_printf(b, "scheduler_preemption_attempts_total %llu\n",
                  (unsigned long long)m->preemption_attempts);
    ms_prom_header(b, "scheduler_preemption_victims", "histogram", "Number of selected preemption victims");
    ms_prom_put_histogram(b, "scheduler_preemption_victims", "", &m->victims, &victims_bounds);
    ms_prom_header(b, "scheduler_goroutines", "gauge",
           "Number of running goroutines split by the work they do such as binding. Here: binds in "
           "flight on the binder's connection (upstream runs one goroutine per bind).");
    ms_buf_printf(b, "scheduler_goroutines{operation=\"binding\"} %u\n", m->binds_in_flight);

    ms_prom_header(b, "moonsched_bindings_total", "counter", "Binding requests by their outcome.");
    for (int i = 0; i < MS_BIND_NRESULTS; i++)
        ms_buf_printf(b, "moonsched_bindings_total{result=\"%s\"} %llu\n", bind_names[i],
                      (unsigned long long)m->bindings[i]);
    ms_prom_header(b, "moonsched_binding_conflicts_total", "counter",
           "Binds the API server refused with 409 Conflict, by what the refusal meant.");
    for (int i = 0; i < MS_BIND_CONFLICT_COUNT; i++)
        ms_buf_printf(b, "moonsched_binding_conflicts_total{reason=\"%s\"} %llu\n", conflict_names[i],
                      (unsigned long long)m->conflicts[i]);
    ms_prom_header(b, "moonsched_authentication_attempts_total", "counter",
           "Requests to the secure port by how they were authenticated (as the API server's "
           "authentication_attempts, and throttled: refused without a review after too many failures "
           "from the address).");
    for (int i = 0; i < MS_AUTHN_NRESULTS; i++)
        ms_buf_printf(b, "moonsched_authentication_attempts_total{result=\"%s\"} %llu\n", authn_names[i],
                      (unsigned long long)m->authentications[i]);
    ms_prom_header(b, "moonsched_api_requests_total", "counter",
           "API requests for binds, events, status patches and evictions, by HTTP status "
           "(0: no answer).");
    for (uint32_t i = 0; i < m->ncodes; i++)
        ms_buf_printf(b, "moonsched_api_requests_total{code=\"%ld\"} %llu\n", m->codes[i].code,
                      (unsigned long long)m->codes[i].n);
    if (m->codes_other)
        ms_buf_printf(b, "moonsched_api_requests_total{code=\"other\"} %llu\n",
                      (unsigned long long)m->codes_other);
    ms_prom_header(b, "moonsched_events_total", "counter",
           "Kubernetes Events posted, failed, or suppressed by aggregation and the rate limit.");
    static const char *const ev[] = {"posted", "failed", "suppressed"};
    for (int i = 0; i < 3; i++)
        ms_buf_printf(b, "moonsched_events_total{result=\"%s\"} %llu\n", ev[i],
                      (unsigned long long)m->events[i]);

    if (m->has_leader) {
        ms_prom_header(b, "leader_election_master_status", "gauge",
               "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 "
               "indicates master. 'name' is the string used to identify the lease. Please make sure to "
               "group by name.");
        char e[512];
        ms_buf_printf(b, "leader_election_master_status{name=\"%s\"} %d\n",
                      ms_prom_escape(m->leader_name, e, sizeof e), m->leading ? 1 : 0);
    }

    render_policies(b, m);
    render_taint_eviction(b, m);
    render_rest(b, m);
    if (m->scheduler_text) ms_buf_append(b, m->scheduler_text, m->scheduler_len);
    pthread_mutex_unlock(&m->mu);
}
