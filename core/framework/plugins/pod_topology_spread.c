/* PodTopologySpread: pods spread over topology domains (zones, nodes, ...)
 * by their topologySpreadConstraints, or by default constraints when they
 * have none. DoNotSchedule constraints filter nodes whose domain would get
 * too far ahead of the least loaded one; ScheduleAnyway constraints score
 * nodes by how many matching pods their domains already hold.
 *
 * This file: the plugin's arguments, the constraints of a pod, and the node
 * inclusion policies and pod counting that Filter and Score share. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "api/selector_build.h"
#include "api/toleration.h"
#include "api/validation.h"
#include "api/workload_set.h"
#include "plugin_args.h"
#include "pod_topology_spread.h"

#define PLUGIN PTS_NAME

static ms_rc oom(ms_error *err) { return ms_error_set(err, MS_ENOMEM, PLUGIN " args: out of memory"); }

static const char *const defaulting_types[] = {"System", "List", NULL};
static const char *const inclusion_policies[] = {"Honor", "Ignore", NULL};

static ms_rc inclusion_policy(const cJSON *j, const char *path, uint8_t *out, ms_error *err) {
    *out = MS_POLICY_UNSET;
    if (!j || cJSON_IsNull(j)) return MS_OK;
    const char *v;
    ms_rc rc = ms_args_string(j, PLUGIN, path, &v, err);
    if (rc) return rc;
    if (strcmp(v, "Honor") == 0) *out = MS_POLICY_HONOR;
    else if (strcmp(v, "Ignore") == 0) *out = MS_POLICY_IGNORE;
    else if (*v)
        return ms_args_unsupported(PLUGIN, path, v, inclusion_policies, err);
    return MS_OK;
}

/* A default constraint's topologyKey: required, a qualified name. */
static ms_rc parse_topology_key(pts_plugin *pl, const cJSON *j, const char *path, ms_topology_spread *o,
                                ms_error *err) {
    char sub[96];
    ms_rc rc;
    const char *key = "";
    const cJSON *jk = cJSON_GetObjectItemCaseSensitive(j, "topologyKey");
    snprintf(sub, sizeof sub, "%s.topologyKey", path);
    if (jk && !cJSON_IsNull(jk) && (rc = ms_args_string(jk, PLUGIN, sub, &key, err))) return rc;
    if (!*key)
        return ms_error_set(err, MS_EINVAL, PLUGIN " args: %s: Required value: can not be empty",
                            sub);
    if (ms_qualified_name_problem(key, strlen(key)))
        return ms_args_invalid(PLUGIN, sub, key, "not a valid label name", err);
    if (!(o->topology_key = ms_intern_cstr(pl->in, key))) return oom(err);
    return MS_OK;
}

static const char *const when_unsatisfiable[] = {"DoNotSchedule", "ScheduleAnyway", NULL};

/* A default constraint's whenUnsatisfiable: required. */
static ms_rc parse_when(const cJSON *j, const char *path, ms_topology_spread *o, ms_error *err) {
    char sub[96];
    ms_rc rc;
    const char *when = "";
    const cJSON *jw = cJSON_GetObjectItemCaseSensitive(j, "whenUnsatisfiable");
    snprintf(sub, sizeof sub, "%s.whenUnsatisfiable", path);
    if (jw && !cJSON_IsNull(jw) && (rc = ms_args_string(jw, PLUGIN, sub, &when, err))) return rc;
    if (!*when)
        return ms_error_set(err, MS_EINVAL, PLUGIN " args: %s: Required value: can not be empty",
                            sub);
    if (strcmp(when, "DoNotSchedule") == 0) o->when_unsatisfiable = MS_DO_NOT_SCHEDULE;
    else if (strcmp(when, "ScheduleAnyway") == 0) o->when_unsatisfiable = MS_SCHEDULE_ANYWAY;
    else
        return ms_args_unsupported(PLUGIN, sub, when, when_unsatisfiable, err);
    return MS_OK;
}

/* One of args.defaultConstraints, checked as upstream's
 * ValidatePodTopologySpreadArgs checks it (first error only). */
