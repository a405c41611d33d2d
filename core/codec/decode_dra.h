/* The resource.k8s.io decoder, apart from the objects (api/dra.h) so that the
 * api layer does not include the codec. */
#ifndef MOONSCHED_CODEC_DECODE_DRA_H
#define MOONSCHED_CODEC_DECODE_DRA_H

#include "api/dra.h"
#include "moonsched/decode.h"

/* Decodes an object of `kind` (core/codec/decode_dra.c), checked as the
 * API server validates it; errors name the object and the field path:
 * `ResourceClaim ml/gpus: spec.devices.requests[0].exactly.deviceClassName:
 * Required value`. */
ms_rc ms_dra_decode(const ms_decoder *d, ms_dra_kind kind, const cJSON *obj, ms_dra_object **out,
                    ms_error *err);

#endif
