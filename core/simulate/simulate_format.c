/* simulate's formats that every output writes the same way. See
 * simulate/simulate_internal.h. */
#include "simulate/simulate_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cache.h"
#include "base/quantity.h"

void ms_sim_format_score(const placement *p, char *buf, size_t n) {
    size_t len = 0;
    int w;
    if (p->nscores > 0) {
        w = snprintf(buf, n, "score %lld: ", (long long)p->total);
        len = w > 0 ? (size_t)w : 0;
        for (uint32_t k = 0; k < p->nscores && len < n; k++) {
            w = snprintf(buf + len, n - len, "%s%s %lld", k ? ", " : "", p->names[k],
                         (long long)p->scores[k]);
            if (w > 0) len += (size_t)w;
        }
        if (len < n) snprintf(buf + len, n - len, "; feasible %u/%u", p->feasible, p->num_all_nodes);
    } else if (p->scored) {
        snprintf(buf, n, "score %lld; feasible %u/%u", (long long)p->total, p->feasible,
                 p->num_all_nodes);
    } else {
        snprintf(buf, n, "not scored: feasible %u/%u", p->feasible, p->num_all_nodes);
    }
}

static int cmp_node_name(const void *a, const void *b, void *in) {
    const ms_node_info *x = *(const ms_node_info *const *)a, *y = *(const ms_node_info *const *)b;
    return strcmp(ms_str_get(in, x->name), ms_str_get(in, y->name));
}

/* Live NodeInfos with a Node object, sorted by name. */
const ms_node_info **ms_sim_sorted_nodes(sim *m, uint32_t *n) {
    ms_cache *c = ms_scheduler_cache(m->sched);
    uint32_t total = ms_cache_node_count(c), k = 0;
    const ms_node_info **v = calloc(total ? total : 1, sizeof *v);
    if (!v) return NULL;
    for (uint32_t i = 0; i < total; i++) {
        const ms_node_info *ni = ms_cache_node_at(c, i);
        if (ni && ni->node) v[k++] = ni;
    }
    qsort_r(v, k, sizeof *v, cmp_node_name, m->in);
    *n = k;
    return v;
}

bool ms_sim_is_byte_scalar(const char *name) { return strncmp(name, "hugepages-", 10) == 0; }

void ms_sim_format_quantity(int kind, const char *name, int64_t v, char *buf, size_t n) {
    if (kind == MS_RES_CPU) ms_format_milli(buf, n, v);
    else if (kind == MS_RES_MEMORY || kind == MS_RES_EPHEMERAL || (name && ms_sim_is_byte_scalar(name)))
        ms_format_bytes(buf, n, v);
    else snprintf(buf, n, "%lld", (long long)v);
}
