/* scheduler_perf's test cases (test/integration/scheduler_perf/AREA/
 * performance-config.yaml) by their upstream names, for the ones the other
 * shapes do not already cover: each case is a list of steps (nodes,
 * namespaces, then pods of one upstream template each), and each template
 * is the upstream YAML as JSON, renamed per object and decoded by the
 * regular decoders. Upstream creates its init pods and lets the scheduler
 * place them; here they are created bound, round-robin over the nodes (a
 * placement the scheduler could have made: no two anti-affine init pods
 * share a node), so that only the measured pods are scheduled. A churn
 * step (upstream: one object every intervalMilliseconds while the measured
 * pods run) has no clock to follow here: its pods are all created pending
 * before the measured ones, `churn-pods` of them. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "simulate/generator.h"
#include "moonsched/namespaces.h"
#include "codec/decode_storage.h"
#include "codec/decode_workload.h"

/* The pod templates (templates/NAME.yaml), without name and namespace. */
#define CONTAINER(res)                                                                          \
    "\"containers\": [{\"name\": \"pause\", \"image\": \"registry.k8s.io/pause:3.10\", \"ports\":" \
    " [{\"containerPort\": 80}], \"resources\": " res "}]"
#define LIMITED(cpu, mem)                                                                        \
    "{\"limits\": {\"cpu\": \"" cpu "\", \"memory\": \"" mem "\"}, \"requests\": {\"cpu\": \"" cpu \
    "\", \"memory\": \"" mem "\"}}"
#define DEFAULT_CONTAINER CONTAINER(LIMITED("100m", "500Mi"))
#define SCHED_NSS "\"namespaces\": [\"sched-1\", \"sched-0\"]"
#define NS_SELECTOR "\"namespaceSelector\": {\"matchLabels\": {\"team\": \"devops\"}}"
#define TERM(color, key, nss)                                                                    \
    "{\"labelSelector\": {\"matchLabels\": {\"color\": \"" color "\"}}, \"topologyKey\": \"" key \
    "\", " nss "}"
#define POD(labels, spec) "{\"metadata\": {\"labels\": {" labels "}}, \"spec\": {" spec "}}"
#define HOSTNAME "kubernetes.io/hostname"
#define ZONE "topology.kubernetes.io/zone"

/* pod-default.yaml */
static const char POD_DEFAULT[] = POD("", DEFAULT_CONTAINER);
/* pod-with-pod-affinity.yaml */
static const char POD_AFFINITY[] =
    POD("\"color\": \"blue\"", "\"affinity\": {\"podAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\":"
                               " [" TERM("blue", ZONE, SCHED_NSS) "]}}, " DEFAULT_CONTAINER);
/* pod-with-pod-anti-affinity.yaml */
static const char POD_ANTI_AFFINITY[] = POD(
    "\"color\": \"green\"", "\"affinity\": {\"podAntiAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\":"
                            " [" TERM("green", HOSTNAME, SCHED_NSS) "]}}, " DEFAULT_CONTAINER);
/* pod-with-preferred-pod-affinity.yaml */
static const char POD_PREFERRED_AFFINITY[] =
    POD("\"color\": \"red\"", "\"affinity\": {\"podAffinity\": {\"preferredDuringSchedulingIgnoredDuringExecution\":"
                              " [{\"weight\": 1, \"podAffinityTerm\": " TERM("red", HOSTNAME, SCHED_NSS)
                              "}]}}, " DEFAULT_CONTAINER);
/* pod-with-preferred-pod-anti-affinity.yaml */
static const char POD_PREFERRED_ANTI_AFFINITY[] = POD(
    "\"color\": \"yellow\"", "\"affinity\": {\"podAntiAffinity\": {\"preferredDuringSchedulingIgnoredDuringExecution\":"
                             " [{\"weight\": 1, \"podAffinityTerm\": " TERM("yellow", HOSTNAME, SCHED_NSS)
                             "}]}}, " DEFAULT_CONTAINER);
/* pod-anti-affinity-ns-selector.yaml */
static const char POD_ANTI_AFFINITY_NS_SELECTOR[] = POD(
    "\"color\": \"green\"", "\"affinity\": {\"podAntiAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\":"
                            " [" TERM("green", HOSTNAME, NS_SELECTOR) "]}}, " DEFAULT_CONTAINER);
