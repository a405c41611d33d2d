/* Pod and Node fields that are not fields of the Kubernetes types at all
 * (a misspelt `containerz` or `nodeSelectr`): the decoder reads only what
 * scheduling needs and ignores the rest, so without this a typo in a
 * cluster file is silently an absent field. Only names the upstream types
 * do not have are reported: `kubectl get -o yaml` output (status,
 * managedFields, every field the scheduler does not read) is quiet. */
#ifndef MOONSCHED_CODEC_KNOWN_FIELDS_H
#define MOONSCHED_CODEC_KNOWN_FIELDS_H

#include <cjson/cJSON.h>

/* Calls fn once per unknown field of a Pod or Node object (other kinds:
 * nothing), in document order, with "unknown field
 * \"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.
 * nodeSelectorTerms[0].matchExpresions\" (did you mean
 * \"matchExpressions\"?)". Every object the decoder reads is checked, at
 * any depth: metadata, spec (containers and their resources, volumes,
 * affinity and its terms, tolerations, topology spread constraints,
 * resource claims, scheduling gates) and status (conditions, container
 * statuses, claim statuses; a Node's conditions and images). */
void ms_unknown_fields(const char *kind, const cJSON *obj, void (*fn)(void *ctx, const char *msg), void *ctx);

#endif
