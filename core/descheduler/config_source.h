/* The DeschedulerPolicy file of a long-running descheduler and the Lua
 * files it names (or, with another `load`, a scheduling policy file given
 * with --policy for the predictions), reloaded as scheduling policies are (docs/policies.md,
 * "Hot reload"): before each pass the files are read again; a version
 * that loads replaces the running one, a broken one is refused once and
 * the last version that loaded keeps running (served from memory through
 * ms_desched_policy_source_reader) until the files are fixed. */
#ifndef MOONSCHED_DESCHEDULER_CONFIG_SOURCE_H
#define MOONSCHED_DESCHEDULER_CONFIG_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "descheduler/config_file.h"

/* The texts of a version: each file read while loading it. */
typedef struct ms_desched_files {
    uint32_t n, cap;
    struct ms_desched_file {
        char *path;
        char *text;
        size_t len;
    } *v;
} ms_desched_files;

/* Loads the version of `path` whose files rd reads (each one recorded),
 * only to learn whether it loads. */
typedef ms_rc (*ms_desched_source_load)(const char *path, const ms_desched_reader *rd,
                                        const ms_desched_extension *ext, ms_error *err);

typedef struct ms_desched_policy_source {
    const char *path;              /* borrowed */
    ms_desched_source_load load;   /* a DeschedulerPolicy's by default */
    const ms_desched_extension *ext;   /* passed to load */
    bool has_good;
    ms_desched_files good;         /* the running version */
    ms_desched_files refused;      /* the last refused one, reported once */
    ms_desched_reader reader;      /* serves `good` */
} ms_desched_policy_source;

typedef enum ms_desched_reload {
    MS_DESCHED_RELOAD_SAME = 0,    /* nothing changed (or still the refused version) */
    MS_DESCHED_RELOAD_OK,          /* a new version runs from now on (and the first load) */
    MS_DESCHED_RELOAD_REFUSED,     /* a new version does not load: err says why */
} ms_desched_reload;

void ms_desched_policy_source_init(ms_desched_policy_source *s, const char *path,
                                   const ms_desched_extension *ext);
void ms_desched_policy_source_free(ms_desched_policy_source *s);
/* Reads the files again and loads a version that differs from the
 * running and the last refused ones. Before any version loaded, a refusal
 * is also returned as MS_DESCHED_RELOAD_REFUSED (the caller stops). */
ms_desched_reload ms_desched_policy_source_check(ms_desched_policy_source *s, ms_error *err);
/* The reader of the running version; NULL before one loaded. */
const ms_desched_reader *ms_desched_policy_source_reader(const ms_desched_policy_source *s);

#endif
