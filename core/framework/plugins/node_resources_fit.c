/* NodeResourcesFit: the node must have room for the pod's requests (and one
 * more pod); nodes are scored by a configurable strategy (LeastAllocated,
 * MostAllocated, RequestedToCapacityRatio) over weighted resources. */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation.h"
#include "builtin.h"
#include "plugin_args.h"
#include "resource_allocation.h"

#define PLUGIN "NodeResourcesFit"

enum { LEAST_ALLOCATED = 0, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO };

/* RequestedToCapacityRatio shapes are given on a 0..10 score scale
 * (upstream's MaxCustomPriorityScore) and used on the 0..100 one. */
#define MAX_CUSTOM_PRIORITY_SCORE 10
#define MAX_UTILIZATION 100

typedef struct shape_point {
    int64_t utilization;
    int64_t score;   /* already scaled to MS_MAX_NODE_SCORE */
} shape_point;

typedef struct fit {
    ms_interner *in;
    uint32_t nignored;
    ms_str *ignored;           /* ignoredResources (extended resources only) */
    uint32_t ngroups;
    char **groups;             /* ignoredResourceGroups: the part before '/' */
    int strategy;
    ms_resource_allocation ra;
    uint32_t nshape;
    shape_point *shape;
} fit;

/* A scalar resource the pod requests, with the reason to report when a node
 * lacks it. The reason is interned, so it outlives the cycle. */
typedef struct scalar_check {
    ms_str name;
    int64_t quantity;
    const char *reason;
} scalar_check;

/* Filter data comes from PreFilter, score data from PreScore; both live in
 * the plugin's one cycle-state slot. */
typedef struct fit_state {
    bool prefiltered;
    bool requests_nothing;
    int64_t cpu, memory, ephemeral;
    uint32_t nscalar;
    scalar_check *scalar;
    bool prescored;
    int64_t pod_req[MS_RA_MAX_RESOURCES];
} fit_state;

static void fit_destroy(void *self) {
    fit *f = self;
    if (!f) return;
    for (uint32_t i = 0; i < f->ngroups; i++) free(f->groups[i]);
    free(f->groups);
    free(f->ignored);
    free(f->shape);
    free(f);
}

static ms_rc oom(ms_error *err) { return ms_error_set(err, MS_ENOMEM, PLUGIN " args: out of memory"); }

static ms_rc parse_ignored(fit *f, const cJSON *args, ms_error *err) {
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(args, "ignoredResources");
    const cJSON *grp = cJSON_GetObjectItemCaseSensitive(args, "ignoredResourceGroups");
    int nres, ngrp;
    ms_rc rc = ms_args_list(res, PLUGIN, "ignoredResources", &nres, err);
    if (rc || (rc = ms_args_list(grp, PLUGIN, "ignoredResourceGroups", &ngrp, err))) return rc;
    if (nres && !(f->ignored = calloc((size_t)nres, sizeof *f->ignored))) return oom(err);
    if (ngrp && !(f->groups = calloc((size_t)ngrp, sizeof *f->groups))) return oom(err);
    char path[64];
    int i = 0;
    for (const cJSON *e = nres ? res->child : NULL; e; e = e->next, i++) {
        const char *s;
        snprintf(path, sizeof path, "ignoredResources[%d]", i);
        if ((rc = ms_args_string(e, PLUGIN, path, &s, err))) return rc;
        if (ms_qualified_name_problem(s, strlen(s)))
            return ms_args_invalid(PLUGIN, path, s, "not a valid resource name", err);
        if (!(f->ignored[f->nignored++] = ms_intern_cstr(f->in, s))) return oom(err);
    }
    i = 0;
    for (const cJSON *e = ngrp ? grp->child : NULL; e; e = e->next, i++) {
        const char *s;
        snprintf(path, sizeof path, "ignoredResourceGroups[%d]", i);
        if ((rc = ms_args_string(e, PLUGIN, path, &s, err))) return rc;
        if (strchr(s, '/'))
            return ms_args_invalid(PLUGIN, path, s, "resource group name can't contain '/'", err);
        if (ms_qualified_name_problem(s, strlen(s)))
            return ms_args_invalid(PLUGIN, path, s, "not a valid resource group name", err);
        if (!(f->groups[f->ngroups++] = strdup(s))) return oom(err);
    }
    return MS_OK;
}

