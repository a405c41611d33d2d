#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <unistd.h>

#include "moonsched/config.h"

#define V1 "\"apiVersion\": \"kubescheduler.config.k8s.io/v1\", \"kind\": \"KubeSchedulerConfiguration\""

static const char *const default_order =
    "SchedulingGates,PrioritySort,NodeUnschedulable,NodeName,TaintToleration,NodeAffinity,NodePorts,"
    "NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder";

#define ALL_POINTS ((1u << MS_EP_COUNT) - 1)

typedef struct warnings {
    int n;
    char msg[16][256];
} warnings;

static void collect(void *ctx, const char *msg) {
    warnings *w = ctx;
    if (w->n < 16) snprintf(w->msg[w->n], sizeof w->msg[0], "%s", msg);
    w->n++;
}

/* Loads JSON text as "test.json". */
static ms_rc load(const char *json, ms_config *c, ms_error *err, warnings *w) {
    cJSON *root = cJSON_Parse(json);
    if (!root) fail_msg("test JSON does not parse: %s", json);
    memset(err, 0, sizeof *err);
    ms_rc rc = ms_config_load_json(c, root, "test.json", w ? collect : NULL, w, err);
    cJSON_Delete(root);
    return rc;
}

static ms_config load_ok(const char *json, warnings *w) {
    ms_config c;
    ms_error err;
    ms_rc rc = load(json, &c, &err, w);
    if (rc != MS_OK) fail_msg("load failed: %s", err.msg);
    return c;
}

/* "A,B,C": the plugins of one extension point, in order. */
static const char *order(const ms_profile_config *p, ms_extension_point ep) {
    static char buf[2048];
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < p->norder[ep]; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? "," : "",
                                p->plugins[p->order[ep][i]].name);
    return buf;
}

static const ms_plugin_config *plugin(const ms_profile_config *p, const char *name) {
    for (uint32_t i = 0; i < p->nplugins; i++)
        if (strcmp(p->plugins[i].name, name) == 0) return &p->plugins[i];
    return NULL;
}

static int32_t weight(const ms_profile_config *p, const char *name) {
    const ms_plugin_config *pc = plugin(p, name);
    if (!pc) fail_msg("no plugin %s", name);
    return pc->weight;
}

static void assert_default_profile(const ms_profile_config *p) {
    assert_int_equal(p->nplugins, 19);
    for (int ep = 0; ep < MS_EP_COUNT; ep++) assert_string_equal(order(p, (ms_extension_point)ep), default_order);
    static const struct {
        const char *name;
        int32_t weight;
    } weights[] = {
        {"SchedulingGates", 1},  {"PrioritySort", 1},     {"NodeUnschedulable", 1}, {"NodeName", 1},
        {"TaintToleration", 3},  {"NodeAffinity", 2},      {"NodePorts", 1},
        {"NodeResourcesFit", 1}, {"VolumeRestrictions", 1}, {"NodeVolumeLimits", 1},
        {"VolumeBinding", 1},    {"VolumeZone", 1},
        {"PodTopologySpread", 2}, {"InterPodAffinity", 2}, {"DynamicResources", 1},
        {"DefaultPreemption", 1},
        {"NodeResourcesBalancedAllocation", 1},
        {"ImageLocality", 1},    {"DefaultBinder", 1},
    };
    for (size_t i = 0; i < sizeof weights / sizeof weights[0]; i++) {
        assert_string_equal(p->plugins[i].name, weights[i].name);
        assert_int_equal(p->plugins[i].weight, weights[i].weight);
        assert_int_equal(p->plugins[i].points, ALL_POINTS);
        assert_int_equal(p->plugins[i].explicit_points, 0);
        assert_null(p->plugins[i].args);
    }
    assert_int_equal(p->percentage_of_nodes_to_score, -1);
}

static void test_defaults(void **state) {
    (void)state;
    ms_config c;
    assert_int_equal(ms_config_default(&c), MS_OK);
    assert_int_equal(c.nprofiles, 1);
    assert_string_equal(c.profiles[0].scheduler_name, "default-scheduler");
    assert_default_profile(&c.profiles[0]);
    assert_int_equal(c.percentage_of_nodes_to_score, 0);
    assert_true(c.pod_initial_backoff == 1);
    assert_true(c.pod_max_backoff == 10);
    assert_true(c.pod_max_unschedulable == 300);
    assert_true(c.qps == 50);
    assert_int_equal(c.burst, 100);
    assert_int_equal(c.parallelism, 16);
    assert_null(c.kubeconfig);
    assert_null(c.extenders);
    assert_true(c.leader_election.leader_elect);
    assert_true(c.leader_election.lease_duration == 15);
    assert_true(c.leader_election.renew_deadline == 10);
    assert_true(c.leader_election.retry_period == 2);
    assert_string_equal(c.leader_election.resource_lock, "leases");
    assert_string_equal(c.leader_election.resource_name, "kube-scheduler");
    assert_string_equal(c.leader_election.resource_namespace, "kube-system");
    ms_error err;
    assert_int_equal(ms_config_validate(&c, &err), MS_OK);
    assert_ptr_equal(ms_config_profile(&c, "default-scheduler"), &c.profiles[0]);
    assert_ptr_equal(ms_config_profile(&c, NULL), &c.profiles[0]);
    assert_null(ms_config_profile(&c, "other"));
    ms_config_free(&c);
    assert_int_equal(c.nprofiles, 0);
    ms_config_free(&c);   /* twice is harmless */

    ms_profile_config p;
    ms_profile_config_default(&p, "x");
    assert_string_equal(p.scheduler_name, "x");
    assert_default_profile(&p);
}

static void test_extension_point_names(void **state) {
    (void)state;
    static const char *const names[MS_EP_COUNT] = {
        "preEnqueue", "queueSort", "preFilter", "filter",  "postFilter", "preScore",
        "score",      "reserve",   "permit",    "preBind", "bind",       "postBind",
    };
    for (int ep = 0; ep < MS_EP_COUNT; ep++)
        assert_string_equal(ms_extension_point_name((ms_extension_point)ep), names[ep]);
    assert_string_equal(ms_extension_point_name((ms_extension_point)MS_EP_MULTI_POINT), "multiPoint");
    assert_string_equal(ms_extension_point_name((ms_extension_point)99), "unknown");
}

static void test_minimal_file_every_version(void **state) {
    (void)state;
    static const char *const versions[] = {"v1", "v1beta3", "v1beta2", "v1beta1"};
    for (size_t i = 0; i < 4; i++) {
        char json[256];
        snprintf(json, sizeof json,
                 "{\"apiVersion\": \"kubescheduler.config.k8s.io/%s\", \"kind\": "
                 "\"KubeSchedulerConfiguration\"}",
                 versions[i]);
        warnings w = {0};
        ms_config c = load_ok(json, &w);
        assert_int_equal(w.n, 0);
        assert_int_equal(c.nprofiles, 1);
        assert_string_equal(c.profiles[0].scheduler_name, "default-scheduler");
        assert_default_profile(&c.profiles[0]);
        assert_true(c.pod_max_backoff == 10);
        ms_config_free(&c);
    }
    /* an empty list of profiles is defaulted like a missing one */
    ms_config c = load_ok("{" V1 ", \"profiles\": []}", NULL);
    assert_int_equal(c.nprofiles, 1);
    assert_default_profile(&c.profiles[0]);
    ms_config_free(&c);
    /* a single unnamed profile is the default scheduler */
    c = load_ok("{" V1 ", \"profiles\": [{}]}", NULL);
    assert_string_equal(c.profiles[0].scheduler_name, "default-scheduler");
    assert_default_profile(&c.profiles[0]);
    ms_config_free(&c);
}

static ms_config load_plugins(const char *plugins_json) {
    char json[4096];
    snprintf(json, sizeof json, "{" V1 ", \"profiles\": [{\"plugins\": %s}]}", plugins_json);
    warnings w = {0};
    ms_config c = load_ok(json, &w);
    if (w.n) fail_msg("unexpected warning: %s", w.msg[0]);
    return c;
}

static void test_disable_default_at_one_point(void **state) {
    (void)state;
    ms_config c = load_plugins("{\"filter\": {\"disabled\": [{\"name\": \"NodePorts\"}]}}");
    const ms_profile_config *p = &c.profiles[0];
    assert_string_equal(order(p, MS_EP_FILTER),
                        "SchedulingGates,PrioritySort,NodeUnschedulable,NodeName,TaintToleration,NodeAffinity,"
                        "NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder");
    assert_string_equal(order(p, MS_EP_PRE_FILTER), default_order);
    assert_int_equal(plugin(p, "NodePorts")->points, ALL_POINTS & ~(1u << MS_EP_FILTER));
    assert_int_equal(plugin(p, "NodePorts")->explicit_points, 0);
    ms_config_free(&c);
}

