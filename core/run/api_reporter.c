/* `run`'s reports about pods. See run/api_reporter.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/rate_limiter.h"
#include "run/api_reporter.h"
#include "base/map.h"

/* Per pod: what was last reported. */
typedef struct pod_report {
    double failed_last;            /* FailedScheduling last posted or updated (monotonic) */
    uint32_t failed_total;
    uint64_t status_msg_hash;      /* message of the last PodScheduled=False patch */
    bool status_error;             /* its reason was SchedulerError */
    /* The FailedScheduling series: its Event's name (NULL: none posted
     * yet), reports in it, the last one (monotonic). */
    char *event_name;
    uint32_t series_count;
    double series_seen;
} pod_report;

static void report_free(pod_report *pr) {
    if (!pr) return;
    free(pr->event_name);
    free(pr);
}

struct ms_api_reporter {
    const ms_interner *in;
    ms_poster *poster;
    ms_event_recorder *events;
    const ms_logger *log;
    double event_interval;
    ms_rate_limiter *budget;
    ms_map reports;                /* uid_hash -> pod_report */
    uint64_t patches_skipped;
    char host[256];                /* for reportingInstance */
    bool disruption_conditions;
    double series_finish;          /* client-go's finishTime: a series unobserved this long is over */
};

ms_api_reporter *ms_api_reporter_new(const ms_api_reporter_options *o) {
    ms_api_reporter *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->in = o->in;
    r->poster = o->poster;
    r->events = o->events;
    r->log = o->log ? o->log : &ms_log_default;
    if (gethostname(r->host, sizeof r->host) != 0) snprintf(r->host, sizeof r->host, "localhost");
    r->host[sizeof r->host - 1] = '\0';
    r->event_interval = o->event_interval > 0 ? o->event_interval : 30;
    double qps = o->event_qps > 0 ? o->event_qps : 50;
    r->budget = ms_rate_limiter_new(qps, (int32_t)(qps * 4), NULL, NULL);
    ms_map_init(&r->reports);
    r->disruption_conditions = o->disruption_conditions;
    r->series_finish = o->series_finish > 0 ? o->series_finish : 360;
    if (!r->budget) {
        ms_api_reporter_free(r);
        return NULL;
    }
    return r;
}

void ms_api_reporter_free(ms_api_reporter *r) {
    if (!r) return;
    size_t it = 0;
    uint64_t k;
    void *v;
    while (ms_map_next(&r->reports, &it, &k, &v)) report_free(v);
    ms_map_free(&r->reports);
    if (r->budget) ms_rate_limiter_free(r->budget);
    free(r);
}

uint64_t ms_api_reporter_patches_skipped(const ms_api_reporter *r) { return r->patches_skipped; }

/* "/api/v1/namespaces/NS/pods/NAME" and `suffix`. */
static char *pod_path(const ms_api_reporter *r, const ms_pod *pod, const char *suffix) {
    ms_buf b = {0};
    ms_buf_printf(&b, "/api/v1/namespaces/%s/pods/%s%s", ms_str_get(r->in, pod->meta.namespace_),
                  ms_str_get(r->in, pod->meta.name), suffix);
    return ms_buf_take(&b);
}

/* The global budget: an event that finds no token is dropped (counted). */
static bool event_allowed(ms_api_reporter *r) {
    if (ms_rate_limiter_tokens(r->budget) < 1) {
        ms_poster_suppressed(r->poster);
        return false;
    }
    ms_rate_limiter_reserve(r->budget);
    return true;
}

/* Reported as client-go's events.NewRecorder(scheme, profile) does:
 * reportingController the profile's schedulerName, reportingInstance
 * that name, "-" and the host name. series: the name of the Event this
 * one repeats (NULL: a new Event). Returns the posted Event's name
 * (malloc'd), NULL when out of memory. */
static char *post_event_series(ms_api_reporter *r, const char *profile, ms_event *ev, const char *series) {
    char instance[600];
    if (profile) {
        snprintf(instance, sizeof instance, "%s-%s", profile, r->host);
        ev->controller = profile;
        ev->instance = instance;
    }
    ms_event_post post;
    ms_rc rc = series ? ms_event_recorder_build_series(r->events, ev, series, ms_clock_wall(), &post)
                      : ms_event_recorder_build(r->events, ev, ms_clock_wall(), &post);
    char *name = rc == MS_OK ? strdup(post.name) : NULL;
    if (!name) {
        if (rc == MS_OK) ms_event_post_free(&post);
        ms_poster_suppressed(r->poster);
        return NULL;
    }
    ms_poster_event(r->poster, &post);
    return name;
}

static void post_event(ms_api_reporter *r, const char *profile, ms_event *ev) {
    free(post_event_series(r, profile, ev, NULL));
}

void ms_api_reporter_event(ms_api_reporter *r, const char *profile, const ms_object_ref *regarding, const char *type,
                           const char *reason, const char *action, const char *note) {
    if (!event_allowed(r)) return;
    ms_event ev = {.regarding = regarding, .type = type, .reason = reason, .action = action, .note = note};
    post_event(r, profile, &ev);
}