/* pod-preferred-affinity-ns-selector.yaml */
static const char POD_PREFERRED_AFFINITY_NS_SELECTOR[] =
    POD("\"color\": \"red\"", "\"affinity\": {\"podAffinity\": {\"preferredDuringSchedulingIgnoredDuringExecution\":"
                              " [{\"weight\": 1, \"podAffinityTerm\": " TERM("red", HOSTNAME, NS_SELECTOR)
                              "}]}}, " DEFAULT_CONTAINER);
/* pod-low-priority.yaml: four fill a default node */
static const char POD_LOW_PRIORITY[] = POD("", "\"priority\": 0, " CONTAINER(LIMITED("900m", "500Mi")));
/* pod-high-priority.yaml: fits only by preempting three of them */
static const char POD_HIGH_PRIORITY[] = POD("", "\"priority\": 10, " CONTAINER(LIMITED("3000m", "500Mi")));
/* pod-high-priority-large-cpu.yaml: 9 cpu, more than any default node has */
static const char POD_HIGH_PRIORITY_LARGE_CPU[] =
    POD("", "\"priority\": 10, " CONTAINER("{\"requests\": {\"cpu\": \"9\", \"memory\": \"500Mi\"}}"));
/* pod-with-label.yaml: no requests, the label service.yaml selects */
static const char POD_WITH_LABEL[] =
    POD("\"app\": \"scheduler-perf\"",
        "\"containers\": [{\"name\": \"pause\", \"image\": \"registry.k8s.io/pause:3.10.1\"}]");
/* service.yaml */
static const char SERVICE[] =
    "{\"metadata\": {\"name\": \"service\"}, \"spec\": {\"selector\": {\"app\": \"scheduler-perf\"}, "
    "\"ports\": [{\"protocol\": \"TCP\", \"port\": 80, \"targetPort\": 8000}]}}";
/* light-pod.yaml and gated-pod.yaml: no requests at all */
static const char POD_LIGHT[] =
    POD("", "\"containers\": [{\"name\": \"pause\", \"image\": \"registry.k8s.io/pause:3.10\"}]");
static const char POD_GATED[] =
    POD("", "\"schedulingGates\": [{\"name\": \"test.k8s.io/hold\"}], "
            "\"containers\": [{\"name\": \"pause\", \"image\": \"registry.k8s.io/pause:3.10\"}]");

/* node-default.yaml with the labels a kubelet sets; node-with-name.yaml
 * (one node, 90000 pods); churn/node-default.yaml (no room for a pod). */
#define NODE(labels, capacity)                                                                        \
    "{\"metadata\": {\"labels\": {\"kubernetes.io/os\": \"linux\"" labels "}}, \"spec\": {}, "         \
    "\"status\": {\"capacity\": " capacity ", \"allocatable\": " capacity ", \"conditions\": "          \
    "[{\"type\": \"Ready\", \"status\": \"True\"}], \"phase\": \"Running\"}}"
#define DEFAULT_CAPACITY "{\"cpu\": \"4\", \"memory\": \"32Gi\", \"pods\": \"110\"}"
static const char NODE_DEFAULT[] = NODE("", DEFAULT_CAPACITY);
static const char NODE_ZONE1[] = NODE(", \"" ZONE "\": \"zone1\"", DEFAULT_CAPACITY);
static const char NODE_WITH_NAME[] = NODE("", "{\"cpu\": \"4\", \"memory\": \"32Gi\", \"pods\": \"90000\"}");
static const char NODE_CHURN[] = NODE("", "{\"pods\": \"0\"}");
/* SchedulingCSIPVs' nodeAllocatableStrategy: 39 EBS CSI attachments */
static const char NODE_CSI[] =
    NODE("", "{\"cpu\": \"4\", \"memory\": \"32Gi\", \"pods\": \"110\", "
             "\"attachable-volumes-csi-ebs.csi.aws.com\": \"39\"}");
/* and the node's CSINode: the same limit, as drivers[].allocatable.count */
static const char CSI_NODE[] =
    "{\"metadata\": {\"name\": \"node\"}, \"spec\": {\"drivers\": [{\"name\": \"ebs.csi.aws.com\", "
    "\"nodeID\": \"node\", \"allocatable\": {\"count\": 39}}]}}";