/* validateFunctionShape, then the scaling to the node score range. */
static ms_rc parse_shape(fit *f, const cJSON *rtcr, ms_error *err) {
    static const char *const rtcr_fields[] = {"shape", NULL};
    static const char *const point_fields[] = {"utilization", "score", NULL};
    const char *where = "scoringStrategy.requestedToCapacityRatio";
    ms_rc rc = ms_args_check_object(rtcr, rtcr_fields, PLUGIN, where, err);
    if (rc) return rc;
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(rtcr, "shape");
    int n;
    if ((rc = ms_args_list(shape, PLUGIN, "scoringStrategy.requestedToCapacityRatio.shape", &n, err)))
        return rc;
    if (n == 0)
        return ms_error_set(err, MS_EINVAL,
                            PLUGIN " args: scoringStrategy.requestedToCapacityRatio.shape: Required "
                            "value: at least one point must be specified");
    if (!(f->shape = calloc((size_t)n, sizeof *f->shape))) return oom(err);
    char item[96], path[128];
    int i = 0;
    for (const cJSON *e = shape->child; e; e = e->next, i++) {
        snprintf(item, sizeof item, "scoringStrategy.requestedToCapacityRatio.shape[%d]", i);
        if ((rc = ms_args_check_object(e, point_fields, PLUGIN, item, err))) return rc;
        int64_t u = 0, s = 0;
        const cJSON *ju = cJSON_GetObjectItemCaseSensitive(e, "utilization");
        const cJSON *js = cJSON_GetObjectItemCaseSensitive(e, "score");
        snprintf(path, sizeof path, "%s.utilization", item);
        if (ju && (rc = ms_args_int(ju, PLUGIN, path, &u, err))) return rc;
        if (i > 0 && f->shape[i - 1].utilization >= u)
            return ms_error_set(err, MS_EINVAL,
                                PLUGIN " args: %s: Invalid value: %lld: values must be sorted in "
                                "increasing order",
                                path, (long long)u);
        if (u < 0 || u > MAX_UTILIZATION)
            return ms_error_set(err, MS_EINVAL,
                                PLUGIN " args: %s: Invalid value: %lld: not in valid range [0, %d]",
                                path, (long long)u, MAX_UTILIZATION);
        snprintf(path, sizeof path, "%s.score", item);
        if (js && (rc = ms_args_int(js, PLUGIN, path, &s, err))) return rc;
        if (s < 0 || s > MAX_CUSTOM_PRIORITY_SCORE)
            return ms_error_set(err, MS_EINVAL,
                                PLUGIN " args: %s: Invalid value: %lld: not in valid range [0, %d]",
                                path, (long long)s, MAX_CUSTOM_PRIORITY_SCORE);
        f->shape[i].utilization = u;
        f->shape[i].score = s * (MS_MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE);
    }
    f->nshape = (uint32_t)n;
    return MS_OK;
}

static const char *const strategies[] = {"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio", NULL};

static ms_rc parse_strategy(fit *f, const cJSON *ss, const ms_handle *h, ms_error *err) {
    static const char *const fields[] = {"type", "resources", "requestedToCapacityRatio", NULL};
    ms_rc rc = ms_args_check_object(ss, fields, PLUGIN, "scoringStrategy", err);
    if (rc) return rc;
    const cJSON *jt = cJSON_GetObjectItemCaseSensitive(ss, "type");
    const char *type = "";
    if (jt && !cJSON_IsNull(jt) && (rc = ms_args_string(jt, PLUGIN, "scoringStrategy.type", &type, err)))
        return rc;
    if (strcmp(type, "LeastAllocated") == 0) f->strategy = LEAST_ALLOCATED;
    else if (strcmp(type, "MostAllocated") == 0) f->strategy = MOST_ALLOCATED;
    else if (strcmp(type, "RequestedToCapacityRatio") == 0) f->strategy = REQUESTED_TO_CAPACITY_RATIO;
    else
        return ms_args_unsupported(PLUGIN, "scoringStrategy.type", type, strategies, err);
    if ((rc = ms_resource_allocation_parse(&f->ra, cJSON_GetObjectItemCaseSensitive(ss, "resources"),
                                           h, PLUGIN, "scoringStrategy.resources", err)))
        return rc;
    for (uint32_t i = 0; i < f->ra.n; i++) {
        int64_t w = f->ra.res[i].weight;
        if (w <= 0 || w > MS_MAX_NODE_SCORE)
            return ms_error_set(err, MS_EINVAL,
                                PLUGIN " args: scoringStrategy.resources[%u].weight: Invalid value: "
                                "%lld: resource weight of %s not in valid range (0, %d]",
                                i, (long long)w, ms_str_get(h->in, f->ra.res[i].name),
                                MS_MAX_NODE_SCORE);
    }
    const cJSON *rtcr = cJSON_GetObjectItemCaseSensitive(ss, "requestedToCapacityRatio");
    if (rtcr && !cJSON_IsNull(rtcr)) return parse_shape(f, rtcr, err);
    /* Upstream dereferences the missing shape; say what is missing instead. */
    if (f->strategy == REQUESTED_TO_CAPACITY_RATIO)
        return ms_error_set(err, MS_EINVAL,
                            PLUGIN " args: scoringStrategy.requestedToCapacityRatio.shape: Required "
                            "value: at least one point must be specified");
    return MS_OK;
}

