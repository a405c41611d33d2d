/* `simulate --deschedule`: the pass, its placement oracle (the simulated
 * scheduler, through the caller's move and undo) and the report. */
#include "simulate/simulate_deschedule.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "descheduler/cluster.h"
#include "descheduler/descheduler.h"
#include "moonsched/lua_policy.h"
#include "policy/desched_lua.h"
#include "descheduler/plugin.h"

typedef struct dsim {
    const ms_deschedule_sim_options *o;
    ms_arena reasons;              /* skip reasons built per pod */
} dsim;

static const char *keep(dsim *d, const char *text) {
    const char *s = ms_arena_strdup(&d->reasons, text);
    return s ? s : "out of memory";
}

/* The placement oracle: where the replacement goes, or why the eviction
 * is not worth it (then the move is taken back). */
static const char *place(void *ctx, ms_desched_pass *ps, ms_pod *p, ms_str node, ms_str *dest) {
    dsim *d = ctx;
    const ms_deschedule_sim_options *o = d->o;
    /* A failed pod holds no room and its replacement starts afresh. */
    if (ms_pod_is_terminal(p)) return NULL;
    char why[400], text[600];
    ms_str to = o->move(o->ctx, p, why, sizeof why);
    const char *reason = NULL;
    if (to == MS_STR_NONE) {
        snprintf(text, sizeof text, "it fits nowhere else %s", why);
        reason = keep(d, text);
    } else if (to == node) {
        snprintf(text, sizeof text, "it would land back on %s", ms_str_get(o->in, node));
        reason = keep(d, text);
    } else if (ps->plugin && ps->plugin->def->target_violation) {
        const ms_node_info *target = o->live(o->ctx, to);
        const char *v = target ? ps->plugin->def->target_violation(ps->plugin->args, ps, p, target) : NULL;
        if (v) {
            snprintf(text, sizeof text, "%s (%s)", v, ms_str_get(o->in, to));
            reason = keep(d, text);
        }
    }
    if (!reason && o->hooks && o->hooks->evict) {
        char failed[400];
        const char *no = o->hooks->evict(o->hooks->ctx, o->in, p, ps->profile->name, ps->strategy, to, failed,
                                         sizeof failed);
        if (no) reason = keep(d, no);
    }
    if (reason) o->undo(o->ctx, p);
    else *dest = to;
    return reason;
}

/* PodsWithoutPDB: a budget of the pod's namespace selects it, by the
 * API's rule (policy/v1: an empty selector selects every pod; v1beta1:
 * none), as the Eviction API will apply it. */
static bool has_pdb(void *ctx, const ms_pod *p) {
    const ms_deschedule_sim_options *o = ctx;
    for (uint32_t i = 0; i < o->npdbs; i++) {
        const ms_pdb *b = o->pdbs[i];
        if (b->meta.namespace_ != p->meta.namespace_) continue;
        if (b->selector_empty ? b->api_version == MS_PDB_POLICY_V1
                              : ms_label_selector_matches(&b->selector, &p->meta.labels, o->in))
            return true;
    }
    return false;
}

/* namespaceLabelSelector: the labels of the namespace objects read. */
static const ms_labels *namespace_labels(void *ctx, ms_str ns) {
    const ms_deschedule_sim_options *o = ctx;
    for (uint32_t i = 0; i < o->nnamespaces; i++)
        if (o->namespaces[i]->meta.name == ns) return &o->namespaces[i]->meta.labels;
    return NULL;
}

/* One node's line of the BEFORE or AFTER table. */
typedef struct node_usage {
    const char *name;
    double cpu, memory;            /* percent of allocatable */
    int64_t pods;
} node_usage;

static double percent(int64_t used, int64_t cap) {
    return cap > 0 ? (double)used * 100.0 / (double)cap : 0;
}

/* What the pods of the node request, Succeeded and Failed pods left out
 * as upstream's ListPodsOnANode leaves them out (they hold nothing). The
 * pass's NodeInfos keep them for RemoveFailedPods; the scheduler's (live)
 * never hold them. */
static bool node_usage_of(const dsim *d, const ms_desched_cluster *c, uint32_t i, bool live, node_usage *u) {
    const ms_deschedule_sim_options *o = d->o;
    const ms_node_info *ni = live ? o->live(o->ctx, c->nodes[i]->name) : c->nodes[i];
    if (!ni || !ni->node) return false;
    int64_t cpu = ni->requested.v[MS_RES_CPU], mem = ni->requested.v[MS_RES_MEMORY],
            pods = ni->requested.v[MS_RES_PODS];
    for (uint32_t k = 0; !live && k < ni->npods; k++) {
        const ms_pod *p = ni->pods[k];
        if (!ms_pod_is_terminal(p)) continue;
        cpu -= p->requests.v[MS_RES_CPU];
        mem -= p->requests.v[MS_RES_MEMORY];
        pods--;
    }
    *u = (node_usage){ms_str_get(o->in, ni->name), percent(cpu, ni->node->allocatable.v[MS_RES_CPU]),
                      percent(mem, ni->node->allocatable.v[MS_RES_MEMORY]), pods};
    return true;
}