/* pv-csi.yaml, bound to its claim as scheduler_perf's volume factory does */
static const char PV_CSI[] =
    "{\"metadata\": {\"name\": \"pv\"}, \"spec\": {\"accessModes\": [\"ReadOnlyMany\"], \"capacity\": "
    "{\"storage\": \"1Gi\"}, \"csi\": {\"driver\": \"ebs.csi.aws.com\", \"volumeHandle\": \"pv\"}, "
    "\"persistentVolumeReclaimPolicy\": \"Retain\", \"claimRef\": {\"namespace\": \"default\", \"name\": "
    "\"pvc\"}}, \"status\": {\"phase\": \"Bound\"}}";
/* pvc.yaml (ReadOnlyMany, 1Gi), bound to its PV */
static const char PVC[] =
    "{\"metadata\": {\"name\": \"pvc\", \"namespace\": \"default\"}, \"spec\": {\"accessModes\": "
    "[\"ReadOnlyMany\"], \"resources\": {\"requests\": {\"storage\": \"1Gi\"}}, \"volumeName\": \"pv\"}, "
    "\"status\": {\"phase\": \"Bound\"}}";

/* STEP_ZONED_NODES: nodes whose topology.kubernetes.io/zone is moon-1,
 * moon-2, moon-3 in turn (upstream's labelNodePrepareStrategy draws each
 * node's at random); STEP_SERVICE: service.yaml in the step's namespace. */
typedef enum step_kind {
    STEP_NODES, STEP_ZONED_NODES, STEP_NAMESPACES, STEP_CSI_NODES, STEP_SERVICE, STEP_BOUND, STEP_PENDING
} step_kind;

/* Where a step's count comes from: the spec's keys. */
typedef enum step_count {
    COUNT_ONE,
    COUNT_NODES,
    COUNT_NAMESPACES, /* init-namespaces */
    COUNT_BOUND,      /* bound-pods */
    COUNT_PENDING,    /* pods */
    COUNT_CHURN,      /* churn-pods */
    COUNT_GATED,      /* gated-pods */
} step_count;

typedef struct step {
    step_kind kind;
    step_count count;
    const char *template_; /* JSON text */
    const char *prefix;    /* object names: PREFIX-N (a one-node step: PREFIX) */
    const char *namespace_; /* pods: the namespace; NULL: spread over init-ns-N */
    bool claim;             /* pods: each with its own CSI PV and bound claim */
} step;

typedef struct upstream_case {
    const char *name;
    step steps[8];
} upstream_case;

#define END {STEP_NODES, COUNT_ONE, NULL, NULL, NULL, false}
#define NODES(t) {STEP_NODES, COUNT_NODES, t, "node", NULL, false}
#define SCHED_NAMESPACES {STEP_NAMESPACES, COUNT_ONE, NULL, NULL, NULL, false}
#define SELECTOR_NAMESPACES {STEP_NAMESPACES, COUNT_NAMESPACES, NULL, NULL, NULL, false}

