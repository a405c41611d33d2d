/* Synthetic clusters: one API object template per kind, renamed for each
 * object and decoded, so generated objects go through the same decoder as
 * files (no text round trip). */
#include "simulate/generator.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/quantity.h"
#include "base/rng.h"

void ms_generator_spec_default(ms_generator_spec *g) {
    memset(g, 0, sizeof *g);
    snprintf(g->node_cpu, sizeof g->node_cpu, "4");
    snprintf(g->node_memory, sizeof g->node_memory, "32Gi");
    snprintf(g->node_pods, sizeof g->node_pods, "110");
    snprintf(g->pod_cpu, sizeof g->pod_cpu, "100m");
    snprintf(g->pod_memory, sizeof g->pod_memory, "500Mi");
    snprintf(g->namespace_, sizeof g->namespace_, "default");
    snprintf(g->shape, sizeof g->shape, "basic");
    g->seed = 1;
    g->init_namespaces = 100;
}

static ms_rc parse_count(const char *key, const char *v, uint32_t max, uint32_t *out,
                         ms_error *err) {
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (!*v || *end || errno || *v == '-' || n > max)
        return ms_error_set(err, MS_EINVAL, "--generate: %s: expected a count up to %u, got \"%s\"",
                            key, max, v);
    *out = (uint32_t)n;
    return MS_OK;
}

static ms_rc parse_quantity(const char *key, const char *v, char *dst, size_t n, ms_error *err) {
    ms_quantity q;
    ms_error qe;
    if (ms_quantity_parse_cstr(v, &q, &qe) != MS_OK)
        return ms_error_set(err, MS_EINVAL, "--generate: %s: %s", key, qe.msg);
    if (q.milli < 0) return ms_error_set(err, MS_EINVAL, "--generate: %s: must not be negative", key);
    if (strlen(v) >= n) return ms_error_set(err, MS_EINVAL, "--generate: %s: too long", key);
    snprintf(dst, n, "%s", v);
    return MS_OK;
}

#define MAX_OBJECTS 10000000u

/* scheduler_perf's SchedulingPodAntiAffinity and SchedulingNodeAffinity */
#define SHAPE_ANTI_AFFINITY "pod-anti-affinity"
#define SHAPE_NODE_AFFINITY "node-affinity"
#define SHAPE_VOLUMES "volumes"
#define SHAPE_DESCHEDULE "deschedule"
/* The label key of 1.20's SchedulingNodeAffinity (labelNodePrepareStrategy)
 * and of pod-with-node-affinity.yaml. */
#define NODE_AFFINITY_KEY "failure-domain.beta.kubernetes.io/zone"
/* pod-with-pod-anti-affinity.yaml: setup pods in one namespace, measured
 * pods in another, the term naming both. */
#define ANTI_AFFINITY_SETUP_NS "sched-setup"
#define ANTI_AFFINITY_TEST_NS "sched-test"

