/* `simulate --output json`: the placements with their scores, the
 * preemptions grouped by preemptor, the shadow policies (when any), each
 * node's requested and allocatable resources; one line. */
#include "simulate/simulate_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "scheduler/shadow.h"

/* format_score's numbers for programs: the total, each score plugin's
 * weighted score (when the profile's were kept) and the feasible nodes. */
static cJSON *score_json(const placement *p) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    if (p->scored || p->nscores > 0) cJSON_AddNumberToObject(o, "total", (double)p->total);
    if (p->nscores > 0) {
        cJSON *plugins = cJSON_AddObjectToObject(o, "plugins");
        for (uint32_t k = 0; plugins && k < p->nscores; k++)
            cJSON_AddNumberToObject(plugins, p->names[k], (double)p->scores[k]);
    }
    cJSON_AddNumberToObject(o, "feasibleNodes", p->feasible);
    cJSON_AddNumberToObject(o, "numAllNodes", p->num_all_nodes);
    return o;
}

/* "gated": true, the condition's reason and message, the gates' names and
 * the plugin's words. */
static void gated_json(sim *m, cJSON *e, const placement *p) {
    cJSON_AddTrueToObject(e, "gated");
    cJSON_AddStringToObject(e, "reason", GATED_REASON);
    cJSON_AddStringToObject(e, "message", GATED_MESSAGE);
    cJSON *gates = cJSON_AddArrayToObject(e, "schedulingGates");
    for (uint32_t k = 0; gates && k < p->pod->nscheduling_gates; k++)
        cJSON_AddItemToArray(gates, cJSON_CreateString(ms_str_get(m->in, p->pod->scheduling_gates[k])));
    cJSON_AddStringToObject(e, "detail", p->message ? p->message : "");
}

/* Victims of the same preemptor in the same cycle form one preemption. */
static bool same_preemption(const preemption *a, const preemption *b) {
    return a->attempt == b->attempt && a->preemptor == b->preemptor && a->node == b->node;
}

static cJSON *preemptions_json(sim *m) {
    cJSON *arr = cJSON_CreateArray();
    char key[512];
    cJSON *victims = NULL;
    for (uint32_t i = 0; arr && i < m->npre; i++) {
        const preemption *e = &m->pre[i];
        if (i == 0 || !same_preemption(&m->pre[i - 1], e)) {
            cJSON *o = cJSON_CreateObject();
            ms_pod_key(e->preemptor, m->in, key, sizeof key);
            cJSON_AddStringToObject(o, "preemptor", key);
            cJSON_AddNumberToObject(o, "priority", e->preemptor->priority);
            cJSON_AddStringToObject(o, "node", ms_str_get(m->in, e->node));
            victims = cJSON_AddArrayToObject(o, "victims");
            cJSON_AddItemToArray(arr, o);
        }
        cJSON *vo = cJSON_CreateObject();
        ms_pod_key(e->victim, m->in, key, sizeof key);
        cJSON_AddStringToObject(vo, "pod", key);
        cJSON_AddNumberToObject(vo, "priority", e->victim->priority);
        cJSON_AddItemToArray(victims, vo);
    }
    return arr;
}

static void add_quantity(cJSON *obj, const sim *m, int kind, ms_str name, int64_t v) {
    char buf[64];
    const char *key = kind >= 0 ? ms_str_get(m->in, m->dec.rn.builtin[kind]) : ms_str_get(m->in, name);
    ms_sim_format_quantity(kind, key, v, buf, sizeof buf);
    cJSON_AddStringToObject(obj, key, buf);
}

static cJSON *resources_json(const sim *m, const ms_resources *r, const ms_resources *keys) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    for (int k = 0; k < MS_RES_NBUILTIN; k++) {
        /* ephemeral-storage only where the node declares it */
        if (k == MS_RES_EPHEMERAL && keys->v[k] == 0 && r->v[k] == 0) continue;
        add_quantity(o, m, k, MS_STR_NONE, r->v[k]);
    }
    for (uint32_t k = 0; k < keys->nscalar; k++)
        add_quantity(o, m, -1, keys->scalar[k].name, ms_resources_scalar(r, keys->scalar[k].name));
    return o;
}

void ms_sim_print_json(sim *m) {
    cJSON *root = cJSON_CreateObject();
    cJSON *pls = cJSON_AddArrayToObject(root, "placements");
    cJSON *nodes = cJSON_AddArrayToObject(root, "nodes");
    if (!root || !pls || !nodes) {
        cJSON_Delete(root);
        m->oom = true;
        return;
    }
    char key[512], why[2048];
    for (uint32_t i = 0; i < m->npl; i++) {
        const placement *p = &m->pl[i];
        cJSON *e = cJSON_CreateObject();
        ms_pod_key(p->pod, m->in, key, sizeof key);
        cJSON_AddStringToObject(e, "pod", key);
        if (p->node != MS_STR_NONE) {
            cJSON_AddStringToObject(e, "node", ms_str_get(m->in, p->node));
            ms_sim_format_score(p, why, sizeof why);
            cJSON_AddStringToObject(e, "message", why);
            cJSON_AddItemToObject(e, "score", score_json(p));
            char vols[1024];
            ms_sim_volumes_describe(&m->vols, p->pod, vols, sizeof vols);
            if (*vols) cJSON_AddStringToObject(e, "volumes", vols);
            ms_sim_dra_describe(m->sched, m->in, p->pod, vols, sizeof vols);
            if (*vols) cJSON_AddStringToObject(e, "devices", vols);
        } else {
            cJSON_AddNullToObject(e, "node");
            if (p->preempted) cJSON_AddTrueToObject(e, "preempted");
            if (p->gated) gated_json(m, e, p);
            else cJSON_AddStringToObject(e, "message", p->message ? p->message : "");
        }
        cJSON_AddItemToArray(pls, e);
    }
    cJSON_AddItemToObject(root, "preemptions", preemptions_json(m));
    /* Only with shadow policies: without them the document is as before. */
    if (ms_scheduler_shadow_count(m->sched))
        cJSON_AddItemToObject(root, "shadow", ms_scheduler_shadow_json(m->sched));
    uint32_t n = 0;
    const ms_node_info **v = ms_sim_sorted_nodes(m, &n);
    for (uint32_t i = 0; v && i < n; i++) {
        const ms_node_info *ni = v[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", ms_str_get(m->in, ni->name));
        /* Requested lists every resource the node has, plus any requested
         * scalar it lacks (bound pods may ask for more than it has). */
        ms_resources keys = {0};
        ms_resources_copy(&keys, &ni->node->allocatable);
        for (uint32_t k = 0; k < ni->requested.nscalar; k++)
            if (ms_resources_scalar(&keys, ni->requested.scalar[k].name) == 0 &&
                ni->requested.scalar[k].value != 0)
                ms_resources_set_scalar(&keys, ni->requested.scalar[k].name, 0);
        cJSON_AddItemToObject(e, "requested", resources_json(m, &ni->requested, &keys));
        cJSON_AddItemToObject(e, "allocatable", resources_json(m, &ni->node->allocatable, &keys));
        ms_resources_free(&keys);
        cJSON_AddItemToArray(nodes, e);
    }
    free(v);
    char *text = cJSON_PrintUnformatted(root);
    if (text) {
        fprintf(m->out, "%s\n", text);
        free(text);
    } else {
        m->oom = true;
    }
    cJSON_Delete(root);
}
