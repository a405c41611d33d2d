/* API objects from JSON (as the API server sends them) and YAML (as
 * `kubectl get -o yaml` prints them), singly, as Lists, or as multi-document
 * streams. YAML is converted to the same cJSON tree so that one decoder
 * serves both. Unknown fields are ignored; a malformed object is rejected
 * with an error naming the object and the field. */
#ifndef MOONSCHED_DECODE_H
#define MOONSCHED_DECODE_H

#include <stddef.h>

#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/node.h"
#include "moonsched/pod.h"
#include "moonsched/resources.h"

typedef struct cJSON cJSON;

typedef struct ms_decoder {
    ms_interner *in;
    ms_resource_names rn;
    ms_str default_scheduler;      /* "default-scheduler" */
} ms_decoder;

void ms_decoder_init(ms_decoder *d, ms_interner *in);

/* Errors read like: `Pod default/web-1: spec.containers[0].resources.requests.cpu:
 * quantities must match the regular expression ...`. */
ms_rc ms_pod_decode(const ms_decoder *d, const cJSON *obj, ms_pod **out, ms_error *err);
ms_rc ms_node_decode(const ms_decoder *d, const cJSON *obj, ms_node **out, ms_error *err);

/* Parse text into cJSON documents. YAML plain scalars that look like numbers
 * keep their exact text (so "cpu: 0.1" and "memory: 137438953472" stay exact);
 * booleans and null become JSON booleans and null. The caller frees each
 * document with cJSON_Delete and the array with free(). */
ms_rc ms_json_parse(const char *buf, size_t len, cJSON **out, ms_error *err);
ms_rc ms_yaml_parse(const char *buf, size_t len, cJSON ***docs, size_t *ndocs, ms_error *err);

/* Calls cb once per object, flattening `kind: List` / `*List` items and
 * skipping empty documents. `kind` is the object's kind ("Pod", "Node", ...).
 * JSON or YAML is detected from the content. An error from cb stops the load
 * and is returned with the source name prefixed. */
typedef ms_rc (*ms_object_cb)(void *ctx, const char *kind, const cJSON *obj, ms_error *err);
ms_rc ms_load_objects_buffer(const char *source, const char *buf, size_t len,
                             ms_object_cb cb, void *ctx, ms_error *err);
ms_rc ms_load_objects_file(const char *path, ms_object_cb cb, void *ctx, ms_error *err);

/* Quantity or number field helpers for other decoders (config, extenders). */
ms_rc ms_json_quantity(const cJSON *j, int64_t *value, int64_t *milli, const char *field,
                       ms_error *err);
/* RFC 3339 timestamp ("2024-01-02T03:04:05Z", fractional seconds and offsets
 * accepted) to unix seconds. */
ms_rc ms_parse_rfc3339(const char *s, double *out);

#endif
