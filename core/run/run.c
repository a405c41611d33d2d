/* `moonsched run`: the parts built from the options and started
 * (informers -> delta queue -> scheduler thread -> binder, run/api_binder.h;
 * reports through run/api_reporter.h and the poster thread of
 * run/poster.h; serving, leader election, controllers), the scheduler
 * thread's loop run (run/scheduler_loop.h), and the parts torn down. See
 * include/moonsched/run.h. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "moonsched/config.h"
#include "moonsched/policy_set.h"
#include "moonsched/run.h"
#include "moonsched/scheduler.h"
#include "run/scheduler_loop.h"
#include "scheduler/config_describe.h"

void ms_run_options_default(ms_run_options *o) {
    memset(o, 0, sizeof *o);
    o->handle_signals = true;
    o->secure_port = MS_RUN_DEFAULT_SECURE_PORT;
    o->bind_address = MS_RUN_DEFAULT_BIND_ADDRESS;
}

/* Binds on the wire at once (HTTP/2 streams), by default; the scheduler
 * stops popping pods while twice that many wait for their outcome: each
 * holds its cycle record and the pod, and scheduling far ahead of the API
 * server gains nothing. */
enum { DEFAULT_BINDS_IN_FLIGHT = 64, MAX_BINDS_IN_FLIGHT = 1024 };

static void warn_config(void *ctx, const char *msg) {
    ms_scheduler_loop *r = ctx;
    ms_log(r->log, MS_LOG_WARN, "configuration", "warning", msg, NULL);
}

/* ---- Lua policies ------------------------------------------------------ */

static ms_rc setup_policies(ms_scheduler_loop *r, ms_error *err) {
    const ms_run_options *o = r->o;
    if (o->npolicy_files == 0 && !ms_config_has_policies(&r->cfg)) return MS_OK;
    if (ms_mailbox_init(&r->policy_wake) != 0) return ms_error_set(err, MS_EIO, "eventfd: %s", strerror(errno));
    ms_policy_set_options po;
    ms_policy_set_options_default(&po);
    ms_scheduler_loop_policy_hooks(r, &po);
    po.files = o->policy_files;
    po.nfiles = o->npolicy_files;
    /* A broken file never stops the start (a restart would meet it again):
     * its profile fails closed until the file is fixed. */
    po.tolerate_load_failures = true;
    return ms_policy_set_new(&r->cfg, &po, r->in, &r->policies, err);
}

/* Events about the scheduler itself regard its own Pod when it runs in
 * one (POD_NAME and POD_NAMESPACE from the downward API, POD_UID when
 * given), else the leader-election lock object, which names this
 * scheduler in the cluster whether or not election is on. */
static void setup_self(ms_scheduler_loop *r) {
    const char *pod = getenv("POD_NAME"), *ns = getenv("POD_NAMESPACE"), *uid = getenv("POD_UID");
    if (pod && *pod && ns && *ns) {
        snprintf(r->self.api_version, sizeof r->self.api_version, "v1");
        snprintf(r->self.kind, sizeof r->self.kind, "Pod");
        snprintf(r->self.ns, sizeof r->self.ns, "%s", ns);
        snprintf(r->self.name, sizeof r->self.name, "%s", pod);
        snprintf(r->self.uid, sizeof r->self.uid, "%s", uid ? uid : "");
        return;
    }
    const ms_leader_election *le = &r->cfg.leader_election;
    const char *lock = le->resource_lock;
    bool endpoints = strcmp(lock, "endpoints") == 0, configmaps = strcmp(lock, "configmaps") == 0;
    snprintf(r->self.api_version, sizeof r->self.api_version, "%s",
             endpoints || configmaps ? "v1" : "coordination.k8s.io/v1");
    snprintf(r->self.kind, sizeof r->self.kind, "%s",
             endpoints ? "Endpoints" : configmaps ? "ConfigMap" : "Lease");
    snprintf(r->self.ns, sizeof r->self.ns, "%s",
             le->resource_namespace[0] ? le->resource_namespace : "kube-system");
    snprintf(r->self.name, sizeof r->self.name, "%s",
             le->resource_name[0] ? le->resource_name : "kube-scheduler");
}

