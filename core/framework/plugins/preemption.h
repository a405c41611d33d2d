/* Priority preemption: upstream's DefaultPreemption PostFilter plugin
 * (framework/plugins/default_preemption.c) and the pieces of it that policies and
 * tests use on their own.
 *
 * One PostFilter call, for a pod no node could take:
 *  1. Eligibility (PodEligibleToPreemptOthers): not with preemptionPolicy
 *     Never; not while a lower-priority pod on the pod's nominated node is
 *     terminating (its earlier victims are still going away), unless that
 *     node is now UnschedulableAndUnresolvable for it.
 *  2. Candidates: the nodes whose Filter status is Unschedulable (not
 *     UnschedulableAndUnresolvable), visited from a random offset; on each,
 *     SelectVictimsOnNode on a scratch copy of its NodeInfo: remove every
 *     lower-priority pod, check the pod fits (the whole Filter phase,
 *     policies included, with nominated pods), then reprieve victims,
 *     PDB-violating ones first, each group most
 *     important first, keeping a reprieved pod when the pod still fits. The
 *     search stops once it has ms_preemption_num_candidates candidates and
 *     at least one of them violates no PDB. Filter plugins that keep
 *     per-cycle counts see the scratch copy (ms_node_info.scratch) and
 *     apply the difference as upstream's AddPod/RemovePod. When the
 *     cycle's Filter runs NodeResourcesFit and no policy picks victims, a
 *     step that NodeResourcesFit alone decides (the pod does not fit even
 *     without every lower-priority pod, or a pod does not fit back) is
 *     taken without the Filter run; the same decisions result. Such a
 *     node's outcome is kept for the next preemptor and reused while the
 *     node, its nominated pods, the pod's signature and priority are the
 *     same, and no PDB, requested deletion or own nomination is in play.
 *  3. Choice (pickOneNodeForPreemption, ms_pick_one_node_for_preemption).
 *  4. Preparation: every victim is passed to the handle's evict (victims
 *     already terminating are skipped); lower-priority pods nominated to
 *     the node are passed to clear_nomination. The node is returned through
 *     PostFilter's *nominated.
 * The pod's nominated node is the queue's nominator entry when the handle
 * has a queue, else its status.nominatedNodeName.
 * When there is no candidate the status is Unschedulable with upstream's
 * message ("preemption: 0/N nodes are available: 2 No preemption victims
 * found for incoming pod, 3 Preemption is not helpful for scheduling.") and
 * a nomination the pod holds is cleared.
 *
 * Lua policies replace step 2's per-node choice or step 3 through
 * ms_preemption_hooks. */
#ifndef MOONSCHED_PREEMPTION_H
#define MOONSCHED_PREEMPTION_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/cache_snapshot.h"
#include "moonsched/framework.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/pod.h"
#include "moonsched/status.h"

/* upstream's defaults for DefaultPreemptionArgs */
#define MS_MIN_CANDIDATE_NODES_PERCENTAGE 10
#define MS_MIN_CANDIDATE_NODES_ABSOLUTE 100

/* A node where the pod fits once `victims` are gone (upstream's Candidate
 * with its extenderv1.Victims). */
typedef struct ms_preemption_candidate {
    ms_str node;
    const ms_node_info *ni;        /* the snapshot's NodeInfo, victims still on it */
    uint32_t nvictims;
    ms_pod **victims;              /* most important first (ms_more_important_pod) */
    uint32_t num_pdb_violations;   /* victims whose eviction violates a PDB */
} ms_preemption_candidate;

/* Extension points for policies. Each may return MS_SKIP to use the
 * default for that call; MS_ERROR fails the PostFilter with st's reason
 * (which must outlive the cycle). ctx is the hooks' own. */