static const upstream_case CASES[] = {
    /* affinity/performance-config.yaml */
    {"SchedulingPodAffinity",
     {NODES(NODE_ZONE1), SCHED_NAMESPACES, {STEP_BOUND, COUNT_BOUND, POD_AFFINITY, "init", "sched-0", false},
      {STEP_PENDING, COUNT_PENDING, POD_AFFINITY, "pod", "sched-1", false}, END}},
    {"SchedulingPreferredPodAffinity",
     {NODES(NODE_DEFAULT), SCHED_NAMESPACES,
      {STEP_BOUND, COUNT_BOUND, POD_PREFERRED_AFFINITY, "init", "sched-0", false},
      {STEP_PENDING, COUNT_PENDING, POD_PREFERRED_AFFINITY, "pod", "sched-1", false}, END}},
    {"SchedulingPreferredPodAntiAffinity",
     {NODES(NODE_DEFAULT), SCHED_NAMESPACES,
      {STEP_BOUND, COUNT_BOUND, POD_PREFERRED_ANTI_AFFINITY, "init", "sched-0", false},
      {STEP_PENDING, COUNT_PENDING, POD_PREFERRED_ANTI_AFFINITY, "pod", "sched-1", false}, END}},
    /* initPods of each of five templates, then default pods measured */
    {"MixedSchedulingBasePod",
     {NODES(NODE_ZONE1), SCHED_NAMESPACES, {STEP_BOUND, COUNT_BOUND, POD_DEFAULT, "init-default", "sched-0", false},
      {STEP_BOUND, COUNT_BOUND, POD_AFFINITY, "init-affinity", "sched-0", false},
      {STEP_BOUND, COUNT_BOUND, POD_ANTI_AFFINITY, "init-anti-affinity", "sched-0", false},
      {STEP_BOUND, COUNT_BOUND, POD_PREFERRED_AFFINITY, "init-preferred-affinity", "sched-0", false},
      {STEP_BOUND, COUNT_BOUND, POD_PREFERRED_ANTI_AFFINITY, "init-preferred-anti-affinity", "sched-0", false},
      {STEP_PENDING, COUNT_PENDING, POD_DEFAULT, "pod", "default", false}}},
    /* namespaces init-ns-0.. and measure-ns-0 labelled team=devops, the
     * init pods spread evenly over init-ns-N */
    {"SchedulingRequiredPodAntiAffinityWithNSSelector",
     {NODES(NODE_DEFAULT), SELECTOR_NAMESPACES,
      {STEP_BOUND, COUNT_BOUND, POD_ANTI_AFFINITY_NS_SELECTOR, "init", NULL, false},
      {STEP_PENDING, COUNT_PENDING, POD_ANTI_AFFINITY_NS_SELECTOR, "pod", "measure-ns-0", false}, END}},
    {"SchedulingPreferredAffinityWithNSSelector",
     {NODES(NODE_DEFAULT), SELECTOR_NAMESPACES,
      {STEP_BOUND, COUNT_BOUND, POD_PREFERRED_AFFINITY_NS_SELECTOR, "init", NULL, false},
      {STEP_PENDING, COUNT_PENDING, POD_PREFERRED_AFFINITY_NS_SELECTOR, "pod", "measure-ns-0", false}, END}},
    /* misc/performance-config.yaml */
    {"Unschedulable",
     {NODES(NODE_DEFAULT), {STEP_BOUND, COUNT_BOUND, POD_DEFAULT, "init", "default", false},
      {STEP_PENDING, COUNT_CHURN, POD_HIGH_PRIORITY_LARGE_CPU, "churn", "default", false},
      {STEP_PENDING, COUNT_PENDING, POD_DEFAULT, "pod", "default", false}, END}},
    {"PreemptionAsync",
     {NODES(NODE_DEFAULT), {STEP_BOUND, COUNT_BOUND, POD_LOW_PRIORITY, "init", "default", false},
      {STEP_PENDING, COUNT_CHURN, POD_HIGH_PRIORITY, "churn", "default", false},
      {STEP_PENDING, COUNT_PENDING, POD_DEFAULT, "pod", "default", false}, END}},
    /* recreate mode keeps one of each churn object alive: a node without
     * room, an unschedulable pod (and a Service, left out: its selector
     * matches none of the pods) */
    {"SchedulingWithMixedChurn",
     {NODES(NODE_DEFAULT), {STEP_NODES, COUNT_ONE, NODE_CHURN, "node-churn", NULL, false},
      {STEP_PENDING, COUNT_CHURN, POD_HIGH_PRIORITY_LARGE_CPU, "churn", "default", false},
      {STEP_PENDING, COUNT_PENDING, POD_DEFAULT, "pod", "default", false}, END}},
    /* one big node, gated pods that stay gated, then light pods; upstream
     * also deletes deletingPods scheduled pods at 50/s meanwhile */
    {"SchedulingWhileGated",
     {{STEP_NODES, COUNT_ONE, NODE_WITH_NAME, "scheduler-perf-node", NULL, false},
      {STEP_PENDING, COUNT_GATED, POD_GATED, "gated", "default", false},
      {STEP_BOUND, COUNT_BOUND, POD_LIGHT, "init", "default", false},
      {STEP_PENDING, COUNT_PENDING, POD_LIGHT, "pod", "default", false}, END}},
    /* topology_spreading/performance-config.yaml: the measured pods are
     * selected by a Service only, which gives them PodTopologySpread's
     * system default constraints */
    {"DefaultTopologySpreading",
     {{STEP_ZONED_NODES, COUNT_NODES, NODE_DEFAULT, "node", NULL, false},
      {STEP_SERVICE, COUNT_ONE, SERVICE, "service", "service-ns", false},
      {STEP_BOUND, COUNT_BOUND, POD_DEFAULT, "init", "default", false},
      {STEP_PENDING, COUNT_PENDING, POD_WITH_LABEL, "pod", "service-ns", false}, END}},
    /* volumes/performance-config.yaml: every pod, init or measured, with
     * its own claim bound to its own CSI PV; nodes allow 39 attachments */
    {"SchedulingCSIPVs",
     {NODES(NODE_CSI), {STEP_CSI_NODES, COUNT_NODES, CSI_NODE, "node", NULL, false},
      {STEP_BOUND, COUNT_BOUND, POD_DEFAULT, "init", "default", true},
      {STEP_PENDING, COUNT_PENDING, POD_DEFAULT, "pod", "default", true}, END}},
};