static void print_utilisation(dsim *d, const char *title, const ms_desched_cluster *c, bool live) {
    const ms_deschedule_sim_options *o = d->o;
    fprintf(o->out, "%s\n%-24s %6s %6s %6s\n", title, "NODE", "CPU%", "MEM%", "PODS");
    node_usage u;
    for (uint32_t i = 0; i < c->nnodes; i++)
        if (node_usage_of(d, c, i, live, &u))
            fprintf(o->out, "%-24s %6.1f %6.1f %6lld\n", u.name, u.cpu, u.memory, (long long)u.pods);
    fputc('\n', o->out);
}

/* "before" / "after": [{node, cpu, memory, pods}], the table's figures. */
static void add_utilisation_json(dsim *d, cJSON *root, const char *key, const ms_desched_cluster *c, bool live) {
    cJSON *arr = cJSON_AddArrayToObject(root, key);
    node_usage u;
    for (uint32_t i = 0; arr && i < c->nnodes; i++) {
        cJSON *n = node_usage_of(d, c, i, live, &u) ? cJSON_CreateObject() : NULL;
        if (!n) continue;
        cJSON_AddStringToObject(n, "node", u.name);
        cJSON_AddNumberToObject(n, "cpu", round(u.cpu * 10) / 10);
        cJSON_AddNumberToObject(n, "memory", round(u.memory * 10) / 10);
        cJSON_AddNumberToObject(n, "pods", (double)u.pods);
        cJSON_AddItemToArray(arr, n);
    }
}

static void print_table(dsim *d, const ms_desched_pass *ps) {
    FILE *f = d->o->out;
    const ms_interner *in = d->o->in;
    char key[320];
    fprintf(f, "%-40s %-20s %-20s %-40s %s\n", "EVICTED POD", "FROM", "TO", "STRATEGY", "REASON");
    for (uint32_t i = 0; i < ps->nevictions; i++) {
        const ms_desched_eviction *e = &ps->evictions[i];
        ms_pod_key(e->pod, in, key, sizeof key);
        fprintf(f, "%-40s %-20s %-20s %-40s %s\n", key, ms_str_get(in, e->node),
                e->dest ? ms_str_get(in, e->dest) : "-", e->strategy, e->reason);
    }
    fprintf(f, "\n%-40s %-20s %-40s %s\n", "SKIPPED POD", "NODE", "STRATEGY", "REASON");
    for (uint32_t i = 0; i < ps->nskips; i++) {
        const ms_desched_skip *s = &ps->skips[i];
        ms_pod_key(s->pod, in, key, sizeof key);
        fprintf(f, "%-40s %-20s %-40s %s\n", key, ms_str_get(in, s->node), s->strategy, s->reason);
    }
    fprintf(f, "\n%u evicted, %u skipped\n\n", ps->nevictions, ps->nskips);
}

static cJSON *pod_json(const ms_interner *in, const ms_pod *p, ms_str node, const char *strategy,
                       const char *reason) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "namespace", ms_str_get(in, p->meta.namespace_));
    cJSON_AddStringToObject(o, "name", ms_str_get(in, p->meta.name));
    cJSON_AddStringToObject(o, "node", ms_str_get(in, node));
    cJSON_AddStringToObject(o, "strategy", strategy ? strategy : "");
    cJSON_AddStringToObject(o, "reason", reason);
    return o;
}

static void print_json(dsim *d, const ms_desched_pass *ps, const ms_desched_cluster *c) {
    const ms_interner *in = d->o->in;
    cJSON *root = cJSON_CreateObject();
    if (root) add_utilisation_json(d, root, "before", c, false);
    cJSON *ev = cJSON_AddArrayToObject(root, "evictions"),
          *sk = cJSON_AddArrayToObject(root, "skipped");
    for (uint32_t i = 0; ev && i < ps->nevictions; i++) {
        const ms_desched_eviction *e = &ps->evictions[i];
        cJSON *o = pod_json(in, e->pod, e->node, e->strategy, e->reason);
        if (o && e->dest) cJSON_AddStringToObject(o, "to", ms_str_get(in, e->dest));
        if (o) cJSON_AddItemToArray(ev, o);
    }
    for (uint32_t i = 0; sk && i < ps->nskips; i++) {
        const ms_desched_skip *s = &ps->skips[i];
        cJSON *o = pod_json(in, s->pod, s->node, s->strategy, s->reason);
        if (o) cJSON_AddItemToArray(sk, o);
    }
    if (root) add_utilisation_json(d, root, "after", c, true);
    char *text = root ? cJSON_Print(root) : NULL;
    if (text) fprintf(d->o->out, "%s\n", text);
    cJSON_free(text);
    cJSON_Delete(root);
}