static ms_rc parse_default(pts_plugin *pl, const cJSON *j, int i, ms_topology_spread *o,
                           ms_error *err) {
    static const char *const fields[] = {"maxSkew", "topologyKey", "whenUnsatisfiable",
                                         "labelSelector", "minDomains", "nodeAffinityPolicy",
                                         "nodeTaintsPolicy", "matchLabelKeys", NULL};
    char path[48], sub[96];
    snprintf(path, sizeof path, "defaultConstraints[%d]", i);
    ms_rc rc = ms_args_check_object(j, fields, PLUGIN, path, err);
    if (rc) return rc;

    int64_t skew = 0;
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(j, "maxSkew");
    snprintf(sub, sizeof sub, "%s.maxSkew", path);
    if (js && !cJSON_IsNull(js) && (rc = ms_args_int(js, PLUGIN, sub, &skew, err))) return rc;
    if (skew <= 0)
        return ms_error_set(err, MS_EINVAL,
                            PLUGIN " args: %s: Invalid value: %lld: not in valid range (0, inf)", sub,
                            (long long)skew);
    if (skew > INT32_MAX)
        return ms_error_set(err, MS_EINVAL, PLUGIN " args: %s: Invalid value: %lld: out of range",
                            sub, (long long)skew);
    o->max_skew = (int32_t)skew;

    if ((rc = parse_topology_key(pl, j, path, o, err)) || (rc = parse_when(j, path, o, err))) return rc;

    const cJSON *jl = cJSON_GetObjectItemCaseSensitive(j, "labelSelector");
    if (jl && !cJSON_IsNull(jl))
        return ms_error_set(err, MS_EINVAL,
                            PLUGIN " args: %s.labelSelector: Forbidden: constraint must not define "
                                   "a selector, as they deduced for each pod",
                            path);

    int64_t md = 0;
    const cJSON *jm = cJSON_GetObjectItemCaseSensitive(j, "minDomains");
    snprintf(sub, sizeof sub, "%s.minDomains", path);
    if (jm && !cJSON_IsNull(jm) && (rc = ms_args_int(jm, PLUGIN, sub, &md, err))) return rc;
    o->min_domains = md > INT32_MAX ? INT32_MAX : md < 0 ? 0 : (int32_t)md;

    snprintf(sub, sizeof sub, "%s.nodeAffinityPolicy", path);
    if ((rc = inclusion_policy(cJSON_GetObjectItemCaseSensitive(j, "nodeAffinityPolicy"), sub,
                               &o->node_affinity_policy, err)))
        return rc;
    snprintf(sub, sizeof sub, "%s.nodeTaintsPolicy", path);
    if ((rc = inclusion_policy(cJSON_GetObjectItemCaseSensitive(j, "nodeTaintsPolicy"), sub,
                               &o->node_taints_policy, err)))
        return rc;
    /* matchLabelKeys are accepted but have no effect: a default constraint's
     * selector is replaced by the default selector (as upstream). */
    int nk;
    snprintf(sub, sizeof sub, "%s.matchLabelKeys", path);
    if ((rc = ms_args_list(cJSON_GetObjectItemCaseSensitive(j, "matchLabelKeys"), PLUGIN, sub, &nk,
                           err)))
        return rc;
    return MS_OK;
}

static ms_rc parse_args(pts_plugin *pl, const cJSON *args, ms_error *err) {
    static const char *const fields[] = {"defaultConstraints", "defaultingType", NULL};
    pl->system_defaulted = true;
    if (!args || cJSON_IsNull(args)) return MS_OK;
    ms_rc rc = ms_args_check_object(args, fields, PLUGIN, "", err);
    if (rc) return rc;

    const char *type = "";
    const cJSON *jt = cJSON_GetObjectItemCaseSensitive(args, "defaultingType");
    if (jt && !cJSON_IsNull(jt) && (rc = ms_args_string(jt, PLUGIN, "defaultingType", &type, err)))
        return rc;
    /* v1's defaulting: an empty type is System. */
    if (!*type || strcmp(type, "System") == 0) pl->system_defaulted = true;
    else if (strcmp(type, "List") == 0) pl->system_defaulted = false;
    else
        return ms_args_unsupported(PLUGIN, "defaultingType", type, defaulting_types, err);

    const cJSON *jc = cJSON_GetObjectItemCaseSensitive(args, "defaultConstraints");
    int n;
    if ((rc = ms_args_list(jc, PLUGIN, "defaultConstraints", &n, err))) return rc;
    if (n > 0 && pl->system_defaulted)
        return ms_error_set(err, MS_EINVAL,
                            PLUGIN " args: defaultingType: Invalid value: \"System\": when "
                                   ".defaultConstraints are not empty");
    if (n == 0) return MS_OK;
    if (!(pl->defaults = MS_ARENA_NEW(&pl->arena, ms_topology_spread, n))) return oom(err);
    int i = 0;
    for (const cJSON *e = jc->child; e; e = e->next, i++) {
        ms_topology_spread *o = &pl->defaults[i];
        if ((rc = parse_default(pl, e, i, o, err))) return rc;
        for (int k = 0; k < i; k++)
            if (pl->defaults[k].topology_key == o->topology_key &&
                pl->defaults[k].when_unsatisfiable == o->when_unsatisfiable)
                return ms_error_set(
                    err, MS_EINVAL, PLUGIN " args: defaultConstraints[%d]: Duplicate value: \"{%s, %s}\"",
                    i, ms_str_get(pl->in, o->topology_key),
                    o->when_unsatisfiable == MS_DO_NOT_SCHEDULE ? "DoNotSchedule" : "ScheduleAnyway");
        pl->ndefaults++;
    }
    return MS_OK;
}

