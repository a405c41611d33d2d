/* `moonsched deschedule`: the connection, the Eviction API, the interval
 * loop under leader election, metrics (the flags: cmd/deschedule.c). The
 * pass itself is simulate's --deschedule on what the API server listed. */
#include "run/deschedule.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "client/http_endpoint.h"
#include "client/kube_client.h"
#include "client/kubeconfig.h"
#include "client/event_recorder.h"
#include "client/leader_election.h"
#include "client/leader_metrics.h"
#include "descheduler/metrics.h"
#include "base/metrics_registry.h"
#include "serving/endpoints.h"
#include "run/deschedule_sources.h"
#include "serving/secure_serving.h"
#include "run/snapshot.h"
#include "descheduler/config_file.h"
#include "moonsched/config.h"

/* ---- the Eviction API ------------------------------------------------------- */

typedef struct desched {
    const ms_deschedule_options *o;
    ms_kubeconfig kc;
    ms_exec_credential *credentials;   /* kc's credential plugin, shared by both clients */
    ms_kube_client *client;
    ms_desched_metrics *metrics;
    ms_leader_metrics *leader;       /* leader_election_master_status */
    ms_metrics_registry *registry;   /* what /metrics renders: the metrics, the leader gauge */
    ms_secure_serving *https;
    ms_leader_elector *elector;
    const char *eviction_version;  /* "policy/v1" or "policy/v1beta1" */
    char pdb_path[64];
    uint32_t evicted, failed;
    /* With an interval: the running versions of the policy and of the
     * --policy files, reloaded before each pass; events about reloads. */
    ms_desched_sources *sources;
    ms_event_recorder *recorder;
    /* The predictions' extenders' connections: one per process, so that
     * passes reuse them (and their TLS sessions) instead of opening them
     * anew every interval. Only the pass thread calls through it. */
    ms_http_endpoint *http;
    ms_http_caller caller;
} desched;

/* The server's message of a failed request, or its status. */
static void answer_message(const ms_kube_response *r, char *buf, size_t n) {
    cJSON *j = r->body ? cJSON_ParseWithLength(r->body, r->len) : NULL;
    const cJSON *m = j ? cJSON_GetObjectItemCaseSensitive(j, "message") : NULL;
    snprintf(buf, n, "%s", cJSON_IsString(m) ? m->valuestring : "no message");
    cJSON_Delete(j);
}

static const char *evict(void *ctx, const ms_interner *in, const ms_pod *pod, const char *profile,
                         const char *strategy, ms_str to, char *why, size_t n) {
    desched *d = ctx;
    const char *ns = ms_str_get(in, pod->meta.namespace_), *name = ms_str_get(in, pod->meta.name);
    const char *node = ms_str_get(in, pod->node_name), *dest = ms_str_get(in, to);
    if (d->o->dry_run) return NULL;
    char path[600], body[900], msg[300];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s/eviction", ns, name);
    /* Names and UIDs are DNS labels and UUIDs: nothing to escape. */
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"%s\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"}"
             "%s%s%s}",
             d->eviction_version, name, ns, pod->meta.uid[0] ? ",\"deleteOptions\":{\"preconditions\":{\"uid\":\"" : "",
             pod->meta.uid, pod->meta.uid[0] ? "\"}}" : "");
    ms_kube_response resp;
    ms_error err = {0};
    ms_rc rc = ms_kube_post(d->client, path, body, &resp, &err);
    const char *result = "error", *no = NULL;
    if (rc != MS_OK) {
        snprintf(why, n, "eviction failed: %s", err.msg);
        no = why;
    } else if (resp.status == 200 || resp.status == 201) {
        result = "success";
    } else {
        answer_message(&resp, msg, sizeof msg);
        if (resp.status == 429) snprintf(why, n, "a PodDisruptionBudget allows no disruption now (429: %s)", msg);
        else if (resp.status == 404) snprintf(why, n, "the pod is gone (404)");
        else snprintf(why, n, "eviction failed: HTTP %ld: %s", resp.status, msg);
        no = why;
    }
    ms_kube_response_free(&resp);
    ms_desched_metrics_evicted(d->metrics, result, strategy, profile, ns, node);
    if (no) {
        d->failed++;
        ms_log(d->o->log, MS_LOG_WARN, "eviction not done", "pod", name, "namespace", ns, "node", node,
               "strategy", strategy, "reason", no, NULL);
    } else {
        d->evicted++;
        ms_log(d->o->log, MS_LOG_INFO, "evicted pod", "pod", name, "namespace", ns, "node", node, "to", dest,
               "strategy", strategy, "profile", profile, NULL);
    }
    return no;
}

