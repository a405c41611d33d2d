/* A profile's plugin set: upstream's default multiPoint list, the merge of
 * a profile's `plugins` into it, and the expansion of multiPoint into one
 * ordered list per extension point. */
#include "moonsched/pod.h"
#include "moonsched/config.h"

#include <stdio.h>
#include <string.h>

#include "base/quote.h"

/* Upstream's default multiPoint set, in upstream's order and with its
 * weights. */
typedef struct default_plugin {
    const char *name;
    int32_t weight;
} default_plugin;

static const default_plugin upstream_defaults[] = {
    {"SchedulingGates", 0},
    {"PrioritySort", 0},
    {"NodeUnschedulable", 0},
    {"NodeName", 0},
    {"TaintToleration", 3},
    {"NodeAffinity", 2},
    {"NodePorts", 0},
    {"NodeResourcesFit", 1},
    {"VolumeRestrictions", 0},
    /* EBSLimits, GCEPDLimits and AzureDiskLimits stood here until upstream
     * removed them (their volumes are counted by NodeVolumeLimits through
     * CSI migration). */
    {"NodeVolumeLimits", 0},
    {"VolumeBinding", 0},
    {"VolumeZone", 0},
    {"PodTopologySpread", 2},
    {"InterPodAffinity", 2},
    /* Upstream inserts it before DefaultPreemption when its feature gate
     * (on by default since DRA went GA) is enabled. */
    {"DynamicResources", 0},
    {"DefaultPreemption", 0},
    {"NodeResourcesBalancedAllocation", 1},
    {"ImageLocality", 1},
    {"DefaultBinder", 0},
};

#define NDEFAULTS (sizeof upstream_defaults / sizeof upstream_defaults[0])

static const char *const ep_names[MS_EP_COUNT] = {
    [MS_EP_PRE_ENQUEUE] = "preEnqueue",
    [MS_EP_QUEUE_SORT] = "queueSort",
    [MS_EP_PRE_FILTER] = "preFilter",
    [MS_EP_FILTER] = "filter",
    [MS_EP_POST_FILTER] = "postFilter",
    [MS_EP_PRE_SCORE] = "preScore",
    [MS_EP_SCORE] = "score",
    [MS_EP_RESERVE] = "reserve",
    [MS_EP_PERMIT] = "permit",
    [MS_EP_PRE_BIND] = "preBind",
    [MS_EP_BIND] = "bind",
    [MS_EP_POST_BIND] = "postBind",
};

const char *ms_extension_point_name(ms_extension_point ep) {
    if ((unsigned)ep == MS_EP_MULTI_POINT) return "multiPoint";
    if ((unsigned)ep >= MS_EP_COUNT) return "unknown";
    return ep_names[ep];
}

/* A merged set: what upstream's mergePluginSet returns. */
typedef struct merged_set {
    uint32_t nenabled;
    uint32_t ndisabled;
    bool disable_all;
    ms_plugin_ref enabled[2 * MS_MAX_PLUGINS];
    const char *disabled[MS_MAX_PLUGINS];
} merged_set;

static bool has_name(const char *const *names, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return true;
    return false;
}

static int find_ref(const ms_plugin_ref *refs, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(refs[i].name, name) == 0) return (int)i;
    return -1;
}

/* Upstream's mergePluginSet: defaults not disabled keep their place, and a
 * default that is enabled again takes the custom entry (weight included) in
 * that place; the other custom entries follow in their order. */