const char *ms_generator_upstream_names(void) {
    return "SchedulingPodAffinity, MixedSchedulingBasePod, Unschedulable, ...: docs/performance.md";
}

static const upstream_case *find_case(const char *name) {
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        if (strcmp(CASES[i].name, name) == 0) return &CASES[i];
    return NULL;
}

bool ms_generator_is_upstream(const char *shape) { return find_case(shape) != NULL; }

static uint32_t step_n(const ms_generator_spec *g, step_count c) {
    switch (c) {
    case COUNT_ONE: return 1;
    case COUNT_NODES: return g->nodes;
    case COUNT_NAMESPACES: return g->init_namespaces;
    case COUNT_BOUND: return g->bound_pods;
    case COUNT_PENDING: return g->pods;
    case COUNT_CHURN: return g->churn_pods;
    case COUNT_GATED: return g->gated_pods;
    }
    return 0;
}

typedef struct gen {
    const ms_generator_spec *g;
    const ms_decoder *d;
    const ms_generator_sink *sink;
    /* the first node step's nodes, which bound pods go round-robin over */
    uint32_t nodes;
    const char *first_node_prefix;
    bool first_node_named;  /* one node named PREFIX, not PREFIX-0 */
    uint32_t bound;         /* bound pods made so far, over all steps */
} gen;

static ms_rc set(cJSON *obj, const char *key, const char *v, ms_error *err) {
    cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (old) return cJSON_SetValuestring(old, v) ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    return cJSON_AddStringToObject(obj, key, v) ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
}

static ms_rc gen_namespace(gen *x, const char *name, bool labelled, ms_error *err) {
    if (!x->sink->namespace_) return MS_OK;
    cJSON *t = cJSON_Parse(labelled ? "{\"metadata\": {\"labels\": {\"team\": \"devops\"}}}" : "{\"metadata\": {}}");
    ms_rc rc = t ? set(cJSON_GetObjectItemCaseSensitive(t, "metadata"), "name", name, err)
                 : ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_namespace *ns = NULL;
    if (rc == MS_OK) rc = ms_namespace_decode(x->d, t, &ns, err);
    if (rc == MS_OK) rc = x->sink->namespace_(x->sink->ctx, ns, err);
    cJSON_Delete(t);
    return rc;
}

static ms_rc gen_namespaces(gen *x, const step *s, ms_error *err) {
    char buf[64];
    ms_rc rc = MS_OK;
    if (s->count == COUNT_ONE) {
        for (int i = 0; i < 2 && rc == MS_OK; i++) {
            snprintf(buf, sizeof buf, "sched-%d", i);
            rc = gen_namespace(x, buf, false, err);
        }
        return rc;
    }
    for (uint32_t i = 0; i < x->g->init_namespaces && rc == MS_OK; i++) {
        snprintf(buf, sizeof buf, "init-ns-%u", i);
        rc = gen_namespace(x, buf, true, err);
    }
    return rc == MS_OK ? gen_namespace(x, "measure-ns-0", true, err) : rc;
}

static ms_rc gen_service(gen *x, const step *s, ms_error *err) {
    if (!x->sink->workload) return MS_OK;
    cJSON *t = cJSON_Parse(s->template_);
    cJSON *meta = t ? cJSON_GetObjectItemCaseSensitive(t, "metadata") : NULL;
    ms_rc rc = meta ? set(meta, "namespace", s->namespace_, err) : ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_workload *w = NULL;
    if (rc == MS_OK) rc = ms_workload_decode(x->d, MS_WK_SERVICE, t, &w, err);
    if (rc == MS_OK) rc = x->sink->workload(x->sink->ctx, w, err);
    cJSON_Delete(t);
    return rc;
}

