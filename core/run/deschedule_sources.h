/* What `moonsched deschedule --descheduling-interval` reloads before each
 * pass: the DeschedulerPolicy with its Lua files, and each --policy file
 * of the predictions, each source keeping the last version that loaded
 * (descheduler/config_source.h) so that a broken edit is refused once and
 * the running version stays. One reader serves them all to the pass. */
#ifndef MOONSCHED_RUN_DESCHEDULE_SOURCES_H
#define MOONSCHED_RUN_DESCHEDULE_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "descheduler/config_source.h"

typedef struct ms_desched_sources {
    ms_desched_policy_source policy;
    uint32_t n;
    struct ms_desched_policy_file {
        ms_desched_policy_source src;
        char *path;                /* the --policy argument without ",onLoadError=..." */
        char *plugin;              /* "lua:<file name without .lua>", as metrics name it */
    } *files;
} ms_desched_sources;

/* Reads and loads every source: the first that does not load is the
 * error (a descheduler starts only with versions that load). */
ms_rc ms_desched_sources_start(ms_desched_sources *s, const char *policy_file, const char *const *files, uint32_t n,
                               ms_error *err);
void ms_desched_sources_free(ms_desched_sources *s);

/* A source whose files changed: plugin "DeschedulerPolicy" or a --policy
 * file's; `msg` says why a version was refused (else ""). */
typedef void (*ms_desched_sources_report)(void *ctx, const char *plugin, const char *file, bool ok, const char *msg);
/* Reads every source again; reports each new version, loaded or refused. */
void ms_desched_sources_check(ms_desched_sources *s, ms_desched_sources_report report, void *ctx);

/* ms_deschedule_hooks.read_file: a file of a running version from memory,
 * any other from the disk. ctx: the sources. */
ms_rc ms_desched_sources_read(void *ctx, const char *path, char **text, size_t *len, ms_error *err);

#endif