static void merge_set(merged_set *m, const ms_plugin_ref *defaults, uint32_t ndefaults,
                      const ms_plugin_set *custom) {
    memset(m, 0, sizeof *m);
    bool replaced[MS_MAX_PLUGINS] = {false};
    uint32_t ncustom = custom ? custom->nenabled : 0;
    if (ncustom > MS_MAX_PLUGINS) ncustom = MS_MAX_PLUGINS;
    if (custom) {
        uint32_t nd = custom->ndisabled > MS_MAX_PLUGINS ? MS_MAX_PLUGINS : custom->ndisabled;
        for (uint32_t i = 0; i < nd; i++) {
            if (!custom->disabled[i]) continue;
            if (strcmp(custom->disabled[i], "*") == 0) m->disable_all = true;
            m->disabled[m->ndisabled++] = custom->disabled[i];
        }
    }
    if (!m->disable_all) {
        for (uint32_t i = 0; i < ndefaults; i++) {
            if (has_name(m->disabled, m->ndisabled, defaults[i].name)) continue;
            ms_plugin_ref r = defaults[i];
            /* upstream keys custom entries by name: the last one wins */
            int k = -1;
            for (uint32_t j = 0; j < ncustom; j++)
                if (custom->enabled[j].name && strcmp(custom->enabled[j].name, r.name) == 0)
                    k = (int)j;
            if (k >= 0) {
                r = custom->enabled[k];
                replaced[k] = true;
            }
            m->enabled[m->nenabled++] = r;
        }
    }
    for (uint32_t j = 0; j < ncustom; j++)
        if (!replaced[j] && custom->enabled[j].name) m->enabled[m->nenabled++] = custom->enabled[j];
}

typedef struct builder {
    ms_profile_config *p;
    ms_error *err;
} builder;

static int plugin_index(builder *b, const char *name) {
    ms_profile_config *p = b->p;
    for (uint32_t i = 0; i < p->nplugins; i++)
        if (strcmp(p->plugins[i].name, name) == 0) return (int)i;
    if (p->nplugins >= MS_MAX_PLUGINS) {
        ms_error_set(b->err, MS_EINVAL, "profile %s: more than %d plugins", p->scheduler_name,
                     MS_MAX_PLUGINS);
        return -1;
    }
    size_t len = strlen(name);
    if (len == 0 || len >= sizeof p->plugins[0].name) {
        char q[MS_QUOTE_SIZE];
        ms_error_set(b->err, MS_EINVAL, "profile %s: plugin name %s must be 1 to %zu characters",
                     p->scheduler_name, ms_quote(q, name), sizeof p->plugins[0].name - 1);
        return -1;
    }
    ms_plugin_config *pc = &p->plugins[p->nplugins];
    memset(pc, 0, sizeof *pc);
    memcpy(pc->name, name, len + 1);
    pc->weight = 1;
    return (int)p->nplugins++;
}

static ms_rc push(builder *b, ms_extension_point ep, const char *name) {
    ms_profile_config *p = b->p;
    int idx = plugin_index(b, name);
    if (idx < 0) return MS_EINVAL;
    for (uint32_t i = 0; i < p->norder[ep]; i++)
        if (p->order[ep][i] == idx)
            return ms_error_set(b->err, MS_EINVAL, "profile %s: %s: plugin %s enabled twice",
                                p->scheduler_name, ms_extension_point_name(ep), name);
    p->order[ep][p->norder[ep]++] = (uint8_t)idx;
    p->plugins[idx].points |= 1u << ep;
    return MS_OK;
}

/* Upstream's expandMultiPointPlugins for one point, with the plugin's
 * interface check left to the framework. */
static ms_rc expand_point(builder *b, ms_extension_point ep, const merged_set *point,
                          const merged_set *multi) {
    ms_rc rc;
    uint32_t n = point->nenabled;
    if (n > MS_MAX_PLUGINS)
        return ms_error_set(b->err, MS_EINVAL, "profile %s: %s: more than %d plugins",
                            b->p->scheduler_name, ms_extension_point_name(ep), MS_MAX_PLUGINS);
    bool override[2 * MS_MAX_PLUGINS] = {false};
    const char *mp[2 * MS_MAX_PLUGINS];
    uint32_t nmp = 0;
    if (!point->disable_all) {
        for (uint32_t i = 0; i < multi->nenabled; i++) {
            const char *name = multi->enabled[i].name;
            if (has_name(point->disabled, point->ndisabled, name)) continue;
            int k = find_ref(point->enabled, n, name);
            if (k >= 0) {
                override[k] = true;
                continue;
            }
            if (has_name(mp, nmp, name))
                return ms_error_set(b->err, MS_EINVAL,
                                    "profile %s: multiPoint: plugin %s enabled twice",
                                    b->p->scheduler_name, name);
            mp[nmp++] = name;
        }
    }
    for (uint32_t k = 0; k < n; k++)
        if (override[k] && (rc = push(b, ep, point->enabled[k].name)) != MS_OK) return rc;
    for (uint32_t k = 0; k < nmp; k++)
        if ((rc = push(b, ep, mp[k])) != MS_OK) return rc;
    for (uint32_t k = 0; k < n; k++)
        if (!override[k] && (rc = push(b, ep, point->enabled[k].name)) != MS_OK) return rc;
    for (uint32_t k = 0; k < n; k++) {
        int idx = plugin_index(b, point->enabled[k].name);
        if (idx < 0) return MS_EINVAL;
        b->p->plugins[idx].explicit_points |= 1u << ep;
    }
    return MS_OK;
}

