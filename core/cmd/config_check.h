/* `moonsched config check`: a KubeSchedulerConfiguration checked the way
 * the scheduler would use it, and its effective form
 * (scheduler/config_describe.h) printed. */
#ifndef MOONSCHED_CMD_CONFIG_CHECK_H
#define MOONSCHED_CMD_CONFIG_CHECK_H

#include "moonsched/error.h"

typedef struct cJSON cJSON;

/* Loads `path` ("-": stdin), validates it (upstream's validation, then the
 * plugins and extenders are built as a scheduler would build them) and
 * returns the effective configuration. Unknown fields go to `warn`. Errors
 * are MS_EINVAL or MS_EIO with the file name ("sched.yaml: extenders[0]
 * .weight: Invalid value: 0: must have a positive weight applied to it"). */
ms_rc ms_config_check(const char *path, void (*warn)(void *ctx, const char *msg), void *warn_ctx,
                      cJSON **effective, ms_error *err);

#endif
