/* The per-node memo of node-local plugins' results (see node_memo.h). */
#include <stdlib.h>
#include <string.h>

#include "framework/node_memo.h"
#include "backend/cache_snapshot.h"

void ms_node_memo_init(ms_node_memo *m) {
    memset(m, 0, sizeof *m);
    m->filter_epoch = m->score_epoch = 1;
}

void ms_node_memo_free(ms_node_memo *m) {
    if (m->pod) ms_pod_unref(m->pod);
    free(m->filtered);
    free(m->verdicts);
    free(m->scored);
    free(m->raw);
    free(m->sum);
    ms_node_memo_init(m);
}

bool ms_node_memo_reserve(ms_node_memo *m, uint32_t cap, uint32_t rows) {
    if (cap <= m->cap && rows <= m->rows) return true;
    if (rows < m->rows) rows = m->rows;
    if (cap < m->cap) cap = m->cap;
    ms_node_memo_key *f = calloc(cap, sizeof *f);
    ms_node_memo_verdict *v = calloc(cap, sizeof *v);
    ms_node_memo_key *s = calloc(cap, sizeof *s);
    int64_t *raw = malloc((size_t)cap * (rows ? rows : 1) * sizeof *raw);
    int64_t *sum = malloc((size_t)cap * sizeof *sum);
    if (!f || !v || !s || !raw || !sum) {
        free(f);
        free(v);
        free(s);
        free(raw);
        free(sum);
        return false;
    }
    free(m->filtered);
    free(m->verdicts);
    free(m->scored);
    free(m->raw);
    free(m->sum);
    m->filtered = f;
    m->verdicts = v;
    m->scored = s;
    m->raw = raw;
    m->sum = sum;
    m->cap = cap;
    m->rows = rows;
    m->armed = false;
    return true;
}

static bool same_resources(const ms_resources *a, const ms_resources *b) {
    if (memcmp(a->v, b->v, sizeof a->v) != 0 || a->nscalar != b->nscalar) return false;
    for (uint32_t i = 0; i < a->nscalar; i++)
        if (a->scalar[i].name != b->scalar[i].name || a->scalar[i].value != b->scalar[i].value) return false;
    return true;
}

static bool same_tolerations(const ms_pod *a, const ms_pod *b) {
    if (a->ntolerations != b->ntolerations) return false;
    for (uint32_t i = 0; i < a->ntolerations; i++) {
        const ms_toleration *x = &a->tolerations[i], *y = &b->tolerations[i];
        if (x->key != y->key || x->value != y->value || x->op != y->op || x->effect != y->effect ||
            x->has_seconds != y->has_seconds || x->toleration_seconds != y->toleration_seconds)
            return false;
    }
    return true;
}

static bool same_host_ports(const ms_pod *a, const ms_pod *b) {
    if (a->nhost_ports != b->nhost_ports) return false;
    for (uint32_t i = 0; i < a->nhost_ports; i++) {
        const ms_host_port *x = &a->host_ports[i], *y = &b->host_ports[i];
        if (x->host_ip != y->host_ip || x->port != y->port || x->protocol != y->protocol) return false;
    }
    return true;
}

static bool same_node_selector(const ms_pod *a, const ms_pod *b) {
    if (a->node_selector.n != b->node_selector.n) return false;
    for (uint32_t i = 0; i < a->node_selector.n; i++)
        if (a->node_selector.items[i].key != b->node_selector.items[i].key ||
            a->node_selector.items[i].value != b->node_selector.items[i].value)
            return false;
    return true;
}

static bool has_node_affinity(const ms_pod *p) {
    return p->has_node_affinity_required || p->nnode_affinity_preferred;
}

static bool same_images(const ms_pod *a, const ms_pod *b) {
    return a->nimages == b->nimages && (a->nimages == 0 || memcmp(a->images, b->images,
                                                                  a->nimages * sizeof *a->images) == 0);
}

bool ms_pod_same_signature(const ms_pod *a, const ms_pod *b) {
    if (has_node_affinity(a) || has_node_affinity(b)) return false;
    if (a == b) return true;
    return a->node_name == b->node_name && a->non_zero_cpu == b->non_zero_cpu &&
           a->non_zero_mem == b->non_zero_mem && same_resources(&a->requests, &b->requests) &&
           same_node_selector(a, b) && same_tolerations(a, b) && same_host_ports(a, b) && same_images(a, b);
}

bool ms_node_memo_begin_filter(ms_node_memo *m, const ms_framework *fw, const ms_cycle *c,
                               const ms_filter_plan *plan, ms_filter_plan *rest) {
    m->armed = false;
    if (!m->cap || has_node_affinity(c->pod)) return false;
    uint64_t local = 0;
    rest->n = 0;
    m->after_local = 0;
    for (uint32_t k = 0; k < plan->n; k++) {
        uint32_t i = plan->steps[k].plugin;
        if (fw->plugins[i].ops->node_local) {
            local |= 1ull << i;
            m->after_local = 0;
        } else {
            rest->steps[rest->n++] = plan->steps[k];
            m->after_local |= 1ull << i;
        }
    }
    uint32_t nnodes = c->snap ? c->snap->nnodes : 0;
    if (m->fw != fw || !m->pod || m->nnodes != nnodes || !ms_pod_same_signature(m->pod, c->pod)) {
        if (m->pod) ms_pod_unref(m->pod);
        m->pod = ms_pod_ref(c->pod);
        m->fw = fw;
        m->nnodes = nnodes;
        m->filter_epoch++;
        m->score_epoch++;
    }
    if (local != m->filter_plugins) {
        m->filter_plugins = local;
        m->filter_epoch++;
    }
    m->armed = true;
    return local != 0;
}

int64_t ms_node_memo_weighted_score(const ms_framework *fw, const ms_node_memo *m, const int64_t *per_plugin,
                                    uint32_t n, uint32_t k, uint32_t j, uint32_t at) {
    uint32_t i = fw->order[MS_EP_SCORE][k];
    if (m->summed >> i & 1) return m->raw[(size_t)k * m->cap + at] * fw->plugins[i].weight;
    return per_plugin[(size_t)k * n + j];
}

void ms_node_memo_fill_summed_rows(const ms_framework *fw, const ms_node_memo *m, const uint32_t *at,
                                   uint32_t n, int64_t *per_plugin) {
    for (uint32_t k = 0; k < fw->norder[MS_EP_SCORE]; k++) {
        uint32_t i = fw->order[MS_EP_SCORE][k];
        if (!(m->summed >> i & 1)) continue;
        const int64_t *raw = m->raw + (size_t)k * m->cap;
        int64_t *row = per_plugin + (size_t)k * n;
        for (uint32_t j = 0; j < n; j++) row[j] = raw[at[j]] * fw->plugins[i].weight;
    }
}