static ms_rc fit_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    static const char *const fields[] = {"ignoredResources", "ignoredResourceGroups",
                                         "scoringStrategy", NULL};
    fit *f = calloc(1, sizeof *f);
    if (!f) return oom(err);
    f->in = h->in;
    f->strategy = LEAST_ALLOCATED;
    ms_resource_allocation_defaults(&f->ra, h);
    ms_rc rc = MS_OK;
    if (args && !cJSON_IsNull(args)) {
        const cJSON *ss = cJSON_GetObjectItemCaseSensitive(args, "scoringStrategy");
        if ((rc = ms_args_check_object(args, fields, PLUGIN, "", err)) ||
            (rc = parse_ignored(f, args, err)) ||
            (ss && !cJSON_IsNull(ss) && (rc = parse_strategy(f, ss, h, err)))) {
            fit_destroy(f);
            return rc;
        }
    }
    *self = f;
    return MS_OK;
}

static fit_state *state_of(ms_cycle *c) {
    fit_state *s = c->state[c->current];
    if (!s && (s = MS_ARENA_NEW(c->arena, fit_state, 1))) c->state[c->current] = s;
    return s;
}

/* v1helper.IsExtendedResourceName: not native (no '/', or kubernetes.io/),
 * not a quota "requests." name, and valid with that prefix added. */
static bool is_extended_resource(const char *name) {
    if (!strchr(name, '/') || strstr(name, "kubernetes.io/") || strncmp(name, "requests.", 9) == 0)
        return false;
    char quota[400];
    int n = snprintf(quota, sizeof quota, "requests.%s", name);
    return n > 0 && (size_t)n < sizeof quota && !ms_qualified_name_problem(quota, strlen(quota));
}

static bool ignored(const fit *f, ms_str name) {
    if (f->nignored == 0 && f->ngroups == 0) return false;
    const char *s = ms_str_get(f->in, name);
    if (!is_extended_resource(s)) return false;
    for (uint32_t i = 0; i < f->nignored; i++)
        if (f->ignored[i] == name) return true;
    size_t prefix = (size_t)(strchr(s, '/') - s);
    for (uint32_t i = 0; i < f->ngroups; i++)
        if (strlen(f->groups[i]) == prefix && strncmp(f->groups[i], s, prefix) == 0) return true;
    return false;
}

/* Everything about the pod's requests that Filter needs, once per pod. */
static ms_code fit_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    const fit *f = self;
    const ms_resources *r = &c->pod->requests;
    fit_state *s = state_of(c);
    scalar_check *checks = r->nscalar ? MS_ARENA_NEW(c->arena, scalar_check, r->nscalar) : NULL;
    if (!s || (r->nscalar && !checks)) return ms_status_set(st, MS_ERROR, "out of memory");
    s->cpu = r->v[MS_RES_CPU];
    s->memory = r->v[MS_RES_MEMORY];
    s->ephemeral = r->v[MS_RES_EPHEMERAL];
    s->requests_nothing = s->cpu == 0 && s->memory == 0 && s->ephemeral == 0 && r->nscalar == 0;
    s->nscalar = 0;
    s->scalar = checks;
    for (uint32_t i = 0; i < r->nscalar; i++) {
        ms_str name = r->scalar[i].name;
        if (r->scalar[i].value == 0 || ignored(f, name)) continue;
        char reason[400];
        snprintf(reason, sizeof reason, "Insufficient %s", ms_str_get(f->in, name));
        ms_str id = ms_intern_cstr(f->in, reason);
        if (id == MS_STR_NONE) return ms_status_set(st, MS_ERROR, "out of memory");
        checks[s->nscalar++] = (scalar_check){name, r->scalar[i].value, ms_str_get(f->in, id)};
    }
    s->prefiltered = true;
    return MS_SUCCESS;
}