static ms_object_ref pod_ref(const ms_api_reporter *r, const ms_pod *pod) {
    const ms_object_meta *m = &pod->meta;
    return (ms_object_ref){"v1", "Pod", ms_str_get(r->in, m->namespace_), ms_str_get(r->in, m->name), m->uid};
}

static pod_report *report_of(ms_api_reporter *r, const ms_pod *pod) {
    pod_report *pr = ms_map_get(&r->reports, pod->meta.uid_hash);
    if (pr) return pr;
    pr = calloc(1, sizeof *pr);
    if (!pr) return NULL;
    if (ms_map_put(&r->reports, pod->meta.uid_hash, pr) != MS_OK) {
        free(pr);
        return NULL;
    }
    return pr;
}

void ms_api_reporter_forget(ms_api_reporter *r, const ms_pod *pod) {
    report_free(ms_map_del(&r->reports, pod->meta.uid_hash));
}

uint32_t ms_api_reporter_failed_attempts(ms_api_reporter *r, const ms_pod *pod) {
    const pod_report *pr = ms_map_get(&r->reports, pod->meta.uid_hash);
    return pr ? pr->failed_total : 0;
}

/* The PodScheduled=False condition with `reason` and `message`. */
static void patch_not_scheduled(ms_api_reporter *r, const ms_pod *pod, const char *reason, const char *message) {
    cJSON *b = cJSON_CreateObject();
    cJSON *conds = cJSON_AddArrayToObject(cJSON_AddObjectToObject(b, "status"), "conditions");
    cJSON *c = cJSON_CreateObject();
    char ts[MS_RFC3339_MAX];
    ms_time_rfc3339(ms_clock_wall(), 0, ts, sizeof ts);
    cJSON_AddStringToObject(c, "type", "PodScheduled");
    cJSON_AddStringToObject(c, "status", "False");
    cJSON_AddNullToObject(c, "lastProbeTime");
    cJSON_AddStringToObject(c, "lastTransitionTime", ts);
    cJSON_AddStringToObject(c, "reason", reason);
    cJSON_AddStringToObject(c, "message", message);
    cJSON_AddItemToArray(conds, c);
    ms_poster_send(r->poster, "PATCH", pod_path(r, pod, "/status"), b, "application/strategic-merge-patch+json",
                   false);
}

/* One more report in the pod's FailedScheduling series: a new Event for
 * the first (or after the series finished), else an update of its count,
 * at most once per event_interval. */
static void failed_scheduling(ms_api_reporter *r, const ms_pod *pod, pod_report *pr, const char *message, double now) {
    if (pr->event_name && now - pr->series_seen > r->series_finish) {
        free(pr->event_name);
        pr->event_name = NULL;
        pr->series_count = 0;
    }
    pr->series_count++;
    pr->series_seen = now;
    if (pr->failed_last != 0 && now - pr->failed_last < r->event_interval) {
        ms_poster_suppressed(r->poster);
        return;
    }
    if (!event_allowed(r)) return;
    ms_object_ref ref = pod_ref(r, pod);
    ms_event ev = {.regarding = &ref, .type = "Warning", .reason = "FailedScheduling", .action = "Scheduling",
                   .note = message, .count = pr->series_count};
    char *name = post_event_series(r, ms_str_get(r->in, pod->scheduler_name), &ev, pr->event_name);
    if (!name) return;
    free(pr->event_name);
    pr->event_name = name;
    pr->failed_last = now;
}

void ms_api_reporter_unschedulable(ms_api_reporter *r, const ms_pod *pod, bool error, const char *message) {
    pod_report *pr = report_of(r, pod);
    char key[512];
    ms_pod_key(pod, r->in, key, sizeof key);
    ms_log(r->log, MS_LOG_DEBUG, error ? "scheduler error" : "unschedulable", "pod", key, "message", message, NULL);
    if (!pr) return;
    const char *reason = error ? "SchedulerError" : "Unschedulable";
    uint64_t h = ms_hash_bytes(message, strlen(message));
    if (pr->status_msg_hash != h || pr->status_error != error) {
        pr->status_msg_hash = h;
        pr->status_error = error;
        patch_not_scheduled(r, pod, reason, message);
    } else {
        r->patches_skipped++;
    }
    pr->failed_total++;
    failed_scheduling(r, pod, pr, message, ms_clock_monotonic());
}

void ms_api_reporter_binding_error(ms_api_reporter *r, const ms_pod *pod, const char *message) {
    ms_api_reporter_unschedulable(r, pod, true, message);
}