static void pts_destroy(void *self) {
    pts_plugin *pl = self;
    if (!pl) return;
    pts_tables_free(&pl->tables);
    ms_arena_free(&pl->arena);
    free(pl);
}

static ms_rc pts_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    pts_plugin *pl = calloc(1, sizeof *pl);
    if (!pl) return oom(err);
    ms_arena_init(&pl->arena, 512);
    pl->in = h->in;
    pl->workloads = h->workloads;
    static const char *const per_pod[3] = {"statefulset.kubernetes.io/pod-name",
                                           "controller-revision-hash", "apps.kubernetes.io/pod-index"};
    pl->hostname_key = ms_intern_cstr(h->in, "kubernetes.io/hostname");
    pl->zone_key = ms_intern_cstr(h->in, "topology.kubernetes.io/zone");
    pl->api_v1 = ms_intern_cstr(h->in, "v1");
    pl->api_apps_v1 = ms_intern_cstr(h->in, "apps/v1");
    pl->kind_rc = ms_intern_cstr(h->in, "ReplicationController");
    pl->kind_rs = ms_intern_cstr(h->in, "ReplicaSet");
    pl->kind_ss = ms_intern_cstr(h->in, "StatefulSet");
    bool ok = pl->hostname_key && pl->zone_key && pl->api_v1 && pl->api_apps_v1 && pl->kind_rc &&
              pl->kind_rs && pl->kind_ss;
    for (int i = 0; i < 3; i++) ok = ok && (pl->per_pod_labels[i] = ms_intern_cstr(h->in, per_pod[i]));
    ms_rc rc = ok ? parse_args(pl, args, err) : oom(err);
    if (rc) {
        pts_destroy(pl);
        return rc;
    }
    if (pl->system_defaulted) {
        /* upstream's systemDefaultConstraints. */
        if (!(pl->defaults = MS_ARENA_NEW(&pl->arena, ms_topology_spread, 2))) {
            pts_destroy(pl);
            return oom(err);
        }
        pl->defaults[0] = (ms_topology_spread){.max_skew = 3, .topology_key = pl->hostname_key,
                                               .when_unsatisfiable = MS_SCHEDULE_ANYWAY};
        pl->defaults[1] = (ms_topology_spread){.max_skew = 5, .topology_key = pl->zone_key,
                                               .when_unsatisfiable = MS_SCHEDULE_ANYWAY};
        pl->ndefaults = 2;
    }
    *self = pl;
    return MS_OK;
}

/* ---- constraints ---- */

static bool is_per_pod_label(const pts_plugin *pl, ms_str key) {
    for (int i = 0; i < 3; i++)
        if (pl->per_pod_labels[i] == key) return true;
    return false;
}

/* Without the objects of the pod's namespace (files for simulate that
 * list only pods, a server that refused the list), the pod's controller
 * stands in for them: a ReplicationController (v1), ReplicaSet or
 * StatefulSet (apps/v1; an absent apiVersion is accepted, files for
 * simulate may omit it) is taken to select the pod with the pod's own
 * labels, minus the labels a StatefulSet sets per pod (pod name, revision
 * hash, index), which would otherwise make every pod its own group. Pods
 * owned by nothing of that kind get an empty selector and so no default
 * constraints. */
