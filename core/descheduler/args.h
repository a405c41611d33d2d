/* What the descheduler's plugin args share: the `namespaces`
 * include/exclude lists, the `labelSelector`, string lists, and upstream's
 * way of reporting validation errors (utilerrors.NewAggregate: one error as
 * itself, several as "[a, b]"). Type errors come from the JSON reader with
 * the field's path. */
#ifndef MOONSCHED_DESCHEDULER_ARGS_H
#define MOONSCHED_DESCHEDULER_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "codec/json_reader.h"
#include "moonsched/arena.h"
#include "moonsched/intern.h"
#include "moonsched/pod.h"
#include "moonsched/selector.h"

/* Decoding one plugin's args: the reader (path at ...args), where the args
 * live, the interner, and the validation errors found so far. */
typedef struct ms_desched_args_ctx {
    ms_json_reader *r;
    ms_arena *a;
    ms_interner *in;
    ms_buf errs;         /* validation messages joined by ", " */
    uint32_t nerrs;
} ms_desched_args_ctx;

/* A validation error (kept; decoding goes on, as upstream collects them). */
void ms_desched_args_invalid(ms_desched_args_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The aggregate of the errors into err ("prefix" + message), MS_EINVAL;
 * MS_OK when there were none. Frees the list either way. */
ms_rc ms_desched_args_finish(ms_desched_args_ctx *c, const char *prefix);

typedef struct ms_desched_strs {
    uint32_t n;
    ms_str *v;
} ms_desched_strs;

/* obj[key] as a list of strings, interned. */
ms_rc ms_desched_args_strs(ms_desched_args_ctx *c, const cJSON *obj, const char *key,
                           ms_desched_strs *out);
bool ms_desched_strs_has(const ms_desched_strs *s, ms_str v);

/* `namespaces: {include, exclude}` and `labelSelector`, which most
 * strategies take, with upstream's checks. */
typedef struct ms_desched_pod_scope {
    ms_desched_strs include, exclude;
    bool has_selector;
    ms_label_selector selector;
} ms_desched_pod_scope;

ms_rc ms_desched_args_namespaces(ms_desched_args_ctx *c, const cJSON *obj, const char *key,
                                 ms_desched_pod_scope *out);
ms_rc ms_desched_args_selector(ms_desched_args_ctx *c, const cJSON *obj,
                               ms_desched_pod_scope *out);
/* Whether a pod is in the scope's namespaces and matches its selector. */
bool ms_desched_scope_matches(const ms_desched_pod_scope *s, const ms_pod *p,
                              const ms_interner *in);

/* An unsigned integer field (*uint in upstream's types). */
ms_rc ms_desched_args_uint(ms_desched_args_ctx *c, const cJSON *obj, const char *key,
                           bool *set, uint32_t *out);

#endif