void ms_api_reporter_gated(ms_api_reporter *r, const ms_pod *pod, const char *reason) {
    /* The words a 1.30 API server writes when a pod is created with gates. */
    static const char message[] = "Scheduling is blocked due to non-empty scheduling gates";
    char key[512];
    ms_pod_key(pod, r->in, key, sizeof key);
    ms_log(r->log, MS_LOG_DEBUG, "gated", "pod", key, "reason", reason, NULL);
    pod_report *pr = report_of(r, pod);
    if (!pr) return;
    uint64_t h = ms_hash_bytes(message, sizeof message - 1);
    /* Said already, by the API server or by us. */
    if (pod->scheduling_gated_condition || pr->status_msg_hash == h) {
        r->patches_skipped++;
        return;
    }
    pr->status_msg_hash = h;
    patch_not_scheduled(r, pod, "SchedulingGated", message);
}

/* upstream v1.20's words (newer releases name the preemptor by UID). */
void ms_api_reporter_preempted(ms_api_reporter *r, const ms_pod *victim, const ms_pod *preemptor,
                               const char *node) {
    if (!event_allowed(r)) return;
    char note[1024];
    snprintf(note, sizeof note, "Preempted by %s/%s on node %s", ms_str_get(r->in, preemptor->meta.namespace_),
             ms_str_get(r->in, preemptor->meta.name), node);
    ms_object_ref ref = pod_ref(r, victim), rel = pod_ref(r, preemptor);
    ms_event ev = {.regarding = &ref, .related = &rel, .type = "Normal", .reason = "Preempted",
                   .action = "Preempting", .note = note};
    /* the preemptor's profile preempts */
    post_event(r, ms_str_get(r->in, preemptor->scheduler_name), &ev);
}

void ms_api_reporter_bound(ms_api_reporter *r, const ms_pod *pod, const char *node) {
    char key[512], note[1024];
    ms_pod_key(pod, r->in, key, sizeof key);
    ms_log(r->log, MS_LOG_DEBUG, "bound", "pod", key, "node", node, NULL);
    ms_api_reporter_forget(r, pod);
    if (!event_allowed(r)) return;
    snprintf(note, sizeof note, "Successfully assigned %s to %s", key, node);
    ms_object_ref ref = pod_ref(r, pod);
    ms_event ev = {.regarding = &ref, .type = "Normal", .reason = "Scheduled", .action = "Binding",
                   .note = note};
    post_event(r, ms_str_get(r->in, pod->scheduler_name), &ev);
}

/* upstream's DisruptionTarget condition of a preemption victim
 * (pkg/scheduler/framework/preemption). */
/* The DisruptionTarget patch of a victim (into *rq). */
static void disruption_target(ms_api_reporter *r, const ms_pod *victim, const ms_pod *preemptor,
                              ms_poster_request *rq) {
    char ts[MS_RFC3339_MAX], message[512];
    ms_time_rfc3339(ms_clock_wall(), 0, ts, sizeof ts);
    snprintf(message, sizeof message, "%s: preempting to accommodate a higher priority pod",
             ms_str_get(r->in, preemptor->scheduler_name));
    cJSON *b = cJSON_CreateObject();
    cJSON *conds = cJSON_AddArrayToObject(cJSON_AddObjectToObject(b, "status"), "conditions");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", "DisruptionTarget");
    cJSON_AddStringToObject(c, "status", "True");
    cJSON_AddStringToObject(c, "lastTransitionTime", ts);
    cJSON_AddStringToObject(c, "reason", "PreemptionByScheduler");
    cJSON_AddStringToObject(c, "message", message);
    cJSON_AddItemToArray(conds, c);
    *rq = (ms_poster_request){"PATCH", pod_path(r, victim, "/status"), b, "application/strategic-merge-patch+json",
                              victim->meta.uid_hash};
}

bool ms_api_reporter_evict(ms_api_reporter *r, const ms_pod *victim, const ms_pod *preemptor) {
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "apiVersion", "v1");
    cJSON_AddStringToObject(b, "kind", "DeleteOptions");
    if (victim->meta.uid && victim->meta.uid[0])
        cJSON_AddStringToObject(cJSON_AddObjectToObject(b, "preconditions"), "uid", victim->meta.uid);
    ms_poster_request del = {"DELETE", pod_path(r, victim, ""), b, NULL, victim->meta.uid_hash};
    if (!r->disruption_conditions || !preemptor) return ms_poster_send_then(r->poster, &del, NULL, true);
    /* Upstream deletes a victim only once its condition is patched. */
    ms_poster_request cond;
    disruption_target(r, victim, preemptor, &cond);
    return ms_poster_send_then(r->poster, &cond, &del, true);
}

void ms_api_reporter_nominate(ms_api_reporter *r, const ms_pod *pod, const char *node) {
    cJSON *b = cJSON_CreateObject();
    cJSON *st = cJSON_AddObjectToObject(b, "status");
    if (!node) cJSON_AddNullToObject(st, "nominatedNodeName");
    else cJSON_AddStringToObject(st, "nominatedNodeName", node);
    ms_poster_send(r->poster, "PATCH", pod_path(r, pod, "/status"), b, "application/strategic-merge-patch+json",
                   true);
}