static void test_disable_star_at_one_point(void **state) {
    (void)state;
    ms_config c = load_plugins(
        "{\"score\": {\"disabled\": [{\"name\": \"*\"}],"
        "             \"enabled\": [{\"name\": \"NodeResourcesFit\", \"weight\": 5},"
        "                           {\"name\": \"TaintToleration\"}]}}");
    const ms_profile_config *p = &c.profiles[0];
    assert_string_equal(order(p, MS_EP_SCORE), "NodeResourcesFit,TaintToleration");
    assert_string_equal(order(p, MS_EP_FILTER), default_order);
    assert_string_equal(order(p, MS_EP_PRE_SCORE), default_order);
    assert_int_equal(weight(p, "NodeResourcesFit"), 5);
    /* the score list's entry wins over multiPoint's weight, even unweighted */
    assert_int_equal(weight(p, "TaintToleration"), 1);
    assert_int_equal(weight(p, "NodeAffinity"), 2);
    assert_int_equal(plugin(p, "NodeAffinity")->points, ALL_POINTS & ~(1u << MS_EP_SCORE));
    assert_int_equal(plugin(p, "NodeResourcesFit")->explicit_points, 1u << MS_EP_SCORE);
    ms_config_free(&c);
}

static void test_enable_default_at_point_overrides(void **state) {
    (void)state;
    /* upstream: a multiPoint plugin also enabled at a point runs first there */
    ms_config c = load_plugins(
        "{\"filter\": {\"enabled\": [{\"name\": \"MyFilter\"}, {\"name\": \"NodePorts\"}]},"
        " \"score\": {\"enabled\": [{\"name\": \"NodeAffinity\", \"weight\": 4}]}}");
    const ms_profile_config *p = &c.profiles[0];
    assert_string_equal(order(p, MS_EP_FILTER),
                        "NodePorts,SchedulingGates,PrioritySort,NodeUnschedulable,NodeName,TaintToleration,NodeAffinity,"
                        "NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder,MyFilter");
    assert_string_equal(order(p, MS_EP_SCORE),
                        "NodeAffinity,SchedulingGates,PrioritySort,NodeUnschedulable,NodeName,TaintToleration,NodePorts,"
                        "NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder");
    assert_int_equal(weight(p, "NodeAffinity"), 4);
    assert_int_equal(plugin(p, "MyFilter")->points, 1u << MS_EP_FILTER);
    assert_int_equal(plugin(p, "MyFilter")->explicit_points, 1u << MS_EP_FILTER);
    assert_int_equal(plugin(p, "NodePorts")->explicit_points, 1u << MS_EP_FILTER);
    assert_int_equal(plugin(p, "MyFilter")->weight, 1);
    assert_int_equal(p->nplugins, 20);
    assert_string_equal(p->plugins[19].name, "MyFilter");
    ms_config_free(&c);
}

static void test_disable_and_enable_moves_to_end(void **state) {
    (void)state;
    ms_config c = load_plugins(
        "{\"filter\": {\"disabled\": [{\"name\": \"NodeName\"}], \"enabled\": [{\"name\": \"NodeName\"}]}}");
    assert_string_equal(order(&c.profiles[0], MS_EP_FILTER),
                        "SchedulingGates,PrioritySort,NodeUnschedulable,TaintToleration,NodeAffinity,NodePorts,"
                        "NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder,NodeName");
    ms_config_free(&c);
}

static void test_star_with_reorder(void **state) {
    (void)state;
    ms_config c = load_plugins(
        "{\"filter\": {\"disabled\": [{\"name\": \"*\"}],"
        "  \"enabled\": [{\"name\": \"NodeResourcesFit\"}, {\"name\": \"MyFilter\"}, {\"name\": \"NodeName\"}]}}");
    const ms_profile_config *p = &c.profiles[0];
    assert_string_equal(order(p, MS_EP_FILTER), "NodeResourcesFit,MyFilter,NodeName");
    assert_string_equal(order(p, MS_EP_PRE_FILTER), default_order);
    ms_config_free(&c);
}

static void test_multi_point_rules(void **state) {
    (void)state;
    /* custom multiPoint plugins follow the defaults at every point */
    ms_config c = load_plugins("{\"multiPoint\": {\"enabled\": [{\"name\": \"MyPlugin\", \"weight\": 4}]}}");
    const ms_profile_config *p = &c.profiles[0];
    for (int ep = 0; ep < MS_EP_COUNT; ep++) {
        char want[512];
        snprintf(want, sizeof want, "%s,MyPlugin", default_order);
        assert_string_equal(order(p, (ms_extension_point)ep), want);
    }
    assert_int_equal(weight(p, "MyPlugin"), 4);
    assert_int_equal(plugin(p, "MyPlugin")->points, ALL_POINTS);
    assert_int_equal(plugin(p, "MyPlugin")->explicit_points, 0);
    ms_config_free(&c);

    /* a default enabled again keeps its place and takes the new entry whole:
     * without a weight it is back to 1, as upstream */
    c = load_plugins(
        "{\"multiPoint\": {\"enabled\": [{\"name\": \"TaintToleration\", \"weight\": 7},"
        "                                {\"name\": \"NodeAffinity\"}]}}");
    p = &c.profiles[0];
    assert_string_equal(order(p, MS_EP_SCORE), default_order);
    assert_int_equal(weight(p, "TaintToleration"), 7);
    assert_int_equal(weight(p, "NodeAffinity"), 1);
    ms_config_free(&c);

    /* disabled in multiPoint: gone from every point */
    c = load_plugins("{\"multiPoint\": {\"disabled\": [{\"name\": \"NodePorts\"}, {\"name\": \"NodeName\"}]}}");
    p = &c.profiles[0];
    assert_int_equal(p->nplugins, 17);
    assert_null(plugin(p, "NodePorts"));
    for (int ep = 0; ep < MS_EP_COUNT; ep++)
        assert_string_equal(order(p, (ms_extension_point)ep),
                            "SchedulingGates,PrioritySort,NodeUnschedulable,TaintToleration,NodeAffinity,"
                            "NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder");
    ms_config_free(&c);

    /* '*' in multiPoint drops every default; enabled entries still apply */
    c = load_plugins(
        "{\"multiPoint\": {\"disabled\": [{\"name\": \"*\"}],"
        "  \"enabled\": [{\"name\": \"PrioritySort\"}, {\"name\": \"DefaultBinder\"}, {\"name\": \"NodeName\"}]}}");
    p = &c.profiles[0];
    assert_int_equal(p->nplugins, 3);
    assert_string_equal(order(p, MS_EP_FILTER), "PrioritySort,DefaultBinder,NodeName");
    ms_config_free(&c);

    /* enabled and disabled in multiPoint: enabled wins, at the end */
    c = load_plugins(
        "{\"multiPoint\": {\"disabled\": [{\"name\": \"NodeName\"}], \"enabled\": [{\"name\": \"NodeName\"}]}}");
    assert_string_equal(order(&c.profiles[0], MS_EP_FILTER),
                        "SchedulingGates,PrioritySort,NodeUnschedulable,TaintToleration,NodeAffinity,NodePorts,"
                        "NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder,NodeName");
    ms_config_free(&c);
}

static void test_multi_point_then_specific_point(void **state) {
    (void)state;
    ms_config c = load_plugins(
        "{\"multiPoint\": {\"enabled\": [{\"name\": \"MyScore\", \"weight\": 2}]},"
        " \"score\": {\"enabled\": [{\"name\": \"MyScore\", \"weight\": 5}],"
        "             \"disabled\": [{\"name\": \"NodeResourcesBalancedAllocation\"}]},"
        " \"preScore\": {\"disabled\": [{\"name\": \"MyScore\"}]}}");
    const ms_profile_config *p = &c.profiles[0];
    assert_string_equal(order(p, MS_EP_SCORE),
                        "MyScore,SchedulingGates,PrioritySort,NodeUnschedulable,NodeName,TaintToleration,NodeAffinity,"
                        "NodePorts,NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,ImageLocality,DefaultBinder");
    char want[512];
    snprintf(want, sizeof want, "%s,MyScore", default_order);
    assert_string_equal(order(p, MS_EP_FILTER), want);
    assert_string_equal(order(p, MS_EP_PRE_SCORE), default_order);
    assert_int_equal(weight(p, "MyScore"), 5);
    assert_int_equal(plugin(p, "MyScore")->points, ALL_POINTS & ~(1u << MS_EP_PRE_SCORE));
    assert_int_equal(plugin(p, "MyScore")->explicit_points, 1u << MS_EP_SCORE);
    assert_int_equal(plugin(p, "NodeResourcesBalancedAllocation")->points, ALL_POINTS & ~(1u << MS_EP_SCORE));
    ms_config_free(&c);

    /* '*' at a point leaves only what that point enables */
    c = load_plugins(
        "{\"multiPoint\": {\"enabled\": [{\"name\": \"MySort\"}]},"
        " \"queueSort\": {\"disabled\": [{\"name\": \"*\"}], \"enabled\": [{\"name\": \"MySort\"}]}}");
    p = &c.profiles[0];
    assert_string_equal(order(p, MS_EP_QUEUE_SORT), "MySort");
    assert_int_equal(plugin(p, "MySort")->points, ALL_POINTS);
    assert_int_equal(plugin(p, "MySort")->explicit_points, 1u << MS_EP_QUEUE_SORT);
    ms_config_free(&c);
}

/* The precedence example of the Kubernetes documentation's "Scheduler
 * Configuration" page, with its made-up default plugins mapped onto real
 * ones: DefaultQueueSort = PrioritySort, DefaultPlugin1 = NodeAffinity
 * (filter and score), DefaultPlugin2 = NodeResourcesBalancedAllocation. */