static ms_rc gen_nodes(gen *x, const step *s, uint32_t n, ms_error *err) {
    cJSON *t = cJSON_Parse(s->template_);
    cJSON *meta = t ? cJSON_GetObjectItemCaseSensitive(t, "metadata") : NULL;
    cJSON *labels = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    ms_rc rc = labels ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    char buf[64];
    for (uint32_t i = 0; i < n && rc == MS_OK; i++) {
        /* node-with-name.yaml's single node keeps its name */
        if (s->count == COUNT_ONE) snprintf(buf, sizeof buf, "%s", s->prefix);
        else snprintf(buf, sizeof buf, "%s-%u", s->prefix, i);
        if ((rc = set(meta, "name", buf, err)) != MS_OK ||
            (rc = set(labels, "kubernetes.io/hostname", buf, err)) != MS_OK)
            break;
        if (s->kind == STEP_ZONED_NODES) {
            snprintf(buf, sizeof buf, "moon-%u", i % 3 + 1);
            if ((rc = set(labels, ZONE, buf, err)) != MS_OK) break;
        }
        ms_node *node = NULL;
        if ((rc = ms_node_decode(x->d, t, &node, err)) == MS_OK) rc = x->sink->node(x->sink->ctx, node, err);
    }
    /* the first node step is the one bound pods are spread over */
    if (rc == MS_OK && !x->first_node_prefix) {
        x->first_node_prefix = s->prefix;
        x->first_node_named = s->count == COUNT_ONE;
        x->nodes = n;
    }
    cJSON_Delete(t);
    return rc;
}

static ms_rc emit_storage(gen *x, ms_storage_kind kind, const cJSON *obj, ms_error *err) {
    ms_storage_object *o = NULL;
    ms_rc rc = ms_storage_decode(x->d, kind, obj, &o, err);
    return rc == MS_OK ? x->sink->storage(x->sink->ctx, o, err) : rc;
}

/* One CSINode per node of the first node step, named after it. */
static ms_rc gen_csi_nodes(gen *x, const step *s, uint32_t n, ms_error *err) {
    if (!x->sink->storage) return MS_OK;
    cJSON *t = cJSON_Parse(s->template_);
    cJSON *meta = t ? cJSON_GetObjectItemCaseSensitive(t, "metadata") : NULL;
    cJSON *driver = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "spec"),
                                                                         "drivers"), 0);
    ms_rc rc = meta && driver ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    char buf[64];
    for (uint32_t i = 0; i < n && rc == MS_OK; i++) {
        snprintf(buf, sizeof buf, "%s-%u", s->prefix, i);
        if ((rc = set(meta, "name", buf, err)) == MS_OK && (rc = set(driver, "nodeID", buf, err)) == MS_OK)
            rc = emit_storage(x, MS_SK_CSI_NODE, t, err);
    }
    cJSON_Delete(t);
    return rc;
}

/* pod NS/NAME's PV "pv-NAME" and claim "NAME", bound to each other, and
 * the pod's volume naming the claim. */
static ms_rc gen_claim(gen *x, const char *ns, const char *name, cJSON *pv, cJSON *pvc, cJSON *claim_name,
                       ms_error *err) {
    char buf[96];
    snprintf(buf, sizeof buf, "pv-%s", name);
    cJSON *pv_spec = cJSON_GetObjectItemCaseSensitive(pv, "spec");
    cJSON *ref = cJSON_GetObjectItemCaseSensitive(pv_spec, "claimRef");
    ms_rc rc;
    if ((rc = set(cJSON_GetObjectItemCaseSensitive(pv, "metadata"), "name", buf, err)) != MS_OK ||
        (rc = set(cJSON_GetObjectItemCaseSensitive(pv_spec, "csi"), "volumeHandle", buf, err)) != MS_OK ||
        (rc = set(ref, "namespace", ns, err)) != MS_OK || (rc = set(ref, "name", name, err)) != MS_OK ||
        (rc = set(cJSON_GetObjectItemCaseSensitive(pvc, "spec"), "volumeName", buf, err)) != MS_OK ||
        (rc = set(cJSON_GetObjectItemCaseSensitive(pvc, "metadata"), "namespace", ns, err)) != MS_OK ||
        (rc = set(cJSON_GetObjectItemCaseSensitive(pvc, "metadata"), "name", name, err)) != MS_OK ||
        (rc = set(claim_name, "claimName", name, err)) != MS_OK)
        return rc;
    if ((rc = emit_storage(x, MS_SK_PV, pv, err)) != MS_OK) return rc;
    return emit_storage(x, MS_SK_PVC, pvc, err);
}

