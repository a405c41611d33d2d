/* Decoding helpers for pluginConfig args (the v1 *Args objects). Errors read
 * "<Plugin> args: <field path>: <what>", upstream's field.Error shape. */
#ifndef MOONSCHED_PLUGINS_PLUGIN_ARGS_H
#define MOONSCHED_PLUGINS_PLUGIN_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/error.h"

typedef struct cJSON cJSON;

/* `obj` must be a JSON object whose keys are in `allowed` (NULL-terminated);
 * apiVersion and kind are always allowed. Upstream decodes args strictly, so
 * an unknown (e.g. misspelt) field is an error. */
ms_rc ms_args_check_object(const cJSON *obj, const char *const *allowed, const char *plugin,
                           const char *path, ms_error *err);
/* An integral JSON number within [INT64_MIN/2, INT64_MAX/2]. */
ms_rc ms_args_int(const cJSON *j, const char *plugin, const char *path, int64_t *out,
                  ms_error *err);
/* A JSON array (or absent/null: *n = 0). */
ms_rc ms_args_list(const cJSON *j, const char *plugin, const char *path, int *n, ms_error *err);
ms_rc ms_args_string(const cJSON *j, const char *plugin, const char *path, const char **out,
                     ms_error *err);
/* "<plugin> args: path: Unsupported value: \"v\": supported values: ..."
 * (`supported` NULL-terminated), the value quoted as the JSON reader does. */
ms_rc ms_args_unsupported(const char *plugin, const char *path, const char *value,
                          const char *const *supported, ms_error *err);
/* "<plugin> args: path: Invalid value: \"v\": <why>". */
ms_rc ms_args_invalid(const char *plugin, const char *path, const char *value, const char *why,
                      ms_error *err);

#endif