typedef struct ms_preemption_hooks {
    void *ctx;
    /* Replaces SelectVictimsOnNode on one node. `potential` holds the pods
     * on the node with a lower priority than the preemptor, least important
     * first. MS_SUCCESS: the indexes (into potential) of the pods to evict
     * are in victims[0..*nvictims) (room for npotential); the core then
     * checks that the pod fits on the node without them (else the node is
     * no candidate) and counts their PDB violations. An empty choice, and
     * MS_UNSCHEDULABLE, mean this node cannot help. */
    ms_code (*select_victims)(void *ctx, ms_cycle *c, const ms_node_info *ni,
                              ms_pod *const *potential, uint32_t npotential, uint32_t *victims,
                              uint32_t *nvictims, ms_status *st);
    /* Replaces pickOneNodeForPreemption: MS_SUCCESS with *chosen an index
     * into cands (non-violating candidates first, in search order); with a
     * single candidate it is called only when always_pick is set.
     * MS_UNSCHEDULABLE: preempt nowhere (st's reason is reported). */
    ms_code (*pick)(void *ctx, ms_cycle *c, const ms_preemption_candidate *cands, uint32_t n,
                    uint32_t *chosen, ms_status *st);
    bool always_pick;              /* call pick even with a single candidate */
} ms_preemption_hooks;

/* Sets (NULL: clears) the hooks of the profile's DefaultPreemption. false
 * when the profile does not run DefaultPreemption. The hooks must outlive
 * the framework or be cleared first. */
bool ms_default_preemption_set_hooks(const ms_framework *fw, const ms_preemption_hooks *hooks);

/* What the last PostFilter of a profile's DefaultPreemption did (for
 * reports, explain and tests). Candidates, and the victims of those
 * taken from kept outcomes, live in the plugin until its next PostFilter;
 * other victims in that cycle's arena. They point at the snapshot's pods:
 * valid until the arena is reset or the snapshot updated. NULL when the
 * profile does not run DefaultPreemption. */
typedef struct ms_preemption_result {
    bool attempted;                /* the pod was eligible and nodes were searched */
    const char *not_eligible;      /* why not, or NULL */
    uint32_t npotential;           /* nodes where preemption might help */
    uint32_t offset;               /* where the search started among them */
    uint32_t want;                 /* ms_preemption_num_candidates(npotential) */
    uint32_t nevaluated;           /* nodes dry-run before the search stopped */
    uint32_t ncounted;             /* of those, dry-run by counting requests */
    uint32_t nkept;                /* of those, answered by the outcome kept for the node */
    uint32_t ncandidates;
    ms_preemption_candidate *candidates;   /* non-violating first, in search order */
    int32_t chosen;                /* index into candidates, -1 when none */
    uint32_t ncleared;             /* lower-priority pods whose nomination was cleared */
} ms_preemption_result;

const ms_preemption_result *ms_default_preemption_last(const ms_framework *fw);

/* Forgets the dry-run outcomes the profile's DefaultPreemption keeps per
 * node between searches: the next search starts from scratch. For tests,
 * which compare searches with kept outcomes against searches without. */
void ms_default_preemption_forget(const ms_framework *fw);

/* upstream's MoreImportantPod: higher priority, then the earlier start time
 * (a pod without status.startTime reads as starting now, i.e. after any
 * pod with one). */
bool ms_more_important_pod(const ms_pod *a, const ms_pod *b);

/* calculateNumCandidates: max(num_nodes * pct / 100, abs), at most num_nodes. */
uint32_t ms_preemption_num_candidates(uint32_t num_nodes, int32_t min_pct, int32_t min_abs);

/* pickOneNodeForPreemption over cands (n >= 1), in order: fewest PDB
 * violations; lowest priority of the most important victim; lowest sum of
 * victim priorities (each shifted by 2^31 so that sums stay positive);
 * fewest victims; latest earliest-start-time among the victims of the
 * highest priority; then the first. Returns the index. */
uint32_t ms_pick_one_node_for_preemption(const ms_preemption_candidate *cands, uint32_t n);

#endif