static ms_rc run_pass(dsim *d, const ms_desched_policy *policy, const ms_desched_cluster *c,
                      ms_deschedule_sim_result *r, ms_error *err) {
    const ms_deschedule_sim_options *o = d->o;
    ms_desched_pass ps;
    if (ms_desched_pass_init(&ps, policy, o->in, c->nodes, c->nnodes, o->now) != 0) {
        ms_desched_pass_free(&ps);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    ps.place = place;
    ps.place_ctx = d;
    ps.live = o->live;
    ps.live_ctx = o->ctx;
    ps.env.has_pdb = has_pdb;
    ps.env.pdb_ctx = (void *)o;
    ps.env.namespace_labels = namespace_labels;
    ps.env.ns_ctx = (void *)o;
    ps.env.claim_class = o->claim_class;
    ps.env.claim_ctx = o->ctx;
    if (o->hooks) {
        ps.strategy_done = o->hooks->strategy_done;
        ps.done_ctx = o->hooks->ctx;
    }
    ms_desched_run(&ps);
    ms_rc rc = ps.failed ? ms_error_set(err, MS_ENOMEM, "out of memory") : MS_OK;
    if (rc == MS_OK && o->output == MS_OUTPUT_JSON) {
        print_json(d, &ps, c);
    } else if (rc == MS_OK) {
        print_utilisation(d, "BEFORE", c, false);
        print_table(d, &ps);
        print_utilisation(d, "AFTER", c, true);
    }
    if (r) {
        r->evicted = ps.nevictions;
        r->skipped = ps.nskips;
    }
    ms_desched_pass_free(&ps);
    return rc;
}

static bool priority_class(void *ctx, ms_str name, int32_t *value) {
    const ms_deschedule_sim_options *o = ctx;
    for (uint32_t i = 0; i < o->npriority_classes; i++)
        if (o->priority_classes[i].name == name) {
            *value = o->priority_classes[i].value;
            return true;
        }
    return false;
}

/* Each profile's priorityThreshold.name against the cluster's
 * PriorityClasses; a class that does not exist fails the pass with
 * upstream's message and the profile's name. */
static ms_rc resolve_priorities(ms_desched_policy *policy, const ms_deschedule_sim_options *o, ms_error *err) {
    for (uint32_t i = 0; i < policy->nprofiles; i++) {
        ms_desched_profile *prof = &policy->profiles[i];
        ms_error e = {0};
        if (ms_default_evictor_resolve(&prof->evictor, o->in, priority_class, (void *)o, &e) != MS_OK)
            return ms_error_set(err, MS_EINVAL, "profile \"%s\": %s", prof->name, e.msg);
    }
    return MS_OK;
}

void ms_simulate_policy_trouble(FILE *f, const char *plugin, const char *profile, const ms_policy *p) {
    ms_policy_stats st;
    ms_policy_get_stats(p, &st);
    bool disabled = ms_policy_disabled(p);
    if (st.failures == 0 && !disabled) return;
    fprintf(f, "moonsched: policy %s (profile %s): %llu of %llu calls failed%s; the last: %s\n", plugin,
            profile, (unsigned long long)st.failures, (unsigned long long)st.calls,
            disabled ? ", disabled" : "", ms_policy_last_error(p));
}

/* The trouble line of each descheduling policy, and their figures into r:
 * a pass whose evictions look fine may owe them to a policy that stopped
 * judging. */
static void report_policies(const ms_deschedule_sim_options *o, const ms_desched_policy *policy,
                            ms_deschedule_sim_result *r) {
    for (uint32_t i = 0; i < policy->nprofiles; i++) {
        const ms_desched_profile *prof = &policy->profiles[i];
        for (uint32_t j = 0; j < prof->npolicies; j++) {
            const ms_policy *p = prof->policies[j].policy;
            ms_policy_stats st;
            ms_policy_get_stats(p, &st);
            if (r) {
                r->policy_calls += st.calls;
                r->policy_failures += st.failures;
                r->policy_disabled += st.disabled;
            }
            if (o->diag) ms_simulate_policy_trouble(o->diag, prof->policies[j].name, prof->name, p);
        }
    }
}

ms_rc ms_deschedule_simulation(const ms_deschedule_sim_options *o, ms_deschedule_sim_result *r,
                               ms_error *err) {
    ms_desched_policy policy;
    ms_desched_reader rd = {o->hooks ? o->hooks->read_file : NULL, o->hooks ? o->hooks->ctx : NULL};
    ms_rc rc = ms_desched_policy_load_with(&policy, o->policy_file, rd.read ? &rd : NULL, &ms_desched_lua_extension, o->in, err);
    if (rc == MS_OK) rc = resolve_priorities(&policy, o, err);
    if (rc != MS_OK) {
        ms_desched_policy_free(&policy);
        return rc;
    }
    ms_desched_cluster c;
    if ((rc = ms_desched_cluster_build(&c, o->in, o->nodes, o->nnodes, o->pods, o->npods, err)) != MS_OK) {
        ms_desched_policy_free(&policy);
        return rc;
    }
    dsim d = {.o = o};
    ms_arena_init(&d.reasons, 4096);
    rc = run_pass(&d, &policy, &c, r, err);
    if (rc == MS_OK) report_policies(o, &policy, r);
    ms_arena_free(&d.reasons);
    ms_desched_cluster_free(&c);
    ms_desched_policy_free(&policy);
    return rc;
}