static void strategy_done(void *ctx, const char *profile, const char *strategy, double seconds) {
    ms_desched_metrics_strategy(((desched *)ctx)->metrics, strategy, profile, seconds);
}

/* policy/v1 when the server has it (1.21 on), else policy/v1beta1. */
static void discover_eviction_version(desched *d) {
    ms_kube_response resp;
    ms_error err = {0};
    bool v1 = ms_kube_get(d->client, "/apis/policy/v1", &resp, &err) == MS_OK && resp.status == 200;
    ms_kube_response_free(&resp);
    d->eviction_version = v1 ? "policy/v1" : "policy/v1beta1";
    snprintf(d->pdb_path, sizeof d->pdb_path, "/apis/%s/poddisruptionbudgets", d->eviction_version);
    ms_log(d->o->log, MS_LOG_INFO, "eviction API", "version", d->eviction_version, NULL);
}

/* ---- reloading the policy ------------------------------------------------- */

/* An Event about the descheduler itself: its Pod (POD_NAME and
 * POD_NAMESPACE from the downward API), else its Lease, as `run` reports
 * about the scheduler. Best effort: a failure is logged. */
static void post_event(desched *d, const char *type, const char *reason, const char *note) {
    const char *pod = getenv("POD_NAME"), *ns = getenv("POD_NAMESPACE"), *uid = getenv("POD_UID");
    ms_object_ref self = {"coordination.k8s.io/v1", "Lease", d->o->lease_namespace, d->o->lease_name, NULL};
    if (pod && *pod && ns && *ns) self = (ms_object_ref){"v1", "Pod", ns, pod, uid};
    ms_event ev = {.regarding = &self, .type = type, .reason = reason, .action = "Reload", .note = note};
    ms_event_post post = {0};
    ms_kube_response resp = {0};
    ms_error err = {0};
    ms_rc rc = ms_event_recorder_build(d->recorder, &ev, ms_clock_wall(), &post);
    if (rc == MS_OK) rc = ms_event_recorder_send(d->recorder, d->client, &post, NULL, &resp, &err);
    if (rc == MS_OK && resp.status >= 300) rc = ms_error_set(&err, MS_EIO, "HTTP %ld", resp.status);
    if (rc != MS_OK) ms_log(d->o->log, MS_LOG_WARN, "event not posted", "reason", reason, "error", err.msg, NULL);
    ms_kube_response_free(&resp);
    ms_event_post_free(&post);
}

static ms_rc read_running(void *ctx, const char *path, char **text, size_t *len, ms_error *err) {
    return ms_desched_sources_read(((desched *)ctx)->sources, path, text, len, err);
}

/* A new version of the policy's files, or of a --policy file, runs from
 * this pass on; a broken one is reported once (log, metric, Event) and
 * the running version stays. */
static void reported(void *ctx, const char *plugin, const char *file, bool ok, const char *msg) {
    desched *d = ctx;
    char note[1200];
    ms_desched_metrics_reload(d->metrics, plugin, ok);
    if (ok) {
        snprintf(note, sizeof note, "reloaded from %s", file);
        ms_log(d->o->log, MS_LOG_INFO, "reloaded", "file", file, "plugin", plugin, NULL);
    } else {
        snprintf(note, sizeof note, "reload of %s failed, the running version stays: %s", file, msg);
        ms_log(d->o->log, MS_LOG_ERROR, "reload refused", "file", file, "plugin", plugin, "message", note, NULL);
    }
    post_event(d, ok ? "Normal" : "Warning", ok ? "PolicyReloaded" : "PolicyReloadFailed", note);
}

static void reload(desched *d) { ms_desched_sources_check(d->sources, reported, d); }

/* ---- one pass ------------------------------------------------------------------ */

/* What a pass lists: nodes and pods are needed; PodDisruptionBudgets
 * (PodsWithoutPDB) and namespaces (namespaceLabelSelector) are optional:
 * without them a pass goes on, as if there were none, and says so. The
 * volume objects come as `moonsched snapshot` lists them, each kind
 * optional too: claims for protectedStorageClasses, and all of them for
 * the predictions' VolumeBinding, VolumeZone and NodeVolumeLimits. The
 * PriorityClasses resolve DefaultEvictor's priorityThreshold.name; without
 * them only the built-in classes resolve. The Services,
 * ReplicationControllers, ReplicaSets and StatefulSets, each optional,
 * give the predictions' default topology spreading its selectors, as the
 * scheduler's. */