/* fitsRequest's reasons for a node that does not fit. Every insufficient
 * resource is a reason; when the pod asks for more than the node has at
 * all, preemption cannot help: the status is UnschedulableAndUnresolvable. */
static ms_code __attribute__((noinline)) fit_reasons(const fit_state *s, const ms_node_info *ni,
                                                     ms_status *st) {
    const ms_resources *alloc = &ni->node->allocatable, *used = &ni->requested;
    bool unresolvable = false;
    st->nreasons = 0;
    if ((int64_t)ni->npods + 1 > alloc->v[MS_RES_PODS]) ms_status_add_reason(st, "Too many pods");
    if (!s->requests_nothing) {
        static const char *const reasons[] = {
            [MS_RES_CPU] = "Insufficient cpu",
            [MS_RES_MEMORY] = "Insufficient memory",
            [MS_RES_EPHEMERAL] = "Insufficient ephemeral-storage",
        };
        const int64_t want[] = {[MS_RES_CPU] = s->cpu, [MS_RES_MEMORY] = s->memory,
                                [MS_RES_EPHEMERAL] = s->ephemeral};
        for (int k = MS_RES_CPU; k <= MS_RES_EPHEMERAL; k++) {
            if (want[k] > 0 && want[k] > alloc->v[k] - used->v[k]) {
                ms_status_add_reason(st, reasons[k]);
                unresolvable |= want[k] > alloc->v[k];
            }
        }
        for (uint32_t i = 0; i < s->nscalar; i++) {
            const scalar_check *chk = &s->scalar[i];
            int64_t a = ms_resources_scalar(alloc, chk->name);
            if (chk->quantity > a - ms_resources_scalar(used, chk->name)) {
                ms_status_add_reason(st, chk->reason);
                unresolvable |= chk->quantity > a;
            }
        }
    }
    if (st->nreasons == 0) return MS_SUCCESS;
    st->code = (uint8_t)(unresolvable ? MS_UNSCHEDULABLE_AND_UNRESOLVABLE : MS_UNSCHEDULABLE);
    return (ms_code)st->code;
}

/* fitsRequest. Most nodes a cycle visits fit: that is decided with
 * straight-line comparisons; fit_reasons gathers the reasons for the others
 * (and checks scalar resources). */
static ms_code fit_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)self;
    const fit_state *s = c->state[c->current];
    if (!s || !s->prefiltered)
        return ms_status_set(st, MS_ERROR,
                             "error reading \"PreFilterNodeResourcesFit\" from cycleState: not found");
    if (!ni->node) return ms_status_set(st, MS_ERROR, "node not found");
    const int64_t *a = ni->node->allocatable.v, *u = ni->requested.v;
    if ((int64_t)ni->npods + 1 <= a[MS_RES_PODS] &&
        (s->requests_nothing ||
         (s->nscalar == 0 && !(s->cpu > 0 && s->cpu > a[MS_RES_CPU] - u[MS_RES_CPU]) &&
          !(s->memory > 0 && s->memory > a[MS_RES_MEMORY] - u[MS_RES_MEMORY]) &&
          !(s->ephemeral > 0 && s->ephemeral > a[MS_RES_EPHEMERAL] - u[MS_RES_EPHEMERAL]))))
        return MS_SUCCESS;
    return fit_reasons(s, ni, st);
}

static ms_code fit_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                             ms_status *st) {
    (void)nodes;
    (void)n;
    const fit *f = self;
    fit_state *s = state_of(c);
    if (!s) return ms_status_set(st, MS_ERROR, "out of memory");
    ms_resource_allocation_pod_requests(&f->ra, c->pod, s->pod_req);
    s->prescored = true;
    return MS_SUCCESS;
}

static int64_t least_requested_score(int64_t requested, int64_t capacity) {
    if (capacity == 0 || requested > capacity) return 0;
    return (capacity - requested) * MS_MAX_NODE_SCORE / capacity;
}

static int64_t most_requested_score(int64_t requested, int64_t capacity) {
    if (capacity == 0) return 0;
    /* Default requests of pods that request nothing can exceed capacity. */
    if (requested > capacity) requested = capacity;
    return requested * MS_MAX_NODE_SCORE / capacity;
}