static ms_rc parse_pair(const char *key, const char *v, ms_generator_spec *g, ms_error *err) {
    if (strcmp(key, "nodes") == 0) return parse_count(key, v, MAX_OBJECTS, &g->nodes, err);
    if (strcmp(key, "pods") == 0) return parse_count(key, v, MAX_OBJECTS, &g->pods, err);
    if (strcmp(key, "bound-pods") == 0) return parse_count(key, v, MAX_OBJECTS, &g->bound_pods, err);
    if (strcmp(key, "bound-nodes") == 0) return parse_count(key, v, MAX_OBJECTS, &g->bound_nodes, err);
    if (strcmp(key, "churn-pods") == 0) return parse_count(key, v, MAX_OBJECTS, &g->churn_pods, err);
    if (strcmp(key, "gated-pods") == 0) return parse_count(key, v, MAX_OBJECTS, &g->gated_pods, err);
    if (strcmp(key, "init-namespaces") == 0) return parse_count(key, v, 100000, &g->init_namespaces, err);
    if (strcmp(key, "zones") == 0) return parse_count(key, v, 10000, &g->zones, err);
    if (strcmp(key, "priorities") == 0) return parse_count(key, v, 1000000, &g->priorities, err);
    if (strcmp(key, "node-cpu") == 0) return parse_quantity(key, v, g->node_cpu, sizeof g->node_cpu, err);
    if (strcmp(key, "node-memory") == 0)
        return parse_quantity(key, v, g->node_memory, sizeof g->node_memory, err);
    if (strcmp(key, "node-pods") == 0)
        return parse_quantity(key, v, g->node_pods, sizeof g->node_pods, err);
    if (strcmp(key, "pod-cpu") == 0) return parse_quantity(key, v, g->pod_cpu, sizeof g->pod_cpu, err);
    if (strcmp(key, "pod-memory") == 0)
        return parse_quantity(key, v, g->pod_memory, sizeof g->pod_memory, err);
    if (strcmp(key, "namespace") == 0) {
        if (!*v || strlen(v) >= sizeof g->namespace_)
            return ms_error_set(err, MS_EINVAL, "--generate: namespace: expected a name, got \"%s\"", v);
        snprintf(g->namespace_, sizeof g->namespace_, "%s", v);
        return MS_OK;
    }
    if (strcmp(key, "shape") == 0) {
        if (strcmp(v, "basic") != 0 && strcmp(v, "preemption") != 0 && strcmp(v, SHAPE_ANTI_AFFINITY) != 0 &&
            strcmp(v, SHAPE_NODE_AFFINITY) != 0 && strcmp(v, SHAPE_VOLUMES) != 0 &&
            strcmp(v, SHAPE_DESCHEDULE) != 0 && strcmp(v, MS_SHAPE_DRA) != 0 && !ms_generator_is_upstream(v))
            return ms_error_set(err, MS_EINVAL,
                                "--generate: shape: expected basic, preemption, " SHAPE_ANTI_AFFINITY
                                ", " SHAPE_NODE_AFFINITY ", " SHAPE_VOLUMES ", " SHAPE_DESCHEDULE
                                " or a scheduler_perf test case (%s), got \"%s\"",
                                ms_generator_upstream_names(), v);
        snprintf(g->shape, sizeof g->shape, "%s", v);
        return MS_OK;
    }
    if (strcmp(key, "spread") == 0) {
        if (strcmp(v, "none") == 0) g->spread = MS_SPREAD_NONE;
        else if (strcmp(v, "hard") == 0) g->spread = MS_SPREAD_HARD;
        else if (strcmp(v, "soft") == 0) g->spread = MS_SPREAD_SOFT;
        else
            return ms_error_set(err, MS_EINVAL,
                                "--generate: spread: expected none, hard or soft, got \"%s\"", v);
        return MS_OK;
    }
    if (strcmp(key, "seed") == 0) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(v, &end, 0);
        if (!*v || *end || errno || *v == '-')
            return ms_error_set(err, MS_EINVAL, "--generate: seed: expected a number, got \"%s\"", v);
        g->seed = n;
        return MS_OK;
    }
    return ms_error_set(err, MS_EINVAL,
                        "--generate: unknown key \"%s\" (known: nodes, pods, bound-pods, bound-nodes, churn-pods, "
                        "gated-pods, init-namespaces, zones, node-cpu, node-memory, node-pods, pod-cpu, pod-memory, "
                        "priorities, namespace, seed, spread, shape)", key);
}

ms_rc ms_generator_parse(const char *text, ms_generator_spec *g, ms_error *err) {
    char buf[1024];
    if (strlen(text) >= sizeof buf) return ms_error_set(err, MS_EINVAL, "--generate: spec too long");
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') tok++;
        if (!*tok) continue;
        char *eq = strchr(tok, '=');
        if (!eq) return ms_error_set(err, MS_EINVAL, "--generate: \"%s\": expected key=value", tok);
        *eq = '\0';
        ms_rc rc = parse_pair(tok, eq + 1, g, err);
        if (rc != MS_OK) return rc;
    }
    return MS_OK;
}

/* ---- templates ---- */

static cJSON *resource_list(const char *cpu, const char *memory, const char *pods) {
    cJSON *r = cJSON_CreateObject();
    if (!r) return NULL;
    cJSON_AddStringToObject(r, "cpu", cpu);
    cJSON_AddStringToObject(r, "memory", memory);
    if (pods) cJSON_AddStringToObject(r, "pods", pods);
    return r;
}

