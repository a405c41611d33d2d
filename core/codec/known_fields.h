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
 * nothing), with "unknown field \"spec.containerz\" (did you mean
 * \"containers\"?)". metadata, spec and the containers, init and ephemeral
 * containers of a Pod spec, their resources, and a Node's spec and
 * taints are checked; status is not. */
void ms_unknown_fields(const char *kind, const cJSON *obj, void (*fn)(void *ctx, const char *msg), void *ctx);

#endif