#define NLISTS 7
#define VOLUMES 4
#define PRIORITY_CLASSES 5
#define WORKLOADS 6
static const char *const list_names[NLISTS] = {"nodes", "pods", "poddisruptionbudgets", "namespaces",
                                               "volume objects", "priority classes", "workloads"};
static const char *const list_effects[NLISTS] = {
    NULL, NULL, "every pod counts as without a budget", "no namespace matches namespaceLabelSelector", NULL};

typedef struct listing {
    char *text[NLISTS];
    size_t len[NLISTS];
} listing;

static void kind_unlisted(void *ctx, const char *path, long status, const char *msg) {
    const desched *d = ctx;
    char st[16];
    snprintf(st, sizeof st, "%ld", status);
    bool claims = strcmp(path, "/api/v1/persistentvolumeclaims") == 0;
    bool classes = strcmp(path, "/apis/scheduling.k8s.io/v1/priorityclasses") == 0;
    bool workloads = ms_snapshot_is_workload_path(path);
    const char *effect = classes    ? "priorityThreshold.name resolves only system-cluster-critical and "
                                      "system-node-critical"
                         : claims   ? "no claim is known: protectedStorageClasses protects every pod with one, "
                                      "and a pod with a claim fits nowhere in predictions"
                         : workloads ? "predictions spread pods by their controllers alone, without this kind"
                                     : "predictions go on without this kind: a pod that needs it may fit nowhere";
    ms_log(d->o->log, MS_LOG_WARN,
           classes     ? "priority classes not listed"
           : workloads ? "workloads not listed"
                       : "volume objects not listed",
           "path", path, "status", st, "error", msg, "effect", effect, NULL);
}

/* The volume objects, the PriorityClasses or the workloads, in one List
 * at l->text[i]. */
static ms_rc list_kinds(desched *d, listing *l, int i, ms_error *err) {
    FILE *f = open_memstream(&l->text[i], &l->len[i]);
    if (!f) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_rc rc = i == VOLUMES            ? ms_snapshot_write_volumes(d->client, f, kind_unlisted, d, err)
               : i == PRIORITY_CLASSES ? ms_snapshot_write_priority_classes(d->client, f, kind_unlisted, d, err)
                                       : ms_snapshot_write_workloads(d->client, f, kind_unlisted, d, err);
    if (fclose(f) != 0 && rc == MS_OK) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    return rc;
}

static ms_rc list_all(desched *d, listing *l, ms_error *err) {
    const char *paths[VOLUMES] = {"/api/v1/nodes", "/api/v1/pods", d->pdb_path, "/api/v1/namespaces"};
    for (int i = 0; i < VOLUMES; i++) {
        ms_kube_response resp;
        ms_rc rc = ms_kube_get(d->client, paths[i], &resp, err);
        if (rc == MS_OK && resp.status != 200) {
            if (i >= 2) {
                char msg[48], st[16];
                snprintf(msg, sizeof msg, "%s not listed", list_names[i]);
                snprintf(st, sizeof st, "%ld", resp.status);
                ms_log(d->o->log, MS_LOG_WARN, msg, "path", paths[i], "status", st, "effect", list_effects[i], NULL);
                ms_kube_response_free(&resp);
                continue;
            }
            rc = ms_error_set(err, MS_EIO, "GET %s: HTTP %ld", paths[i], resp.status);
        }
        if (rc != MS_OK) {
            ms_kube_response_free(&resp);
            return rc;
        }
        l->text[i] = resp.body;
        l->len[i] = resp.len;
        resp.body = NULL;
        ms_kube_response_free(&resp);
    }
    ms_rc rc = list_kinds(d, l, VOLUMES, err);
    if (rc == MS_OK) rc = list_kinds(d, l, PRIORITY_CLASSES, err);
    return rc == MS_OK ? list_kinds(d, l, WORKLOADS, err) : rc;
}

