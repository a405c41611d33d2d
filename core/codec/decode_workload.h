/* The decoder of Services, ReplicationControllers, ReplicaSets and
 * StatefulSets (api/workload.h), apart from the objects so that the api
 * layer does not include the codec. */
#ifndef MOONSCHED_CODEC_DECODE_WORKLOAD_H
#define MOONSCHED_CODEC_DECODE_WORKLOAD_H

#include "api/workload.h"
#include "moonsched/decode.h"

/* Decodes metadata and spec.selector of an object of `kind` (the rest is
 * not read). Errors read like the other decoders': `Service default/web:
 * spec.selector.app: expected string, got number`. */
ms_rc ms_workload_decode(const ms_decoder *d, ms_workload_kind kind, const cJSON *obj, ms_workload **out,
                         ms_error *err);

#endif
