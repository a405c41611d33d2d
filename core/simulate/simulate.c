/* `moonsched simulate`: files (and/or a generated cluster) in, deltas to the
 * scheduler (nodes, then bound pods, then pending pods), an in-memory binder
 * whose binds succeed and are confirmed like an informer would, a virtual
 * clock, and a report of every pending pod's fate (printed by
 * simulate_table.c, simulate_json.c or simulate_html.c). */
#include "simulate/simulate_internal.h"

#include "base/array.h"
#include "moonsched/simulate.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/clock.h"
#include "backend/cache.h"
#include "backend/queue.h"
#include "base/map.h"
#include "simulate/explain_text.h"
#include "simulate/generator.h"
#include "simulate/simulate_deschedule.h"
#include "simulate/simulate_evictions.h"
#include "simulate/simulate_dra.h"
#include "simulate/simulate_volumes.h"
#include "codec/decode_workload.h"
#include "codec/json_reader.h"
#include "codec/known_fields.h"
#include "moonsched/config.h"
#include "moonsched/decode.h"
#include "moonsched/pdb.h"
#include "moonsched/policy_set.h"
#include "moonsched/scheduler.h"
#include "scheduler/apply.h"
#include "scheduler/explain.h"

#define DEFAULT_MAX_VIRTUAL_TIME 3600.0
#define DEFAULT_SEED 1

void ms_simulate_options_default(ms_simulate_options *o) {
    memset(o, 0, sizeof *o);
    o->output = MS_OUTPUT_TABLE;
}

