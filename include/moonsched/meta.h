/* ObjectMeta fields the scheduler reads. */
#ifndef MOONSCHED_META_H
#define MOONSCHED_META_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/intern.h"
#include "moonsched/labels.h"

#pragma GCC visibility push(default)

typedef struct ms_owner_ref {
    ms_str api_version;
    ms_str kind;
    ms_str name;
    const char *uid;
    bool controller;
} ms_owner_ref;

typedef struct ms_object_meta {
    ms_str name;
    ms_str namespace_;        /* MS_STR_NONE for cluster-scoped objects */
    const char *uid;          /* "" when absent (files for simulate may omit it) */
    uint64_t uid_hash;        /* ms_hash_bytes of uid, or of "namespace/name" ("name" for
                                 cluster-scoped objects) when uid is empty */
    ms_labels labels;
    ms_annotations annotations;
    uint32_t nowners;
    ms_owner_ref *owners;
    double creation;          /* unix seconds; 0 when absent */
    double deletion;          /* deletionTimestamp, unix seconds; 0 when not being deleted */
    const char *resource_version;   /* "" when absent */
} ms_object_meta;

/* The controller owner reference, or NULL. */
const ms_owner_ref *ms_meta_controller(const ms_object_meta *m);

#pragma GCC visibility pop

#endif