/* The metrics, and the plain port where one is asked for: it must work. */
static ms_rc setup_metrics(ms_scheduler_loop *r, ms_error *err) {
    uint32_t npol = r->policies ? ms_policy_set_count(r->policies) : 0;
    if (npol) {
        r->policy_info = calloc(npol, sizeof *r->policy_info);
        r->policy_snap = calloc(npol, sizeof *r->policy_snap);
    }
    if (!r->metrics || (npol && (!r->policy_info || !r->policy_snap)))
        return ms_error_set(err, MS_ENOMEM, "out of memory");

    const char *addr = r->o->metrics_bind_address;
    if (!addr && r->cfg.metrics_bind_address[0]) addr = r->cfg.metrics_bind_address;
    if (!addr && r->cfg.healthz_bind_address[0]) addr = r->cfg.healthz_bind_address;
    if (r->cfg.healthz_bind_address[0] && r->cfg.metrics_bind_address[0] &&
        strcmp(r->cfg.healthz_bind_address, r->cfg.metrics_bind_address) != 0)
        ms_log(r->log, MS_LOG_WARN, "healthzBindAddress differs from metricsBindAddress; serving both on one",
               "address", addr, NULL);
    if (ms_http_address_disabled(addr)) return MS_OK;
    ms_rc rc = ms_http_server_start(addr, ms_scheduler_loop_serve_plain, r, &r->http, err);
    if (rc != MS_OK) return rc;
    char port[8];
    snprintf(port, sizeof port, "%u", ms_http_server_port(r->http));
    ms_log(r->log, MS_LOG_INFO, r->o->plain_metrics ? "serving metrics and health over plain HTTP"
                                                    : "serving health over plain HTTP",
           "address", addr, "port", port, NULL);
    return MS_OK;
}

/* HTTPS on --secure-port; the reviews go to the scheduler's own API
 * server unless --authentication-kubeconfig / --authorization-kubeconfig
 * name another. */
static ms_rc setup_secure_serving(ms_scheduler_loop *r, ms_error *err) {
    const ms_run_options *o = r->o;
    if (o->secure_port == 0) {
        ms_log(r->log, MS_LOG_INFO, "secure serving disabled (--secure-port=0)", NULL);
        return MS_OK;
    }
    if (o->secure_port < 0 || o->secure_port > 65535)
        return ms_error_set(err, MS_EINVAL, "--secure-port %d must be between 0 and 65535", o->secure_port);
    if (!(r->debug = ms_debug_requests_new())) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_kubeconfig authn = {0}, authz = {0};
    ms_rc rc = MS_OK;
    if (o->authn_kubeconfig) rc = ms_kubeconfig_load_file(&authn, o->authn_kubeconfig, NULL, err);
    if (rc == MS_OK && o->authz_kubeconfig) rc = ms_kubeconfig_load_file(&authz, o->authz_kubeconfig, NULL, err);
    /* upstream's string slice flag: comma-separated, "" is no path at all */
    char *paths_text = o->always_allow_paths ? strdup(o->always_allow_paths) : NULL;
    const char **paths = o->always_allow_paths ? calloc(strlen(o->always_allow_paths) / 2 + 2, sizeof *paths) : NULL;
    uint32_t npaths = 0;
    if (o->always_allow_paths && (!paths_text || !paths)) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    for (char *save = NULL, *p = paths_text ? strtok_r(paths_text, ",", &save) : NULL; p;
         p = strtok_r(NULL, ",", &save))
        paths[npaths++] = p;
    if (rc == MS_OK) {
        ms_secure_serving_options so = {.bind_address = o->bind_address, .port = (uint16_t)o->secure_port,
                                        .cert_file = o->tls_cert_file, .key_file = o->tls_key_file,
                                        .tls_min_version = o->tls_min_version,
                                        .tls_cipher_suites = o->tls_cipher_suites,
                                        .authn_config = o->authn_kubeconfig ? &authn : &r->kc,
                                        .authz_config = o->authz_kubeconfig ? &authz : &r->kc,
                                        .always_allow_paths = paths, .nalways_allow_paths = npaths,
                                        .client_ca_file = o->client_ca_file,
                                        .authn_cache_ttl = o->authn_token_cache_ttl, .metrics = r->metrics->authn,
                                        .handler = ms_scheduler_loop_serve_secure, .ctx = r, .log = r->log};
        rc = ms_secure_serving_start(&so, &r->https, err);
    }
    free(paths);
    free(paths_text);
    ms_kubeconfig_free(&authn);
    ms_kubeconfig_free(&authz);
    if (rc != MS_OK) return rc;
    char port[8];
    snprintf(port, sizeof port, "%u", ms_secure_serving_port(r->https));
    ms_log(r->log, MS_LOG_INFO, "serving securely", "address",
           o->bind_address && *o->bind_address ? o->bind_address : MS_RUN_DEFAULT_BIND_ADDRESS, "port", port,
           "certificate", o->tls_cert_file ? o->tls_cert_file : "self-signed", NULL);
    return MS_OK;
}