static ms_rc one_pass(desched *d, ms_error *err) {
    double t0 = ms_clock_monotonic();
    listing l = {0};
    ms_rc rc = list_all(d, &l, err);
    if (rc != MS_OK) return rc;
    const char *texts[NLISTS], *names[NLISTS];
    size_t lens[NLISTS];
    uint32_t nt = 0;
    for (int i = 0; i < NLISTS; i++)
        if (l.text[i]) texts[nt] = l.text[i], lens[nt] = l.len[i], names[nt] = list_names[i], nt++;
    ms_deschedule_hooks hooks = {.evict = evict, .strategy_done = strategy_done, .ctx = d};
    if (d->sources) hooks.read_file = read_running;
    ms_simulate_options so;
    ms_simulate_options_default(&so);
    so.config_file = d->o->config_file;
    so.policy_files = d->o->policy_files;
    so.npolicy_files = d->o->npolicy_files;
    so.no_watch = true;
    so.output = d->o->output;
    so.deschedule = d->o->policy_file;
    so.cluster_texts = texts;
    so.cluster_text_lens = lens;
    so.cluster_text_names = names;
    so.ncluster_texts = nt;
    so.deschedule_hooks = &hooks;
    ms_simulate_result r;
    d->evicted = d->failed = 0;
    so.http = &d->caller;
    rc = ms_simulate_run(&so, stdout, stderr, &r, err);
    fflush(stdout);
    for (int i = 0; i < NLISTS; i++) free(l.text[i]);
    double took = ms_clock_monotonic() - t0;
    ms_desched_metrics_loop(d->metrics, took);
    if (rc == MS_OK) {
        char ev[16], sk[16], secs[32];
        snprintf(ev, sizeof ev, "%u", r.descheduled);
        snprintf(sk, sizeof sk, "%u", r.deschedule_skipped);
        snprintf(secs, sizeof secs, "%.3f", took);
        ms_log(d->o->log, MS_LOG_INFO, d->o->dry_run ? "descheduling pass (dry run)" : "descheduling pass",
               "evicted", ev, "skipped", sk, "seconds", secs, NULL);
    }
    return rc;
}

/* ---- setup and the loop ----------------------------------------------------- */

static ms_rc setup_client(desched *d, ms_error *err) {
    const ms_deschedule_options *o = d->o;
    ms_rc rc = o->in_cluster ? ms_kubeconfig_in_cluster(&d->kc, NULL, err)
                             : ms_kubeconfig_load_default(&d->kc, o->kubeconfig, NULL, err);
    if (rc != MS_OK) return rc;
    if (d->kc.exec) {
        ms_exec_credential_options eo = {.config = &d->kc, .log = o->log};
        if ((rc = ms_exec_credential_new(&eo, &d->credentials, err)) != MS_OK) return rc;
    }
    ms_kube_client_options co = {.config = &d->kc, .credentials = d->credentials, .qps = 50, .burst = 100,
                                 .user_agent = "moonsched/0.1 (descheduler)", .log = o->log};
    if ((rc = ms_kube_client_new(&co, &d->client, err)) != MS_OK) return rc;
    if ((rc = ms_http_endpoint_new(&d->http, err)) != MS_OK) return rc;
    d->caller = ms_http_endpoint_caller(d->http);
    return MS_OK;
}

static ms_rc setup_serving(desched *d, ms_error *err) {
    const ms_deschedule_options *o = d->o;
    if (!(d->metrics = ms_desched_metrics_new()) || !(d->leader = ms_leader_metrics_new()) ||
        !(d->registry = ms_metrics_registry_new()) ||
        !ms_metrics_registry_add(d->registry, ms_desched_metrics_collect, d->metrics) ||
        !ms_metrics_registry_add(d->registry, ms_leader_metrics_collect, d->leader))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    if (o->secure_port == 0) return MS_OK;
    ms_secure_serving_options so = {.bind_address = o->bind_address, .port = (uint16_t)o->secure_port,
                                    .cert_file = o->tls_cert_file, .key_file = o->tls_key_file,
                                    .authn_config = &d->kc, .authz_config = &d->kc,
                                    .handler = ms_endpoints_serve_registry, .ctx = d->registry, .log = o->log};
    ms_rc rc = ms_secure_serving_start(&so, &d->https, err);
    if (rc != MS_OK) return rc;
    char port[8];
    snprintf(port, sizeof port, "%u", ms_secure_serving_port(d->https));
    ms_log(o->log, MS_LOG_INFO, "serving securely", "port", port, NULL);
    return MS_OK;
}