static bool owner_selector(const pts_plugin *pl, ms_arena *a, const ms_pod *pod,
                           ms_label_selector *out) {
    *out = (ms_label_selector){0};
    const ms_owner_ref *o = ms_meta_controller(&pod->meta);
    if (!o) return true;
    ms_str api = o->api_version;
    bool known = (o->kind == pl->kind_rc && (api == pl->api_v1 || api == MS_STR_NONE)) ||
                 ((o->kind == pl->kind_rs || o->kind == pl->kind_ss) &&
                  (api == pl->api_apps_v1 || api == MS_STR_NONE));
    if (!known || pod->meta.labels.n == 0) return true;
    const ms_labels *l = &pod->meta.labels;
    ms_requirement *reqs = MS_ARENA_NEW(a, ms_requirement, l->n);
    if (!reqs) return false;
    uint32_t n = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        if (o->kind == pl->kind_ss && is_per_pod_label(pl, l->items[i].key)) continue;
        reqs[n++] = (ms_requirement){.key = l->items[i].key, .op = MS_OP_IN, .nvalues = 1,
                                     .values = &l->items[i].value};
    }
    out->n = n;
    out->reqs = reqs;
    return true;
}

/* upstream's helper.DefaultSelector: the selectors of the Services and
 * ReplicationControllers that select the pod, merged as one label set,
 * and the requirements of the ReplicaSets' and StatefulSets' selectors,
 * all ANDed. Read once per pod (PreFilter, PreScore), never per node. */
static bool default_selector(const pts_plugin *pl, ms_arena *a, const ms_pod *pod,
                             ms_label_selector *out) {
    uint32_t nw = 0;
    void *const *ws = pl->workloads ? ms_workload_set_in(pl->workloads, pod->meta.namespace_, &nw) : NULL;
    if (nw == 0) return owner_selector(pl, a, pod, out);
    *out = (ms_label_selector){0};
    uint32_t cap = 0;
    for (uint32_t i = 0; i < nw; i++) {
        const ms_workload *w = ws[i];
        if (ms_workload_selects(w, pod, pl->in)) cap += w->match.n ? w->match.n : w->selector.n;
    }
    if (cap == 0) return true;
    ms_requirement *reqs = MS_ARENA_NEW(a, ms_requirement, cap);
    if (!reqs) return false;
    uint32_t n = 0, nmap = 0;
    for (uint32_t i = 0; i < nw; i++) {
        const ms_workload *w = ws[i];
        if (w->match.n == 0 || !ms_workload_selects(w, pod, pl->in)) continue;
        /* labels.Merge: one requirement per key (the values agree, every
         * map matches the pod). */
        for (uint32_t j = 0; j < w->match.n; j++) {
            const ms_label *l = &w->match.items[j];
            uint32_t k = 0;
            while (k < nmap && reqs[k].key != l->key) k++;
            if (k == nmap)
                reqs[nmap++] = (ms_requirement){.key = l->key, .op = MS_OP_IN, .nvalues = 1,
                                                .values = (ms_str *)&l->value};
        }
    }
    n = nmap;
    for (uint32_t i = 0; i < nw; i++) {
        const ms_workload *w = ws[i];
        if (w->match.n || !ms_workload_selects(w, pod, pl->in)) continue;
        for (uint32_t j = 0; j < w->selector.n; j++) reqs[n++] = w->selector.reqs[j];
    }
    out->n = n;
    out->reqs = reqs;
    return true;
}

static void fill(const pts_plugin *pl, const ms_topology_spread *t, bool scoring,
                 pts_constraint *c) {
    c->max_skew = t->max_skew;
    c->min_domains = t->min_domains > 0 ? t->min_domains : 1;
    c->key = t->topology_key;
    /* Unset nodeAffinityPolicy means Honor, unset nodeTaintsPolicy Ignore. */
    c->honor_affinity = t->node_affinity_policy != MS_POLICY_IGNORE;
    c->honor_taints = t->node_taints_policy == MS_POLICY_HONOR;
    c->per_node = scoring && t->topology_key == pl->hostname_key;
}