/* After the informers, as upstream: a standby's caches are warm when it
 * takes over. */
static ms_rc setup_leader_election(ms_scheduler_loop *r, ms_error *err) {
    if (!r->cfg.leader_election.leader_elect) {
        ms_log(r->log, MS_LOG_INFO, "leader election disabled; acting as leader", NULL);
        return MS_OK;
    }
    ms_kube_client_options co = {.config = &r->kc, .credentials = r->credentials, .qps = r->cfg.qps,
                                 .burst = r->cfg.burst, .log = r->log,
                                 .observe = ms_rest_client_metrics_observe, .observe_ctx = r->metrics->rest};
    ms_leader_elector_options eo = {.config = &r->cfg.leader_election, .client = &co, .log = r->log,
                                    .leading_changed = ms_leader_metrics_changed, .leading_ctx = r->metrics->leader,
                                    .post_events = true,
                                    .event_component = r->cfg.nprofiles ? r->cfg.profiles[0].scheduler_name
                                                                        : NULL};
    return ms_leader_elector_start(&eo, &r->elector, err);
}


/* ---- controllers beside the scheduler -------------------------------------- */

static bool te_leading(void *ctx) { return ms_scheduler_loop_leading(ctx); }

/* After the election: the controller asks it whether to delete. */
static ms_rc setup_controllers(ms_scheduler_loop *r, ms_error *err) {
    if (!r->o->taint_eviction) return MS_OK;
    ms_kube_client_options co = {.config = &r->kc, .credentials = r->credentials, .qps = r->cfg.qps,
                                 .burst = r->cfg.burst,
                                 .user_agent = "moonsched/0.1 (taint-eviction-controller)", .log = r->log,
                                 .observe = ms_rest_client_metrics_observe, .observe_ctx = r->metrics->rest};
    ms_rc rc = ms_kube_client_new(&co, &r->te_client, err);
    if (rc != MS_OK) return rc;
    ms_taint_eviction_options to = {.client = r->te_client, .in = r->in, .log = r->log,
                                    .leading = te_leading, .leading_ctx = r,
                                    .deleted = ms_taint_eviction_metrics_deleted,
                                    .deleted_ctx = r->metrics->taint_eviction,
                                    .answered = ms_api_metrics_answered, .answered_ctx = r->metrics->api};
    return ms_taint_eviction_start(&to, &r->taint_eviction, err);
}

/* The registry comes first: every kube client reports its requests to it. */
static ms_rc new_metrics(ms_scheduler_loop *r, ms_error *err) {
    const char *names[64];
    uint32_t np = r->cfg.nprofiles < 64 ? r->cfg.nprofiles : 64;
    for (uint32_t i = 0; i < np; i++) names[i] = r->cfg.profiles[i].scheduler_name;
    r->metrics = ms_metric_sets_new(names, np, r->o->taint_eviction);
    r->endpoints = r->metrics ? ms_endpoints_new(r->metrics->registry) : NULL;
    return r->endpoints ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
}

