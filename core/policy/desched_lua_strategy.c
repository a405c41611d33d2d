/* A Lua policy as a descheduling strategy: its deschedule(nodes) hook
 * gets the pass's nodes and returns the pods to evict with a reason; each
 * then goes through the profile's DefaultEvictor (and the policies'
 * evictable hooks), the limits and placement like any strategy's. */
#include <stdlib.h>

#include "descheduler/pass.h"
#include "policy/desched_lua.h"
#include "moonsched/lua_policy.h"

/* Every pod of the pass's nodes, with its node. */
static uint32_t gather(const ms_desched_pass *ps, ms_pod **pods, ms_str *nodes) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < ps->nnodes; i++)
        for (uint32_t k = 0; k < ps->nodes[i]->npods; k++) {
            pods[n] = ps->nodes[i]->pods[k];
            nodes[n++] = ps->nodes[i]->name;
        }
    return n;
}

static void run(const void *args, ms_desched_pass *ps) {
    ms_policy *pol = (ms_policy *)args;
    uint32_t total = 0;
    for (uint32_t i = 0; i < ps->nnodes; i++) total += ps->nodes[i]->npods;
    size_t cap = total ? total : 1;
    ms_pod **pods = malloc(sizeof *pods * cap);
    ms_str *nodes = malloc(sizeof *nodes * cap), *reasons = malloc(sizeof *reasons * cap);
    uint32_t *picked = malloc(sizeof *picked * cap), npicked = 0;
    if (!pods || !nodes || !reasons || !picked) {
        ps->failed = true;
    } else {
        uint32_t n = gather(ps, pods, nodes);
        ms_status st;
        if (ms_policy_deschedule(pol, ps->nodes, ps->nnodes, pods, n, picked, reasons, &npicked, &st) != MS_SUCCESS)
            npicked = 0;   /* the failure is logged by the policy's runtime */
        for (uint32_t k = 0; k < npicked; k++) {
            ms_pod *p = pods[picked[k]];
            ms_str node = nodes[picked[k]];
            if (!ms_desched_pod_filter(ps, NULL, p, node)) continue;
            ms_evict_result r = ms_desched_evict(ps, p, node, ms_str_get(ps->in, reasons[k]));
            if (r == MS_EVICT_TOTAL_LIMIT) break;
        }
    }
    free(pods);
    free(nodes);
    free(reasons);
    free(picked);
}

const ms_desched_plugin_def ms_desched_lua_strategy = {
    .name = "lua",
    .deschedule = true,
    .balance = true,
    .run = run,
};
