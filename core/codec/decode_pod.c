/* Pod decoding: the fields the scheduler reads, and the pod's effective
 * requests computed once as upstream's resource helpers do. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "base/array.h"
#include "codec/decode_internal.h"
#include "moonsched/decode.h"
#include "moonsched/pod.h"
#include "moonsched/selector.h"

/* State of one pod's resource computation. Upstream's PodRequests:
 *   sum      = regular containers + restartable init containers (sidecars)
 *   init     = max over init containers of (its own request + sidecars
 *              declared before it), or, for a sidecar, of all sidecars so far
 *   requests = max(sum, init), then pod-level resources, then + overhead.
 * Limits are combined the same way. The non-zero variant (scoring) is the
 * same sum with 100m / 200Mi standing in for each container's missing cpu /
 * memory request; only cpu and memory are kept for it. */
typedef struct podcalc {
    ms_arena scratch;
    ms_rlist creq, clim;          /* the current container, after defaulting */
    ms_rlist sum_req, sum_lim;
    ms_rlist side_req, side_lim;
    ms_rlist init_req, init_lim;
    int64_t nz_sum[2], nz_side[2], nz_init[2];
    int qos;                      /* -1 until the first container */

    ms_host_port *ports;
    uint32_t nports, cports;
    ms_str *images;
    uint32_t nimages, cimages, ninit_images;
} podcalc;