static ms_rc setup_clients(ms_scheduler_loop *r, ms_error *err) {
    const ms_run_options *o = r->o;
    ms_kubeconfig *kc = &r->kc;
    const char *file = o->kubeconfig ? o->kubeconfig : r->cfg.kubeconfig;
    ms_rc rc = o->in_cluster ? ms_kubeconfig_in_cluster(kc, NULL, err)
                             : ms_kubeconfig_load_default(kc, file, NULL, err);
    if (rc != MS_OK) return rc;
    ms_rest_client_metrics_set_host(r->metrics->rest, kc->server);
    if (kc->exec) {
        ms_exec_credential_options eo = {.config = kc, .log = r->log};
        if ((rc = ms_exec_credential_new(&eo, &r->credentials, err)) != MS_OK) return rc;
    }
    ms_kube_client_options co = {.config = kc, .credentials = r->credentials, .qps = r->cfg.qps, .burst = r->cfg.burst,
                                 .user_agent = "moonsched/0.1 (scheduler)", .log = r->log,
                                 .observe = ms_rest_client_metrics_observe, .observe_ctx = r->metrics->rest};
    rc = ms_kube_client_new(&co, &r->client, err);
    if (rc == MS_OK) {
        co.user_agent = "moonsched/0.1 (events)";
        rc = ms_kube_client_new(&co, &r->poster_client, err);
    }
    return rc;
}

/* Events, status patches and evictions: built on this thread, posted by
 * the poster's. */
