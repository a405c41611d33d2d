/* The set of PodDisruptionBudgets the scheduler keeps for preemption, and
 * upstream's count of the disruptions a preemption would cause. */
#ifndef MOONSCHED_PDB_SET_H
#define MOONSCHED_PDB_SET_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/pdb.h"
#include "moonsched/pod.h"

/* The PDBs the scheduler knows, keyed by namespace/name, indexed by
 * namespace. Owned by the scheduler thread, like the cache. */
typedef struct ms_pdb_set ms_pdb_set;

ms_pdb_set *ms_pdb_set_new(void);
void ms_pdb_set_free(ms_pdb_set *s);
/* Adds or replaces (same namespace/name) a PDB; takes a reference.
 * MS_ENOMEM leaves the set as it was. */
ms_rc ms_pdb_set_update(ms_pdb_set *s, ms_pdb *pdb);
/* MS_ENOENT when absent. */
ms_rc ms_pdb_set_delete(ms_pdb_set *s, ms_str namespace_, ms_str name);
uint32_t ms_pdb_set_len(const ms_pdb_set *s);
/* NULL when absent. Borrowed: valid until the PDB is replaced or deleted. */
const ms_pdb *ms_pdb_set_get(const ms_pdb_set *s, ms_str namespace_, ms_str name);
/* Calls fn for every PDB (in no particular order). */
void ms_pdb_set_each(const ms_pdb_set *s, void (*fn)(void *ctx, const ms_pdb *pdb), void *ctx);
/* The PDBs that select the pod (ms_pdb_selects): writes up to cap of them
 * into out and returns how many there are. */
uint32_t ms_pdb_set_matching(const ms_pdb_set *s, const ms_pod *pod, const ms_interner *in,
                             const ms_pdb **out, uint32_t cap);

/* upstream's filterPodsWithPDBViolation, one pod at a time. A budget starts
 * with every PDB at status.disruptionsAllowed (ms_pdb_budget_reset, O(1));
 * ms_pdb_budget_take charges the pod to every PDB that selects it and has
 * not already counted it (disruptedPods), and returns true when one of them
 * goes below zero: evicting the pod would violate that PDB. Pods are to be
 * taken in the order upstream groups them (most important first). */
void ms_pdb_budget_reset(ms_pdb_set *s);
bool ms_pdb_budget_take(ms_pdb_set *s, const ms_pod *pod, const ms_interner *in);

#endif
