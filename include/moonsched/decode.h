/* API objects from JSON (as the API server sends them) and YAML (as
 * `kubectl get -o yaml` prints them), singly, as Lists, or as multi-document
 * streams. YAML is converted to the same cJSON tree so that one decoder
 * serves both. Unknown fields are ignored; a malformed object is rejected
 * with an error naming the object and the field. */
#ifndef MOONSCHED_DECODE_H
#define MOONSCHED_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/namespaces.h"
#include "moonsched/node.h"
#include "moonsched/pdb.h"
#include "moonsched/pod.h"
#include "moonsched/resources.h"

#pragma GCC visibility push(default)

typedef struct cJSON cJSON;

typedef struct ms_decoder {
    ms_interner *in;
    ms_resource_names rn;
    ms_str default_scheduler;      /* "default-scheduler" */
    /* Keep a compact copy of each Pod, Node, Namespace and
     * PodDisruptionBudget object's JSON (ms_pod.raw, ms_node.raw, ...) for
     * callers that must pass the object on as it was (scheduler
     * extenders, a running scheduler's snapshot). Off by default: it costs
     * the object's size. */
    bool keep_raw;
} ms_decoder;

/* keep_raw starts false. */
void ms_decoder_init(ms_decoder *d, ms_interner *in);

/* Decodes one object into a new reference-counted ms_pod / ms_node (refs 1,
 * everything in its arena; *out NULL on error). Safe to call from several
 * threads with one decoder. Errors read like: `Pod default/web-1:
 * spec.containers[0].resources.requests.cpu: quantities must match the
 * regular expression ...` or `Node n1: spec.taints[0].effect: Unsupported
 * value: "Foo"`; wrong JSON types read `<path>: expected string, got number`. */
ms_rc ms_pod_decode(const ms_decoder *d, const cJSON *obj, ms_pod **out, ms_error *err);
ms_rc ms_node_decode(const ms_decoder *d, const cJSON *obj, ms_node **out, ms_error *err);

/* A Namespace object (metadata only; core/codec/decode_namespace.c). Errors read
 * like the other decoders': `Namespace team-a: metadata.labels: ...`. */
ms_rc ms_namespace_decode(const ms_decoder *d, const cJSON *obj, ms_namespace **out,
                          ms_error *err);

/* Decodes a PodDisruptionBudget (kind "PodDisruptionBudget", apiVersion
 * policy/v1 or policy/v1beta1) with the decoder's conventions: errors read
 * `PodDisruptionBudget ns/name: spec.minAvailable: ...`. */
ms_rc ms_pdb_decode(const ms_decoder *d, const cJSON *obj, ms_pdb **out, ms_error *err);

/* Parse text into cJSON documents. The caller frees each document with
 * cJSON_Delete and the array with free(). Errors give the position:
 * "line 3, column 7: ...".
 *
 * ms_json_parse reads exactly one value (only whitespace may follow);
 * ms_json_parse_stream reads a sequence of concatenated values (as a watch
 * prints them).
 *
 * ms_yaml_parse reads a stream of documents; an empty document is a cJSON
 * null. Plain scalars follow the YAML 1.2 core schema: ~, null and the
 * empty scalar are null; true/false (also True, TRUE, ...) are booleans (not
 * yes/no/on/off); decimal, 0o octal, 0x hex, float, .inf and .nan texts are
 * numbers; everything else, and every quoted or block scalar, is a string.
 * A YAML number is a cJSON number (valuedouble set as usual) whose
 * valuestring ALSO holds the exact source text, so that "cpu: 0.1" and
 * "memory: 137438953472" stay exact: read numbers through
 * ms_json_integer (the decoders read quantities the same way), or check
 * valuestring first. Anchors
 * and aliases are supported (an alias is a deep copy, within a budget of
 * nodes and nesting); merge keys ("<<") are ordinary keys; complex keys and
 * duplicate keys are errors. */
ms_rc ms_json_parse(const char *buf, size_t len, cJSON **out, ms_error *err);
ms_rc ms_json_parse_stream(const char *buf, size_t len, cJSON ***docs, size_t *ndocs, ms_error *err);
ms_rc ms_yaml_parse(const char *buf, size_t len, cJSON ***docs, size_t *ndocs, ms_error *err);

/* Calls cb once per object, flattening `kind: List` / `*List` items and
 * skipping empty documents. `kind` is the object's kind ("Pod", "Node", ...);
 * items of a typed list without their own kind ("PodList" items, as the API
 * server sends them) get the list's ("Pod"). JSON (one value or a stream of
 * values) or YAML is detected from the content: text starting with '{' or
 * '[' is JSON, or YAML flow style when it is not valid JSON. An error stops
 * the load and is returned with the source name prefixed ("cluster.yaml:
 * document 2: Pod default/web: ..."). ms_load_objects_file reads stdin for
 * the path "-". */
typedef ms_rc (*ms_object_cb)(void *ctx, const char *kind, const cJSON *obj, ms_error *err);
ms_rc ms_load_objects_buffer(const char *source, const char *buf, size_t len,
                             ms_object_cb cb, void *ctx, ms_error *err);
ms_rc ms_load_objects_file(const char *path, ms_object_cb cb, void *ctx, ms_error *err);
/* The whole of a file ("-": stdin) into a NUL-terminated heap buffer the
 * caller frees. max > 0 refuses longer input (MS_EINVAL); errors name the
 * file. */
ms_rc ms_read_file(const char *path, size_t max, char **out, size_t *len, ms_error *err);

/* Integer value of a JSON number in [min, max]; false when j is not a
 * number, not integral or out of range. A YAML number's text is read
 * exactly (int64 beyond 2^53 included). */
bool ms_json_integer(const cJSON *j, int64_t min, int64_t max, int64_t *out);
#pragma GCC visibility pop

#endif