static ms_rc setup_election(desched *d, ms_error *err) {
    const ms_deschedule_options *o = d->o;
    if (!o->leader_elect) return MS_OK;
    ms_leader_election le = {.leader_elect = true, .lease_duration = o->lease_duration,
                             .renew_deadline = o->renew_deadline, .retry_period = o->retry_period,
                             .resource_name_given = true};
    snprintf(le.resource_lock, sizeof le.resource_lock, "leases");
    snprintf(le.resource_name, sizeof le.resource_name, "%s", o->lease_name);
    snprintf(le.resource_namespace, sizeof le.resource_namespace, "%s", o->lease_namespace);
    ms_kube_client_options co = {.config = &d->kc, .credentials = d->credentials, .log = o->log};
    ms_leader_elector_options eo = {.config = &le, .client = &co, .log = o->log,
                                    .leading_changed = ms_leader_metrics_changed, .leading_ctx = d->leader,
                                    .post_events = true, .event_component = "descheduler"};
    return ms_leader_elector_start(&eo, &d->elector, err);
}

/* Waits up to `seconds` for SIGINT or SIGTERM (blocked in every thread):
 * true when one came. */
static bool wait_signal(const sigset_t *set, double seconds) {
    struct timespec ts = {.tv_sec = (time_t)seconds, .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
    for (;;) {
        int sig = sigtimedwait(set, NULL, &ts);
        if (sig > 0) return true;
        if (errno != EINTR) return false;
    }
}

/* Passes every interval while leading; a failed pass is logged and the
 * next one tries again (a broken policy file must not crash-loop). */
static ms_rc loop(desched *d, const sigset_t *set, ms_error *err) {
    const ms_deschedule_options *o = d->o;
    for (;;) {
        if (d->elector && ms_leader_elector_lost(d->elector))
            return ms_error_set(err, MS_ESTATE, "leaderelection lost");
        double wait = o->interval;
        if (!d->elector || ms_leader_elector_leading(d->elector)) {
            ms_error e = {0};
            reload(d);
            if (one_pass(d, &e) != MS_OK)
                ms_log(o->log, MS_LOG_ERROR, "descheduling pass failed", "error", e.msg, NULL);
        } else if (o->retry_period < wait) {
            wait = o->retry_period;   /* standby: look again soon */
        }
        if (wait_signal(set, wait)) return MS_OK;
    }
}

/* The policies must load at start; later versions are reloaded. */
static ms_rc setup_sources(desched *d, ms_desched_sources *src, ms_error *err) {
    d->sources = src;
    ms_rc rc = ms_desched_sources_start(src, d->o->policy_file, d->o->policy_files, d->o->npolicy_files, err);
    if (rc != MS_OK) return rc;
    ms_event_recorder_options ro = {.controller = "descheduler", .instance = "descheduler"};
    if (!(d->recorder = ms_event_recorder_new(&ro))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    return MS_OK;
}

static void teardown(desched *d) {
    ms_event_recorder_free(d->recorder);
    ms_http_endpoint_free(d->http);
    if (d->sources) ms_desched_sources_free(d->sources);
    ms_leader_elector_stop(d->elector, true);
    if (d->https) ms_secure_serving_stop(d->https);
    ms_metrics_registry_free(d->registry);
    ms_desched_metrics_free(d->metrics);
    ms_leader_metrics_free(d->leader);
    ms_kube_client_free(d->client);
    ms_exec_credential_free(d->credentials);
    ms_kubeconfig_free(&d->kc);
}

void ms_deschedule_options_default(ms_deschedule_options *o) {
    memset(o, 0, sizeof *o);
    o->lease_name = "descheduler";
    o->lease_namespace = "kube-system";
    o->lease_duration = 15;
    o->renew_deadline = 10;
    o->retry_period = 2;
    o->secure_port = MS_DESCHEDULE_DEFAULT_SECURE_PORT;
}

ms_rc ms_deschedule_run(const ms_deschedule_options *o, ms_error *err) {
    desched d = {.o = o};
    ms_desched_sources src;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    /* Before any thread starts, so that they all inherit it. */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    ms_rc rc = setup_client(&d, err);
    if (rc == MS_OK) rc = setup_serving(&d, err);
    if (rc == MS_OK) discover_eviction_version(&d);
    if (rc == MS_OK && o->interval == 0) {
        rc = one_pass(&d, err);
    } else if (rc == MS_OK) {
        rc = setup_sources(&d, &src, err);
        if (rc == MS_OK) rc = setup_election(&d, err);
        if (rc == MS_OK) rc = loop(&d, &set, err);
    }
    teardown(&d);
    return rc;
}