static ms_rc setup_reporting(ms_scheduler_loop *r, ms_error *err) {
    /* Each Event names the profile that reports it (ms_api_reporter); this
     * is for none. */
    const char *first = r->cfg.nprofiles ? r->cfg.profiles[0].scheduler_name : MS_DEFAULT_SCHEDULER_NAME;
    ms_event_recorder_options ro = {.controller = first, .instance = first};
    if (!(r->events = ms_event_recorder_new(&ro))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_poster_options po = {.client = r->poster_client, .events = r->events, .metrics = r->metrics->api,
                            .log = r->log};
    ms_rc rc = ms_poster_start(&po, &r->poster, err);
    if (rc != MS_OK) return rc;
    /* Pod disruption conditions came with 1.26: an older server would
     * drop the condition, so it is not sent there. Unknown: tried. */
    bool conditions = r->disruption_conditions = ms_kube_server_at_least(r->client, 1, 26, true);
    ms_log(r->log, MS_LOG_INFO,
           conditions ? "preemption victims get the DisruptionTarget condition"
                      : "server before 1.26: preemption victims get no DisruptionTarget condition",
           NULL);
    ms_api_reporter_options ro2 = {.in = r->in, .poster = r->poster, .events = r->events, .log = r->log,
                                   .event_interval = r->o->event_interval, .event_qps = r->o->event_qps,
                                   .disruption_conditions = conditions};
    if (!(r->reporter = ms_api_reporter_new(&ro2))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    return MS_OK;
}

static ms_rc setup_scheduler(ms_scheduler_loop *r, ms_error *err) {
    ms_rc rc = ms_api_volume_binder_new(r->client, r->in, r->metrics->api, r->log, &r->volume_binder, err);
    if (rc != MS_OK) return rc;
    r->volume_binder_ops = ms_api_volume_binder_vtable(r->volume_binder);
    rc = ms_api_claim_writer_new(r->client, r->in, r->metrics->api, r->log, &r->claim_writer, err);
    if (rc != MS_OK) return rc;
    r->claim_writer_ops = ms_api_claim_writer_vtable(r->claim_writer);
    if ((rc = ms_http_endpoint_new(&r->extender_http, err)) != MS_OK) return rc;
    r->extender_caller = ms_http_endpoint_caller(r->extender_http);
    ms_scheduler_options so = {
        .config = &r->cfg,
        .in = r->in,
        .seed = r->o->has_seed ? r->o->seed : r->cfg.has_seed ? r->cfg.seed : (uint64_t)time(NULL),
        .profile_out_of_tree = r->policies ? ms_policy_set_profile_plugins(r->policies) : NULL,
        .n_profile_out_of_tree = r->policies ? ms_policy_set_profile_counts(r->policies) : NULL,
        .keep_objects = r->o->debug_snapshot,
        .record_metrics = true,
        .no_disruption_conditions = !r->disruption_conditions,
        .volume_binder = &r->volume_binder_ops,
        .claim_writer = &r->claim_writer_ops,
        .http = &r->extender_caller,
    };
    ms_scheduler_loop_callbacks(r, &so);
    rc = ms_scheduler_new(&so, &r->sched, err);
    if (rc == MS_OK && r->policies) rc = ms_policy_set_attach(r->policies, r->sched, err);
    if (rc != MS_OK) return rc;
    uint32_t nb = r->o->bind_workers ? r->o->bind_workers : DEFAULT_BINDS_IN_FLIGHT;
    if (nb > MAX_BINDS_IN_FLIGHT) nb = MAX_BINDS_IN_FLIGHT;
    r->max_binds = 2 * nb;
    return ms_api_binder_new(r->client, r->in, r->metrics->api, nb, &r->binder, err);
}

/* /configz: the effective configuration as `config check` prints it, under
 * upstream's "componentconfig" key. Set once, before scheduling starts. */
static ms_rc setup_configz(ms_scheduler_loop *r, ms_error *err) {
    cJSON *doc = cJSON_CreateObject();
    cJSON *eff = doc ? ms_config_describe(&r->cfg, r->sched, err) : NULL;
    if (!eff) {
        cJSON_Delete(doc);
        return doc ? err->rc : ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    cJSON_AddItemToObject(doc, "componentconfig", eff);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    bool ok = text && ms_endpoints_set_configz(r->endpoints, text);
    cJSON_free(text);
    return ok ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
}

static ms_rc setup_informers(ms_scheduler_loop *r, ms_error *err) {
    r->deltas = ms_delta_queue_new();
    if (!r->deltas) return ms_error_set(err, MS_ENOMEM, "out of memory");
    const ms_decoder *dec = ms_scheduler_decoder(r->sched);
    /* LIST pages of 100: a page is parsed whole (its text and its JSON
     * tree, some 10 KiB per pod), and 500 pods' worth of that is most of
     * the start-up peak; five times the requests cost nothing measurable. */
    ms_informer_options io = {.client = r->client, .resource = &ms_informer_nodes, .decode_ctx = dec,
                              .queue = r->deltas, .log = r->log, .page_size = 100};
    ms_rc rc;
    if ((rc = ms_informer_start(&io, &r->node_inf, err)) != MS_OK) return rc;
    io.resource = &ms_informer_pods;
    if ((rc = ms_informer_start(&io, &r->pod_inf, err)) != MS_OK) return rc;
    io.resource = &ms_informer_namespaces;
    if ((rc = ms_informer_start(&io, &r->ns_inf, err)) != MS_OK) return rc;
    io.resource = &ms_informer_pdbs;
    if ((rc = ms_informer_start(&io, &r->pdb_inf, err)) != MS_OK) return rc;
    static const ms_informer_resource *const storage[MS_SK_COUNT] = {
        [MS_SK_PV] = &ms_informer_pvs,
        [MS_SK_PVC] = &ms_informer_pvcs,
        [MS_SK_STORAGE_CLASS] = &ms_informer_storage_classes,
        [MS_SK_CSI_NODE] = &ms_informer_csi_nodes,
        [MS_SK_CSI_DRIVER] = &ms_informer_csi_drivers,
        [MS_SK_CSI_CAPACITY] = &ms_informer_csi_capacities,
    };
    for (uint32_t k = 0; k < MS_SK_COUNT; k++) {
        io.resource = storage[k];
        if ((rc = ms_informer_start(&io, &r->storage_inf[k], err)) != MS_OK) return rc;
    }
    static const ms_informer_resource *const dra[MS_DK_COUNT] = {
        [MS_DK_DEVICE_CLASS] = &ms_informer_device_classes,
        [MS_DK_RESOURCE_SLICE] = &ms_informer_resource_slices,
        [MS_DK_RESOURCE_CLAIM] = &ms_informer_resource_claims,
        [MS_DK_RESOURCE_CLAIM_TEMPLATE] = &ms_informer_resource_claim_templates,
    };
    for (uint32_t k = 0; k < MS_DK_COUNT; k++) {
        io.resource = dra[k];
        if ((rc = ms_informer_start(&io, &r->dra_inf[k], err)) != MS_OK) return rc;
    }
    static const ms_informer_resource *const workloads[MS_WK_COUNT] = {
        [MS_WK_SERVICE] = &ms_informer_services,
        [MS_WK_REPLICATION_CONTROLLER] = &ms_informer_replication_controllers,
        [MS_WK_REPLICA_SET] = &ms_informer_replica_sets,
        [MS_WK_STATEFUL_SET] = &ms_informer_stateful_sets,
    };
    for (uint32_t k = 0; k < MS_WK_COUNT; k++) {
        io.resource = workloads[k];
        if ((rc = ms_informer_start(&io, &r->workload_inf[k], err)) != MS_OK) return rc;
    }
    return MS_OK;
}

static ms_rc copy_flag(const char *flag, const char *v, char *dst, size_t n, ms_error *err) {
    if (!v) return MS_OK;
    if (strlen(v) >= n) return ms_error_set(err, MS_EINVAL, "%s: \"%.64s...\" is too long", flag, v);
    memcpy(dst, v, strlen(v) + 1);
    return MS_OK;
}

/* --scheduler-name and the --leader-elect-* flags over the configuration,
 * then the Lease's default name for the profiles as they now are. */
static ms_rc apply_flags(ms_scheduler_loop *r, ms_error *err) {
    const ms_run_options *o = r->o;
    ms_config *c = &r->cfg;
    if (o->scheduler_name && c->nprofiles > 0)
        snprintf(c->profiles[0].scheduler_name, sizeof c->profiles[0].scheduler_name, "%s", o->scheduler_name);
    ms_leader_election *le = &c->leader_election;
    if (o->leader_elect) le->leader_elect = o->leader_elect > 0;
    if (o->le_lease_duration > 0) le->lease_duration = o->le_lease_duration;
    if (o->le_renew_deadline > 0) le->renew_deadline = o->le_renew_deadline;
    if (o->le_retry_period > 0) le->retry_period = o->le_retry_period;
    ms_rc rc;
    if ((rc = copy_flag("--leader-elect-resource-lock", o->le_resource_lock, le->resource_lock,
                        sizeof le->resource_lock, err)) != MS_OK ||
        (rc = copy_flag("--leader-elect-resource-name", o->le_resource_name, le->resource_name,
                        sizeof le->resource_name, err)) != MS_OK ||
        (rc = copy_flag("--leader-elect-resource-namespace", o->le_resource_namespace, le->resource_namespace,
                        sizeof le->resource_namespace, err)) != MS_OK)
        return rc;
    if (o->le_resource_name) le->resource_name_given = true;
    ms_config_default_lease_name(c);
    return ms_config_validate(c, err);
}

static ms_rc setup(ms_scheduler_loop *r, ms_error *err) {
    const ms_run_options *o = r->o;
    ms_rc rc = o->config_file ? ms_config_load_file(&r->cfg, o->config_file, warn_config, r, err)
                              : ms_config_default(&r->cfg);
    if (rc != MS_OK) return rc;
    if ((rc = apply_flags(r, err)) != MS_OK) return rc;
    if ((rc = new_metrics(r, err)) != MS_OK) return rc;
    if ((rc = setup_clients(r, err)) != MS_OK) return rc;
    r->in = ms_interner_new();
    if (!r->in) return ms_error_set(err, MS_ENOMEM, "out of memory");
    if ((rc = setup_policies(r, err)) != MS_OK) return rc;
    setup_self(r);
    if ((rc = setup_metrics(r, err)) != MS_OK) return rc;
    if ((rc = setup_secure_serving(r, err)) != MS_OK) return rc;
    if ((rc = setup_reporting(r, err)) != MS_OK) return rc;
    if ((rc = setup_scheduler(r, err)) != MS_OK) return rc;
    if ((rc = setup_configz(r, err)) != MS_OK) return rc;
    if ((rc = setup_informers(r, err)) != MS_OK) return rc;
    if ((rc = setup_leader_election(r, err)) != MS_OK) return rc;
    return setup_controllers(r, err);
}

static void free_deltas(ms_delta_queue *q) {
    ms_delta_queue_close(q);
    ms_delta d[64];
    size_t n;
    while ((n = ms_delta_queue_pop(q, d, 64, 0)) > 0)
        for (size_t i = 0; i < n; i++) ms_delta_release(&d[i]);
    ms_delta_queue_free(q);
}

/* Leaves the final figures in r->st. */
static void teardown(ms_scheduler_loop *r) {
    /* Before the election goes: it must not act as leader meanwhile. */
    ms_taint_eviction_stop(r->taint_eviction, 2);
    r->taint_eviction = NULL;
    if (r->te_client) ms_kube_client_free(r->te_client);
    /* Binds in flight are done: release the lease at once so that a
     * standby takes over (a lost lease is not ours to release). */
    ms_leader_elector_stop(r->elector, true);
    r->elector = NULL;
    /* First: the HTTP threads read the metrics; none waits for an answer
     * from this thread once the requests are closed. */
    ms_debug_requests_close(r->debug);
    ms_http_server_stop(r->http);
    ms_secure_serving_stop(r->https);
    ms_debug_requests_free(r->debug);
    if (r->pod_inf) ms_informer_stop(r->pod_inf);
    if (r->node_inf) ms_informer_stop(r->node_inf);
    if (r->ns_inf) ms_informer_stop(r->ns_inf);
    if (r->pdb_inf) ms_informer_stop(r->pdb_inf);
    for (uint32_t k = 0; k < MS_SK_COUNT; k++)
        if (r->storage_inf[k]) ms_informer_stop(r->storage_inf[k]);
    for (uint32_t k = 0; k < MS_DK_COUNT; k++)
        if (r->dra_inf[k]) ms_informer_stop(r->dra_inf[k]);
    for (uint32_t k = 0; k < MS_WK_COUNT; k++)
        if (r->workload_inf[k]) ms_informer_stop(r->workload_inf[k]);
    ms_cache_debugger_stop(r->debugger);
    /* Binds not answered by now are dropped: the pods stay pending on the
     * server and the next scheduler takes them. */
    ms_api_binder_stop(r->binder);
    if (r->binder) ms_scheduler_loop_drain_binds(r);
    ms_api_volume_binder_stop(r->volume_binder);
    ms_api_claim_writer_stop(r->claim_writer);
    /* What is queued is still sent. */
    if (r->poster) ms_poster_stop(r->poster);
    r->st = ms_scheduler_loop_stats(r);
    ms_api_reporter_free(r->reporter);
    ms_poster_free(r->poster);
    ms_event_recorder_free(r->events);
    ms_api_binder_free(r->binder);
    if (r->deltas) free_deltas(r->deltas);
    if (r->sched) ms_scheduler_free(r->sched);
    /* after the scheduler: its PreBind records point at the vtable */
    ms_api_volume_binder_free(r->volume_binder);
    ms_api_claim_writer_free(r->claim_writer);
    ms_http_endpoint_free(r->extender_http);
    ms_policy_set_free(r->policies);
    ms_mailbox_destroy(&r->policy_wake, NULL);
    if (r->in) ms_interner_free(r->in);
    if (r->client) ms_kube_client_free(r->client);
    if (r->poster_client) ms_kube_client_free(r->poster_client);
    ms_exec_credential_free(r->credentials);
    ms_kubeconfig_free(&r->kc);
    ms_config_free(&r->cfg);
    ms_endpoints_free(r->endpoints);
    ms_metric_sets_free(r->metrics);
    free(r->policy_info);
    free(r->policy_snap);
}

ms_rc ms_run(const ms_run_options *o, ms_run_stats *stats, ms_error *err) {
    ms_scheduler_loop rr;
    ms_scheduler_loop *r = &rr;
    memset(r, 0, sizeof *r);
    r->o = o;
    r->log = o->log ? o->log : &ms_log_default;
    r->policy_wake.fd = -1;

    /* Signals are blocked before any thread starts, so that every thread
     * inherits the mask and only the signalfd sees them. */
    int sfd = -1;
    sigset_t mask, old;
    sigemptyset(&mask);
    if (o->handle_signals) {
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGUSR2);   /* the cache debugger */
        pthread_sigmask(SIG_BLOCK, &mask, &old);
        sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    }

    ms_rc rc = setup(r, err);
    if (rc == MS_OK) {
        ms_log(r->log, MS_LOG_INFO, "started", "server", ms_kube_client_server(r->client), "profile",
               r->cfg.nprofiles ? r->cfg.profiles[0].scheduler_name : "", NULL);
        rc = ms_scheduler_loop_run(r, sfd, err);
    }

    teardown(r);
    if (stats) *stats = r->st;
    if (sfd >= 0) close(sfd);
    if (o->handle_signals) pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