static double cpu_time(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- input ---------------------------------------------------------- */

static ms_rc keep_node(void *ctx, ms_node *node, ms_error *err) {
    sim *m = ctx;
    if (!ms_array_grow((void **)&m->nodes, &m->nodecap, m->nnodes + 1, sizeof *m->nodes)) {
        ms_node_unref(node);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    m->nodes[m->nnodes++] = node;
    return MS_OK;
}

static ms_rc keep_pod(void *ctx, ms_pod *pod, ms_error *err) {
    sim *m = ctx;
    if (!ms_array_grow((void **)&m->pods, &m->podcap, m->npods + 1, sizeof *m->pods)) {
        ms_pod_unref(pod);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    m->pods[m->npods++] = pod;
    return MS_OK;
}

static ms_rc keep_namespace(void *ctx, ms_namespace *ns, ms_error *err) {
    sim *m = ctx;
    if (!ms_array_grow((void **)&m->nss, &m->nscap, m->nns + 1, sizeof *m->nss)) {
        ms_namespace_unref(ns);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    m->nss[m->nns++] = ns;
    return MS_OK;
}

static ms_rc keep_pdb(sim *m, ms_pdb *pdb, ms_error *err) {
    if (!ms_array_grow((void **)&m->pdbs, &m->pdbcap, m->npdbs + 1, sizeof *m->pdbs)) {
        ms_pdb_unref(pdb);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    m->pdbs[m->npdbs++] = pdb;
    return MS_OK;
}

/* A PriorityClass: its name and value (the scheduler reads pods'
 * spec.priority; only the descheduler needs the classes). */
static ms_rc keep_priority_class(sim *m, const cJSON *obj, ms_error *err) {
    ms_json_reader r;
    ms_json_reader_init(&r, &ms_json_object_wording, err);
    const char *name = NULL;
    int64_t v = 0;
    const cJSON *value = ms_json_get(obj, "value");
    ms_rc rc = ms_json_string(&r, "metadata.name", ms_json_get(ms_json_get(obj, "metadata"), "name"), &name);
    if (rc == MS_OK && !value) rc = ms_json_fail(&r, "value", "PriorityClass without a value");
    if (rc == MS_OK) rc = ms_json_int(&r, "value", value, INT32_MIN, INT32_MAX, &v);
    if (rc != MS_OK) return rc;
    if (!ms_array_grow((void **)&m->pcs, &m->pccap, m->npcs + 1, sizeof *m->pcs))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    m->pcs[m->npcs++] = (ms_priority_class){ms_intern(m->in, name ? name : "", name ? strlen(name) : 0), (int32_t)v};
    return MS_OK;
}

static ms_rc keep_generated(void *ctx, ms_workload *w, ms_error *err) {
    sim *m = ctx;
    if (!ms_array_grow((void **)&m->workloads, &m->workloadcap, m->nworkloads + 1, sizeof *m->workloads)) {
        ms_workload_unref(w);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    m->workloads[m->nworkloads++] = w;
    return MS_OK;
}

static ms_rc keep_workload(sim *m, ms_workload_kind kind, const cJSON *obj, ms_error *err) {
    ms_workload *w = NULL;
    ms_rc rc = ms_workload_decode(&m->dec, kind, obj, &w, err);
    return rc == MS_OK ? keep_generated(m, w, err) : rc;
}

static ms_rc keep_storage(void *ctx, ms_storage_object *o, ms_error *err) {
    sim *m = ctx;
    return ms_sim_volumes_add(&m->vols, o, err);
}

static ms_rc keep_dra(void *ctx, ms_dra_kind kind, const cJSON *obj, ms_error *err) {
    sim *m = ctx;
    return ms_sim_dra_keep(&m->dra, &m->dec, kind, obj, err);
}

static void count_skipped(sim *m, const char *kind) {
    m->nskipped++;
    for (uint32_t i = 0; i < m->nskipped_kinds; i++)
        if (strcmp(m->skipped[i].kind, kind) == 0) {
            m->skipped[i].n++;
            return;
        }
    if (m->nskipped_kinds < sizeof m->skipped / sizeof m->skipped[0]) {
        kind_count *k = &m->skipped[m->nskipped_kinds++];
        snprintf(k->kind, sizeof k->kind, "%s", kind);
        k->n = 1;
    }
}

/* "moonsched: warning: cluster.yaml: Pod default/web: unknown field ..." */
static void warn_field(void *ctx, const char *msg) {
    sim *m = ctx;
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(m->object, "metadata");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(meta, "namespace");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(meta, "name");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(m->object, "kind");
    bool pod = !cJSON_IsString(kind) || strcmp(kind->valuestring, "Node") != 0;
    fprintf(m->diag, "moonsched: warning: %s: %s %s%s%.200s: %s\n", m->source, pod ? "Pod" : "Node",
            pod ? (cJSON_IsString(ns) ? ns->valuestring : "default") : "", pod ? "/" : "",
            cJSON_IsString(name) ? name->valuestring : "", msg);
}

static ms_rc on_object(void *ctx, const char *kind, const cJSON *obj, ms_error *err) {
    sim *m = ctx;
    m->objects++;
    m->object = obj;
    ms_unknown_fields(kind, obj, warn_field, m);
    if (strcmp(kind, "Node") == 0) {
        ms_node *node = NULL;
        ms_rc rc = ms_node_decode(&m->dec, obj, &node, err);
        return rc == MS_OK ? keep_node(m, node, err) : rc;
    }
    if (strcmp(kind, "Pod") == 0) {
        ms_pod *pod = NULL;
        ms_rc rc = ms_pod_decode(&m->dec, obj, &pod, err);
        return rc == MS_OK ? keep_pod(m, pod, err) : rc;
    }
    if (strcmp(kind, "Namespace") == 0) {
        ms_namespace *ns = NULL;
        ms_rc rc = ms_namespace_decode(&m->dec, obj, &ns, err);
        return rc == MS_OK ? keep_namespace(m, ns, err) : rc;
    }
    if (strcmp(kind, "PodDisruptionBudget") == 0) {
        ms_pdb *pdb = NULL;
        ms_rc rc = ms_pdb_decode(&m->dec, obj, &pdb, err);
        return rc == MS_OK ? keep_pdb(m, pdb, err) : rc;
    }
    if (strcmp(kind, "PriorityClass") == 0) {
        ms_rc rc = keep_priority_class(m, obj, err);
        if (rc != MS_OK) return rc;
    }
    int sk = ms_storage_kind_from_name(kind);
    if (sk >= 0) return ms_sim_volumes_keep(&m->vols, &m->dec, (ms_storage_kind)sk, obj, err);
    int dk = ms_dra_kind_from_name(kind);
    if (dk >= 0) return ms_sim_dra_keep(&m->dra, &m->dec, (ms_dra_kind)dk, obj, err);
    int wk = ms_workload_kind_from_name(kind);
    if (wk >= 0) return keep_workload(m, (ms_workload_kind)wk, obj, err);
    count_skipped(m, kind);
    return MS_OK;
}

/* ---- binder and reporter -------------------------------------------- */

static ms_rc sim_bind(void *ctx, const ms_pod *pod, ms_str node) {
    sim *m = ctx;
    if (!ms_array_grow((void **)&m->binds, &m->bindcap, m->nbinds + 1, sizeof *m->binds)) return MS_ENOMEM;
    m->binds[m->nbinds].pod = ms_pod_ref((ms_pod *)pod);
    m->binds[m->nbinds].node = node;
    m->nbinds++;
    return MS_OK;
}

/* Every change to the cluster reaches the scheduler as an informer's delta
 * would in run: one entry point for both commands. */
static void deliver(sim *m, ms_delta_type type, ms_object_kind kind, const void *obj) {
    ms_delta d = {.type = (uint8_t)type, .kind = (uint8_t)kind, .obj = (void *)obj};
    ms_scheduler_apply(m->sched, &d, m->now);
}

/* Preemption acts at once: the victim is deleted as an informer would
 * report it (out of the cache, AssignedPodDelete), which also moves the
 * preemptor to backoffQ. */
static ms_rc sim_evict(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    (void)preemptor;
    (void)node;
    sim *m = ctx;
    if (m->descheduling) {
        if (!m->blocked[0]) ms_pod_key(victim, m->in, m->blocked, sizeof m->blocked);
        return MS_ESTATE;
    }
    deliver(m, MS_DELTA_DELETE, MS_KIND_POD, victim);
    return ms_sim_dra_pod_deleted(m->sched, victim, m->now);
}

/* What the API server would echo back after a status patch: the queued
 * pod, replaced by a copy with status.nominatedNodeName. Pods the queue
 * does not hold are left alone (an update would add them). */
static void sim_set_nomination(void *ctx, const ms_pod *pod, ms_str node) {
    sim *m = ctx;
    ms_queue *q = ms_scheduler_queue(m->sched);
    if (!ms_queue_get(q, pod->meta.uid_hash)) return;
    if (pod->nominated_node_name == node) return;
    ms_pod *np = ms_pod_with_nominated_node(pod, node);
    if (!np) {
        m->oom = true;
        return;
    }
    deliver(m, MS_DELTA_UPDATE, MS_KIND_POD, np);
    ms_pod_unref(np);
}

/* The binds of the last cycle succeed, and the bound pods come back as an
 * informer would deliver them (confirming the assumption, AssignedPodAdd). */
static void drain_binds(sim *m) {
    for (uint32_t i = 0; i < m->nbinds; i++) {
        pending_bind *b = &m->binds[i];
        ms_scheduler_bind_done(m->sched, b->pod, true, false, NULL, m->now);
        ms_pod *bound = ms_pod_with_node(b->pod, b->node);
        if (bound) {
            deliver(m, MS_DELTA_ADD, MS_KIND_POD, bound);
            ms_pod_unref(bound);
        } else {
            m->oom = true;
        }
        ms_pod_unref(b->pod);
    }
    m->nbinds = 0;
}

static placement *placement_for(sim *m, const ms_pod *pod) {
    uintptr_t idx = (uintptr_t)ms_map_get(&m->pl_index, pod->meta.uid_hash);
    if (idx) return &m->pl[idx - 1];
    if (!ms_array_grow((void **)&m->pl, &m->plcap, m->npl + 1, sizeof *m->pl)) return NULL;
    if (ms_map_put(&m->pl_index, pod->meta.uid_hash, (void *)(uintptr_t)(m->npl + 1)) != 0)
        return NULL;
    placement *p = &m->pl[m->npl++];
    memset(p, 0, sizeof *p);
    p->pod = ms_pod_ref((ms_pod *)pod);
    return p;
}

static void set_message(sim *m, placement *p, const char *msg) {
    free(p->message);
    p->message = NULL;
    if (!m->keep_details) return;
    p->message = strdup(msg ? msg : "");
    if (!p->message) m->oom = true;
}

static void on_scheduled(void *ctx, const ms_pod *pod, ms_str node, const ms_score_report *why) {
    sim *m = ctx;
    placement *p = placement_for(m, pod);
    if (!p) {
        m->oom = true;
        return;
    }
    p->node = node;
    p->gated = false;
    set_message(m, p, NULL);
    p->scored = why->nplugins > 0;
    p->total = why->total;
    p->feasible = why->feasible;
    p->num_all_nodes = why->num_all_nodes;
    p->names = why->names;
    p->nscores = 0;
    if (!m->keep_details || why->nplugins == 0) return;
    int64_t *s = realloc(p->scores, why->nplugins * sizeof *s);
    if (!s) {
        m->oom = true;
        return;
    }
    memcpy(s, why->scores, why->nplugins * sizeof *s);
    p->scores = s;
    p->nscores = why->nplugins;
}

/* Not placed, for `message`'s reason. */
static void not_placed(sim *m, const ms_pod *pod, const char *message, bool gated) {
    placement *p = placement_for(m, pod);
    if (!p) {
        m->oom = true;
        return;
    }
    p->node = MS_STR_NONE;
    p->nscores = 0;
    p->gated = gated;
    set_message(m, p, message);
}

static void on_unschedulable(void *ctx, const ms_pod *pod, const char *message, uint32_t attempts) {
    (void)attempts;
    not_placed(ctx, pod, message, false);
}

/* A pod a PreEnqueue plugin keeps out of activeQ. Scheduling gates get
 * their own line (upstream's SchedulingGated condition); another plugin's
 * refusal (DynamicResources waiting for a claim, a policy) is the pod's
 * line until a cycle says more. */
static void on_gated(void *ctx, const ms_pod *pod, const char *plugin, const char *reason) {
    if (strcmp(plugin, "SchedulingGates") == 0) {
        not_placed(ctx, pod, reason, true);
        return;
    }
    char msg[1024];
    snprintf(msg, sizeof msg, "never attempted: held back by PreEnqueue (%s: %s)", plugin, reason);
    not_placed(ctx, pod, msg, false);
}

static void on_preempted(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    sim *m = ctx;
    if (!ms_array_grow((void **)&m->pre, &m->precap, m->npre + 1, sizeof *m->pre)) {
        m->oom = true;
        return;
    }
    m->pre[m->npre++] = (preemption){.preemptor = ms_pod_ref((ms_pod *)preemptor),
                                     .victim = ms_pod_ref((ms_pod *)victim),
                                     .node = node,
                                     .attempt = m->nlat};
    /* A pod this run placed: its line says what became of it. */
    if (!ms_map_has(&m->pl_index, victim->meta.uid_hash)) return;
    placement *p = placement_for(m, victim);
    if (!p) {
        m->oom = true;
        return;
    }
    char key[512], msg[700];
    ms_pod_key(preemptor, m->in, key, sizeof key);
    snprintf(msg, sizeof msg, "preempted by %s on %s", key, ms_str_get(m->in, node));
    p->node = MS_STR_NONE;
    p->nscores = 0;
    p->preempted = true;
    set_message(m, p, msg);
}

static void on_bind_failed(void *ctx, const ms_pod *pod, ms_str node, const char *message) {
    (void)node;
    on_unschedulable(ctx, pod, message, 0);
}

/* Pods still queued that no cycle ever reported (PreEnqueue kept them out). */
static void on_left_over(void *ctx, const ms_queued_pod *qp) {
    sim *m = ctx;
    if (ms_map_has(&m->pl_index, qp->pod->meta.uid_hash)) return;
    placement *p = placement_for(m, qp->pod);
    if (!p) {
        m->oom = true;
        return;
    }
    set_message(m, p, qp->attempts ? "still queued when the simulation stopped"
                                    : "never attempted: held back by PreEnqueue");
}

/* ---- output ---------------------------------------------------------- */

/* ---- statistics ------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted values. */
static double percentile(const double *v, uint32_t n, double p) {
    if (n == 0) return 0;
    double rank = ceil(p / 100.0 * n);
    uint32_t i = rank < 1 ? 0 : (uint32_t)rank - 1;
    return v[i < n ? i : n - 1];
}

static void print_stats(sim *m, const ms_simulate_result *r) {
    FILE *f = m->diag;
    fprintf(f, "objects read:      %u (%u skipped", r->objects, r->skipped);
    for (uint32_t i = 0; i < m->nskipped_kinds; i++)
        fprintf(f, "%s%s %u", i ? ", " : ": ", m->skipped[i].kind, m->skipped[i].n);
    fprintf(f, ")\n");
    fprintf(f, "nodes:             %u\n", r->nodes);
    fprintf(f, "pods:              %u pending, %u bound, %u ignored\n", r->pending_pods,
            r->bound_pods, r->ignored_pods);
    fprintf(f, "scheduled:         %u\n", r->scheduled);
    fprintf(f, "unschedulable:     %u\n", r->unschedulable);
    if (r->gated) fprintf(f, "gated:             %u\n", r->gated);
    fprintf(f, "preempted:         %u\n", r->preempted);
    fprintf(f, "attempts:          %u\n", r->attempts);
    fprintf(f, "wall time:         %.3f s\n", r->wall_seconds);
    fprintf(f, "scheduling time:   %.3f s\n", r->schedule_seconds);
    fprintf(f, "scheduling CPU:    %.3f s\n", r->schedule_cpu_seconds);
    fprintf(f, "pods/s:            %.0f\n", r->pods_per_second);
    fprintf(f, "pods/CPU s:        %.0f\n", r->pods_per_cpu_second);
    fprintf(f, "latency p50:       %.1f us\n", r->latency_p50 * 1e6);
    fprintf(f, "latency p99:       %.1f us\n", r->latency_p99 * 1e6);
    fprintf(f, "peak RSS:          %.1f MiB\n", r->peak_rss_mib);
    fprintf(f, "virtual time:      %.1f s\n", r->virtual_seconds);
    if (m->o->deschedule) {
        fprintf(f, "descheduled:       %u evicted, %u skipped\n", r->descheduled, r->deschedule_skipped);
        fprintf(f, "deschedule time:   %.3f s\n", r->deschedule_seconds);
        fprintf(f, "evictions/s:       %.0f\n",
                r->deschedule_seconds > 0 ? r->descheduled / r->deschedule_seconds : 0);
    }
    if (!m->policies) return;
    fprintf(f, "policies:          %u (%llu calls, %llu failed, disabled %llu times)\n", r->policies,
            (unsigned long long)r->policy_calls, (unsigned long long)r->policy_failures,
            (unsigned long long)r->policy_disabled);
    fprintf(f, "policy reloads:    %llu ok, %llu failed (latency max %.3f s)\n",
            (unsigned long long)r->policy_reloads, (unsigned long long)r->policy_reloads_failed,
            r->reload_latency_max);
}

/* A line per policy that failed or was disabled during the run, whatever
 * the flags: a run that looks fine in its placements may owe them to a
 * policy that stopped judging (main exits non-zero then). */
static void print_policy_trouble(sim *m) {
    if (!m->policies) return;
    for (uint32_t i = 0; i < ms_policy_set_count(m->policies); i++) {
        ms_policy_info pi;
        ms_policy_set_info(m->policies, i, &pi);
        if (pi.policy) ms_simulate_policy_trouble(m->diag, pi.plugin, pi.profile, pi.policy);
    }
}

/* ---- the run --------------------------------------------------------- */

static void warn_config(void *ctx, const char *msg) {
    sim *m = ctx;
    fprintf(m->diag, "moonsched: warning: %s\n", msg);
}

/* Policy logs (sched.log, failures, reloads) go with the diagnostics; a
 * reload's init logs from the watcher thread (stdio locks the stream). */
static void policy_log(void *ctx, ms_lua_log_level level, const char *policy, const char *msg) {
    static const char *const names[] = {"info", "warn", "error"};
    sim *m = ctx;
    fprintf(m->diag, "policy %s: %s: %s\n", policy, names[level <= MS_LUA_LOG_ERROR ? level : 0], msg);
}

static void poll_policies(sim *m) {
    if (m->policies) ms_policy_set_poll(m->policies, m->now);
}

static ms_rc feed(sim *m, ms_simulate_result *r) {
    for (uint32_t i = 0; i < m->nns; i++) deliver(m, MS_DELTA_ADD, MS_KIND_NAMESPACE, m->nss[i]);
    for (uint32_t i = 0; i < m->nnodes; i++) deliver(m, MS_DELTA_ADD, MS_KIND_NODE, m->nodes[i]);
    for (uint32_t i = 0; i < m->npdbs; i++) deliver(m, MS_DELTA_ADD, MS_KIND_PDB, m->pdbs[i]);
    for (uint32_t i = 0; i < m->nworkloads; i++)
        deliver(m, MS_DELTA_ADD, (ms_object_kind)(MS_KIND_SERVICE + m->workloads[i]->kind), m->workloads[i]);
    ms_error err;
    if (ms_sim_volumes_feed(&m->vols, m->sched, m->now, &err) != MS_OK) return MS_ENOMEM;
    if (ms_sim_dra_feed(&m->dra, m->sched, &err) != MS_OK) return MS_ENOMEM;
    r->nodes = m->nnodes;
    for (uint32_t i = 0; i < m->npods; i++) {
        ms_pod *p = m->pods[i];
        if (p->node_name == MS_STR_NONE) continue;
        if (ms_pod_is_terminal(p)) r->ignored_pods++;
        else r->bound_pods++;
        deliver(m, MS_DELTA_ADD, MS_KIND_POD, p);
    }
    for (uint32_t i = 0; i < m->npods; i++) {
        ms_pod *p = m->pods[i];
        if (p->node_name != MS_STR_NONE) continue;
        if (ms_pod_is_terminal(p) || ms_scheduler_profile_index(m->sched, p->scheduler_name) < 0) {
            r->ignored_pods++;
            continue;
        }
        r->pending_pods++;
        deliver(m, MS_DELTA_ADD, MS_KIND_POD, p);
    }
    return MS_OK;
}

static ms_rc run_loop(sim *m, ms_simulate_result *r) {
    ms_queue *q = ms_scheduler_queue(m->sched);
    double limit = m->o->max_virtual_time > 0 ? m->o->max_virtual_time : DEFAULT_MAX_VIRTUAL_TIME;
    double c0 = cpu_time();
    double t0 = ms_clock_monotonic();
    for (;;) {
        poll_policies(m);
        if (ms_queue_len_active(q) == 0) {
            /* Idle: jump to the next backoff expiry or Permit deadline. */
            uint32_t backoff = ms_queue_len_backoff(q), waiting = ms_scheduler_waiting_count(m->sched);
            if (backoff == 0 && waiting == 0) break;
            double next = INFINITY;
            if (backoff) next = ms_queue_next_backoff(q);
            if (waiting) next = fmin(next, ms_scheduler_next_permit_deadline(m->sched));
            if (next > m->now) m->now = next;
            if (m->now > limit) break;
            ms_scheduler_tick(m->sched, m->now);
            drain_binds(m);
            /* Never stand still. */
            if (ms_queue_len_active(q) == 0 && ms_queue_len_backoff(q) == backoff &&
                ms_scheduler_waiting_count(m->sched) == waiting)
                m->now += 1e-3;
            continue;
        }
        if (!ms_array_grow((void **)&m->lat, &m->latcap, m->nlat + 1, sizeof *m->lat))
            return MS_ENOMEM;
        double a = ms_clock_monotonic();
        ms_scheduler_schedule_one(m->sched, m->now);
        drain_binds(m);
        m->lat[m->nlat++] = ms_clock_monotonic() - a;
        if (m->oom) return MS_ENOMEM;
    }
    r->schedule_seconds = ms_clock_monotonic() - t0;
    r->schedule_cpu_seconds = cpu_time() - c0;
    r->virtual_seconds = m->now;
    r->attempts = m->nlat;
    return MS_OK;
}

/* ---- --evictions -------------------------------------------------------- */

/* The evicted pod leaves its node and comes back pending (as its
 * controller would recreate it), and the scheduler runs until it is
 * placed or found unschedulable. */
static ms_str place_again(void *ctx, const ms_pod *pod, double at, char *why, size_t n) {
    sim *m = ctx;
    if (at > m->now) m->now = at;
    /* its claims go as its deletion leaves them: the replacement's are
     * allocated anew */
    if (ms_sim_dra_save(m->sched, pod, &m->dra_saved) != MS_OK) m->oom = true;
    deliver(m, MS_DELTA_DELETE, MS_KIND_POD, pod);
    if (ms_sim_dra_pod_deleted(m->sched, pod, m->now) != MS_OK) m->oom = true;
    if (ms_scheduler_profile_index(m->sched, pod->scheduler_name) < 0) {
        snprintf(why, n, "(schedulerName %s is not ours)", ms_str_get(m->in, pod->scheduler_name));
        return MS_STR_NONE;
    }
    ms_pod *pending = ms_pod_with_node(pod, MS_STR_NONE);
    placement *p = pending ? placement_for(m, pending) : NULL;
    if (!p) {
        if (pending) ms_pod_unref(pending);
        m->oom = true;
        return MS_STR_NONE;
    }
    p->node = MS_STR_NONE;
    deliver(m, MS_DELTA_ADD, MS_KIND_POD, pending);
    ms_pod_unref(pending);
    ms_simulate_result scratch = {0};
    if (run_loop(m, &scratch) != MS_OK) m->oom = true;
    if (p->node == MS_STR_NONE) snprintf(why, n, "(unschedulable: %s)", p->message ? p->message : "");
    return p->node;
}

/* The bound pods now: those of the files and those this run placed
 * (terminal ones only with `terminal`, those this run placed only with
 * `placed`). *out is a referenced array. */
static ms_rc bound_pods(sim *m, bool terminal, bool placed, ms_pod ***out, uint32_t *nout, ms_error *err) {
    ms_pod **bound = calloc(m->npods + m->npl + 1, sizeof *bound);
    if (!bound) return ms_error_set(err, MS_ENOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->npods; i++)
        if (m->pods[i]->node_name != MS_STR_NONE && (terminal || !ms_pod_is_terminal(m->pods[i])))
            bound[n++] = ms_pod_ref(m->pods[i]);
    for (uint32_t i = 0; placed && i < m->npl; i++)
        if (m->pl[i].node != MS_STR_NONE && (bound[n] = ms_pod_with_node(m->pl[i].pod, m->pl[i].node))) n++;
    *out = bound;
    *nout = n;
    return MS_OK;
}

static void free_pods(ms_pod **pods, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) ms_pod_unref(pods[i]);
    free(pods);
}

static ms_rc eviction_timeline(sim *m, ms_error *err) {
    ms_pod **bound;
    uint32_t n;
    ms_rc rc = bound_pods(m, false, true, &bound, &n, err);
    if (rc != MS_OK) return rc;
    ms_eviction_timeline_options eo = {.in = m->in, .out = m->out, .output = m->o->output,
                                       .start = ms_clock_wall(), .nodes = m->nodes, .nnodes = m->nnodes,
                                       .pods = bound, .npods = n, .place = place_again, .ctx = m};
    rc = ms_eviction_timeline(&eo, NULL, err);
    free_pods(bound, n);
    return rc;
}

/* ---- --deschedule ------------------------------------------------------- */

static ms_str desched_move(void *ctx, const ms_pod *pod, char *why, size_t n) {
    sim *m = ctx;
    m->blocked[0] = '\0';
    ms_str to = place_again(ctx, pod, m->now, why, n);
    if (to == MS_STR_NONE && m->blocked[0]) snprintf(why, n, "(only by preempting %s)", m->blocked);
    return to;
}

/* The replacement (bound or still pending) goes; the pod is back. */
static void desched_undo(void *ctx, const ms_pod *pod) {
    sim *m = ctx;
    ms_pod *placed = ms_cache_get_pod(ms_scheduler_cache(m->sched), pod->meta.uid_hash);
    if (placed) {
        deliver(m, MS_DELTA_DELETE, MS_KIND_POD, placed);
    } else {
        ms_pod *pending = ms_pod_with_node(pod, MS_STR_NONE);
        if (pending) deliver(m, MS_DELTA_DELETE, MS_KIND_POD, pending);
        else m->oom = true;
        if (pending) ms_pod_unref(pending);
    }
    if (ms_sim_dra_restore(m->sched, &m->dra_saved, m->now) != MS_OK) m->oom = true;
    deliver(m, MS_DELTA_ADD, MS_KIND_POD, pod);
    placement *p = placement_for(m, pod);
    if (p) p->node = pod->node_name;
}

static const ms_node_info *desched_live(void *ctx, ms_str node) {
    return ms_cache_node_info(ms_scheduler_cache(((sim *)ctx)->sched), node);
}

/* protectedStorageClasses: a claim read from the cluster files. */
static bool desched_claim_class(void *ctx, ms_str ns, ms_str claim, ms_str *cls) {
    const ms_sim_volumes *v = &((sim *)ctx)->vols;
    for (uint32_t i = 0; i < v->n; i++) {
        const ms_storage_object *o = v->objs[i];
        if (o->kind == MS_SK_PVC && o->meta.namespace_ == ns && o->meta.name == claim) {
            *cls = o->u.pvc.storage_class;
            return true;
        }
    }
    return false;
}

static ms_rc deschedule(sim *m, ms_simulate_result *r, ms_error *err) {
    ms_pod **bound;
    uint32_t n;
    ms_rc rc = bound_pods(m, true, !m->o->deschedule_hooks, &bound, &n, err);
    if (rc != MS_OK) return rc;
    ms_deschedule_sim_options d = {.in = m->in, .out = m->out, .diag = m->diag, .output = m->o->output,
                                   .policy_file = m->o->deschedule, .now = ms_clock_wall(),
                                   .nodes = m->nodes, .nnodes = m->nnodes, .pods = bound, .npods = n,
                                   .move = desched_move, .undo = desched_undo, .live = desched_live, .ctx = m,
                                   .hooks = m->o->deschedule_hooks, .pdbs = m->pdbs, .npdbs = m->npdbs,
                                   .namespaces = m->nss, .nnamespaces = m->nns, .claim_class = desched_claim_class,
                                   .priority_classes = m->pcs, .npriority_classes = m->npcs};
    ms_deschedule_sim_result dr = {0};
    double t0 = ms_clock_monotonic();
    m->descheduling = true;
    rc = ms_deschedule_simulation(&d, &dr, err);
    m->descheduling = false;
    r->deschedule_seconds = ms_clock_monotonic() - t0;
    r->descheduled = dr.evicted;
    r->deschedule_skipped = dr.skipped;
    r->policy_calls += dr.policy_calls;
    r->policy_failures += dr.policy_failures;
    r->policy_disabled += dr.policy_disabled;
    free_pods(bound, n);
    return rc;
}

static int cmp_node_object(const void *a, const void *b, void *in) {
    const ms_node *x = *(ms_node *const *)a, *y = *(ms_node *const *)b;
    return strcmp(ms_str_get(in, x->meta.name), ms_str_get(in, y->meta.name));
}

static int cmp_pod_object(const void *a, const void *b, void *in) {
    const ms_pod *x = *(ms_pod *const *)a, *y = *(ms_pod *const *)b;
    int c = strcmp(ms_str_get(in, x->meta.namespace_), ms_str_get(in, y->meta.namespace_));
    return c ? c : strcmp(ms_str_get(in, x->meta.name), ms_str_get(in, y->meta.name));
}

/* The nodes and pods in the order the API server lists them (by
 * namespace and name), whatever the order of the files: the scheduler
 * meets them in that order at start (node tree, queue order of pods of
 * equal priority, which of equal-score nodes the seed picks), and so does
 * the descheduler. A shuffled file gives the same run. */
static void list_order(sim *m) {
    /* an empty list is a NULL array, which qsort must not be given */
    if (m->nnodes) qsort_r(m->nodes, m->nnodes, sizeof *m->nodes, cmp_node_object, m->in);
    if (m->npods) qsort_r(m->pods, m->npods, sizeof *m->pods, cmp_pod_object, m->in);
}

static ms_rc load_inputs(sim *m, ms_simulate_result *r, ms_error *err) {
    for (uint32_t i = 0; i < m->o->ncluster_files; i++) {
        m->source = m->o->cluster_files[i];
        ms_rc rc = ms_load_objects_file(m->o->cluster_files[i], on_object, m, err);
        if (rc != MS_OK) return rc;
    }
    for (uint32_t i = 0; i < m->o->ncluster_texts; i++) {
        m->source = m->o->cluster_text_names[i];
        ms_rc rc = ms_load_objects_buffer(m->o->cluster_text_names[i], m->o->cluster_texts[i],
                                          m->o->cluster_text_lens[i], on_object, m, err);
        if (rc != MS_OK) return rc;
    }
    r->objects = m->objects;
    r->skipped = m->nskipped;
    if (m->o->generate) {
        ms_generator_spec g;
        ms_generator_spec_default(&g);
        ms_rc rc = ms_generator_parse(m->o->generate, &g, err);
        if (rc != MS_OK) return rc;
        ms_generator_sink sink = {m, keep_node, keep_pod, keep_storage, keep_namespace, keep_dra, keep_generated};
        rc = ms_generate(&g, &m->dec, &sink, err);
        if (rc != MS_OK) return rc;
    }
    list_order(m);
    return MS_OK;
}

static void sim_free(sim *m) {
    if (m->sched) ms_scheduler_free(m->sched);
    ms_policy_set_free(m->policies);
    for (uint32_t i = 0; i < m->nbinds; i++) ms_pod_unref(m->binds[i].pod);
    free(m->binds);
    for (uint32_t i = 0; i < m->npl; i++) {
        ms_pod_unref(m->pl[i].pod);
        free(m->pl[i].scores);
        free(m->pl[i].message);
    }
    free(m->pl);
    ms_map_free(&m->pl_index);
    uint64_t key;
    void *val;
    for (size_t it = 0; ms_map_next(&m->before, &it, &key, &val);) {
        ms_resources_free(&((before_requests *)val)->res);
        free(val);
    }
    ms_map_free(&m->before);
    for (uint32_t i = 0; i < m->npre; i++) {
        ms_pod_unref(m->pre[i].preemptor);
        ms_pod_unref(m->pre[i].victim);
    }
    free(m->pre);
    for (uint32_t i = 0; i < m->npdbs; i++) ms_pdb_unref(m->pdbs[i]);
    free(m->pdbs);
    for (uint32_t i = 0; i < m->nworkloads; i++) ms_workload_unref(m->workloads[i]);
    free(m->workloads);
    free(m->pcs);
    ms_sim_volumes_free(&m->vols);
    ms_sim_dra_free(&m->dra);
    ms_sim_dra_free(&m->dra_saved);
    for (uint32_t i = 0; i < m->nnodes; i++) ms_node_unref(m->nodes[i]);
    free(m->nodes);
    for (uint32_t i = 0; i < m->nns; i++) ms_namespace_unref(m->nss[i]);
    free(m->nss);
    for (uint32_t i = 0; i < m->npods; i++) ms_pod_unref(m->pods[i]);
    free(m->pods);
    free(m->lat);
    if (m->in) ms_interner_free(m->in);
}

/* The policies (when any) and the scheduler over the simulated cluster. */
static ms_rc build_scheduler(sim *m, ms_config *cfg, ms_error *err) {
    const ms_simulate_options *o = m->o;
    ms_rc rc;
    if (o->npolicy_files > 0 || o->nshadow_files > 0 || ms_config_has_policies(cfg)) {
        ms_policy_set_options po;
        ms_policy_set_options_default(&po);
        po.lua.log = policy_log;
        po.lua.log_ctx = m;
        po.files = o->policy_files;
        po.file_args = o->policy_args;
        po.nfiles = o->npolicy_files;
        po.shadow_files = o->shadow_files;
        po.shadow_file_args = o->shadow_args;
        po.nshadow_files = o->nshadow_files;
        po.watch = !o->no_watch;
        if (o->deschedule_hooks) {
            po.read_file = o->deschedule_hooks->read_file;
            po.read_ctx = o->deschedule_hooks->ctx;
        }
        if ((rc = ms_policy_set_new(cfg, &po, m->in, &m->policies, err)) != MS_OK) return rc;
    }
    ms_scheduler_options so = {
        .config = cfg,
        .in = m->in,
        .binder = {m, sim_bind},
        .volume_binder = &m->vols.binder,
        .reporter = {m, on_scheduled, on_unschedulable, on_bind_failed, NULL, on_preempted,
                     .gated = on_gated},
        .evictor = {m, sim_evict, sim_set_nomination},
        .http = o->http,
        .seed = m->seed = o->has_seed ? o->seed : cfg->has_seed ? cfg->seed : DEFAULT_SEED,
        .profile_out_of_tree = m->policies ? ms_policy_set_profile_plugins(m->policies) : NULL,
        .n_profile_out_of_tree = m->policies ? ms_policy_set_profile_counts(m->policies) : NULL,
        /* --explain wants the pod's last cycle kept, however early it ran;
         * without it nothing asks, and writing a record per cycle cost
         * about a tenth of a 500-node cycle (cold record lines) */
        .explain_cycles = o->explain ? (int32_t)(m->npods < 1000000 ? 4 * m->npods + 1024 : 0) : -1,
        .trace_pods = o->output == MS_OUTPUT_HTML && !o->quiet ? ms_sim_report_explained_pods(m->nnodes) : 0,
    };
    if ((rc = ms_scheduler_new(&so, &m->sched, err)) != MS_OK) {
        /* Profiles are checked against the plugin registry only here. */
        if (o->config_file && rc == MS_EINVAL) ms_error_prefix(err, "%s", o->config_file);
        return rc;
    }
    if (m->policies) rc = ms_policy_set_attach(m->policies, m->sched, err);
    return rc;
}

/* --explain NS/NAME over the cluster as the run left it. */
static ms_rc print_explain(sim *m, ms_error *err) {
    const char *slash = strchr(m->o->explain, '/');
    char ns[256];
    snprintf(ns, sizeof ns, "%.*s", (int)(slash - m->o->explain), m->o->explain);
    cJSON *e = NULL;
    ms_rc rc = ms_scheduler_explain(m->sched, ns, slash + 1, m->now, &e, err);
    if (rc != MS_OK) return rc;
    ms_explain_add_policies(e, m->policies);
    if (m->o->output == MS_OUTPUT_JSON) {
        char *text = cJSON_Print(e);
        if (text) fprintf(m->out, "%s\n", text);
        free(text);
    } else {
        ms_explain_print(m->out, e);
    }
    cJSON_Delete(e);
    return MS_OK;
}

static void print_output(sim *m) {
    if (m->o->output == MS_OUTPUT_HTML) ms_sim_print_html(m);
    else if (m->o->output == MS_OUTPUT_JSON) ms_sim_print_json(m);
    else ms_sim_print_table(m);
}

/* Latencies, rates, memory and the policies' totals. */
static void fill_figures(sim *m, ms_simulate_result *r) {
    if (m->nlat) qsort(m->lat, m->nlat, sizeof *m->lat, cmp_double);   /* none placed: m->lat is NULL */
    r->latency_p50 = percentile(m->lat, m->nlat, 50);
    r->latency_p99 = percentile(m->lat, m->nlat, 99);
    r->preempted = m->npre;
    r->pods_per_second = r->schedule_seconds > 0 ? r->scheduled / r->schedule_seconds : 0;
    r->pods_per_cpu_second = r->schedule_cpu_seconds > 0 ? r->scheduled / r->schedule_cpu_seconds : 0;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) r->peak_rss_mib = (double)ru.ru_maxrss / 1024.0;
    if (!m->policies) return;
    ms_policy_set_totals pt;
    ms_policy_set_get_totals(m->policies, &pt);
    r->policies = pt.policies;
    /* Added to the descheduling pass's, counted already. */
    r->policy_calls += pt.calls;
    r->policy_failures += pt.failures;
    r->policy_disabled += pt.disabled;
    r->policy_reloads = pt.reloads_ok;
    r->policy_reloads_failed = pt.reloads_failed;
    r->reload_latency_max = pt.reload_latency_max;
}

ms_rc ms_simulate_run(const ms_simulate_options *o, FILE *out, FILE *diag,
                      ms_simulate_result *result, ms_error *err) {
    double t0 = ms_clock_monotonic();
    ms_simulate_result r;
    memset(&r, 0, sizeof r);
    sim m;
    memset(&m, 0, sizeof m);
    m.o = o;
    m.out = out;
    m.diag = diag;
    m.keep_details = !o->quiet;
    ms_map_init(&m.pl_index);
    ms_map_init(&m.before);
    m.in = ms_interner_new();
    if (!m.in) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_decoder_init(&m.dec, m.in);
    ms_sim_volumes_init(&m.vols, m.in);

    ms_config cfg;
    memset(&cfg, 0, sizeof cfg);
    ms_rc rc = o->config_file ? ms_config_load_file(&cfg, o->config_file, warn_config, &m, err)
                              : ms_config_default(&cfg);
    if (rc != MS_OK) {
        if (!o->config_file) ms_error_set(err, rc, "building the default configuration failed");
        goto done;
    }
    /* Extenders receive the objects as they were written. */
    m.dec.keep_raw = cJSON_GetArraySize(cfg.extenders) > 0;
    if ((rc = load_inputs(&m, &r, err)) != MS_OK) goto done;

    if ((rc = build_scheduler(&m, &cfg, err)) != MS_OK) goto done;
    if ((rc = feed(&m, &r)) != MS_OK) goto done;
    if (o->output == MS_OUTPUT_HTML) ms_sim_keep_before(&m);
    if ((rc = run_loop(&m, &r)) != MS_OK) {
        ms_error_set(err, rc, "out of memory");
        goto done;
    }
    ms_queue_each(ms_scheduler_queue(m.sched), on_left_over, &m);
    for (uint32_t i = 0; i < m.npl; i++) {
        if (m.pl[i].node != MS_STR_NONE) r.scheduled++;
        else if (m.pl[i].preempted) r.preempted_placed++;
        else if (m.pl[i].gated) r.gated++;
        else r.unschedulable++;
    }
    if (o->evictions && (rc = eviction_timeline(&m, err)) != MS_OK) goto done;
    if (o->deschedule && (rc = deschedule(&m, &r, err)) != MS_OK) goto done;
    if (o->explain && !o->evictions && (rc = print_explain(&m, err)) != MS_OK) goto done;
    if (!o->quiet && !o->evictions && !o->explain && !o->deschedule) print_output(&m);
    if (m.oom) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto done;
    }
    fill_figures(&m, &r);
    r.wall_seconds = ms_clock_monotonic() - t0;
    /* Statistics follow the output when both go to a terminal. */
    fflush(m.out);
    if (o->stats) print_stats(&m, &r);
    print_policy_trouble(&m);
    if (result) *result = r;

done:
    sim_free(&m);
    ms_config_free(&cfg);
    return rc;
}