ms_rc ms_profile_config_build(ms_profile_config *p, const char *scheduler_name,
                              const ms_plugins *custom, ms_error *err) {
    memset(p, 0, sizeof *p);
    p->percentage_of_nodes_to_score = -1;
    if (!scheduler_name) scheduler_name = MS_DEFAULT_SCHEDULER_NAME;
    size_t len = strlen(scheduler_name);
    if (len >= sizeof p->scheduler_name) {
        char q[MS_QUOTE_SIZE];
        return ms_error_set(err, MS_EINVAL, "schedulerName %s is longer than %zu characters",
                            ms_quote(q, scheduler_name), sizeof p->scheduler_name - 1);
    }
    memcpy(p->scheduler_name, scheduler_name, len + 1);

    ms_plugin_ref defaults[NDEFAULTS];
    for (size_t i = 0; i < NDEFAULTS; i++)
        defaults[i] = (ms_plugin_ref){upstream_defaults[i].name, upstream_defaults[i].weight};

    /* Every point needs the merged multiPoint set: merge it once. */
    merged_set m[2];
    merged_set *multi = &m[0], *point = &m[1];
    merge_set(multi, defaults, NDEFAULTS, custom ? &custom->set[MS_EP_MULTI_POINT] : NULL);

    builder b = {p, err};
    ms_rc rc = MS_OK;
    int32_t score_weight[MS_MAX_PLUGINS] = {0};
    bool score_given[MS_MAX_PLUGINS] = {false};
    for (int ep = 0; ep < MS_EP_COUNT && rc == MS_OK; ep++) {
        merge_set(point, NULL, 0, custom ? &custom->set[ep] : NULL);
        rc = expand_point(&b, (ms_extension_point)ep, point, multi);
        if (rc == MS_OK && ep == MS_EP_SCORE) {
            /* upstream's getScoreWeights: the score list's weight first */
            for (uint32_t k = 0; k < point->nenabled; k++) {
                int idx = plugin_index(&b, point->enabled[k].name);
                if (idx < 0) {
                    rc = MS_EINVAL;
                    break;
                }
                if (!score_given[idx]) {
                    score_given[idx] = true;
                    score_weight[idx] = point->enabled[k].weight;
                }
            }
        }
    }
    if (rc == MS_OK) {
        for (uint32_t i = 0; i < p->nplugins; i++) {
            int32_t w = 0;
            if (score_given[i]) {
                w = score_weight[i];
            } else {
                int k = find_ref(multi->enabled, multi->nenabled, p->plugins[i].name);
                if (k >= 0) w = multi->enabled[k].weight;
            }
            p->plugins[i].weight = w > 0 ? w : 1;
        }
    }
    if (rc != MS_OK) {
        memset(p, 0, sizeof *p);
        p->percentage_of_nodes_to_score = -1;
    }
    return rc;
}

void ms_profile_config_default(ms_profile_config *p, const char *scheduler_name) {
    /* Cannot fail: the default set fits and the name is truncated to fit. */
    char name[sizeof p->scheduler_name];
    snprintf(name, sizeof name, "%s", scheduler_name ? scheduler_name : MS_DEFAULT_SCHEDULER_NAME);
    (void)ms_profile_config_build(p, name, NULL, NULL);
}