/* The values upstream's validation accepts, in its order. */
static const char *const protocols[] = {"SCTP", "TCP", "UDP", NULL};
static const char *const toleration_ops[] = {"Equal", "Exists", NULL};
static const char *const inclusion_policies[] = {"Honor", "Ignore", NULL};
static const char *const when_unsatisfiable[] = {"DoNotSchedule", "ScheduleAnyway", NULL};
static const char *const preemption_policies[] = {"Never", "PreemptLowerPriority", NULL};
static const char *const phases[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown", NULL};

static ms_rc unsupported(ms_dec *x, const char *key, const char *value, const char *const *supported) {
    return ms_json_unsupported(&x->r, key, value, supported);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* ---- containers ---- */

static ms_rc add_port(ms_dec *x, podcalc *pc, ms_host_port hp) {
    if (pc->nports == pc->cports) {
        uint32_t cap = ms_array_capacity(pc->cports, pc->nports + 1);
        ms_host_port *p = MS_ARENA_NEW(&pc->scratch, ms_host_port, cap);
        if (!p) return ms_json_nomem(&x->r);
        if (pc->nports) memcpy(p, pc->ports, pc->nports * sizeof *p);
        pc->ports = p;
        pc->cports = cap;
    }
    pc->ports[pc->nports++] = hp;
    return MS_OK;
}

static ms_rc dec_ports(ms_dec *x, podcalc *pc, const ms_obj *c, bool host_network, bool keep) {
    const cJSON *arr;
    ms_rc rc = ms_dec_array(x, c, "ports", &arr);
    if (rc != MS_OK || !arr) return rc;
    size_t saved = ms_json_push(&x->r, "ports");
    size_t i = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, arr) {
        size_t s2 = ms_json_push_index(&x->r, i++);
        if (!cJSON_IsObject(p)) return ms_json_type_error(&x->r, NULL, p, MS_JSON_OBJECT);
        int64_t container_port, host_port;
        const char *proto;
        ms_host_port hp = {0};
        ms_obj po;
        ms_obj_scan(&po, p);
        if ((rc = ms_dec_int(x, &po, "containerPort", INT32_MIN, INT32_MAX, &container_port, NULL)) != MS_OK ||
            (rc = ms_dec_int(x, &po, "hostPort", INT32_MIN, INT32_MAX, &host_port, NULL)) != MS_OK ||
            (rc = ms_dec_string(x, &po, "protocol", &proto)) != MS_OK ||
            (rc = ms_dec_str_id(x, &po, "hostIP", true, &hp.host_ip)) != MS_OK)
            return rc;
        if (!proto || !*proto || strcmp(proto, "TCP") == 0) hp.protocol = MS_PROTO_TCP;
        else if (strcmp(proto, "UDP") == 0) hp.protocol = MS_PROTO_UDP;
        else if (strcmp(proto, "SCTP") == 0) hp.protocol = MS_PROTO_SCTP;
        else return unsupported(x, "protocol", proto, protocols);
        /* API defaulting: with host networking every container port is a
         * host port. */
        if (host_network && host_port == 0) host_port = container_port;
        hp.port = (int32_t)host_port;
        if (keep && hp.port > 0 && (rc = add_port(x, pc, hp)) != MS_OK) return rc;
        ms_json_pop(&x->r, s2);
    }
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc add_image(ms_dec *x, podcalc *pc, ms_str id) {
    if (pc->nimages == pc->cimages) {
        uint32_t cap = ms_array_capacity(pc->cimages, pc->nimages + 1);
        ms_str *p = MS_ARENA_NEW(&pc->scratch, ms_str, cap);
        if (!p) return ms_json_nomem(&x->r);
        if (pc->nimages) memcpy(p, pc->images, pc->nimages * sizeof *p);
        pc->images = p;
        pc->cimages = cap;
    }
    pc->images[pc->nimages++] = id;
    return MS_OK;
}

/* upstream's resourceQOS for one set of requirements, folded into the
 * pod's class as ComputePodQOS does. */
static int resource_qos(const ms_rlist *req, const ms_rlist *lim) {
    if (req->nraw == 0 && lim->nraw == 0) return MS_QOS_BEST_EFFORT;
    int qos = -1;
    static const int res[2] = {MS_RES_CPU, MS_RES_MEMORY};
    for (int k = 0; k < 2; k++) {
        int64_t r = ms_rlist_has(req, res[k]) ? req->v[res[k]] : 0;
        int64_t l = ms_rlist_has(lim, res[k]) ? lim->v[res[k]] : 0;
        if (r != l) return MS_QOS_BURSTABLE;
        int q = r == 0 ? MS_QOS_BEST_EFFORT : MS_QOS_GUARANTEED;
        if (qos == -1) qos = q;
        else if (qos != q) return MS_QOS_BURSTABLE;
    }
    return qos;
}

static void fold_qos(podcalc *pc, int q) {
    if (pc->qos == -1) pc->qos = q;
    else if (pc->qos != q) pc->qos = MS_QOS_BURSTABLE;
}

/* API defaulting: a resource with a limit and no request requests its limit. */
static int default_requests(ms_rlist *req, ms_arena *scratch, const ms_rlist *lim) {
    for (int i = 0; i < MS_RES_NBUILTIN; i++)
        if (ms_rlist_has(lim, i) && !ms_rlist_has(req, i)) {
            req->v[i] = lim->v[i];
            req->has |= (uint8_t)(1u << i);
            req->nraw++;
        }
    for (uint32_t i = 0; i < lim->n; i++)
        if (ms_rlist_find(req, lim->s[i].name) < 0) {
            if (ms_rlist_set(req, scratch, lim->s[i].name, lim->s[i].value) != 0) return -1;
            req->nraw++;
        }
    return 0;
}

static ms_rc dec_container(ms_dec *x, podcalc *pc, const cJSON *cj, bool init, bool host_network) {
    ms_rc rc;
    if (!cJSON_IsObject(cj)) return ms_json_type_error(&x->r, NULL, cj, MS_JSON_OBJECT);
    ms_obj co, res;
    const ms_obj *c = &co;
    ms_obj_scan(&co, cj);
    const char *image, *restart;
    if ((rc = ms_dec_string(x, c, "image", &image)) != MS_OK ||
        (rc = ms_dec_string(x, c, "restartPolicy", &restart)) != MS_OK ||
        (rc = ms_dec_object(x, c, "resources", &res)) != MS_OK)
        return rc;
    bool sidecar = init && restart && strcmp(restart, "Always") == 0;

    ms_str img = MS_STR_NONE;
    if (image && *image && (img = ms_dec_image_name(x, image)) == MS_STR_NONE) return ms_json_nomem(&x->r);
    if ((rc = add_image(x, pc, img)) != MS_OK) return rc;
    if (init) pc->ninit_images++;
    /* Ports of init containers that run to completion are free again by the
     * time the pod runs; sidecars keep theirs (upstream GetHostPorts). */
    if ((rc = dec_ports(x, pc, c, host_network, !init || sidecar)) != MS_OK) return rc;

    ms_rlist *req = &pc->creq, *lim = &pc->clim;
    ms_rlist_clear(req);
    ms_rlist_clear(lim);
    if (res.j) {
        size_t saved = ms_json_push(&x->r, "resources");
        if ((rc = ms_dec_resource_list(x, &res, "requests", &pc->scratch, req)) != MS_OK ||
            (rc = ms_dec_resource_list(x, &res, "limits", &pc->scratch, lim)) != MS_OK)
            return rc;
        ms_json_pop(&x->r, saved);
    }
    if (default_requests(req, &pc->scratch, lim) != 0) return ms_json_nomem(&x->r);
    fold_qos(pc, resource_qos(req, lim));

    int64_t nz[2] = {
        ms_rlist_has(req, MS_RES_CPU) ? req->v[MS_RES_CPU] : MS_DEFAULT_MILLI_CPU_REQUEST,
        ms_rlist_has(req, MS_RES_MEMORY) ? req->v[MS_RES_MEMORY] : MS_DEFAULT_MEMORY_REQUEST,
    };
    ms_arena *s = &pc->scratch;
    int bad = 0;
    if (!init) {
        bad |= ms_rlist_add(&pc->sum_req, s, req) | ms_rlist_add(&pc->sum_lim, s, lim);
        for (int k = 0; k < 2; k++) pc->nz_sum[k] = ms_sat_add(pc->nz_sum[k], nz[k]);
    } else if (sidecar) {
        bad |= ms_rlist_add(&pc->sum_req, s, req) | ms_rlist_add(&pc->sum_lim, s, lim);
        bad |= ms_rlist_add(&pc->side_req, s, req) | ms_rlist_add(&pc->side_lim, s, lim);
        bad |= ms_rlist_max(&pc->init_req, s, &pc->side_req) | ms_rlist_max(&pc->init_lim, s, &pc->side_lim);
        for (int k = 0; k < 2; k++) {
            pc->nz_sum[k] = ms_sat_add(pc->nz_sum[k], nz[k]);
            pc->nz_side[k] = ms_sat_add(pc->nz_side[k], nz[k]);
            pc->nz_init[k] = max64(pc->nz_init[k], pc->nz_side[k]);
        }
    } else {
        bad |= ms_rlist_add(req, s, &pc->side_req) | ms_rlist_add(lim, s, &pc->side_lim);
        bad |= ms_rlist_max(&pc->init_req, s, req) | ms_rlist_max(&pc->init_lim, s, lim);
        for (int k = 0; k < 2; k++) pc->nz_init[k] = max64(pc->nz_init[k], ms_sat_add(nz[k], pc->nz_side[k]));
    }
    return bad ? ms_json_nomem(&x->r) : MS_OK;
}

static ms_rc dec_containers(ms_dec *x, podcalc *pc, const ms_obj *spec, const char *key, bool init,
                            bool host_network) {
    const cJSON *arr;
    ms_rc rc = ms_dec_array(x, spec, key, &arr);
    if (rc != MS_OK || !arr) return rc;
    size_t saved = ms_json_push(&x->r, key);
    size_t i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, arr) {
        size_t s2 = ms_json_push_index(&x->r, i++);
        if ((rc = dec_container(x, pc, c, init, host_network)) != MS_OK) return rc;
        ms_json_pop(&x->r, s2);
    }
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

/* ---- pod-level resources and the totals ---- */

static bool is_hugepages(const ms_dec *x, ms_str name) {
    return strncmp(ms_str_get(x->d->in, name), "hugepages-", 10) == 0;
}

/* IsSupportedPodLevelResource: cpu, memory, hugepages-*. */
static bool pod_level_set(const ms_dec *x, const ms_rlist *r) {
    if (ms_rlist_has(r, MS_RES_CPU) || ms_rlist_has(r, MS_RES_MEMORY)) return true;
    for (uint32_t i = 0; i < r->n; i++)
        if (is_hugepages(x, r->s[i].name)) return true;
    return false;
}

/* applyPodLevelResources: the pod-level value replaces the containers'
 * total for every supported resource it names. */
static int apply_pod_level(const ms_dec *x, ms_rlist *dst, ms_arena *s, const ms_rlist *pod) {
    static const int res[2] = {MS_RES_CPU, MS_RES_MEMORY};
    for (int k = 0; k < 2; k++)
        if (ms_rlist_has(pod, res[k])) {
            dst->v[res[k]] = pod->v[res[k]];
            dst->has |= (uint8_t)(1u << res[k]);
        }
    for (uint32_t i = 0; i < pod->n; i++)
        if (is_hugepages(x, pod->s[i].name) && ms_rlist_set(dst, s, pod->s[i].name, pod->s[i].value) != 0)
            return -1;
    return 0;
}

/* defaultPodRequests (API defaulting, only when pod-level limits are set):
 * a pod-level cpu/memory request defaults to the containers' total when any
 * container requests it, then every supported pod-level limit without a
 * request becomes the request. */
static int default_pod_requests(const ms_dec *x, ms_rlist *preq, ms_arena *s, const ms_rlist *plim,
                                const ms_rlist *aggr) {
    if (plim->nraw == 0) return 0;
    static const int res[2] = {MS_RES_CPU, MS_RES_MEMORY};
    for (int k = 0; k < 2; k++)
        for (int pass = 0; pass < 2; pass++) {
            const ms_rlist *from = pass == 0 ? aggr : plim;
            if (ms_rlist_has(from, res[k]) && !ms_rlist_has(preq, res[k])) {
                preq->v[res[k]] = from->v[res[k]];
                preq->has |= (uint8_t)(1u << res[k]);
                preq->nraw++;
            }
        }
    for (uint32_t i = 0; i < plim->n; i++)
        if (is_hugepages(x, plim->s[i].name) && ms_rlist_find(preq, plim->s[i].name) < 0) {
            if (ms_rlist_set(preq, s, plim->s[i].name, plim->s[i].value) != 0) return -1;
            preq->nraw++;
        }
    return 0;
}

static ms_rc dec_resources(ms_dec *x, podcalc *pc, const ms_obj *spec, ms_pod *p) {
    ms_rc rc;
    ms_arena *s = &pc->scratch;
    ms_rlist *req = &pc->sum_req, *lim = &pc->sum_lim;
    if (ms_rlist_max(req, s, &pc->init_req) != 0 || ms_rlist_max(lim, s, &pc->init_lim) != 0)
        return ms_json_nomem(&x->r);
    int64_t nz[2] = {max64(pc->nz_sum[0], pc->nz_init[0]), max64(pc->nz_sum[1], pc->nz_init[1])};

    /* Pod-level resources (spec.resources). */
    ms_obj pres;
    ms_rlist preq = {0}, plim = {0};
    if ((rc = ms_dec_object(x, spec, "resources", &pres)) != MS_OK) return rc;
    bool req_level = false;
    if (pres.j) {
        size_t saved = ms_json_push(&x->r, "resources");
        if ((rc = ms_dec_resource_list(x, &pres, "requests", s, &preq)) != MS_OK ||
            (rc = ms_dec_resource_list(x, &pres, "limits", s, &plim)) != MS_OK)
            return rc;
        ms_json_pop(&x->r, saved);
        if (default_pod_requests(x, &preq, s, &plim, req) != 0) return ms_json_nomem(&x->r);
        req_level = pod_level_set(x, &preq);
        if ((req_level && apply_pod_level(x, req, s, &preq) != 0) ||
            ((req_level || pod_level_set(x, &plim)) && apply_pod_level(x, lim, s, &plim) != 0))
            return ms_json_nomem(&x->r);
        pc->qos = resource_qos(&preq, &plim);
    }

    ms_rlist oh = {0};
    if ((rc = ms_dec_resource_list(x, spec, "overhead", s, &oh)) != MS_OK) return rc;
    if (ms_rlist_add(req, s, &oh) != 0) return ms_json_nomem(&x->r);
    /* Overhead is added to a limit only where the pod has a non-zero one. */
    for (int i = 0; i < MS_RES_NBUILTIN; i++)
        if (ms_rlist_has(&oh, i) && ms_rlist_has(lim, i) && lim->v[i] != 0) lim->v[i] = ms_sat_add(lim->v[i], oh.v[i]);
    for (uint32_t i = 0; i < oh.n; i++) {
        int j = ms_rlist_find(lim, oh.s[i].name);
        if (j >= 0 && lim->s[j].value != 0) lim->s[j].value = ms_sat_add(lim->s[j].value, oh.s[i].value);
    }

    /* Non-zero requests. Without pod-level requests every container's
     * missing cpu/memory counts as the default; with them, the default
     * stands in only for a resource the pod requests nowhere. */
    static const int res[2] = {MS_RES_CPU, MS_RES_MEMORY};
    int64_t non_zero[2];
    for (int k = 0; k < 2; k++) {
        if (req_level && ms_rlist_has(req, res[k])) non_zero[k] = req->v[res[k]];
        else non_zero[k] = ms_sat_add(nz[k], ms_rlist_has(&oh, res[k]) ? oh.v[res[k]] : 0);
    }
    p->non_zero_cpu = non_zero[0];
    p->non_zero_mem = non_zero[1];

    if (ms_rlist_export(req, &p->arena, &p->requests) != 0 || ms_rlist_export(lim, &p->arena, &p->limits) != 0)
        return ms_json_nomem(&x->r);

    p->qos = (uint8_t)(pc->qos == -1 ? MS_QOS_BEST_EFFORT : pc->qos);   /* ComputePodQOS */
    return MS_OK;
}

/* ---- scheduling constraints ---- */

static ms_rc dec_toleration(ms_dec *x, const ms_obj *to, void *elem, void *ctx) {
    (void)ctx;
    ms_toleration *o = elem;
    const char *op, *effect;
    ms_rc rc;
    if ((rc = ms_dec_str_id(x, to, "key", true, &o->key)) != MS_OK ||
        (rc = ms_dec_str_id(x, to, "value", true, &o->value)) != MS_OK ||
        (rc = ms_dec_string(x, to, "operator", &op)) != MS_OK ||
        (rc = ms_dec_string(x, to, "effect", &effect)) != MS_OK ||
        (rc = ms_dec_int(x, to, "tolerationSeconds", INT64_MIN, INT64_MAX, &o->toleration_seconds,
                         &o->has_seconds)) != MS_OK)
        return rc;
    if (!op || !*op || strcmp(op, "Equal") == 0) o->op = MS_TOL_EQUAL;
    else if (strcmp(op, "Exists") == 0) o->op = MS_TOL_EXISTS;
    else return unsupported(x, "operator", op, toleration_ops);
    if (!effect || !*effect) o->effect = MS_EFFECT_NONE;
    else if (strcmp(effect, "NoSchedule") == 0) o->effect = MS_EFFECT_NO_SCHEDULE;
    else if (strcmp(effect, "PreferNoSchedule") == 0) o->effect = MS_EFFECT_PREFER_NO_SCHEDULE;
    else if (strcmp(effect, "NoExecute") == 0) o->effect = MS_EFFECT_NO_EXECUTE;
    else return unsupported(x, "effect", effect, ms_taint_effects);
    return MS_OK;
}

static ms_rc dec_tolerations(ms_dec *x, const ms_obj *spec, ms_pod *p) {
    void *tolerations;
    ms_rc rc = ms_dec_objects(x, spec, "tolerations", &p->arena, sizeof *p->tolerations, &tolerations,
                              &p->ntolerations, dec_toleration, NULL);
    p->tolerations = tolerations;
    return rc;
}

ms_rc ms_dec_label_selector(ms_dec *x, const ms_obj *parent, const char *key, ms_label_selector *out) {
    /* the selector's own errors name the field from the path */
    size_t saved = ms_json_push(&x->r, key);
    ms_rc rc = ms_label_selector_from_json(ms_obj_get(parent, key), x->d->in, x->a, out, x->r.path, x->r.err);
    ms_json_pop(&x->r, saved);
    return rc == MS_OK ? MS_OK : ms_dec_wrap(x, rc);
}

static ms_rc dec_pod_affinity_term(ms_dec *x, const ms_obj *t, void *elem, void *ctx) {
    (void)ctx;
    ms_pod_affinity_term *o = elem;
    ms_rc rc;
    const cJSON *nsel = ms_obj_get(t, "namespaceSelector");
    o->has_namespace_selector = nsel && !cJSON_IsNull(nsel);
    if ((rc = ms_dec_label_selector(x, t, "labelSelector", &o->selector)) != MS_OK ||
        (o->has_namespace_selector &&
         (rc = ms_dec_label_selector(x, t, "namespaceSelector", &o->namespace_selector)) != MS_OK) ||
        (rc = ms_dec_str_list(x, t, "namespaces", &o->nnamespaces, &o->namespaces)) != MS_OK ||
        (rc = ms_dec_str_id(x, t, "topologyKey", true, &o->topology_key)) != MS_OK ||
        (rc = ms_dec_str_list(x, t, "matchLabelKeys", &o->nmatch_label_keys, &o->match_label_keys)) != MS_OK ||
        (rc = ms_dec_str_list(x, t, "mismatchLabelKeys", &o->nmismatch_label_keys,
                              &o->mismatch_label_keys)) != MS_OK)
        return rc;
    return MS_OK;
}

static ms_rc dec_weighted_pod_affinity_term(ms_dec *x, const ms_obj *wo, void *elem, void *ctx) {
    (void)ctx;
    ms_weighted_pod_affinity_term *wt = elem;
    int64_t weight;
    ms_rc rc = ms_dec_int(x, wo, "weight", INT32_MIN, INT32_MAX, &weight, NULL);
    if (rc != MS_OK) return rc;
    wt->weight = (int32_t)weight;
    const cJSON *term = ms_obj_get(wo, "podAffinityTerm");
    if (!term || cJSON_IsNull(term)) return ms_json_fail(&x->r, "podAffinityTerm", "Required value");
    if (!cJSON_IsObject(term))
        return ms_json_type_error(&x->r, "podAffinityTerm", term, MS_JSON_OBJECT);
    ms_obj to;
    ms_obj_scan(&to, term);
    size_t saved = ms_json_push(&x->r, "podAffinityTerm");
    if ((rc = dec_pod_affinity_term(x, &to, &wt->term, NULL)) != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc dec_pod_affinity(ms_dec *x, const ms_obj *aff, const char *key, ms_pod_affinity *o) {
    ms_obj pa;
    ms_rc rc = ms_dec_object(x, aff, key, &pa);
    if (rc != MS_OK || !pa.j) return rc;
    size_t saved = ms_json_push(&x->r, key);
    void *required, *preferred;
    rc = ms_dec_objects(x, &pa, "requiredDuringSchedulingIgnoredDuringExecution", x->a, sizeof *o->required,
                        &required, &o->nrequired, dec_pod_affinity_term, NULL);
    o->required = required;
    if (rc != MS_OK) return rc;
    rc = ms_dec_objects(x, &pa, "preferredDuringSchedulingIgnoredDuringExecution", x->a, sizeof *o->preferred,
                        &preferred, &o->npreferred, dec_weighted_pod_affinity_term, NULL);
    o->preferred = preferred;
    if (rc != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc dec_preferred_node_term(ms_dec *x, const ms_obj *wo, void *elem, void *ctx) {
    (void)ctx;
    ms_preferred_term *pt = elem;
    int64_t weight;
    ms_rc rc = ms_dec_int(x, wo, "weight", INT32_MIN, INT32_MAX, &weight, NULL);
    if (rc != MS_OK) return rc;
    pt->weight = (int32_t)weight;
    size_t saved = ms_json_push(&x->r, "preference");
    rc = ms_node_selector_term_from_json(ms_obj_get(wo, "preference"), x->d->in, x->a, &pt->term, x->r.path,
                                         x->r.err);
    ms_json_pop(&x->r, saved);
    return rc == MS_OK ? MS_OK : ms_dec_wrap(x, rc);
}

static ms_rc dec_node_affinity(ms_dec *x, const ms_obj *aff, ms_pod *p) {
    ms_obj na;
    ms_rc rc = ms_dec_object(x, aff, "nodeAffinity", &na);
    if (rc != MS_OK || !na.j) return rc;
    size_t saved = ms_json_push(&x->r, "nodeAffinity");
    const char *rkey = "requiredDuringSchedulingIgnoredDuringExecution";
    const cJSON *req = ms_obj_get(&na, rkey);
    if (req && !cJSON_IsNull(req)) {
        p->has_node_affinity_required = true;
        size_t s2 = ms_json_push(&x->r, rkey);
        rc = ms_node_selector_from_json(req, x->d->in, x->a, &p->node_affinity_required, x->r.path, x->r.err);
        if (rc != MS_OK) return ms_dec_wrap(x, rc);
        ms_json_pop(&x->r, s2);
    }
    void *preferred;
    rc = ms_dec_objects(x, &na, "preferredDuringSchedulingIgnoredDuringExecution", x->a,
                        sizeof *p->node_affinity_preferred, &preferred, &p->nnode_affinity_preferred,
                        dec_preferred_node_term, NULL);
    p->node_affinity_preferred = preferred;
    if (rc != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc dec_affinity(ms_dec *x, const ms_obj *spec, ms_pod *p) {
    ms_obj affo;
    const ms_obj *aff = &affo;
    ms_rc rc = ms_dec_object(x, spec, "affinity", &affo);
    if (rc != MS_OK || !affo.j) return rc;
    size_t saved = ms_json_push(&x->r, "affinity");
    if ((rc = dec_node_affinity(x, aff, p)) != MS_OK ||
        (rc = dec_pod_affinity(x, aff, "podAffinity", &p->pod_affinity)) != MS_OK ||
        (rc = dec_pod_affinity(x, aff, "podAntiAffinity", &p->pod_anti_affinity)) != MS_OK)
        return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc inclusion_policy(ms_dec *x, const ms_obj *c, const char *key, uint8_t *out) {
    const char *v;
    ms_rc rc = ms_dec_string(x, c, key, &v);
    if (rc != MS_OK) return rc;
    if (!v || !*v) *out = MS_POLICY_UNSET;
    else if (strcmp(v, "Honor") == 0) *out = MS_POLICY_HONOR;
    else if (strcmp(v, "Ignore") == 0) *out = MS_POLICY_IGNORE;
    else return unsupported(x, key, v, inclusion_policies);
    return MS_OK;
}

static ms_rc dec_spread_constraint(ms_dec *x, const ms_obj *c, void *elem, void *ctx) {
    (void)ctx;
    ms_topology_spread *o = elem;
    ms_rc rc;
    int64_t skew, min_domains;
    const char *when;
    if ((rc = ms_dec_int(x, c, "maxSkew", INT32_MIN, INT32_MAX, &skew, NULL)) != MS_OK ||
        (rc = ms_dec_int(x, c, "minDomains", INT32_MIN, INT32_MAX, &min_domains, NULL)) != MS_OK ||
        (rc = ms_dec_str_id(x, c, "topologyKey", true, &o->topology_key)) != MS_OK ||
        (rc = ms_dec_string(x, c, "whenUnsatisfiable", &when)) != MS_OK ||
        (rc = ms_dec_label_selector(x, c, "labelSelector", &o->selector)) != MS_OK ||
        (rc = inclusion_policy(x, c, "nodeAffinityPolicy", &o->node_affinity_policy)) != MS_OK ||
        (rc = inclusion_policy(x, c, "nodeTaintsPolicy", &o->node_taints_policy)) != MS_OK ||
        (rc = ms_dec_str_list(x, c, "matchLabelKeys", &o->nmatch_label_keys, &o->match_label_keys)) != MS_OK)
        return rc;
    o->max_skew = (int32_t)skew;
    o->min_domains = (int32_t)min_domains;
    if (!when || !*when || strcmp(when, "DoNotSchedule") == 0) o->when_unsatisfiable = MS_DO_NOT_SCHEDULE;
    else if (strcmp(when, "ScheduleAnyway") == 0) o->when_unsatisfiable = MS_SCHEDULE_ANYWAY;
    else return unsupported(x, "whenUnsatisfiable", when, when_unsatisfiable);
    return MS_OK;
}

static ms_rc dec_spread(ms_dec *x, const ms_obj *spec, ms_pod *p) {
    void *spread;
    ms_rc rc = ms_dec_objects(x, spec, "topologySpreadConstraints", &p->arena, sizeof *p->topology_spread,
                              &spread, &p->ntopology_spread, dec_spread_constraint, NULL);
    p->topology_spread = spread;
    return rc;
}

/* spec.schedulingGates: [{name}], names required (API validation). */
static ms_rc dec_gate(ms_dec *x, const ms_obj *g, void *elem, void *ctx) {
    (void)ctx;
    ms_str *name = elem;
    ms_rc rc = ms_dec_str_id(x, g, "name", true, name);
    if (rc == MS_OK && *name == MS_STR_NONE) return ms_json_fail(&x->r, "name", "Required value");
    return rc;
}

static ms_rc dec_gates(ms_dec *x, const ms_obj *spec, ms_pod *p) {
    void *gates;
    ms_rc rc = ms_dec_objects(x, spec, "schedulingGates", &p->arena, sizeof *p->scheduling_gates, &gates,
                              &p->nscheduling_gates, dec_gate, NULL);
    p->scheduling_gates = gates;
    return rc;
}

/* ---- spec, status, the pod ---- */

static ms_rc dec_spec(ms_dec *x, const ms_obj *spec, ms_pod *p) {
    ms_rc rc;
    const char *preempt;
    bool host_network;
    int64_t prio;
    size_t saved = ms_json_push(&x->r, "spec");
    if ((rc = ms_dec_str_id(x, spec, "nodeName", true, &p->node_name)) != MS_OK ||
        (rc = ms_dec_str_id(x, spec, "schedulerName", true, &p->scheduler_name)) != MS_OK ||
        (rc = ms_dec_int(x, spec, "priority", INT32_MIN, INT32_MAX, &prio, &p->has_priority)) != MS_OK ||
        (rc = ms_dec_string(x, spec, "preemptionPolicy", &preempt)) != MS_OK ||
        (rc = ms_dec_bool(x, spec, "hostNetwork", &host_network, NULL)) != MS_OK ||
        (rc = ms_dec_labels(x, spec, "nodeSelector", &p->node_selector)) != MS_OK)
        return rc;
    if (p->scheduler_name == MS_STR_NONE) p->scheduler_name = x->d->default_scheduler;
    p->priority = (int32_t)prio;
    if (!preempt || !*preempt || strcmp(preempt, "PreemptLowerPriority") == 0)
        p->preemption_policy = MS_PREEMPT_LOWER_PRIORITY;
    else if (strcmp(preempt, "Never") == 0) p->preemption_policy = MS_PREEMPT_NEVER;
    else return unsupported(x, "preemptionPolicy", preempt, preemption_policies);

    if ((rc = dec_affinity(x, spec, p)) != MS_OK || (rc = dec_tolerations(x, spec, p)) != MS_OK ||
        (rc = dec_spread(x, spec, p)) != MS_OK || (rc = ms_dec_pod_volumes(x, spec, p)) != MS_OK ||
        (rc = dec_gates(x, spec, p)) != MS_OK || (rc = ms_dec_pod_resource_claims(x, spec, p)) != MS_OK)
        return rc;

    podcalc pc;
    memset(&pc, 0, sizeof pc);
    pc.qos = -1;
    ms_arena_init(&pc.scratch, 1024);
    if ((rc = dec_containers(x, &pc, spec, "initContainers", true, host_network)) == MS_OK &&
        (rc = dec_containers(x, &pc, spec, "containers", false, host_network)) == MS_OK)
        rc = dec_resources(x, &pc, spec, p);
    if (rc == MS_OK && pc.nports) {
        if ((p->host_ports = MS_ARENA_NEW(&p->arena, ms_host_port, pc.nports))) {
            memcpy(p->host_ports, pc.ports, pc.nports * sizeof *pc.ports);
            p->nhost_ports = pc.nports;
        } else {
            rc = ms_json_nomem(&x->r);
        }
    }
    if (rc == MS_OK && pc.nimages) {
        if ((p->images = MS_ARENA_NEW(&p->arena, ms_str, pc.nimages))) {
            memcpy(p->images, pc.images, pc.nimages * sizeof *pc.images);
            p->nimages = pc.nimages;
            p->ninit_images = pc.ninit_images;
        } else {
            rc = ms_json_nomem(&x->r);
        }
    }
    ms_arena_free(&pc.scratch);
    if (rc != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

/* One entry of status.containerStatuses / initContainerStatuses: its
 * restart count and the reason of its waiting or terminated state. */
static ms_rc dec_container_status(ms_dec *x, const cJSON *c, ms_pod *p, bool init) {
    if (!cJSON_IsObject(c)) return ms_json_type_error(&x->r, NULL, c, MS_JSON_OBJECT);
    ms_obj co, state, waiting, terminated;
    ms_obj_scan(&co, c);
    int64_t restarts = 0;
    ms_str reason = MS_STR_NONE, treason = MS_STR_NONE;
    ms_rc rc;
    if ((rc = ms_dec_int(x, &co, "restartCount", 0, INT32_MAX, &restarts, NULL)) != MS_OK ||
        (rc = ms_dec_object(x, &co, "state", &state)) != MS_OK ||
        (rc = ms_dec_object(x, &state, "waiting", &waiting)) != MS_OK ||
        (rc = ms_dec_object(x, &state, "terminated", &terminated)) != MS_OK ||
        (rc = ms_dec_str_id(x, &waiting, "reason", true, &reason)) != MS_OK ||
        (rc = ms_dec_str_id(x, &terminated, "reason", true, &treason)) != MS_OK)
        return rc;
    int32_t *sum = init ? &p->init_restarts : &p->restarts;
    *sum = (int32_t)(restarts > INT32_MAX - *sum ? INT32_MAX : *sum + restarts);
    if (reason == MS_STR_NONE) reason = treason;
    if (reason == MS_STR_NONE) return MS_OK;
    if (!init && strcmp(ms_str_get(x->d->in, reason), "CrashLoopBackOff") == 0)
        p->crash_loop_back_off = true;
    p->container_reasons[p->ncontainer_reasons++] = reason;
    if (init) p->ninit_reasons++;
    return MS_OK;
}

/* status.initContainerStatuses then status.containerStatuses. */
static ms_rc dec_container_statuses(ms_dec *x, const ms_obj *status, ms_pod *p) {
    const cJSON *lists[2];
    static const char *const keys[2] = {"initContainerStatuses", "containerStatuses"};
    ms_rc rc;
    int total = 0;
    for (int k = 0; k < 2; k++) {
        if ((rc = ms_dec_array(x, status, keys[k], &lists[k])) != MS_OK) return rc;
        total += lists[k] ? cJSON_GetArraySize(lists[k]) : 0;
    }
    if (!total) return MS_OK;
    if (!(p->container_reasons = MS_ARENA_NEW(&p->arena, ms_str, total))) return ms_json_nomem(&x->r);
    for (int k = 0; k < 2; k++) {
        if (!lists[k]) continue;
        size_t saved = ms_json_push(&x->r, keys[k]), i = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, lists[k]) {
            size_t s2 = ms_json_push_index(&x->r, i++);
            if ((rc = dec_container_status(x, c, p, k == 0)) != MS_OK) return rc;
            ms_json_pop(&x->r, s2);
        }
        ms_json_pop(&x->r, saved);
    }
    return MS_OK;
}

static ms_rc dec_status(ms_dec *x, const ms_obj *status, ms_pod *p) {
    ms_rc rc;
    const char *phase, *qc;
    const cJSON *conds;
    size_t saved = ms_json_push(&x->r, "status");
    if ((rc = ms_dec_string(x, status, "phase", &phase)) != MS_OK ||
        (rc = ms_dec_string(x, status, "qosClass", &qc)) != MS_OK ||
        (rc = ms_dec_str_id(x, status, "nominatedNodeName", true, &p->nominated_node_name)) != MS_OK ||
        (rc = ms_dec_time(x, status, "startTime", &p->start_time)) != MS_OK ||
        (rc = ms_dec_str_id(x, status, "reason", true, &p->status_reason)) != MS_OK ||
        (rc = dec_container_statuses(x, status, p)) != MS_OK ||
        (rc = ms_dec_pod_resource_claim_statuses(x, status, p)) != MS_OK ||
        (rc = ms_dec_array(x, status, "conditions", &conds)) != MS_OK)
        return rc;
    if (!phase || !*phase || strcmp(phase, "Pending") == 0) p->phase = MS_PHASE_PENDING;
    else if (strcmp(phase, "Running") == 0) p->phase = MS_PHASE_RUNNING;
    else if (strcmp(phase, "Succeeded") == 0) p->phase = MS_PHASE_SUCCEEDED;
    else if (strcmp(phase, "Failed") == 0) p->phase = MS_PHASE_FAILED;
    else if (strcmp(phase, "Unknown") == 0) p->phase = MS_PHASE_UNKNOWN;
    else return unsupported(x, "phase", phase, phases);
    /* GetPodQOS: the class the API server recorded wins over the computed one. */
    if (qc && strcmp(qc, "Guaranteed") == 0) p->qos = MS_QOS_GUARANTEED;
    else if (qc && strcmp(qc, "Burstable") == 0) p->qos = MS_QOS_BURSTABLE;
    else if (qc && strcmp(qc, "BestEffort") == 0) p->qos = MS_QOS_BEST_EFFORT;
    if (conds) {
        size_t s2 = ms_json_push(&x->r, "conditions");
        size_t i = 0;
        bool disruption_seen = false;
        const cJSON *c;
        cJSON_ArrayForEach(c, conds) {
            size_t s3 = ms_json_push_index(&x->r, i++);
            const char *type = NULL, *st = NULL, *reason = NULL;
            if (!cJSON_IsObject(c)) return ms_json_type_error(&x->r, NULL, c, MS_JSON_OBJECT);
            ms_obj co;
            ms_obj_scan(&co, c);
            if ((rc = ms_dec_string(x, &co, "type", &type)) != MS_OK ||
                (rc = ms_dec_string(x, &co, "status", &st)) != MS_OK ||
                (rc = ms_dec_string(x, &co, "reason", &reason)) != MS_OK)
                return rc;
            if (type && st && strcmp(type, "PodScheduled") == 0 && strcmp(st, "False") == 0) {
                p->scheduled_condition_false = true;
                p->scheduling_gated_condition = reason && strcmp(reason, "SchedulingGated") == 0;
            }
            /* The first DisruptionTarget decides, as upstream reads it. */
            if (type && strcmp(type, "DisruptionTarget") == 0 && !disruption_seen) {
                disruption_seen = true;
                p->disruption_by_preemption = st && strcmp(st, "True") == 0 && reason &&
                                              strcmp(reason, "PreemptionByScheduler") == 0;
            }
            ms_json_pop(&x->r, s3);
        }
        ms_json_pop(&x->r, s2);
    }
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

/* FNV-1a over a JSON tree (keys, types and values in document order): the
 * API server prints objects canonically, so equal subtrees hash equally. */
static uint64_t json_hash(uint64_t h, const cJSON *j) {
    for (; j; j = j->next) {
        const unsigned char *p;
        h = (h ^ (uint64_t)(j->type & 0xff)) * 0x100000001b3ULL;
        if (j->string)
            for (p = (const unsigned char *)j->string; *p; p++) h = (h ^ *p) * 0x100000001b3ULL;
        h = (h ^ 0xff) * 0x100000001b3ULL;
        if (j->valuestring)
            for (p = (const unsigned char *)j->valuestring; *p; p++) h = (h ^ *p) * 0x100000001b3ULL;
        else if (cJSON_IsNumber(j)) {
            double v = j->valuedouble;
            p = (const unsigned char *)&v;
            for (size_t i = 0; i < sizeof v; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
        }
        if (j->child) h = json_hash(h, j->child);
        h = (h ^ 0xfe) * 0x100000001b3ULL;
    }
    return h;
}

/* What makes a pending pod worth another scheduling attempt: its spec,
 * labels and annotations. Status changes (the scheduler's own
 * PodScheduled=False patch among them) leave it unchanged. */
static uint64_t pod_spec_hash(const cJSON *obj) {
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    uint64_t h = 0xcbf29ce484222325ULL;
    const cJSON *parts[3] = {
        cJSON_GetObjectItemCaseSensitive(obj, "spec"),
        meta ? cJSON_GetObjectItemCaseSensitive(meta, "labels") : NULL,
        meta ? cJSON_GetObjectItemCaseSensitive(meta, "annotations") : NULL,
    };
    for (int i = 0; i < 3; i++) {
        h = (h ^ (uint64_t)(i + 1)) * 0x100000001b3ULL;
        if (parts[i] && parts[i]->child) h = json_hash(h, parts[i]->child);
    }
    return h ? h : 1;
}

ms_rc ms_pod_decode(const ms_decoder *d, const cJSON *obj, ms_pod **out, ms_error *err) {
    *out = NULL;
    if (!cJSON_IsObject(obj))
        return ms_error_set(err, MS_EINVAL, "Pod: expected an object, got %s", ms_json_type_name(obj));
    ms_pod *p = ms_pod_alloc();
    if (!p) return ms_error_set(err, MS_ENOMEM, "Pod: out of memory");
    ms_dec x;
    ms_dec_init(&x, d, &p->arena, err, "Pod");
    ms_obj o, spec, status;
    ms_rc rc;
    ms_obj_scan(&o, obj);
    /* Pod names are the strings that never come back: each pod ever
     * created has its own. */
    x.counted_name = true;
    p->names = d->in;
    if ((rc = ms_dec_meta(&x, &o, true, &p->meta)) != MS_OK ||
        (rc = ms_dec_object(&x, &o, "spec", &spec)) != MS_OK ||
        (rc = ms_dec_object(&x, &o, "status", &status)) != MS_OK ||
        (rc = dec_spec(&x, &spec, p)) != MS_OK ||
        (rc = dec_status(&x, &status, p)) != MS_OK ||
        (rc = ms_dec_raw(&x, obj, &p->raw, &p->raw_len)) != MS_OK) {
        ms_pod_unref(p);
        return rc;
    }
    p->spec_hash = pod_spec_hash(obj);
    *out = p;
    return MS_OK;
}
