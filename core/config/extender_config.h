/* The `extenders` list of KubeSchedulerConfiguration: what each of
 * upstream's HTTPExtenders is configured with, read and validated as
 * upstream does. scheduler/extender.h calls them. */
#ifndef MOONSCHED_CONFIG_EXTENDER_CONFIG_H
#define MOONSCHED_CONFIG_EXTENDER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "moonsched/error.h"

typedef struct cJSON cJSON;

/* upstream DefaultExtenderTimeout, used when httpTimeout is absent or 0 */
#define MS_EXTENDER_DEFAULT_TIMEOUT 5.0

typedef struct ms_extender_managed_resource {
    char *name;
    bool ignored_by_scheduler;     /* NodeResourcesFit does not check it */
} ms_extender_managed_resource;

/* tlsConfig. The *Data fields are base64 in the file (Go []byte) and
 * decoded here; data wins over the matching file, as in client-go. */
typedef struct ms_extender_tls {
    bool insecure;
    char *server_name;             /* NULL when not given (as every char* here) */
    char *cert_file, *key_file, *ca_file;
    unsigned char *cert_data, *key_data, *ca_data;
    size_t cert_data_len, key_data_len, ca_data_len;
} ms_extender_tls;

typedef struct ms_extender_config {
    char *url_prefix;
    /* "" when the extender does not offer the call (never NULL) */
    char *filter_verb, *preempt_verb, *prioritize_verb, *bind_verb;
    int64_t weight;
    bool enable_https;             /* without a CA: no certificate check (upstream) */
    bool has_tls;
    ms_extender_tls tls;
    double http_timeout;           /* seconds as written; 0: MS_EXTENDER_DEFAULT_TIMEOUT */
    bool node_cache_capable;       /* send node names, not Node objects */
    uint32_t nmanaged;
    ms_extender_managed_resource *managed;
    bool ignorable;                /* its errors are skipped instead of failing the pod */
} ms_extender_config;

/* Reads the `extenders` list of a KubeSchedulerConfiguration (NULL or an
 * empty list: *n = 0) and validates it (ms_extender_configs_validate).
 * Field names are matched exactly, as the configuration decoder does;
 * unknown fields go to `warn` (may be NULL) as "<source>: unknown field
 * \"extenders[0].fooVerb\"". Errors read "extenders[0].httpTimeout: must be
 * a duration such as \"15s\" or \"1m30s\"". *out is NULL when *n is 0. */
ms_rc ms_extender_configs_parse(const cJSON *list, ms_extender_config **out, uint32_t *n,
                                void (*warn)(void *ctx, const char *msg), void *warn_ctx,
                                const char *source, ms_error *err);
/* upstream validateExtenders: a prioritizer needs a positive weight
 * ("extenders[0].weight: Invalid value: 0: must have a positive weight
 * applied to it"), at most one extender binds, managed resources are valid
 * extended resource names and appear once over all extenders; plus the
 * checks of upstream's HTTPExtender constructor (urlPrefix required, a
 * negative httpTimeout refused). */
ms_rc ms_extender_configs_validate(const ms_extender_config *c, uint32_t n, ms_error *err);
void ms_extender_configs_free(ms_extender_config *c, uint32_t n);
/* The effective timeout of an extender, in seconds. */
double ms_extender_timeout(const ms_extender_config *c);

#endif
