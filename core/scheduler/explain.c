/* The ring of recent scheduling cycles and a record's JSON. See
 * scheduler/explain.h. Recording is a handful of stores per cycle into a
 * slot that is reused; the only copies are the message of a failed cycle
 * and the scores the cycle already computed. */
#include "scheduler/explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/clock.h"

/* Times before this (2001) are a virtual clock's. */
#define VIRTUAL_CLOCK_END 1e9

bool ms_explain_ring_init(ms_explain_ring *r, uint32_t cap, ms_interner *in) {
    memset(r, 0, sizeof *r);
    r->in = in;
    if (cap == 0) return true;
    r->rec = calloc(cap, sizeof *r->rec);
    if (!r->rec) return false;
    r->cap = cap;
    return true;
}

/* The names a record holds, given back before its slot is reused. */
static void release_names(ms_explain_ring *r, ms_explain_record *rec) {
    ms_str_release(r->in, rec->name);
    uint32_t nv = rec->nvictims < MS_EXPLAIN_MAX_VICTIMS ? rec->nvictims : MS_EXPLAIN_MAX_VICTIMS;
    for (uint32_t i = 0; i < nv; i++) ms_str_release(r->in, rec->victims[i][1]);
}

void ms_explain_ring_free(ms_explain_ring *r) {
    for (uint32_t i = 0; i < r->n; i++) release_names(r, &r->rec[i]);
    for (uint32_t i = 0; i < r->cap; i++) {
        free(r->rec[i].scores);
        free(r->rec[i].message);
    }
    free(r->rec);
    memset(r, 0, sizeof *r);
}

ms_explain_record *ms_explain_ring_begin(ms_explain_ring *r, ms_str ns, ms_str name) {
    if (r->cap == 0) return NULL;
    ms_explain_record *rec = &r->rec[r->next];
    if (++r->next == r->cap) r->next = 0;
    if (r->n < r->cap) r->n++;
    else release_names(r, rec);
    ms_str_retain(r->in, name);
    rec->ns = ns;
    rec->name = name;
    /* Only what a cycle may leave unset is cleared; buffers stay. */
    rec->result = MS_EXPLAIN_ERROR;
    rec->node = rec->nominated = MS_STR_NONE;
    rec->total = 0;
    rec->scored = rec->preemption_attempted = false;
    rec->feasible = rec->evaluated = rec->num_all_nodes = 0;
    rec->nscores = rec->ncandidates = rec->nvictims = 0;
    if (rec->message) rec->message[0] = '\0';
    rec->binding = MS_EXPLAIN_BINDING_NONE;
    rec->binding_message[0] = '\0';
    return rec;
}

const ms_explain_record *ms_explain_ring_find(const ms_explain_ring *r, ms_str ns, ms_str name) {
    /* newest first: back from the slot last taken */
    for (uint32_t k = 1; k <= r->n; k++) {
        const ms_explain_record *rec = &r->rec[(r->next + r->cap - k) % r->cap];
        if (rec->name == name && rec->ns == ns) return rec;
    }
    return NULL;
}

void ms_explain_set_result(ms_explain_record *rec, ms_explain_result result, const char *message) {
    rec->result = (uint8_t)result;
    if (!message) {
        if (rec->message) rec->message[0] = '\0';
        return;
    }
    size_t n = strlen(message);
    if (n + 1 > rec->msgcap) {
        char *m = realloc(rec->message, n + 1);
        if (m) {
            rec->message = m;
            rec->msgcap = n + 1;
        }
    }
    if (!rec->msgcap) return;
    if (n >= rec->msgcap) n = rec->msgcap - 1;
    memcpy(rec->message, message, n);
    rec->message[n] = '\0';
}

void ms_explain_set_scores(ms_explain_record *rec, const int64_t *scores, uint32_t n) {
    if (!ms_array_grow((void **)&rec->scores, &rec->scorecap, n, sizeof *rec->scores)) return;
    memcpy(rec->scores, scores, n * sizeof *scores);
    rec->nscores = n;
}

void ms_explain_add_victim(ms_explain_ring *r, ms_explain_record *rec, ms_str ns, ms_str name) {
    if (rec->nvictims < MS_EXPLAIN_MAX_VICTIMS) {
        ms_str_retain(r->in, name);
        rec->victims[rec->nvictims][0] = ns;
        rec->victims[rec->nvictims][1] = name;
    }
    rec->nvictims++;
}

void ms_explain_ring_complete(ms_explain_ring *r, uint64_t cycle, uint64_t uid_hash, ms_explain_binding b,
                              const char *message) {
    /* newest first: the cycle is usually among the last few */
    for (uint32_t k = 1; k <= r->n; k++) {
        ms_explain_record *rec = &r->rec[(r->next + r->cap - k) % r->cap];
        if (rec->cycle != cycle || rec->uid_hash != uid_hash) continue;
        rec->binding = (uint8_t)b;
        snprintf(rec->binding_message, sizeof rec->binding_message, "%s", message ? message : "");
        return;
    }
}

