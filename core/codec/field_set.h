/* The field names of a type and of the types below it, and the one walk of
 * a cJSON tree against them: what strict decoding (the configuration
 * files) and the unknown-field warnings of cluster files both need. Paths
 * are upstream's ("profiles[0].pluginConfig[1].args.foo",
 * "spec.containers[0].resources.limitz"). */
#ifndef MOONSCHED_CODEC_FIELD_SET_H
#define MOONSCHED_CODEC_FIELD_SET_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* One field; a set ends with {NULL, NULL}. */
typedef struct ms_field {
    const char *name;
    /* The fields of the value when it is an object, or of each object of
     * it when it is an array. NULL: any value (a map, a scalar, a type
     * whose fields are not listed). */
    const struct ms_field *fields;
} ms_field;

typedef struct ms_field_walk {
    /* A key the set does not have: its path, and the set's names for a
     * "did you mean" (n of them, NULLs not among them). */
    void (*unknown)(void *ctx, const char *path, const char *key, const char *const *names, size_t n);
    /* A key an object already had (the later ones, each once), at every
     * depth, values of no listed type included. NULL: not looked for. */
    void (*duplicate)(void *ctx, const char *path);
    void *ctx;
} ms_field_walk;

/* Walks obj (nothing when it is not an object) against fields, prefix
 * leading every path ("" at the root, "spec" for an object found there).
 * fields NULL: any keys, walked for duplicates only. */
void ms_field_walk_object(const ms_field_walk *w, const cJSON *obj, const ms_field *fields, const char *prefix);

#endif
