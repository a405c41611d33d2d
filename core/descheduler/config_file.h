/* A DeschedulerPolicy (descheduler/v1alpha2), decoded and validated with
 * upstream's messages: profiles, each with its plugins per extension point
 * (Deschedule, Balance, Filter, PreEvictionFilter) and their args, and the
 * eviction limits and node selector of the whole policy. Everything lives in
 * the policy's arena. */
#ifndef MOONSCHED_DESCHEDULER_CONFIG_FILE_H
#define MOONSCHED_DESCHEDULER_CONFIG_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "descheduler/default_evictor.h"
#include "descheduler/extension.h"
#include "moonsched/arena.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/selector.h"

typedef struct cJSON cJSON;
struct ms_desched_plugin_def;
struct ms_policy;
struct ms_lua_runtime;

#define MS_DESCHED_MAX_PLUGINS 16

/* One enabled strategy of a profile: its definition and its decoded args
 * (the pluginConfig entry of that name, or the defaults). */
typedef struct ms_desched_plugin {
    const struct ms_desched_plugin_def *def;
    const void *args;
    const char *name;              /* NULL: def's; "lua:NAME" for a policy */
} ms_desched_plugin;

typedef struct ms_desched_profile {
    const char *name;
    uint32_t ndeschedule, nbalance;
    ms_desched_plugin deschedule[MS_DESCHED_MAX_PLUGINS];
    ms_desched_plugin balance[MS_DESCHED_MAX_PLUGINS];
    /* DefaultEvictor is always the Filter and PreEvictionFilter (upstream
     * adds it when a profile leaves it out). */
    ms_default_evictor_args evictor;
    /* Lua policies ("lua:NAME") of the profile, one instance per name;
     * those enabled at filter or preevictionfilter add their
     * evictable(pod) to DefaultEvictor's checks. */
    uint32_t npolicies, nevictable;
    struct {
        const char *name;
        struct ms_policy *policy;
    } policies[MS_DESCHED_MAX_PLUGINS];
    struct ms_policy *evictable[MS_DESCHED_MAX_PLUGINS];
} ms_desched_profile;

/* Where the policy file and its Lua files are read from while loading:
 * the disk when NULL, else the caller (`moonsched deschedule` serves the
 * last version that loaded while an edit is broken). `text` is malloc'd. */
typedef struct ms_desched_reader {
    ms_rc (*read)(void *ctx, const char *path, char **text, size_t *len, ms_error *err);
    void *ctx;
} ms_desched_reader;

/* A limit that is absent is unlimited. */
typedef struct ms_desched_limit {
    bool set;
    uint32_t value;
} ms_desched_limit;

typedef struct ms_desched_policy {
    ms_arena arena;
    uint32_t nprofiles;
    ms_desched_profile *profiles;
    bool has_node_selector;
    ms_label_selector node_selector;     /* nodeSelector: labels.Parse text */
    ms_desched_limit max_per_node, max_per_namespace, max_total;
    bool has_grace_period;
    int64_t grace_period_seconds;
    /* The runtime of the profiles' Lua policies (NULL when none) and
     * every policy loaded, for freeing. */
    struct ms_lua_runtime *lua;
    struct ms_policy **loaded;
    uint32_t nloaded, loadcap;
    const ms_desched_reader *reader;     /* while loading; NULL: the disk */
    /* Plugins from outside the descheduler (NULL: none): their names are
     * unknown plugins then. */
    const ms_desched_extension *ext;
} ms_desched_policy;

/* Decodes a policy from its YAML or JSON text. `source` names the file in
 * messages. Errors read as upstream's: "in profile p: only one of
 * Include/Exclude namespaces can be set", "profile \"p\" configures
 * deschedule extension point of non-existing plugins: ...". */
ms_rc ms_desched_policy_parse(ms_desched_policy *p, const char *source, const char *text,
                              size_t len, const ms_desched_extension *ext, ms_interner *in,
                              ms_error *err);
/* The same from a file, every file read through `rd` (NULL: the disk). */
ms_rc ms_desched_policy_load_with(ms_desched_policy *p, const char *path, const ms_desched_reader *rd,
                                  const ms_desched_extension *ext, ms_interner *in, ms_error *err);
void ms_desched_policy_free(ms_desched_policy *p);

#endif