bool pts_constraints(const pts_plugin *pl, ms_arena *a, const ms_pod *pod, uint8_t when,
                     pts_set *out) {
    *out = (pts_set){.pod = pod, .ns = pod->meta.namespace_,
                     .scoring = when == MS_SCHEDULE_ANYWAY};
    bool own = pod->ntopology_spread > 0;
    const ms_topology_spread *list = own ? pod->topology_spread : pl->defaults;
    uint32_t total = own ? pod->ntopology_spread : pl->ndefaults;
    uint32_t n = 0;
    for (uint32_t i = 0; i < total; i++) n += list[i].when_unsatisfiable == when;
    if (n == 0) return true;
    ms_label_selector def;
    if (!own) {
        /* buildDefaultConstraints: no selector, no constraints. */
        if (!default_selector(pl, a, pod, &def)) return false;
        if (def.n == 0) return true;
    }
    pts_constraint *cs = MS_ARENA_NEW(a, pts_constraint, n);
    if (!cs) return false;
    uint32_t k = 0;
    for (uint32_t i = 0; i < total; i++) {
        const ms_topology_spread *t = &list[i];
        if (t->when_unsatisfiable != when) continue;
        fill(pl, t, out->scoring, &cs[k]);
        if (!own) cs[k].sel = def;
        else if (!ms_label_selector_merge_label_keys(a, &t->selector, t->match_label_keys, t->nmatch_label_keys,
                                                     &pod->meta.labels, &cs[k].sel))
            return false;
        k++;
    }
    out->n = n;
    out->c = cs;
    out->require_all = own || !pl->system_defaulted || !out->scoring;
    return true;
}

/* ---- shared by Filter and Score ---- */

bool pts_node_included(const pts_set *s, uint32_t k, const ms_node *node, const ms_interner *in) {
    const pts_constraint *c = &s->c[k];
    const ms_pod *pod = s->pod;
    if (c->honor_affinity) {
        if (pod->node_selector.n && !ms_labels_subset(&pod->node_selector, &node->meta.labels))
            return false;
        if (pod->has_node_affinity_required &&
            !ms_node_selector_matches(&pod->node_affinity_required, &node->meta.labels,
                                      node->meta.name, in))
            return false;
    }
    if (c->honor_taints && node->ntaints &&
        ms_find_untolerated_taint(node->taints, node->ntaints, pod->tolerations, pod->ntolerations,
                                  MS_DO_NOT_SCHEDULE_EFFECTS))
        return false;
    return true;
}

bool pts_node_has_keys(const pts_set *s, const ms_node *node) {
    for (uint32_t k = 0; k < s->n; k++)
        if (!ms_labels_has(&node->meta.labels, s->c[k].key)) return false;
    return true;
}

int32_t pts_count_matching(const ms_node_info *ni, const ms_label_selector *sel, ms_str ns,
                           const ms_interner *in) {
    /* A nil selector matches nothing: no pod to look at. */
    if (sel->nothing) return 0;
    int32_t n = 0;
    for (uint32_t i = 0; i < ni->npods; i++) {
        const ms_pod *p = ni->pods[i];
        /* Terminating pods do not count (upstream #87621). */
        if (p->meta.deletion != 0 || p->meta.namespace_ != ns) continue;
        n += ms_label_selector_matches(sel, &p->meta.labels, in);
    }
    return n;
}

pts_cycle_state *pts_cycle_state_of(ms_cycle *c) {
    pts_cycle_state *cs = c->state[c->current];
    if (!cs && (cs = MS_ARENA_NEW(c->arena, pts_cycle_state, 1))) c->state[c->current] = cs;
    return cs;
}

const ms_plugin_ops ms_plugin_pod_topology_spread = {
    .name = PTS_NAME,
    /* upstream: Pod add / label update / delete (a forgotten assumed pod is
     * a delete; the pod's own update may change its tolerations or the
     * values of its matchLabelKeys), Node add / delete / label / taint. */
    .events = MS_EV_ASSIGNED_POD_ADD | MS_EV_ASSIGNED_POD_UPDATE | MS_EV_ASSIGNED_POD_DELETE |
              MS_EV_FORGET | MS_EV_UNSCHEDULED_POD_UPDATE | MS_EV_NODE_ADD | MS_EV_NODE_DELETE |
              MS_EV_NODE_LABEL | MS_EV_NODE_TAINT,
    .create = pts_create,
    .destroy = pts_destroy,
    .pre_filter = pts_pre_filter,
    .filter = pts_filter,
    .pre_score = pts_pre_score,
    .score = pts_score,
    .normalize_score = pts_normalize_score,
};