static const char *binding_name(const ms_explain_record *rec) {
    switch ((ms_explain_binding)rec->binding) {
    case MS_EXPLAIN_BOUND: return "Bound";
    case MS_EXPLAIN_BIND_FAILED: return "BindingFailed";
    case MS_EXPLAIN_PERMIT_REJECTED: return "RejectedAtPermit";
    case MS_EXPLAIN_BINDING_NONE: break;
    }
    /* assumed, its binding cycle not ended yet */
    return rec->result == MS_EXPLAIN_SCHEDULED || rec->result == MS_EXPLAIN_WAITING ? "Pending" : NULL;
}

const char *ms_explain_result_name(ms_explain_result r) {
    switch (r) {
    case MS_EXPLAIN_SCHEDULED: return "Scheduled";
    case MS_EXPLAIN_WAITING: return "WaitingOnPermit";
    case MS_EXPLAIN_UNSCHEDULABLE: return "Unschedulable";
    case MS_EXPLAIN_ERROR: return "SchedulerError";
    }
    return "Unknown";
}

static void add_str(cJSON *o, const char *key, const ms_interner *in, ms_str s) {
    if (s != MS_STR_NONE) cJSON_AddStringToObject(o, key, ms_str_get(in, s));
}

static cJSON *preemption_json(const ms_explain_record *rec, const ms_interner *in) {
    cJSON *p = cJSON_CreateObject();
    add_str(p, "nominatedNode", in, rec->nominated);
    cJSON_AddNumberToObject(p, "candidates", rec->ncandidates);
    cJSON *cands = cJSON_AddArrayToObject(p, "candidateNodes");
    uint32_t nc = rec->ncandidates < MS_EXPLAIN_MAX_CANDIDATES ? rec->ncandidates : MS_EXPLAIN_MAX_CANDIDATES;
    for (uint32_t i = 0; i < nc; i++) {
        cJSON *c = cJSON_CreateObject();
        add_str(c, "node", in, rec->candidates[i].node);
        cJSON_AddNumberToObject(c, "victims", rec->candidates[i].nvictims);
        cJSON_AddNumberToObject(c, "pdbViolations", rec->candidates[i].pdb_violations);
        cJSON_AddItemToArray(cands, c);
    }
    cJSON_AddNumberToObject(p, "victims", rec->nvictims);
    cJSON *vs = cJSON_AddArrayToObject(p, "victimPods");
    uint32_t nv = rec->nvictims < MS_EXPLAIN_MAX_VICTIMS ? rec->nvictims : MS_EXPLAIN_MAX_VICTIMS;
    for (uint32_t i = 0; i < nv; i++) {
        char key[512];
        snprintf(key, sizeof key, "%s/%s", ms_str_get(in, rec->victims[i][0]), ms_str_get(in, rec->victims[i][1]));
        cJSON_AddItemToArray(vs, cJSON_CreateString(key));
    }
    return p;
}

void ms_explain_add_time(cJSON *o, double t) {
    /* simulate's virtual clock starts at 0: seconds into the run */
    char when[MS_RFC3339_MAX];
    if (t >= VIRTUAL_CLOCK_END) cJSON_AddStringToObject(o, "time", ms_time_rfc3339(t, 6, when, sizeof when));
    else cJSON_AddNumberToObject(o, "virtualTime", t);
}

cJSON *ms_explain_record_json(const ms_explain_record *rec, const ms_interner *in, const char *profile,
                              const char *const *score_names, uint32_t nscore_names) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "cycle", (double)rec->cycle);
    ms_explain_add_time(o, rec->time);
    cJSON_AddNumberToObject(o, "attempt", rec->attempts);
    cJSON_AddStringToObject(o, "profile", profile);
    cJSON_AddStringToObject(o, "result", ms_explain_result_name((ms_explain_result)rec->result));
    if (rec->message && rec->message[0]) cJSON_AddStringToObject(o, "message", rec->message);
    add_str(o, "selectedNode", in, rec->node);
    if (rec->node != MS_STR_NONE) {
        cJSON_AddNumberToObject(o, "nodes", rec->num_all_nodes);
        cJSON_AddNumberToObject(o, "evaluatedNodes", rec->evaluated);
        cJSON_AddNumberToObject(o, "feasibleNodes", rec->feasible);
        cJSON_AddBoolToObject(o, "scored", rec->scored);
        if (rec->scored) cJSON_AddNumberToObject(o, "totalScore", (double)rec->total);
    }
    if (rec->nscores) {
        cJSON *sc = cJSON_AddObjectToObject(o, "scores");
        for (uint32_t k = 0; k < rec->nscores && k < nscore_names; k++)
            cJSON_AddNumberToObject(sc, score_names[k], (double)rec->scores[k]);
    }
    if (rec->preemption_attempted || rec->nominated != MS_STR_NONE || rec->nvictims)
        cJSON_AddItemToObject(o, "preemption", preemption_json(rec, in));
    const char *binding = binding_name(rec);
    if (binding) {
        cJSON *b = cJSON_AddObjectToObject(o, "binding");
        cJSON_AddStringToObject(b, "result", binding);
        if (rec->binding_message[0]) cJSON_AddStringToObject(b, "message", rec->binding_message);
    }
    cJSON_AddNumberToObject(o, "policyGeneration", (double)rec->policy_generation);
    return o;
}