/* node-default.yaml, with the labels a kubelet sets. */
static cJSON *node_template(const ms_generator_spec *g) {
    cJSON *n = cJSON_CreateObject();
    if (!n) return NULL;
    cJSON_AddStringToObject(n, "apiVersion", "v1");
    cJSON_AddStringToObject(n, "kind", "Node");
    cJSON *meta = cJSON_AddObjectToObject(n, "metadata");
    cJSON_AddStringToObject(meta, "name", "node-0000000000");
    cJSON *labels = cJSON_AddObjectToObject(meta, "labels");
    cJSON_AddStringToObject(labels, "kubernetes.io/hostname", "node-0000000000");
    /* labelNodePrepareStrategy: every node gets zone1 */
    if (strcmp(g->shape, SHAPE_NODE_AFFINITY) == 0) cJSON_AddStringToObject(labels, NODE_AFFINITY_KEY, "zone1");
    cJSON_AddStringToObject(labels, "kubernetes.io/os", "linux");
    if (g->zones) {
        cJSON_AddStringToObject(labels, "topology.kubernetes.io/zone", "zone-0000000000");
        cJSON_AddStringToObject(labels, "topology.kubernetes.io/region", "region-1");
    }
    cJSON_AddObjectToObject(n, "spec");
    cJSON *status = cJSON_AddObjectToObject(n, "status");
    cJSON_AddItemToObject(status, "capacity", resource_list(g->node_cpu, g->node_memory, g->node_pods));
    cJSON_AddItemToObject(status, "allocatable",
                          resource_list(g->node_cpu, g->node_memory, g->node_pods));
    cJSON *conds = cJSON_AddArrayToObject(status, "conditions");
    cJSON *ready = cJSON_CreateObject();
    cJSON_AddStringToObject(ready, "type", "Ready");
    cJSON_AddStringToObject(ready, "status", "True");
    cJSON_AddItemToArray(conds, ready);
    cJSON_AddStringToObject(status, "phase", "Running");
    return n;
}

/* pod-default.yaml */
static cJSON *pod_template(const ms_generator_spec *g) {
    cJSON *p = cJSON_CreateObject();
    if (!p) return NULL;
    cJSON_AddStringToObject(p, "apiVersion", "v1");
    cJSON_AddStringToObject(p, "kind", "Pod");
    cJSON *meta = cJSON_AddObjectToObject(p, "metadata");
    cJSON_AddStringToObject(meta, "name", "pod-0000000000");
    cJSON_AddStringToObject(meta, "namespace", g->namespace_);
    cJSON *spec = cJSON_AddObjectToObject(p, "spec");
    cJSON *containers = cJSON_AddArrayToObject(spec, "containers");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "name", "pause");
    cJSON_AddStringToObject(c, "image", "registry.k8s.io/pause:3.2");
    cJSON *ports = cJSON_AddArrayToObject(c, "ports");
    cJSON *port = cJSON_CreateObject();
    cJSON_AddNumberToObject(port, "containerPort", 80);
    cJSON_AddItemToArray(ports, port);
    cJSON *res = cJSON_AddObjectToObject(c, "resources");
    cJSON_AddItemToObject(res, "limits", resource_list(g->pod_cpu, g->pod_memory, NULL));
    cJSON_AddItemToObject(res, "requests", resource_list(g->pod_cpu, g->pod_memory, NULL));
    cJSON_AddItemToArray(containers, c);
    cJSON *status = cJSON_AddObjectToObject(p, "status");
    cJSON_AddStringToObject(status, "phase", "Pending");
    return p;
}