static void test_docs_multi_point_precedence(void **state) {
    (void)state;
    ms_config c = load_plugins(
        "{\"multiPoint\": {\"enabled\": [{\"name\": \"CustomQueueSort\"},"
        "                                {\"name\": \"CustomPlugin1\", \"weight\": 3},"
        "                                {\"name\": \"CustomPlugin2\"}],"
        "                  \"disabled\": [{\"name\": \"PrioritySort\"}]},"
        " \"filter\": {\"disabled\": [{\"name\": \"NodeAffinity\"}]},"
        " \"score\": {\"enabled\": [{\"name\": \"NodeResourcesBalancedAllocation\"}]}}");
    const ms_profile_config *p = &c.profiles[0];
    assert_null(plugin(p, "PrioritySort"));
    assert_string_equal(order(p, MS_EP_QUEUE_SORT),
                        "SchedulingGates,NodeUnschedulable,NodeName,TaintToleration,NodeAffinity,NodePorts,NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,"
                        "PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder,CustomQueueSort,CustomPlugin1,CustomPlugin2");
    /* DefaultPlugin1 disabled for filter only */
    assert_string_equal(order(p, MS_EP_FILTER),
                        "SchedulingGates,NodeUnschedulable,NodeName,TaintToleration,NodePorts,NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,"
                        "PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder,CustomQueueSort,CustomPlugin1,CustomPlugin2");
    /* DefaultPlugin2 reordered to run first in score */
    assert_string_equal(order(p, MS_EP_SCORE),
                        "NodeResourcesBalancedAllocation,SchedulingGates,NodeUnschedulable,NodeName,TaintToleration,NodeAffinity,"
                        "NodePorts,NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,ImageLocality,DefaultBinder,CustomQueueSort,CustomPlugin1,CustomPlugin2");
    assert_int_equal(weight(p, "CustomPlugin1"), 3);
    assert_int_equal(weight(p, "CustomPlugin2"), 1);
    assert_int_equal(weight(p, "NodeResourcesBalancedAllocation"), 1);
    assert_int_equal(weight(p, "TaintToleration"), 3);
    assert_int_equal(plugin(p, "NodeAffinity")->points, ALL_POINTS & ~(1u << MS_EP_FILTER));
    ms_config_free(&c);
}

/* DynamicResources is a default like any other: a profile may leave it out
 * or weigh it. */
static void test_dynamic_resources_can_be_disabled(void **state) {
    (void)state;
    ms_config c = load_plugins(
        "{\"multiPoint\": {\"disabled\": [{\"name\": \"DynamicResources\"}]}}");
    assert_null(plugin(&c.profiles[0], "DynamicResources"));
    assert_int_equal(c.profiles[0].nplugins, 18);
    ms_config_free(&c);
    c = load_plugins("{\"multiPoint\": {\"enabled\": [{\"name\": \"DynamicResources\", \"weight\": 2}]}}");
    assert_non_null(plugin(&c.profiles[0], "DynamicResources"));
    assert_int_equal(weight(&c.profiles[0], "DynamicResources"), 2);
    ms_config_free(&c);
}

/* SchedulingGates is in the default profile; a configuration may disable
 * it, everywhere (multiPoint) or at preEnqueue, as upstream allows. */
static void test_disable_scheduling_gates(void **state) {
    (void)state;
    ms_config c = load_plugins("{\"multiPoint\": {\"disabled\": [{\"name\": \"SchedulingGates\"}]}}");
    assert_null(plugin(&c.profiles[0], "SchedulingGates"));
    assert_int_equal(c.profiles[0].nplugins, 18);
    ms_config_free(&c);
    c = load_plugins("{\"preEnqueue\": {\"disabled\": [{\"name\": \"SchedulingGates\"}]}}");
    const ms_profile_config *p = &c.profiles[0];
    assert_non_null(plugin(p, "SchedulingGates"));
    assert_false(plugin(p, "SchedulingGates")->points & (1u << MS_EP_PRE_ENQUEUE));
    assert_null(strstr(order(p, MS_EP_PRE_ENQUEUE), "SchedulingGates"));
    ms_config_free(&c);
}

static void test_plugin_config_args(void **state) {
    (void)state;
    const char *json =
        "{" V1 ", \"profiles\": [{\"pluginConfig\": ["
        "  {\"name\": \"NodeResourcesFit\", \"args\": {\"scoringStrategy\": {\"type\": \"MostAllocated\","
        "     \"resources\": [{\"name\": \"cpu\", \"weight\": 1}, {\"name\": \"memory\", \"weight\": 1}]}}},"
        "  {\"name\": \"NodeAffinity\", \"args\": {\"addedAffinity\": null}},"
        "  {\"name\": \"NodeName\"}]}]}";
    cJSON *root = cJSON_Parse(json);
    ms_config c;
    ms_error err;
    warnings w = {0};
    assert_int_equal(ms_config_load_json(&c, root, "test.json", collect, &w, &err), MS_OK);
    cJSON_Delete(root);   /* the args are copies */
    assert_int_equal(w.n, 0);
    const ms_profile_config *p = &c.profiles[0];
    const cJSON *args = plugin(p, "NodeResourcesFit")->args;
    assert_non_null(args);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(args, "scoringStrategy");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(st, "type")->valuestring, "MostAllocated");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(st, "resources")), 2);
    assert_non_null(plugin(p, "NodeAffinity")->args);
    assert_null(plugin(p, "NodeName")->args);
    assert_null(plugin(p, "TaintToleration")->args);
    ms_config_free(&c);

    /* args for a plugin the profile does not run are dropped, with a warning */
    w.n = 0;
    c = load_ok("{" V1 ", \"profiles\": [{\"pluginConfig\": [{\"name\": \"NodeResourceFit\", \"args\": {}}]}]}",
                &w);
    assert_int_equal(w.n, 1);
    assert_string_equal(w.msg[0],
                        "test.json: profiles[0].pluginConfig[0]: plugin \"NodeResourceFit\" is not enabled in "
                        "profile default-scheduler; its args are ignored");
    ms_config_free(&c);
}

static void test_two_profiles(void **state) {
    (void)state;
    const char *json =
        "{" V1 ", \"percentageOfNodesToScore\": 40, \"profiles\": ["
        "  {\"schedulerName\": \"default-scheduler\"},"
        "  {\"schedulerName\": \"no-scoring-scheduler\", \"percentageOfNodesToScore\": 100,"
        "   \"plugins\": {\"preScore\": {\"disabled\": [{\"name\": \"*\"}]},"
        "                 \"score\": {\"disabled\": [{\"name\": \"*\"}]}},"
        "   \"pluginConfig\": [{\"name\": \"NodeAffinity\", \"args\": {\"x\": 1}}]}]}";
    ms_config c = load_ok(json, NULL);
    assert_int_equal(c.nprofiles, 2);
    assert_int_equal(c.percentage_of_nodes_to_score, 40);
    const ms_profile_config *d = ms_config_profile(&c, "default-scheduler");
    const ms_profile_config *n = ms_config_profile(&c, "no-scoring-scheduler");
    assert_ptr_equal(d, &c.profiles[0]);
    assert_ptr_equal(n, &c.profiles[1]);
    assert_default_profile(d);
    assert_int_equal(n->percentage_of_nodes_to_score, 100);
    assert_int_equal(n->norder[MS_EP_SCORE], 0);
    assert_int_equal(n->norder[MS_EP_PRE_SCORE], 0);
    assert_string_equal(order(n, MS_EP_FILTER), default_order);
    assert_non_null(plugin(n, "NodeAffinity")->args);
    assert_null(plugin(d, "NodeAffinity")->args);
    ms_config_free(&c);
}

static void test_global_settings(void **state) {
    (void)state;
    const char *json =
        "{" V1 ", \"parallelism\": 8, \"percentageOfNodesToScore\": 50,"
        " \"podInitialBackoffSeconds\": 2, \"podMaxBackoffSeconds\": 20,"
        " \"enableProfiling\": false, \"enableContentionProfiling\": false,"
        " \"clientConnection\": {\"kubeconfig\": \"/etc/kubernetes/scheduler.conf\", \"qps\": 20.5,"
        "                        \"burst\": 40, \"contentType\": \"application/json\"},"
        " \"leaderElection\": {\"leaderElect\": false, \"leaseDuration\": \"1m30s\","
        "   \"renewDeadline\": \"20s\", \"retryPeriod\": \"1500ms\", \"resourceLock\": \"leases\","
        "   \"resourceName\": \"moonsched\", \"resourceNamespace\": \"sched\"},"
        " \"extenders\": [{\"urlPrefix\": \"http://127.0.0.1:8888/\", \"filterVerb\": \"filter\","
        "   \"weight\": 1}]}";
    warnings w = {0};
    ms_config c = load_ok(json, &w);
    assert_int_equal(w.n, 0);
    assert_int_equal(c.parallelism, 8);
    assert_int_equal(c.percentage_of_nodes_to_score, 50);
    assert_true(c.pod_initial_backoff == 2);
    assert_true(c.pod_max_backoff == 20);
    assert_string_equal(c.kubeconfig, "/etc/kubernetes/scheduler.conf");
    assert_true(c.qps == 20.5);
    assert_int_equal(c.burst, 40);
    assert_false(c.leader_election.leader_elect);
    assert_true(c.leader_election.lease_duration == 90);
    assert_true(c.leader_election.renew_deadline == 20);
    assert_true(c.leader_election.retry_period == 1.5);
    assert_string_equal(c.leader_election.resource_name, "moonsched");
    assert_string_equal(c.leader_election.resource_namespace, "sched");
    assert_true(cJSON_IsArray(c.extenders));
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c.extenders, 0), "filterVerb")->valuestring,
                        "filter");
    ms_config_free(&c);

    /* zero qps/burst and empty lock names mean "default", as upstream */
    c = load_ok("{" V1 ", \"clientConnection\": {\"qps\": 0, \"burst\": 0},"
                " \"leaderElection\": {\"leaseDuration\": \"0s\", \"resourceLock\": \"\"}}",
                NULL);
    assert_true(c.qps == 50);
    assert_int_equal(c.burst, 100);
    assert_true(c.leader_election.leader_elect);
    assert_true(c.leader_election.lease_duration == 15);
    assert_string_equal(c.leader_election.resource_lock, "leases");
    ms_config_free(&c);
}