static ms_rc gen_pods(gen *x, const step *s, uint32_t n, ms_error *err) {
    bool bound = s->kind == STEP_BOUND;
    if (bound && !x->nodes) return MS_OK;
    cJSON *t = cJSON_Parse(s->template_);
    cJSON *meta = t ? cJSON_GetObjectItemCaseSensitive(t, "metadata") : NULL;
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(t, "spec");
    cJSON *status = cJSON_AddObjectToObject(t, "status");
    ms_rc rc = meta && spec && status ? set(status, "phase", bound ? "Running" : "Pending", err)
                                      : ms_error_set(err, MS_ENOMEM, "out of memory");
    /* volumes: [{name: data, persistentVolumeClaim: {claimName}}] */
    cJSON *pv = NULL, *pvc = NULL, *claim = NULL;
    if (rc == MS_OK && s->claim && x->sink->storage) {
        pv = cJSON_Parse(PV_CSI);
        pvc = cJSON_Parse(PVC);
        cJSON *vols = cJSON_AddArrayToObject(spec, "volumes");
        cJSON *v = cJSON_CreateObject();
        if (!vols || !v || !cJSON_AddItemToArray(vols, v)) cJSON_Delete(v), v = NULL;
        claim = v && cJSON_AddStringToObject(v, "name", "data") ? cJSON_AddObjectToObject(v, "persistentVolumeClaim")
                                                                : NULL;
        if (!pv || !pvc || !claim) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    char buf[96];
    for (uint32_t i = 0; i < n && rc == MS_OK; i++) {
        snprintf(buf, sizeof buf, "%s-%u", s->prefix, i);
        if ((rc = set(meta, "name", buf, err)) != MS_OK) break;
        if (s->namespace_) rc = set(meta, "namespace", s->namespace_, err);
        else {
            /* createPodSets: initPodsPerNamespace in each init-ns-N */
            uint32_t per = x->g->init_namespaces ? (n + x->g->init_namespaces - 1) / x->g->init_namespaces : n;
            snprintf(buf, sizeof buf, "init-ns-%u", per ? i / per : 0);
            rc = set(meta, "namespace", buf, err);
        }
        if (rc == MS_OK && bound) {
            if (x->first_node_named) snprintf(buf, sizeof buf, "%s", x->first_node_prefix);
            else snprintf(buf, sizeof buf, "%s-%u", x->first_node_prefix, x->bound % x->nodes);
            x->bound++;
            rc = set(spec, "nodeName", buf, err);
        }
        if (rc == MS_OK && claim) {
            const cJSON *ns = cJSON_GetObjectItemCaseSensitive(meta, "namespace");
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(meta, "name");
            rc = gen_claim(x, ns->valuestring, name->valuestring, pv, pvc, claim, err);
        }
        ms_pod *pod = NULL;
        if (rc == MS_OK && (rc = ms_pod_decode(x->d, t, &pod, err)) == MS_OK) rc = x->sink->pod(x->sink->ctx, pod, err);
    }
    cJSON_Delete(pv);
    cJSON_Delete(pvc);
    cJSON_Delete(t);
    return rc;
}

ms_rc ms_generate_upstream(const ms_generator_spec *g, const ms_decoder *d, const ms_generator_sink *sink,
                           ms_error *err) {
    const upstream_case *c = find_case(g->shape);
    if (!c) return ms_error_set(err, MS_EINVAL, "unknown shape \"%s\"", g->shape);
    gen x = {.g = g, .d = d, .sink = sink};
    ms_rc rc = MS_OK;
    for (size_t i = 0; i < sizeof c->steps / sizeof c->steps[0] && rc == MS_OK; i++) {
        const step *s = &c->steps[i];
        if (s->kind == STEP_NODES && !s->template_) break;
        uint32_t n = step_n(g, s->count);
        if (s->kind == STEP_NODES || s->kind == STEP_ZONED_NODES) rc = gen_nodes(&x, s, n, err);
        else if (s->kind == STEP_SERVICE) rc = gen_service(&x, s, err);
        else if (s->kind == STEP_NAMESPACES) rc = gen_namespaces(&x, s, err);
        else if (s->kind == STEP_CSI_NODES) rc = gen_csi_nodes(&x, s, n, err);
        else rc = gen_pods(&x, s, n, err);
    }
    return rc;
}
