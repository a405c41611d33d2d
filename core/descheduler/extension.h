/* Plugins of a DeschedulerPolicy that the descheduler does not define
 * itself: Lua policies named "lua:NAME" (core/policy/desched_lua.h gives
 * that table). The descheduler reaches them only through this table, so
 * that it includes nothing of the layer that brings them. */
#ifndef MOONSCHED_DESCHEDULER_EXTENSION_H
#define MOONSCHED_DESCHEDULER_EXTENSION_H

#include <stdbool.h>

#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/pod.h"

typedef struct cJSON cJSON;
struct ms_desched_policy;
struct ms_desched_profile;

typedef struct ms_desched_extension {
    /* Whether a plugin name is one of the extension's. */
    bool (*owns)(const char *name);
    /* A pluginConfig entry of such a plugin: the name's form and the args
     * (`path` names them in messages). */
    ms_rc (*args_check)(const cJSON *args, const char *path, const char *name, ms_error *err);
    /* Enables the plugin at a point ("deschedule", "balance", "filter",
     * "preevictionfilter"), loading the profile's instance from its
     * pluginConfig entry `pc` on first use. */
    ms_rc (*enable)(struct ms_desched_policy *pol, struct ms_desched_profile *prof, const char *name,
                    const cJSON *pc, const char *point, ms_interner *in, ms_error *err);
    /* Why a profile's evictable hooks protect the pod, or NULL. */
    const char *(*evictable)(const struct ms_desched_profile *prof, const ms_pod *pod);
    /* Frees what enable loaded. */
    void (*free)(struct ms_desched_policy *pol);
} ms_desched_extension;

#endif