static void test_number_forms(void **state) {
    (void)state;
    /* YAML numbers carry their source text; raw items are numbers as text */
    cJSON *root = cJSON_Parse("{" V1 ", \"podMaxBackoffSeconds\": 3e1}");
    cJSON *par = cJSON_CreateNumber(16);
    par->valuestring = strdup("0x10");
    cJSON_AddItemToObject(root, "parallelism", par);
    cJSON_AddItemToObject(root, "percentageOfNodesToScore", cJSON_CreateRaw("25"));
    cJSON *burst = cJSON_CreateNumber(-2);
    burst->valuestring = strdup("-0o2");
    cJSON *cc = cJSON_AddObjectToObject(root, "clientConnection");
    cJSON_AddItemToObject(cc, "burst", burst);
    ms_config c;
    ms_error err;
    assert_int_equal(ms_config_load_json(&c, root, "y.yaml", NULL, NULL, &err), MS_EINVAL);
    assert_string_equal(err.msg, "y.yaml: clientConnection.burst: Invalid value: -2: must be non-negative");
    cJSON_DeleteItemFromObject(root, "clientConnection");
    assert_int_equal(ms_config_load_json(&c, root, "y.yaml", NULL, NULL, &err), MS_OK);
    assert_int_equal(c.parallelism, 16);
    assert_int_equal(c.percentage_of_nodes_to_score, 25);
    assert_true(c.pod_max_backoff == 30);
    ms_config_free(&c);
    cJSON_ReplaceItemInObject(root, "parallelism", cJSON_CreateRaw("1.5"));
    assert_int_equal(ms_config_load_json(&c, root, "y.yaml", NULL, NULL, &err), MS_EINVAL);
    assert_string_equal(err.msg, "y.yaml: parallelism: Invalid value: 1.5: must be an integer");
    par = cJSON_CreateNumber(2.5);
    par->valuestring = strdup("2.50");
    cJSON_ReplaceItemInObject(root, "parallelism", par);
    assert_int_equal(ms_config_load_json(&c, root, "y.yaml", NULL, NULL, &err), MS_EINVAL);
    assert_string_equal(err.msg, "y.yaml: parallelism: Invalid value: 2.50: must be an integer");
    cJSON_ReplaceItemInObject(root, "parallelism", cJSON_CreateNumber(1));
    cJSON_ReplaceItemInObject(root, "podMaxBackoffSeconds", cJSON_CreateNumber(1e19));
    assert_int_equal(ms_config_load_json(&c, root, "y.yaml", NULL, NULL, &err), MS_EINVAL);
    assert_string_equal(err.msg,
                        "y.yaml: podMaxBackoffSeconds: Invalid value: 1e+19: must be between "
                        "-9223372036854775808 and 9223372036854775807");
    cJSON_Delete(root);
}

/* A 10 KB bad value (kind, a duration) is quoted and cut at 64 bytes. */
static void test_errors_quote_a_long_value(void **state) {
    (void)state;
    enum { BIG = 10240 };
    char *big = tu_repeat("", 'k', BIG, ""), *json = malloc(BIG + 256);
    assert_non_null(json);
    ms_config c;
    ms_error err;
    snprintf(json, BIG + 256, "{\"apiVersion\": \"kubescheduler.config.k8s.io/v1\", \"kind\": \"%s\"}", big);
    assert_int_equal(load(json, &c, &err, NULL), MS_EINVAL);
    assert_string_equal(err.msg, "test.json: kind: Invalid value: " "\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...\"" ": must be KubeSchedulerConfiguration");
    snprintf(json, BIG + 256, "{" V1 ", \"leaderElection\": {\"leaseDuration\": \"%s\"}}", big);
    assert_int_equal(load(json, &c, &err, NULL), MS_EINVAL);
    assert_string_equal(err.msg, "test.json: leaderElection.leaseDuration: Invalid value: " "\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...\""
                                 ": must be a duration such as \"15s\" or \"1m30s\"");
    free(big);
    free(json);
}

