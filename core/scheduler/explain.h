/* Explain: what the last scheduling cycles decided, and why a pod is
 * where it is (or is not). The scheduler keeps a bounded ring of its most
 * recent cycles, each recording only what the cycle computed anyway: the
 * outcome and its message (the FitError, preemption's reasons), the
 * selected node with its total (and the per-plugin weighted scores when
 * the cycle computed them), the nominated node, preemption's candidates
 * and victims, the policy generation in effect. Nothing per node is
 * recorded: the per-node filter statuses and scores of a pending pod are
 * computed again on request, on the scheduler thread, over the current
 * snapshot (ms_scheduler_explain, labelled "recomputedNow").
 *
 * Everything here runs on the scheduler thread; other threads ask through
 * their own queue (serving/debug_requests.h). */
#ifndef MOONSCHED_SCHEDULER_EXPLAIN_H
#define MOONSCHED_SCHEDULER_EXPLAIN_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/plugin.h"
#include "moonsched/status.h"

typedef struct ms_scheduler ms_scheduler;

/* Recent cycles kept when the scheduler options say 0. */
#define MS_EXPLAIN_DEFAULT_CYCLES 1024u
#define MS_EXPLAIN_MAX_VICTIMS 16u
#define MS_EXPLAIN_MAX_CANDIDATES 16u

typedef enum ms_explain_result {
    MS_EXPLAIN_SCHEDULED = 0,      /* assumed, handed to PreBind and Bind */
    MS_EXPLAIN_WAITING,            /* assumed, parked by a Permit plugin */
    MS_EXPLAIN_UNSCHEDULABLE,      /* rejected (Filter, PreFilter, Reserve, Permit) */
    MS_EXPLAIN_ERROR,              /* the cycle failed; retried after backoff */
} ms_explain_result;

/* What became of a cycle that assumed its pod: its binding cycle's end,
 * known later than the cycle's (a Permit wait, the bind's answer). */
typedef enum ms_explain_binding {
    MS_EXPLAIN_BINDING_NONE = 0,   /* not ended yet, or no binding cycle */
    MS_EXPLAIN_BOUND,              /* the bind succeeded */
    MS_EXPLAIN_BIND_FAILED,        /* PreBind or Bind failed, or the server refused (409) */
    MS_EXPLAIN_PERMIT_REJECTED,    /* rejected (or timed out) while waiting at Permit */
} ms_explain_binding;

typedef struct ms_explain_candidate {
    ms_str node;
    uint32_t nvictims;
    uint32_t pdb_violations;
} ms_explain_candidate;

typedef struct ms_explain_record {
    uint64_t cycle;                /* the queue's scheduling cycle number */
    double time;                   /* the scheduler's clock when it ran */
    ms_str ns, name;
    uint64_t uid_hash;
    uint32_t profile;
    uint32_t attempts;             /* of the pod, this one included */
    uint64_t policy_generation;    /* ms_scheduler_policy_generation then */
    uint8_t result;                /* ms_explain_result */
    ms_str node;                   /* the selected node, or MS_STR_NONE */
    int64_t total;                 /* its total score (when scored) */
    bool scored;                   /* more than one feasible node */
    uint32_t feasible, evaluated, num_all_nodes;
    uint32_t nscores;              /* per-plugin weighted scores of `node`, when computed */
    int64_t *scores;               /* owned, grown to scorecap */
    uint32_t scorecap;
    ms_str nominated;              /* preemption's choice, or MS_STR_NONE */
    bool preemption_attempted;
    uint32_t ncandidates;          /* all of them; the first MS_EXPLAIN_MAX_CANDIDATES kept */
    ms_explain_candidate candidates[MS_EXPLAIN_MAX_CANDIDATES];
    uint32_t nvictims;             /* all of them; the first MS_EXPLAIN_MAX_VICTIMS kept */
    ms_str victims[MS_EXPLAIN_MAX_VICTIMS][2];   /* namespace, name */
    char *message;                 /* owned, grown to msgcap; "" when none */
    size_t msgcap;
    uint8_t binding;               /* ms_explain_binding */
    char binding_message[160];     /* why it failed or was rejected; "" otherwise */
} ms_explain_record;

typedef struct ms_explain_ring {
    /* Records hold a reference on the names they keep (pod names are
     * released when the pod goes). */
    ms_interner *in;
    ms_explain_record *rec;
    uint32_t cap;                  /* 0: recording is off */
    uint32_t next;                 /* the slot the next cycle takes */
    uint32_t n;                    /* slots in use */
} ms_explain_ring;

/* cap 0 turns recording off. false when out of memory (then off). */
bool ms_explain_ring_init(ms_explain_ring *r, uint32_t cap, ms_interner *in);
void ms_explain_ring_free(ms_explain_ring *r);

/* The slot of a new cycle of pod ns/name, cleared (buffers kept), or NULL
 * when off. */
ms_explain_record *ms_explain_ring_begin(ms_explain_ring *r, ms_str ns, ms_str name);
/* The newest record of the pod, or NULL. */
const ms_explain_record *ms_explain_ring_find(const ms_explain_ring *r, ms_str ns, ms_str name);

/* Outcome and message (copied; NULL: none). Out of memory keeps the
 * message cut short, never fails the cycle. */
void ms_explain_set_result(ms_explain_record *rec, ms_explain_result result, const char *message);
/* The selected node's weighted per-plugin scores (copied). */
void ms_explain_set_scores(ms_explain_record *rec, const int64_t *scores, uint32_t n);
void ms_explain_add_victim(ms_explain_ring *r, ms_explain_record *rec, ms_str ns, ms_str name);
/* The binding outcome of pod uid_hash's cycle `cycle`, when its record is
 * still in the ring (message NULL: none). */
void ms_explain_ring_complete(ms_explain_ring *r, uint64_t cycle, uint64_t uid_hash, ms_explain_binding b,
                              const char *message);

const char *ms_explain_result_name(ms_explain_result r);

/* The scheduler's clock at a cycle, into o: "time" (RFC 3339, `run`) or
 * "virtualTime" (seconds of simulate's virtual clock). */
void ms_explain_add_time(cJSON *o, double t);

/* The record as JSON (see docs/explain.md): names resolved through `in`,
 * score plugin names from `score_names` (n of them), the profile's name. */
cJSON *ms_explain_record_json(const ms_explain_record *rec, const ms_interner *in, const char *profile,
                              const char *const *score_names, uint32_t nscore_names);

/* A Filter (or PreFilter, Score) status as JSON: {"plugin", "code",
 * "reasons"}. */
cJSON *ms_explain_status_json(const ms_framework *fw, const ms_status *st);

/* What the scheduler knows of pod NS/NAME, as JSON: where it is (queue,
 * binding, cache), its last recorded cycle, and for a pod still pending
 * the Filter status or the weighted scores of every node computed now
 * over the current snapshot (nothing changes: no assume, no random draw,
 * no preemption). MS_ENOENT (message set) when the scheduler knows no such
 * pod and no cycle of it is recorded. Scheduler thread only. */
ms_rc ms_scheduler_explain(ms_scheduler *s, const char *ns, const char *name, double now, cJSON **out,
                           ms_error *err);
/* Counts reloads of out-of-tree plugins (Lua policies): a record made
 * under another generation ran other policy versions. */
uint64_t ms_scheduler_policy_generation(const ms_scheduler *s);

#endif
