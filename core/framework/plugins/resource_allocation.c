/* upstream's resourceAllocationScorer, shared by NodeResourcesFit's
 * strategies and NodeResourcesBalancedAllocation. See resource_allocation.h. */
#include "resource_allocation.h"

#include <cJSON.h>
#include <stdio.h>
#include <string.h>

#include "plugin_args.h"

static uint8_t kind_of(const ms_handle *h, ms_str name) {
    switch (ms_resource_builtin_index(h->rn, name)) {
    case MS_RES_CPU: return MS_RA_CPU;
    case MS_RES_MEMORY: return MS_RA_MEMORY;
    case MS_RES_EPHEMERAL: return MS_RA_EPHEMERAL;
    case MS_RES_PODS: return MS_RA_OTHER;
    default: break;
    }
    return ms_resource_is_scalar_name(ms_str_get(h->in, name)) ? MS_RA_SCALAR : MS_RA_OTHER;
}

void ms_resource_allocation_defaults(ms_resource_allocation *ra, const ms_handle *h) {
    ra->n = 2;
    ra->res[0] = (ms_resource_spec){h->rn->builtin[MS_RES_CPU], 1, MS_RA_CPU};
    ra->res[1] = (ms_resource_spec){h->rn->builtin[MS_RES_MEMORY], 1, MS_RA_MEMORY};
}

ms_rc ms_resource_allocation_parse(ms_resource_allocation *ra, const cJSON *list,
                                   const ms_handle *h, const char *plugin, const char *path,
                                   ms_error *err) {
    static const char *const fields[] = {"name", "weight", NULL};
    int n;
    ms_rc rc = ms_args_list(list, plugin, path, &n, err);
    if (rc) return rc;
    if (n == 0) {
        ms_resource_allocation_defaults(ra, h);
        return MS_OK;
    }
    if (n > MS_RA_MAX_RESOURCES)
        return ms_error_set(err, MS_EINVAL, "%s args: %s: Too many: %d: must have at most %d items",
                            plugin, path, n, MS_RA_MAX_RESOURCES);
    char item[256], sub[300];
    int i = 0;
    for (const cJSON *e = list->child; e; e = e->next, i++) {
        snprintf(item, sizeof item, "%s[%d]", path, i);
        if ((rc = ms_args_check_object(e, fields, plugin, item, err))) return rc;
        const char *name;
        snprintf(sub, sizeof sub, "%s.name", item);
        if ((rc = ms_args_string(cJSON_GetObjectItemCaseSensitive(e, "name"), plugin, sub, &name,
                                 err)))
            return rc;
        if (!*name) return ms_error_set(err, MS_EINVAL, "%s args: %s: Required value", plugin, sub);
        int64_t weight = 0;
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(e, "weight");
        snprintf(sub, sizeof sub, "%s.weight", item);
        if (w && !cJSON_IsNull(w) && (rc = ms_args_int(w, plugin, sub, &weight, err))) return rc;
        ms_str id = ms_intern_cstr(h->in, name);
        if (id == MS_STR_NONE) return ms_error_set(err, MS_ENOMEM, "%s args: out of memory", plugin);
        ra->res[i] = (ms_resource_spec){id, weight == 0 ? 1 : weight, kind_of(h, id)};
    }
    ra->n = (uint32_t)n;
    return MS_OK;
}

void ms_resource_allocation_pod_requests(const ms_resource_allocation *ra, const ms_pod *pod,
                                         int64_t *out) {
    for (uint32_t i = 0; i < ra->n; i++) {
        const ms_resource_spec *r = &ra->res[i];
        switch (r->kind) {
        case MS_RA_CPU:
            out[i] = ra->use_requested ? pod->requests.v[MS_RES_CPU] : pod->non_zero_cpu;
            break;
        case MS_RA_MEMORY:
            out[i] = ra->use_requested ? pod->requests.v[MS_RES_MEMORY] : pod->non_zero_mem;
            break;
        case MS_RA_EPHEMERAL: out[i] = pod->requests.v[MS_RES_EPHEMERAL]; break;
        case MS_RA_SCALAR: out[i] = ms_resources_scalar(&pod->requests, r->name); break;
        default: out[i] = 0; break;
        }
    }
}

bool ms_resource_allocation_best_effort(const ms_resource_allocation *ra, const int64_t *pod_req) {
    for (uint32_t i = 0; i < ra->n; i++)
        if (pod_req[i] != 0) return false;
    return true;
}

void ms_resource_allocation_scalar(const ms_resource_spec *r, const ms_node_info *ni,
                                   int64_t pod_req, int64_t *requested, int64_t *allocatable) {
    /* A scalar the pod does not request is left out of the score. */
    if (pod_req == 0 || !ni->node) {
        *allocatable = *requested = 0;
        return;
    }
    *allocatable = ms_resources_scalar(&ni->node->allocatable, r->name);
    *requested = ms_resources_scalar(&ni->requested, r->name) + pod_req;
}