static void test_durations(void **state) {
    (void)state;
    static const struct {
        const char *text;
        double seconds;
    } cases[] = {
        {"15s", 15}, {"1m30s", 90}, {"1h", 3600}, {"1.5h", 5400}, {"300ms", 0.3},
        {"2s500ms", 2.5}, {"1000000us", 1}, {"20m", 1200}, {".5s", 0.5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[256];
        snprintf(json, sizeof json, "{" V1 ", \"leaderElection\": {\"retryPeriod\": \"%s\"}}", cases[i].text);
        ms_config c = load_ok(json, NULL);
        assert_true(fabs(c.leader_election.retry_period - cases[i].seconds) < 1e-9);
        ms_config_free(&c);
    }
    static const char *const bad[] = {"15", "s", "1x", "", "1.s5", "--1s", "1 s"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[256];
        snprintf(json, sizeof json, "{" V1 ", \"leaderElection\": {\"retryPeriod\": \"%s\"}}", bad[i]);
        ms_config c;
        ms_error err;
        assert_int_equal(load(json, &c, &err, NULL), MS_EINVAL);
        char want[256];
        snprintf(want, sizeof want,
                 "test.json: leaderElection.retryPeriod: Invalid value: \"%s\": must be a duration such as "
                 "\"15s\" or \"1m30s\"",
                 bad[i]);
        assert_string_equal(err.msg, want);
    }
}

static void test_validation_errors(void **state) {
    (void)state;
    static const struct {
        const char *json;
        const char *msg;
    } cases[] = {
        {"{" V1 ", \"profiles\": [{\"plugins\": {\"score\": {\"enabled\": [{\"name\": \"A\", \"weight\": 1},"
         " {\"name\": \"B\", \"weight\": -1}]}}}]}",
         "profiles[0].plugins.score.enabled[1]: weight must be positive"},
        {"{" V1 ", \"profiles\": [{\"plugins\": {\"multiPoint\": {\"enabled\": [{\"name\": \"A\", \"weight\": -3}]}}}]}",
         "profiles[0].plugins.multiPoint.enabled[0]: weight must be positive"},
        {"{" V1 ", \"percentageOfNodesToScore\": 101}",
         "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"},
        {"{" V1 ", \"percentageOfNodesToScore\": -1}",
         "percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"},
        {"{" V1 ", \"profiles\": [{\"percentageOfNodesToScore\": 150}]}",
         "profiles[0].percentageOfNodesToScore: Invalid value: 150: not in valid range [0-100]"},
        {"{" V1 ", \"podInitialBackoffSeconds\": 0}",
         "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"},
        {"{" V1 ", \"podInitialBackoffSeconds\": 5, \"podMaxBackoffSeconds\": 1}",
         "podMaxBackoffSeconds: Invalid value: 1: must be greater than or equal to PodInitialBackoffSeconds"},
        {"{" V1 ", \"podMaxBackoffSeconds\": 0}",
         "podMaxBackoffSeconds: Invalid value: 0: must be greater than or equal to PodInitialBackoffSeconds"},
        {"{" V1 ", \"profiles\": [{\"schedulerName\": \"a\"}, {\"schedulerName\": \"b\"}, {\"schedulerName\": \"a\"}]}",
         "profiles[2].schedulerName: Duplicate value: \"a\""},
        {"{" V1 ", \"profiles\": [{}, {}]}", "profiles[0].schedulerName: Required value"},
        {"{" V1 ", \"profiles\": [{\"schedulerName\": \"\"}]}", "profiles[0].schedulerName: Required value"},
        {"{" V1 ", \"profiles\": [{\"schedulerName\": \"a\"}, {\"schedulerName\": \"b\", \"plugins\":"
         " {\"queueSort\": {\"disabled\": [{\"name\": \"*\"}], \"enabled\": [{\"name\": \"MySort\"}]}}}]}",
         "profiles[1].plugins.queueSort: must be the same for all profiles"},
        {"{" V1 ", \"profiles\": [{\"schedulerName\": \"a\", \"plugins\": {\"queueSort\": {\"enabled\":"
         " [{\"name\": \"S1\"}, {\"name\": \"S2\"}]}}}]}",
         "profiles[0].plugins.queueSort.enabled: Invalid value: 2: only one queue sort plugin can be enabled"},
        {"{" V1 ", \"profiles\": ["
         " {\"schedulerName\": \"a\", \"plugins\": {\"queueSort\": {\"enabled\": [{\"name\": \"S\"}]}},"
         "  \"pluginConfig\": [{\"name\": \"S\", \"args\": {\"x\": 1}}]},"
         " {\"schedulerName\": \"b\", \"plugins\": {\"queueSort\": {\"enabled\": [{\"name\": \"S\"}]}},"
         "  \"pluginConfig\": [{\"name\": \"S\", \"args\": {\"x\": 2}}]}]}",
         "profiles[1].pluginConfig.args: queueSort must be the same for all profiles"},
        {"{\"apiVersion\": \"kubescheduler.config.k8s.io/v2\", \"kind\": \"KubeSchedulerConfiguration\"}",
         "apiVersion: Invalid value: \"kubescheduler.config.k8s.io/v2\": must be kubescheduler.config.k8s.io/v1, "
         "kubescheduler.config.k8s.io/v1beta3, kubescheduler.config.k8s.io/v1beta2 or "
         "kubescheduler.config.k8s.io/v1beta1"},
        {"{\"apiVersion\": \"kubescheduler.config.k8s.io/v1\", \"kind\": \"Pod\"}",
         "kind: Invalid value: \"Pod\": must be KubeSchedulerConfiguration"},
        {"{\"apiVersion\": \"kubescheduler.config.k8s.io/v1\"}", "kind: Required value"},
        {"{\"kind\": \"KubeSchedulerConfiguration\"}", "apiVersion: Required value"},
        {"{\"apiVersion\": 1, \"kind\": \"KubeSchedulerConfiguration\"}", "apiVersion: must be a string"},
        {"[]", "<root>: expected a KubeSchedulerConfiguration object"},
        {"{" V1 ", \"clientConnection\": {\"burst\": -1}}",
         "clientConnection.burst: Invalid value: -1: must be non-negative"},
        {"{" V1 ", \"parallelism\": 0}",
         "parallelism: Invalid value: 0: should be an integer value greater than zero"},
        {"{" V1 ", \"leaderElection\": {\"leaseDuration\": \"5s\", \"renewDeadline\": \"10s\"}}",
         "leaderElection.leaseDuration: Invalid value: 10s: LeaseDuration must be greater than RenewDeadline"},
        {"{" V1 ", \"leaderElection\": {\"retryPeriod\": \"-2s\"}}",
         "leaderElection.retryPeriod: Invalid value: -2s: must be greater than zero"},
        {"{" V1 ", \"leaderElection\": {\"resourceLock\": \"endpoints\"}}",
         "leaderElection.resourceLock: Invalid value: \"endpoints\": resourceLock value must be \"leases\" "
         "(or \"endpointsleases\", \"configmapsleases\")"},
        {"{" V1 ", \"profiles\": {}}", "profiles: must be a list"},
        {"{" V1 ", \"profiles\": [[]]}", "profiles[0]: must be an object"},
        {"{" V1 ", \"extenders\": {}}", "extenders: must be a list"},
        {"{" V1 ", \"profiles\": [{\"plugins\": {\"score\": {\"enabled\": [{\"name\": \"A\", \"weight\": \"2\"}]}}}]}",
         "profiles[0].plugins.score.enabled[0].weight: must be an integer"},
        {"{" V1 ", \"profiles\": [{\"plugins\": {\"score\": {\"enabled\": [{\"name\": \"A\", \"weight\": 1.5}]}}}]}",
         "profiles[0].plugins.score.enabled[0].weight: Invalid value: 1.5: must be an integer"},
        {"{" V1 ", \"profiles\": [{\"plugins\": {\"score\": {\"enabled\": [{\"name\": \"A\", \"weight\": 3000000000}]}}}]}",
         "profiles[0].plugins.score.enabled[0].weight: Invalid value: 3000000000: must be between -2147483648 and "
         "2147483647"},
        {"{" V1 ", \"profiles\": [{\"plugins\": {\"filter\": {\"enabled\": [{\"name\": \"NodePorts\"},"
         " {\"name\": \"NodePorts\"}]}}}]}",
         "profiles[0].plugins.filter.enabled[1]: Duplicate value: \"NodePorts\""},
        {"{" V1 ", \"profiles\": [{\"plugins\": {\"filter\": {\"enabled\": [{\"weight\": 1}]}}}]}",
         "profiles[0].plugins.filter.enabled[0].name: Required value"},
        {"{" V1 ", \"profiles\": [{\"plugins\": {\"filter\": {\"disabled\": [{\"name\": \"\"}]}}}]}",
         "profiles[0].plugins.filter.disabled[0].name: Required value"},
        {"{" V1 ", \"profiles\": [{\"plugins\": {\"filter\": {\"enabled\": {}}}}]}",
         "profiles[0].plugins.filter.enabled: must be a list"},
        {"{" V1 ", \"profiles\": [{\"plugins\": {\"filter\": []}}]}", "profiles[0].plugins.filter: must be an object"},
        {"{" V1 ", \"profiles\": [{\"pluginConfig\": [{\"name\": \"NodeResourcesFit\"},"
         " {\"name\": \"NodeResourcesFit\"}]}]}",
         "profiles[0].pluginConfig[1]: Duplicate value: \"NodeResourcesFit\""},
        {"{" V1 ", \"profiles\": [{\"pluginConfig\": [{\"name\": \"A\\\"\\n\"},"
         " {\"name\": \"A\\\"\\n\"}]}]}",
         "profiles[0].pluginConfig[1]: Duplicate value: \"A\\\"\\n\""},
        {"{" V1 ", \"profiles\": [{\"pluginConfig\": [{\"args\": {}}]}]}",
         "profiles[0].pluginConfig[0].name: Required value"},
        {"{" V1 ", \"profiles\": [{\"schedulerName\": 3}]}", "profiles[0].schedulerName: must be a string"},
        {"{" V1 ", \"leaderElection\": {\"leaderElect\": \"yes\"}}",
         "leaderElection.leaderElect: must be true or false"},
        {"{" V1 ", \"clientConnection\": {\"qps\": \"fast\"}}", "clientConnection.qps: must be a number"},
        {"{" V1 ", \"profiles\": [{\"plugins\": {\"filter\": {\"enabled\": [{\"name\": "
         "\"ThisPluginNameIsMuchTooLongToFitIntoTheSixtyFourByteNameFieldOfTheConfig\"}]}}}]}",
         "profiles[0].plugins.filter.enabled[0].name: Invalid value: "
         "\"ThisPluginNameIsMuchTooLongToFitIntoTheSixtyFourByteNameFieldOfT...\": must be no more than 63 characters"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_config c;
        ms_error err;
        ms_rc rc = load(cases[i].json, &c, &err, NULL);
        char want[600];
        snprintf(want, sizeof want, "test.json: %s", cases[i].msg);
        if (rc != MS_EINVAL || strcmp(err.msg, want) != 0)
            fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, rc ? err.msg : "", want);
        /* a failed load leaves nothing to free */
        assert_int_equal(c.nprofiles, 0);
        assert_null(c.profiles);
        ms_config_free(&c);
    }
}

static void test_validate_struct(void **state) {
    (void)state;
    ms_config c;
    ms_error err;
    assert_int_equal(ms_config_default(&c), MS_OK);
    ms_profile_config *saved = c.profiles;
    c.nprofiles = 0;
    assert_int_equal(ms_config_validate(&c, &err), MS_EINVAL);
    assert_string_equal(err.msg, "profiles: Required value");
    c.nprofiles = 1;
    c.profiles = saved;
    c.leader_election.resource_name[0] = '\0';
    assert_int_equal(ms_config_validate(&c, &err), MS_EINVAL);
    assert_string_equal(err.msg, "leaderElection.resourceName: Invalid value: \"\": resourceName is required");
    c.leader_election.leader_elect = false;   /* only checked when electing */
    assert_int_equal(ms_config_validate(&c, &err), MS_OK);
    c.pod_initial_backoff = -1;
    assert_int_equal(ms_config_validate(&c, &err), MS_EINVAL);
    assert_string_equal(err.msg, "podInitialBackoffSeconds: Invalid value: -1: must be greater than 0");
    ms_config_free(&c);
}

static void test_unknown_fields_strict(void **state) {
    (void)state;
    /* every unknown field, at any depth, listed in upstream's strict
     * decoding words */
    const char *json =
        "{" V1 ", \"foo\": 1, \"clientConnection\": {\"qpss\": 3},"
        " \"leaderElection\": {\"leaderElection\": true},"
        " \"profiles\": [{\"schedulerName\": \"default-scheduler\", \"plugin\": {},"
        "   \"plugins\": {\"scor\": {\"enabled\": [{\"name\": \"X\"}]},"
        "                 \"filter\": {\"enable\": [], \"disabled\": [{\"name\": \"NodePorts\", \"wieght\": 1}]}},"
        "   \"pluginConfig\": [{\"name\": \"NodeName\", \"arg\": {}}]}],"
        " \"extenders\": [{\"urlPrefix\": \"http://e\", \"filterverb\": \"f\"}]}";
    warnings w = {0};
    ms_config c;
    ms_error err;
    assert_int_equal(load(json, &c, &err, &w), MS_EINVAL);
    assert_string_equal(err.msg,
                        "test.json: strict decoding error: unknown field \"foo\", unknown field \"clientConnection.qpss\", "
                        "unknown field \"leaderElection.leaderElection\", unknown field \"profiles[0].plugin\", "
                        "unknown field \"profiles[0].plugins.scor\", unknown field \"profiles[0].plugins.filter.enable\", "
                        "unknown field \"profiles[0].plugins.filter.disabled[0].wieght\", "
                        "unknown field \"profiles[0].pluginConfig[0].arg\", unknown field \"extenders[0].filterverb\"");
    assert_int_equal(w.n, 0);   /* errors, not warnings */
    assert_int_equal(c.nprofiles, 0);

    /* the complaint as a user wrote it: profile for profiles */
    assert_int_equal(load("{" V1 ", \"profile\": [{\"schedulerName\": \"x\"}]}", &c, &err, NULL), MS_EINVAL);
    assert_string_equal(err.msg, "test.json: strict decoding error: unknown field \"profile\"");

    /* a wrong type is reported before the unknown fields, as upstream's
     * decoder stops there */
    assert_int_equal(load("{" V1 ", \"foo\": 1, \"parallelism\": \"x\"}", &c, &err, NULL), MS_EINVAL);
    assert_null(strstr(err.msg, "strict decoding error"));

    /* fields of newer versions are unknown to older ones' types */
    assert_int_equal(load("{\"apiVersion\": \"kubescheduler.config.k8s.io/v1beta2\", \"kind\": \"KubeSchedulerConfiguration\","
                          " \"healthzBindAddress\": \"0.0.0.0:10251\","
                          " \"profiles\": [{\"percentageOfNodesToScore\": 10, \"plugins\": {"
                          "   \"multiPoint\": {\"disabled\": [{\"name\": \"*\"}]}}}]}",
                          &c, &err, NULL),
                     MS_EINVAL);
    assert_string_equal(err.msg, "test.json: strict decoding error: unknown field \"profiles[0].percentageOfNodesToScore\", "
                                 "unknown field \"profiles[0].plugins.multiPoint\"");
    /* and the same fields are known where they exist */
    c = load_ok("{\"apiVersion\": \"kubescheduler.config.k8s.io/v1beta2\", \"kind\": \"KubeSchedulerConfiguration\","
                " \"healthzBindAddress\": \"0.0.0.0:10251\"}",
                &w);
    assert_int_equal(w.n, 0);
    ms_config_free(&c);

    /* healthzBindAddress is gone in v1 */
    assert_int_equal(load("{" V1 ", \"healthzBindAddress\": \"0.0.0.0:10251\", \"delayCacheUntilActive\": true}", &c,
                          &err, NULL),
                     MS_EINVAL);
    assert_string_equal(err.msg, "test.json: strict decoding error: unknown field \"healthzBindAddress\"");

    /* repeated keys fail strict decoding too, at any depth (plugin args,
     * maps), each key once, after the unknown fields */
    assert_int_equal(load("{" V1 ", \"parallelism\": 4, \"parallelism\": 6, \"parallelism\": 8}", &c, &err, NULL),
                     MS_EINVAL);
    assert_string_equal(err.msg, "test.json: strict decoding error: duplicate field \"parallelism\"");
    assert_int_equal(load("{" V1 ", \"profiles\": [{\"schedulerName\": \"a\", \"pluginConfig\": [{\"name\": "
                          "\"NodeResourcesFit\", \"args\": {\"scoringStrategy\": {\"type\": \"MostAllocated\", "
                          "\"type\": \"LeastAllocated\"}}}], \"schedulerNam\": \"b\"}], "
                          "\"clientConnection\": {\"qps\": 1, \"qps\": 2}}",
                          &c, &err, NULL),
                     MS_EINVAL);
    assert_string_equal(err.msg, "test.json: strict decoding error: unknown field \"profiles[0].schedulerNam\", "
                                 "duplicate field \"profiles[0].pluginConfig[0].args.scoringStrategy.type\", "
                                 "duplicate field \"clientConnection.qps\"");

    /* null is the same as absent */
    w.n = 0;
    c = load_ok("{" V1 ", \"profiles\": [{\"plugins\": null, \"pluginConfig\": null}], \"extenders\": null}", &w);
    assert_int_equal(w.n, 0);
    assert_default_profile(&c.profiles[0]);
    assert_null(c.extenders);
    ms_config_free(&c);
}

static void test_max_plugins_bound(void **state) {
    (void)state;
    /* 65 entries in one list */
    char *json = malloc(16384);
    size_t len = (size_t)snprintf(json, 16384, "{" V1 ", \"profiles\": [{\"plugins\": {\"filter\": {\"enabled\": [");
    for (int i = 0; i < 65; i++) len += (size_t)snprintf(json + len, 16384 - len, "%s{\"name\": \"P%d\"}", i ? "," : "", i);
    snprintf(json + len, 16384 - len, "]}}}]}");
    ms_config c;
    ms_error err;
    assert_int_equal(load(json, &c, &err, NULL), MS_EINVAL);
    assert_string_equal(err.msg, "test.json: profiles[0].plugins.filter.enabled: Too many: 65: must have at most 64 items");

    /* the defaults + distinct custom plugins: one too many for a profile */
    ms_profile_config defaults;
    ms_profile_config_default(&defaults, NULL);
    int ncustom = MS_MAX_PLUGINS - (int)defaults.nplugins;
    len = (size_t)snprintf(json, 16384, "{" V1 ", \"profiles\": [{\"plugins\": {\"multiPoint\": {\"enabled\": [");
    for (int i = 0; i < ncustom + 1; i++) len += (size_t)snprintf(json + len, 16384 - len, "%s{\"name\": \"P%d\"}", i ? "," : "", i);
    snprintf(json + len, 16384 - len, "]}}}]}");
    assert_int_equal(load(json, &c, &err, NULL), MS_EINVAL);
    assert_string_equal(err.msg, "test.json: profiles[0]: profile default-scheduler: more than 64 plugins");

    /* exactly 64 fits */
    len = (size_t)snprintf(json, 16384, "{" V1 ", \"profiles\": [{\"plugins\": {\"multiPoint\": {\"enabled\": [");
    for (int i = 0; i < ncustom; i++) len += (size_t)snprintf(json + len, 16384 - len, "%s{\"name\": \"P%d\"}", i ? "," : "", i);
    snprintf(json + len, 16384 - len, "]}}}]}");
    assert_int_equal(load(json, &c, &err, NULL), MS_OK);
    assert_int_equal(c.profiles[0].nplugins, 64);
    assert_int_equal(c.profiles[0].norder[MS_EP_FILTER], 64);
    char last[16];
    snprintf(last, sizeof last, "P%d", ncustom - 1);
    assert_string_equal(c.profiles[0].plugins[63].name, last);
    assert_int_equal(c.profiles[0].order[MS_EP_BIND][63], 63);
    ms_config_free(&c);
    free(json);
}

static void test_build_directly(void **state) {
    (void)state;
    ms_plugins *custom = calloc(1, sizeof *custom);
    ms_plugin_set *filter = &custom->set[MS_EP_FILTER];
    filter->disabled[filter->ndisabled++] = "*";
    filter->enabled[filter->nenabled++] = (ms_plugin_ref){"NodeName", 0};
    ms_plugin_set *mp = &custom->set[MS_EP_MULTI_POINT];
    mp->enabled[mp->nenabled++] = (ms_plugin_ref){"NodeResourcesFit", 9};
    ms_profile_config p;
    ms_error err;
    assert_int_equal(ms_profile_config_build(&p, "s", custom, &err), MS_OK);
    assert_string_equal(p.scheduler_name, "s");
    assert_string_equal(order(&p, MS_EP_FILTER), "NodeName");
    assert_string_equal(order(&p, MS_EP_SCORE), default_order);
    assert_int_equal(weight(&p, "NodeResourcesFit"), 9);

    /* a plugin twice in multiPoint is refused here too */
    mp->enabled[mp->nenabled++] = (ms_plugin_ref){"Mine", 0};
    mp->enabled[mp->nenabled++] = (ms_plugin_ref){"Mine", 0};
    assert_int_equal(ms_profile_config_build(&p, "s", custom, &err), MS_EINVAL);
    assert_string_equal(err.msg, "profile s: multiPoint: plugin Mine enabled twice");
    assert_int_equal(p.nplugins, 0);

    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_int_equal(ms_profile_config_build(&p, longname, NULL, &err), MS_EINVAL);
    assert_int_equal(ms_profile_config_build(&p, NULL, NULL, &err), MS_OK);
    assert_string_equal(p.scheduler_name, "default-scheduler");
    assert_default_profile(&p);
    free(custom);
}

static char *write_temp(const char *text) {
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_config_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t len = strlen(text);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

static void test_load_file(void **state) {
    (void)state;
    char *path = write_temp("{" V1 ", \"percentageOfNodesToScore\": 30,"
                            " \"profiles\": [{\"schedulerName\": \"x\", \"plugins\": {\"scor\": {}}}]}\n");
    ms_config c;
    ms_error err;
    warnings w = {0};
    assert_int_equal(ms_config_load_file(&c, path, collect, &w, &err), MS_EINVAL);
    char want[256];
    snprintf(want, sizeof want, "%s: strict decoding error: unknown field \"profiles[0].plugins.scor\"", path);
    assert_string_equal(err.msg, want);
    unlink(path);

    path = write_temp("{" V1 ", \"percentageOfNodesToScore\": 30, \"profiles\": [{\"schedulerName\": \"x\"}]}\n");
    assert_int_equal(ms_config_load_file(&c, path, collect, &w, &err), MS_OK);
    assert_int_equal(c.percentage_of_nodes_to_score, 30);
    assert_string_equal(c.profiles[0].scheduler_name, "x");
    assert_int_equal(w.n, 0);
    ms_config_free(&c);
    unlink(path);

    path = write_temp("{" V1 ", \"percentageOfNodesToScore\": 300}");
    assert_int_equal(ms_config_load_file(&c, path, NULL, NULL, &err), MS_EINVAL);
    snprintf(want, sizeof want, "%s: percentageOfNodesToScore: Invalid value: 300: not in valid range [0-100]", path);
    assert_string_equal(err.msg, want);
    unlink(path);

    /* a YAML key given twice: upstream's strict decoding error, in yaml.v2's
     * words; other syntax errors are not strict ones */
    path = write_temp("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                      "clientConnection:\n  qps: 2000\nparallelism: 4\nclientConnection:\n  burst: 10\n");
    assert_int_equal(ms_config_load_file(&c, path, NULL, NULL, &err), MS_EINVAL);
    snprintf(want, sizeof want,
             "%s: strict decoding error: yaml: unmarshal errors:\n  line 6: key \"clientConnection\" already set in map",
             path);
    assert_string_equal(err.msg, want);
    unlink(path);

    path = write_temp("{" V1 ", ");
    assert_int_equal(ms_config_load_file(&c, path, NULL, NULL, &err), MS_EINVAL);
    snprintf(want, sizeof want, "%s: line 1, column ", path);
    assert_int_equal(strncmp(err.msg, want, strlen(want)), 0);
    unlink(path);

    assert_int_equal(ms_config_load_file(&c, "/nonexistent/sched.yaml", NULL, NULL, &err), MS_EIO);
    assert_string_equal(err.msg, "/nonexistent/sched.yaml: No such file or directory");
    assert_int_equal(c.nprofiles, 0);
    ms_config_free(&c);
}

/* Paths of files in the source tree: tests run from the top directory
 * unless MOONSCHED_SOURCE_DIR says where it is. */
static const char *source_path(const char *rel) {
    static char buf[1024];
    const char *dir = getenv("MOONSCHED_SOURCE_DIR");
    snprintf(buf, sizeof buf, "%s/%s", dir && *dir ? dir : ".", rel);
    return buf;
}

static ms_config load_yaml_ok(const char *yaml, warnings *w) {
    char *path = write_temp(yaml);
    ms_config c;
    ms_error err;
    ms_rc rc = ms_config_load_file(&c, path, w ? collect : NULL, w, &err);
    unlink(path);
    if (rc != MS_OK) fail_msg("load failed: %s", err.msg);
    return c;
}

static ms_rc load_yaml(const char *yaml, ms_config *c, ms_error *err, char *path_out) {
    char *path = write_temp(yaml);
    strcpy(path_out, path);
    ms_rc rc = ms_config_load_file(c, path, NULL, NULL, err);
    unlink(path);
    return rc;
}

static const char *arg_type(const ms_profile_config *p, const char *name) {
    const cJSON *args = plugin(p, name)->args;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(args, "scoringStrategy");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(st, "type");
    return cJSON_IsString(t) ? t->valuestring : "";
}

static void test_yaml_example_scheduler_config(void **state) {
    (void)state;
    ms_config c;
    ms_error err;
    warnings w = {0};
    if (ms_config_load_file(&c, source_path("examples/scheduler-config.yaml"), collect, &w, &err) != MS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(w.n, 0);
    assert_int_equal(c.nprofiles, 2);
    assert_int_equal(c.percentage_of_nodes_to_score, 0);
    assert_true(c.pod_initial_backoff == 1 && c.pod_max_backoff == 10);
    assert_true(c.qps == 50);
    assert_int_equal(c.burst, 100);
    assert_false(c.leader_election.leader_elect);

    const ms_profile_config *d = ms_config_profile(&c, "default-scheduler");
    assert_ptr_equal(d, &c.profiles[0]);
    for (int ep = 0; ep < MS_EP_COUNT; ep++) assert_string_equal(order(d, (ms_extension_point)ep), default_order);
    assert_int_equal(weight(d, "TaintToleration"), 3);
    assert_int_equal(weight(d, "NodeAffinity"), 2);
    assert_string_equal(arg_type(d, "NodeResourcesFit"), "LeastAllocated");

    const ms_profile_config *b = ms_config_profile(&c, "bin-packing-scheduler");
    assert_ptr_equal(b, &c.profiles[1]);
    assert_string_equal(order(b, MS_EP_SCORE),
                        "NodeResourcesFit,SchedulingGates,PrioritySort,NodeUnschedulable,NodeName,TaintToleration,NodeAffinity,"
                        "NodePorts,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,ImageLocality,DefaultBinder");
    assert_string_equal(order(b, MS_EP_FILTER), default_order);
    assert_int_equal(weight(b, "NodeResourcesFit"), 5);
    assert_int_equal(weight(b, "TaintToleration"), 3);
    assert_string_equal(arg_type(b, "NodeResourcesFit"), "MostAllocated");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(plugin(b, "NodeResourcesFit")->args, "scoringStrategy"), "resources");
    assert_int_equal(cJSON_GetArraySize(res), 2);
    const cJSON *w0 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(res, 0), "weight");
    assert_true(cJSON_IsNumber(w0) && w0->valuedouble == 1);
    assert_int_equal(plugin(b, "NodeResourcesBalancedAllocation")->points, ALL_POINTS & ~(1u << MS_EP_SCORE));
    ms_config_free(&c);
}

static void test_yaml_example_profiles(void **state) {
    (void)state;
    ms_config c;
    ms_error err;
    warnings w = {0};
    if (ms_config_load_file(&c, source_path("examples/scheduler-config-profiles.yaml"), collect, &w, &err) != MS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(w.n, 0);
    assert_int_equal(c.nprofiles, 3);
    assert_default_profile(ms_config_profile(&c, "default-scheduler"));
    const ms_profile_config *n = ms_config_profile(&c, "no-scoring-scheduler");
    assert_int_equal(n->norder[MS_EP_SCORE], 0);
    assert_int_equal(n->norder[MS_EP_PRE_SCORE], 0);
    assert_string_equal(order(n, MS_EP_FILTER), default_order);
    const ms_profile_config *r = ms_config_profile(&c, "resources-first-scheduler");
    assert_int_equal(r->percentage_of_nodes_to_score, 30);
    assert_string_equal(order(r, MS_EP_FILTER), "NodeResourcesFit,NodeUnschedulable,NodeName,TaintToleration,NodeAffinity");
    assert_string_equal(order(r, MS_EP_PRE_FILTER),
                        "SchedulingGates,PrioritySort,NodeUnschedulable,NodeName,TaintToleration,NodeAffinity,"
                        "NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder");
    assert_null(plugin(r, "NodePorts"));
    ms_config_free(&c);
}

/* Examples from the Kubernetes documentation's "Scheduler Configuration"
 * page, as written there. */
static void test_yaml_docs_examples(void **state) {
    (void)state;
    warnings w = {0};
    ms_config c = load_yaml_ok("apiVersion: kubescheduler.config.k8s.io/v1\n"
                               "kind: KubeSchedulerConfiguration\n"
                               "clientConnection:\n"
                               "  kubeconfig: /etc/srv/kubernetes/kube-scheduler/kubeconfig\n",
                               &w);
    assert_int_equal(w.n, 0);
    assert_string_equal(c.kubeconfig, "/etc/srv/kubernetes/kube-scheduler/kubeconfig");
    assert_default_profile(&c.profiles[0]);
    ms_config_free(&c);

    c = load_yaml_ok("apiVersion: kubescheduler.config.k8s.io/v1\n"
                     "kind: KubeSchedulerConfiguration\n"
                     "profiles:\n"
                     "  - plugins:\n"
                     "      score:\n"
                     "        disabled:\n"
                     "        - name: PodTopologySpread\n"
                     "        enabled:\n"
                     "        - name: MyCustomPluginA\n"
                     "          weight: 2\n"
                     "        - name: MyCustomPluginB\n"
                     "          weight: 1\n",
                     &w);
    assert_int_equal(w.n, 0);
    const ms_profile_config *p = &c.profiles[0];
    assert_string_equal(p->scheduler_name, "default-scheduler");
    assert_string_equal(order(p, MS_EP_SCORE),
                        "SchedulingGates,PrioritySort,NodeUnschedulable,NodeName,TaintToleration,NodeAffinity,NodePorts,"
                        "NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,"
                        "ImageLocality,DefaultBinder,MyCustomPluginA,MyCustomPluginB");
    char want[512];
    assert_string_equal(order(p, MS_EP_FILTER), default_order);
    assert_int_equal(weight(p, "MyCustomPluginA"), 2);
    assert_int_equal(weight(p, "MyCustomPluginB"), 1);
    assert_int_equal(plugin(p, "MyCustomPluginA")->points, 1u << MS_EP_SCORE);
    ms_config_free(&c);

    c = load_yaml_ok("apiVersion: kubescheduler.config.k8s.io/v1\n"
                     "kind: KubeSchedulerConfiguration\n"
                     "profiles:\n"
                     "  - schedulerName: non-multipoint-scheduler\n"
                     "    plugins:\n"
                     "      multiPoint:\n"
                     "        enabled:\n"
                     "        - name: 'MyPlugin'\n"
                     "      preScore:\n"
                     "        disabled:\n"
                     "        - name: '*'\n"
                     "      score:\n"
                     "        disabled:\n"
                     "        - name: '*'\n",
                     &w);
    assert_int_equal(w.n, 0);
    p = ms_config_profile(&c, "non-multipoint-scheduler");
    assert_non_null(p);
    assert_null(ms_config_profile(&c, "default-scheduler"));
    snprintf(want, sizeof want, "%s,MyPlugin", default_order);
    assert_string_equal(order(p, MS_EP_FILTER), want);
    assert_string_equal(order(p, MS_EP_PRE_FILTER), want);
    assert_int_equal(p->norder[MS_EP_SCORE], 0);
    assert_int_equal(p->norder[MS_EP_PRE_SCORE], 0);
    assert_int_equal(plugin(p, "MyPlugin")->points, ALL_POINTS & ~(1u << MS_EP_SCORE | 1u << MS_EP_PRE_SCORE));
    ms_config_free(&c);

    /* the v1beta2 form of the precedence example, queueSort and all */
    c = load_yaml_ok("apiVersion: kubescheduler.config.k8s.io/v1beta2\n"
                     "kind: KubeSchedulerConfiguration\n"
                     "profiles:\n"
                     "  - schedulerName: multipoint-scheduler\n"
                     "    plugins:\n"
                     "      # Disable the default QueueSort plugin\n"
                     "      queueSort:\n"
                     "        enabled:\n"
                     "        - name: 'CustomQueueSort'\n"
                     "        disabled:\n"
                     "        - name: 'DefaultQueueSort'\n"
                     "      filter:\n"
                     "        enabled:\n"
                     "        - name: 'CustomPlugin1'\n"
                     "        - name: 'CustomPlugin2'\n"
                     "        - name: 'DefaultPlugin2'\n"
                     "        disabled:\n"
                     "        - name: 'DefaultPlugin1'\n"
                     "      score:\n"
                     "        enabled:\n"
                     "        - name: 'DefaultPlugin2'\n"
                     "          weight: 1\n"
                     "        - name: 'DefaultPlugin1'\n"
                     "          weight: 3\n",
                     &w);
    assert_int_equal(w.n, 0);
    p = &c.profiles[0];
    snprintf(want, sizeof want, "%s,CustomQueueSort", default_order);
    assert_string_equal(order(p, MS_EP_QUEUE_SORT), want);
    snprintf(want, sizeof want, "%s,CustomPlugin1,CustomPlugin2,DefaultPlugin2", default_order);
    assert_string_equal(order(p, MS_EP_FILTER), want);
    snprintf(want, sizeof want, "%s,DefaultPlugin2,DefaultPlugin1", default_order);
    assert_string_equal(order(p, MS_EP_SCORE), want);
    assert_int_equal(weight(p, "DefaultPlugin1"), 3);
    assert_int_equal(plugin(p, "DefaultPlugin2")->explicit_points, 1u << MS_EP_FILTER | 1u << MS_EP_SCORE);
    ms_config_free(&c);
}

static void test_yaml_files(void **state) {
    (void)state;
    /* YAML numbers, comments, a leading document marker */
    warnings w = {0};
    ms_config c = load_yaml_ok("# scheduler\n---\n"
                               "apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                               "kind: KubeSchedulerConfiguration\n"
                               "percentageOfNodesToScore: 0x10\n"
                               "podMaxBackoffSeconds: 20\n"
                               "leaderElection: {leaderElect: true, leaseDuration: 30s}\n"
                               "profiles:\n"
                               "- schedulerName: a\n"
                               "  plugins:\n"
                               "    score:\n"
                               "      enabled: [{name: NodeAffinity, weight: 6}]\n",
                               &w);
    assert_int_equal(c.percentage_of_nodes_to_score, 16);
    assert_true(c.pod_max_backoff == 20);
    assert_true(c.leader_election.lease_duration == 30);
    assert_int_equal(weight(&c.profiles[0], "NodeAffinity"), 6);
    assert_int_equal(w.n, 0);
    ms_config_free(&c);

    static const struct {
        const char *yaml;
        const char *msg;              /* after "<path>: " */
    } cases[] = {
        {"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
         "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: A\n      - name: B\n        weight: -2\n",
         "profiles[0].plugins.score.enabled[1]: weight must be positive"},
        {"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n---\n"
         "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
         "expected one KubeSchedulerConfiguration document, found 2"},
        {"# nothing\n", "expected one KubeSchedulerConfiguration document, found 0"},
        {"", "expected one KubeSchedulerConfiguration document, found 0"},
        {"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
         "percentageOfNodesToScore: 20.5\n",
         "percentageOfNodesToScore: Invalid value: 20.5: must be an integer"},
        {"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
         "leaderElection:\n  leaderElect: yes\n",
         "leaderElection.leaderElect: must be true or false"},
        {"- a\n- b\n", "<root>: expected a KubeSchedulerConfiguration object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_error err;
        char path[64], want[600];
        ms_rc rc = load_yaml(cases[i].yaml, &c, &err, path);
        snprintf(want, sizeof want, "%s: %s", path, cases[i].msg);
        if (rc != MS_EINVAL || strcmp(err.msg, want) != 0)
            fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, rc ? err.msg : "", want);
        assert_int_equal(c.nprofiles, 0);
    }

    /* a YAML syntax error names the file and the position */
    ms_error err;
    char path[64];
    assert_int_equal(load_yaml("kind: [a\n", &c, &err, path), MS_EINVAL);
    assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
    assert_non_null(strstr(err.msg, "line "));
}

/* The Lease's default name: kube-scheduler's only when a profile is
 * default-scheduler, else the first profile's schedulerName; a name given
 * is kept whatever the profiles. */
static void test_default_lease_name(void **state) {
    (void)state;
    ms_config c;
    ms_error err;
    const char *head = "{\"apiVersion\":\"kubescheduler.config.k8s.io/v1\",\"kind\":\"KubeSchedulerConfiguration\",";
    char json[512];
    snprintf(json, sizeof json, "%s\"profiles\":[{\"schedulerName\":\"gpu\"},{\"schedulerName\":\"batch\"}]}", head);
    assert_int_equal(load(json, &c, &err, NULL), MS_OK);
    assert_string_equal(c.leader_election.resource_name, "gpu");
    assert_string_equal(c.leader_election.resource_namespace, "kube-system");
    assert_false(c.leader_election.resource_name_given);
    /* a rename (run's --scheduler-name) is followed */
    snprintf(c.profiles[0].scheduler_name, sizeof c.profiles[0].scheduler_name, "renamed");
    ms_config_default_lease_name(&c);
    assert_string_equal(c.leader_election.resource_name, "renamed");
    ms_config_free(&c);
    snprintf(json, sizeof json,
             "%s\"profiles\":[{\"schedulerName\":\"gpu\"},{\"schedulerName\":\"default-scheduler\"}]}", head);
    assert_int_equal(load(json, &c, &err, NULL), MS_OK);
    assert_string_equal(c.leader_election.resource_name, "kube-scheduler");
    ms_config_free(&c);
    snprintf(json, sizeof json, "%s\"leaderElection\":{\"resourceName\":\"mine\"},"
             "\"profiles\":[{\"schedulerName\":\"default-scheduler\"}]}", head);
    assert_int_equal(load(json, &c, &err, NULL), MS_OK);
    assert_string_equal(c.leader_election.resource_name, "mine");
    assert_true(c.leader_election.resource_name_given);
    ms_config_default_lease_name(&c);
    assert_string_equal(c.leader_election.resource_name, "mine");
    ms_config_free(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_default_lease_name),
        cmocka_unit_test(test_extension_point_names),
        cmocka_unit_test(test_minimal_file_every_version),
        cmocka_unit_test(test_disable_default_at_one_point),
        cmocka_unit_test(test_disable_star_at_one_point),
        cmocka_unit_test(test_enable_default_at_point_overrides),
        cmocka_unit_test(test_disable_and_enable_moves_to_end),
        cmocka_unit_test(test_star_with_reorder),
        cmocka_unit_test(test_multi_point_rules),
        cmocka_unit_test(test_multi_point_then_specific_point),
        cmocka_unit_test(test_docs_multi_point_precedence),
        cmocka_unit_test(test_dynamic_resources_can_be_disabled),
        cmocka_unit_test(test_disable_scheduling_gates),
        cmocka_unit_test(test_plugin_config_args),
        cmocka_unit_test(test_two_profiles),
        cmocka_unit_test(test_global_settings),
        cmocka_unit_test(test_number_forms),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_validation_errors),
        cmocka_unit_test(test_validate_struct),
        cmocka_unit_test(test_unknown_fields_strict),
        cmocka_unit_test(test_max_plugins_bound),
        cmocka_unit_test(test_build_directly),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_yaml_example_scheduler_config),
        cmocka_unit_test(test_yaml_example_profiles),
        cmocka_unit_test(test_yaml_docs_examples),
        cmocka_unit_test(test_yaml_files),
        cmocka_unit_test(test_errors_quote_a_long_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