static cJSON *path(cJSON *obj, const char *a, const char *b) {
    cJSON *x = cJSON_GetObjectItemCaseSensitive(obj, a);
    return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

static ms_rc set_string(cJSON *item, const char *v, ms_error *err) {
    if (!item || !cJSON_SetValuestring(item, v)) return ms_error_set(err, MS_ENOMEM, "out of memory");
    return MS_OK;
}

static ms_rc gen_nodes(const ms_generator_spec *g, const ms_decoder *d,
                       const ms_generator_sink *sink, ms_error *err) {
    cJSON *t = node_template(g);
    if (!t) return ms_error_set(err, MS_ENOMEM, "out of memory");
    cJSON *name = path(t, "metadata", "name");
    cJSON *labels = path(t, "metadata", "labels");
    cJSON *host = cJSON_GetObjectItemCaseSensitive(labels, "kubernetes.io/hostname");
    cJSON *zone = cJSON_GetObjectItemCaseSensitive(labels, "topology.kubernetes.io/zone");
    ms_rc rc = MS_OK;
    char buf[32];
    for (uint32_t i = 0; i < g->nodes && rc == MS_OK; i++) {
        snprintf(buf, sizeof buf, "node-%u", i);
        if ((rc = set_string(name, buf, err)) != MS_OK || (rc = set_string(host, buf, err)) != MS_OK)
            break;
        if (zone) {
            snprintf(buf, sizeof buf, "zone-%u", i % g->zones);
            if ((rc = set_string(zone, buf, err)) != MS_OK) break;
        }
        ms_node *node = NULL;
        if ((rc = ms_node_decode(d, t, &node, err)) != MS_OK) break;
        rc = sink->node(sink->ctx, node, err);
    }
    cJSON_Delete(t);
    return rc;
}

/* pod-with-pod-anti-affinity.yaml: label color=green, required
 * anti-affinity to color=green pods on the same hostname in both
 * namespaces. */
static bool add_anti_affinity(cJSON *t) {
    cJSON *labels = cJSON_AddObjectToObject(path(t, "metadata", NULL), "labels");
    cJSON *affinity = cJSON_AddObjectToObject(path(t, "spec", NULL), "affinity");
    cJSON *anti = affinity ? cJSON_AddObjectToObject(affinity, "podAntiAffinity") : NULL;
    cJSON *req = anti ? cJSON_AddArrayToObject(anti, "requiredDuringSchedulingIgnoredDuringExecution") : NULL;
    cJSON *term = cJSON_CreateObject();
    if (!labels || !req || !term || !cJSON_AddItemToArray(req, term)) {
        cJSON_Delete(term);
        return false;
    }
    cJSON *sel = cJSON_AddObjectToObject(term, "labelSelector");
    cJSON *match = sel ? cJSON_AddObjectToObject(sel, "matchLabels") : NULL;
    cJSON *nss = cJSON_AddArrayToObject(term, "namespaces");
    cJSON *ns1 = cJSON_CreateString(ANTI_AFFINITY_TEST_NS), *ns2 = cJSON_CreateString(ANTI_AFFINITY_SETUP_NS);
    bool ok = match && nss && ns1 && ns2 && cJSON_AddStringToObject(labels, "color", "green") &&
              cJSON_AddStringToObject(match, "color", "green") &&
              cJSON_AddStringToObject(term, "topologyKey", "kubernetes.io/hostname") &&
              cJSON_AddItemToArray(nss, ns1);
    if (!ok) {
        cJSON_Delete(ns1);
        cJSON_Delete(ns2);
        return false;
    }
    if (!cJSON_AddItemToArray(nss, ns2)) {
        cJSON_Delete(ns2);
        return false;
    }
    return true;
}

/* pod-with-node-affinity.yaml: required node affinity In [zone1, zone2]. */
static bool add_node_affinity(cJSON *t) {
    cJSON *affinity = cJSON_AddObjectToObject(path(t, "spec", NULL), "affinity");
    cJSON *na = affinity ? cJSON_AddObjectToObject(affinity, "nodeAffinity") : NULL;
    cJSON *req = na ? cJSON_AddObjectToObject(na, "requiredDuringSchedulingIgnoredDuringExecution") : NULL;
    cJSON *terms = req ? cJSON_AddArrayToObject(req, "nodeSelectorTerms") : NULL;
    cJSON *term = cJSON_CreateObject();
    if (!terms || !term || !cJSON_AddItemToArray(terms, term)) {
        cJSON_Delete(term);
        return false;
    }
    cJSON *exprs = cJSON_AddArrayToObject(term, "matchExpressions");
    cJSON *e = cJSON_CreateObject();
    if (!exprs || !e || !cJSON_AddItemToArray(exprs, e)) {
        cJSON_Delete(e);
        return false;
    }
    const char *values[] = {"zone1", "zone2"};
    cJSON *vals = cJSON_CreateStringArray(values, 2);
    if (!vals || !cJSON_AddItemToObject(e, "values", vals)) {
        cJSON_Delete(vals);
        return false;
    }
    return cJSON_AddStringToObject(e, "key", NODE_AFFINITY_KEY) && cJSON_AddStringToObject(e, "operator", "In");
}

/* volumes: [{name: data, persistentVolumeClaim: {claimName: ...}}]; the
 * claimName item, renamed per pod. */
static cJSON *add_claim_volume(cJSON *spec) {
    cJSON *vols = cJSON_AddArrayToObject(spec, "volumes");
    cJSON *v = cJSON_CreateObject();
    if (!vols || !v || !cJSON_AddItemToArray(vols, v)) {
        cJSON_Delete(v);
        return NULL;
    }
    cJSON *src = cJSON_AddStringToObject(v, "name", "data") ? cJSON_AddObjectToObject(v, "persistentVolumeClaim") : NULL;
    return src ? cJSON_AddStringToObject(src, "claimName", "pvc-0") : NULL;
}

/* pod-with-topology-spreading.yaml's label and constraint. */
static ms_rc add_spread(cJSON *t, cJSON *spec, uint8_t spread, ms_error *err) {
    cJSON *labels = cJSON_AddObjectToObject(path(t, "metadata", NULL), "labels");
    cJSON *tsc = cJSON_AddArrayToObject(spec, "topologySpreadConstraints");
    cJSON *c = cJSON_CreateObject();
    cJSON *match = c ? cJSON_AddObjectToObject(cJSON_AddObjectToObject(c, "labelSelector"), "matchLabels") : NULL;
    if (!labels || !tsc || !match || !cJSON_AddStringToObject(labels, "color", "blue") ||
        !cJSON_AddStringToObject(match, "color", "blue") || !cJSON_AddNumberToObject(c, "maxSkew", 5) ||
        !cJSON_AddStringToObject(c, "topologyKey", "topology.kubernetes.io/zone") ||
        !cJSON_AddStringToObject(c, "whenUnsatisfiable", spread == MS_SPREAD_HARD ? "DoNotSchedule" : "ScheduleAnyway")) {
        cJSON_Delete(c);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    cJSON_AddItemToArray(tsc, c);
    return MS_OK;
}

/* The deschedule shape's bound pods: a ReplicaSet's, spread over zones. */
static ms_rc add_owner(cJSON *t, cJSON *spec, ms_error *err) {
    cJSON *owners = cJSON_AddArrayToObject(path(t, "metadata", NULL), "ownerReferences");
    cJSON *o = cJSON_CreateObject();
    if (!owners || !o || !cJSON_AddStringToObject(o, "apiVersion", "apps/v1") ||
        !cJSON_AddStringToObject(o, "kind", "ReplicaSet") || !cJSON_AddStringToObject(o, "name", "blue") ||
        !cJSON_AddStringToObject(o, "uid", "blue-uid") || !cJSON_AddTrueToObject(o, "controller")) {
        cJSON_Delete(o);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    cJSON_AddItemToArray(owners, o);
    return add_spread(t, spec, MS_SPREAD_HARD, err);
}

static ms_rc gen_pods(const ms_generator_spec *g, const ms_decoder *d,
                      const ms_generator_sink *sink, ms_error *err) {
    cJSON *t = pod_template(g);
    if (!t) return ms_error_set(err, MS_ENOMEM, "out of memory");
    /* Setup (bound) and measured (pending) pods share the template. */
    bool anti = strcmp(g->shape, SHAPE_ANTI_AFFINITY) == 0;
    cJSON *ns = path(t, "metadata", "namespace");
    if ((anti && (!add_anti_affinity(t) || !cJSON_SetValuestring(ns, ANTI_AFFINITY_SETUP_NS))) ||
        (strcmp(g->shape, SHAPE_NODE_AFFINITY) == 0 && !add_node_affinity(t))) {
        cJSON_Delete(t);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    cJSON *name = path(t, "metadata", "name");
    cJSON *spec = path(t, "spec", NULL);
    cJSON *phase = path(t, "status", "phase");
    ms_rng rng;
    ms_rng_seed(&rng, g->seed);
    ms_rc rc = MS_OK;
    char buf[32];
    bool desched = strcmp(g->shape, SHAPE_DESCHEDULE) == 0;
    uint32_t filled = g->nodes;
    if (desched) {
        filled = g->bound_nodes && g->bound_nodes < g->nodes ? g->bound_nodes : (g->nodes + 1) / 2;
        rc = add_owner(t, spec, err);
    }

    /* Bound pods first, round-robin over the (filled) nodes, Running. */
    cJSON *node_name = cJSON_AddStringToObject(spec, "nodeName", "node-0000000000");
    if (!node_name || set_string(phase, "Running", err) != MS_OK) rc = MS_ENOMEM;
    for (uint32_t i = 0; i < g->bound_pods && g->nodes && rc == MS_OK; i++) {
        snprintf(buf, sizeof buf, "bound-%u", i);
        if ((rc = set_string(name, buf, err)) != MS_OK) break;
        snprintf(buf, sizeof buf, "node-%u", i % filled);
        if ((rc = set_string(node_name, buf, err)) != MS_OK) break;
        ms_pod *pod = NULL;
        if ((rc = ms_pod_decode(d, t, &pod, err)) != MS_OK) break;
        rc = sink->pod(sink->ctx, pod, err);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(spec, "nodeName");
    if (rc == MS_OK) rc = set_string(phase, "Pending", err);
    if (rc == MS_OK && anti) rc = set_string(ns, ANTI_AFFINITY_TEST_NS, err);

    /* scheduler_perf's topology spreading pods: color=blue, spread over
     * zones by color=blue. */
    if (g->spread != MS_SPREAD_NONE && !desched && rc == MS_OK) rc = add_spread(t, spec, g->spread, err);
    /* shape volumes: each pending pod uses its own claim pvc-N */
    cJSON *claim = NULL;
    if (strcmp(g->shape, SHAPE_VOLUMES) == 0 && rc == MS_OK && !(claim = add_claim_volume(spec)))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    cJSON *priority = NULL;
    if (g->priorities > 1 && rc == MS_OK) {
        priority = cJSON_AddNumberToObject(spec, "priority", 0);
        if (!priority) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < g->pods && rc == MS_OK; i++) {
        snprintf(buf, sizeof buf, "pod-%u", i);
        if ((rc = set_string(name, buf, err)) != MS_OK) break;
        if (priority) cJSON_SetNumberValue(priority, (double)ms_rng_below(&rng, g->priorities));
        if (claim) {
            snprintf(buf, sizeof buf, "pvc-%u", i);
            if ((rc = set_string(claim, buf, err)) != MS_OK) break;
        }
        ms_pod *pod = NULL;
        if ((rc = ms_pod_decode(d, t, &pod, err)) != MS_OK) break;
        rc = sink->pod(sink->ctx, pod, err);
    }
    cJSON_Delete(t);
    if (rc == MS_ENOMEM && err && err->rc != MS_ENOMEM) ms_error_set(err, MS_ENOMEM, "out of memory");
    return rc;
}

/* scheduler_perf's Preemption: the bound pods are pod-low-priority.yaml
 * (900m, 500Mi, priority 0; four fill a default node), the pending ones
 * pod-high-priority.yaml (3000m, 500Mi, priority 10): each must preempt. */
static ms_rc gen_preemption_pods(const ms_generator_spec *g, const ms_decoder *d,
                                 const ms_generator_sink *sink, ms_error *err) {
    ms_generator_spec low = *g;
    low.pods = 0;
    low.priorities = 0;
    snprintf(low.pod_cpu, sizeof low.pod_cpu, "900m");
    snprintf(low.pod_memory, sizeof low.pod_memory, "500Mi");
    ms_rc rc = gen_pods(&low, d, sink, err);
    if (rc != MS_OK || g->pods == 0) return rc;

    ms_generator_spec high = *g;
    snprintf(high.pod_cpu, sizeof high.pod_cpu, "3000m");
    snprintf(high.pod_memory, sizeof high.pod_memory, "500Mi");
    cJSON *t = pod_template(&high);
    cJSON *spec = t ? path(t, "spec", NULL) : NULL;
    if (!spec || !cJSON_AddNumberToObject(spec, "priority", 10)) {
        cJSON_Delete(t);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    cJSON *name = path(t, "metadata", "name");
    char buf[32];
    for (uint32_t i = 0; i < g->pods && rc == MS_OK; i++) {
        snprintf(buf, sizeof buf, "pod-%u", i);
        if ((rc = set_string(name, buf, err)) != MS_OK) break;
        ms_pod *pod = NULL;
        if ((rc = ms_pod_decode(d, t, &pod, err)) != MS_OK) break;
        rc = sink->pod(sink->ctx, pod, err);
    }
    cJSON_Delete(t);
    return rc;
}

ms_rc ms_generate(const ms_generator_spec *g, const ms_decoder *d, const ms_generator_sink *sink,
                  ms_error *err) {
    if (ms_generator_is_upstream(g->shape)) {
        ms_rc rc = ms_generate_upstream(g, d, sink, err);
        if (rc != MS_OK && rc != MS_ENOMEM) ms_error_prefix(err, "--generate");
        return rc;
    }
    ms_rc rc = gen_nodes(g, d, sink, err);
    if (rc == MS_OK && strcmp(g->shape, SHAPE_VOLUMES) == 0) rc = ms_generate_volumes(g, d, sink, err);
    if (rc == MS_OK && strcmp(g->shape, MS_SHAPE_DRA) == 0) rc = ms_generate_dra(g, d, sink, err);
    else if (rc == MS_OK)
        rc = strcmp(g->shape, "preemption") == 0 ? gen_preemption_pods(g, d, sink, err)
                                                 : gen_pods(g, d, sink, err);
    if (rc != MS_OK && rc != MS_ENOMEM) ms_error_prefix(err, "--generate");
    return rc;
}
