/* The storage decoder, apart from the objects (api/storage.h) so that the
 * api layer does not include the codec. */
#ifndef MOONSCHED_CODEC_DECODE_STORAGE_H
#define MOONSCHED_CODEC_DECODE_STORAGE_H

#include "api/storage.h"
#include "moonsched/decode.h"

/* Decodes an object of `kind` (core/codec/decode_storage.c). Errors read
 * like the other decoders': `PersistentVolume pv1: spec.capacity.storage:
 * quantities must match ...`, `StorageClass fast: volumeBindingMode:
 * Unsupported value: "Later"`. */
ms_rc ms_storage_decode(const ms_decoder *d, ms_storage_kind kind, const cJSON *obj,
                        ms_storage_object **out, ms_error *err);

#endif