/* helper.BuildBrokenLinearFunction: linear between points, flat outside. */
static int64_t broken_linear(const shape_point *shape, uint32_t n, int64_t p) {
    for (uint32_t i = 0; i < n; i++) {
        if (p <= shape[i].utilization) {
            if (i == 0) return shape[0].score;
            return shape[i - 1].score + (shape[i].score - shape[i - 1].score) *
                                            (p - shape[i - 1].utilization) /
                                            (shape[i].utilization - shape[i - 1].utilization);
        }
    }
    return shape[n - 1].score;
}

static int64_t node_score(const fit *f, const int64_t *requested, const int64_t *allocatable) {
    int64_t sum = 0, weights = 0;
    for (uint32_t i = 0; i < f->ra.n; i++) {
        if (allocatable[i] == 0) continue;
        int64_t w = f->ra.res[i].weight, s;
        switch (f->strategy) {
        case MOST_ALLOCATED: s = most_requested_score(requested[i], allocatable[i]); break;
        case REQUESTED_TO_CAPACITY_RATIO: {
            int64_t util = requested[i] > allocatable[i]
                               ? MAX_UTILIZATION
                               : requested[i] * MAX_UTILIZATION / allocatable[i];
            s = broken_linear(f->shape, f->nshape, util);
            /* Resources scoring 0 do not dilute the others. */
            if (s <= 0) continue;
            break;
        }
        default: s = least_requested_score(requested[i], allocatable[i]); break;
        }
        sum += s * w;
        weights += w;
    }
    if (weights == 0) return 0;
    if (f->strategy == REQUESTED_TO_CAPACITY_RATIO) return (int64_t)round((double)sum / (double)weights);
    return sum / weights;
}

/* node_score for the default resources under LeastAllocated or
 * MostAllocated, unrolled: this runs for every scored node. */
static void score_cpu_memory(const fit *f, ms_node_info *const *nodes, uint32_t n,
                             const int64_t *pod_req, int64_t *scores) {
    const int64_t w0 = f->ra.res[0].weight, w1 = f->ra.res[1].weight;
    const bool most = f->strategy == MOST_ALLOCATED;
    for (uint32_t i = 0; i < n; i++) {
        int64_t q[2], a[2], sum = 0, weights = 0;
        ms_resource_allocation_cpu_memory(&f->ra, nodes[i], pod_req, q, a);
        if (a[0] != 0) {
            sum += (most ? most_requested_score(q[0], a[0]) : least_requested_score(q[0], a[0])) * w0;
            weights += w0;
        }
        if (a[1] != 0) {
            sum += (most ? most_requested_score(q[1], a[1]) : least_requested_score(q[1], a[1])) * w1;
            weights += w1;
        }
        scores[i] = weights ? sum / weights : 0;
    }
}

static ms_code fit_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                         int64_t *scores, ms_status *st) {
    (void)st;
    const fit *f = self;
    const fit_state *s = c->state[c->current];
    int64_t fallback[MS_RA_MAX_RESOURCES];
    const int64_t *pod_req = s && s->prescored ? s->pod_req : fallback;
    if (pod_req == fallback) ms_resource_allocation_pod_requests(&f->ra, c->pod, fallback);
    if (f->strategy != REQUESTED_TO_CAPACITY_RATIO && ms_resource_allocation_is_cpu_memory(&f->ra)) {
        score_cpu_memory(f, nodes, n, pod_req, scores);
        return MS_SUCCESS;
    }
    int64_t requested[MS_RA_MAX_RESOURCES], allocatable[MS_RA_MAX_RESOURCES];
    for (uint32_t i = 0; i < n; i++) {
        ms_resource_allocation_node(&f->ra, nodes[i], pod_req, requested, allocatable);
        scores[i] = node_score(f, requested, allocatable);
    }
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_node_resources_fit = {
    .name = "NodeResourcesFit",
    /* Room appears when a pod goes away (deleted, turned terminal, or an
     * assumed pod forgotten) or a node with room appears or grows. */
    .events = MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET | MS_EV_NODE_ADD | MS_EV_NODE_ALLOCATABLE,
    .create = fit_create,
    .destroy = fit_destroy,
    .pre_filter = fit_pre_filter,
    .filter = fit_filter,
    .pre_score = fit_pre_score,
    .score = fit_score,
    .node_local = true,
};
