/* The `extenders` list of KubeSchedulerConfiguration: reading it (field
 * names and types of the v1 API, which v1beta1..v1beta3 share) and
 * upstream's validation of it. The calls themselves are in extender.c. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"
#include "codec/json_reader.h"
#include "moonsched/config.h"
#include "moonsched/decode.h"
#include "api/validation.h"
#include "config/extender_config.h"
#include "codec/base64.h"

static const char *const extender_fields[] = {
    "urlPrefix",   "filterVerb",       "preemptVerb",      "prioritizeVerb",
    "weight",      "bindVerb",         "enableHTTPS",      "tlsConfig",
    "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable",
    NULL,
};
static const char *const tls_fields[] = {
    "insecure", "serverName", "certFile", "keyFile", "caFile", "certData", "keyData", "caData", NULL,
};
static const char *const managed_fields[] = {"name", "ignoredByScheduler", NULL};

static void check_fields(ms_json_reader *r, const cJSON *obj, const char *const *known) {
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && !ms_json_name_in(c->string, known))
            ms_json_warn(r, "unknown field \"%s.%.200s\"", r->path, c->string);
}

static ms_rc get_string(ms_json_reader *r, const cJSON *obj, const char *key, char **out) {
    const char *s = NULL;
    ms_rc rc = ms_json_string(r, key, ms_json_get(obj, key), &s);
    if (rc != MS_OK || !s) return rc;
    free(*out);
    return (*out = strdup(s)) ? MS_OK : ms_json_nomem(r);
}

static ms_rc get_bool(ms_json_reader *r, const cJSON *obj, const char *key, bool *out) {
    return ms_json_bool(r, key, ms_json_get(obj, key), out);
}

static ms_rc get_int64(ms_json_reader *r, const cJSON *obj, const char *key, int64_t *out) {
    return ms_json_int(r, key, ms_json_get(obj, key), INT64_MIN, INT64_MAX, out);
}

/* []byte fields: base64 text (Go's encoding of byte slices in JSON). */
static ms_rc get_bytes(ms_json_reader *r, const cJSON *obj, const char *key, unsigned char **out,
                       size_t *len) {
    const cJSON *j = ms_json_get(obj, key);
    if (!j) return MS_OK;
    if (!cJSON_IsString(j)) return ms_json_fail(r, key, "must be a base64 string");
    char *data = NULL;
    size_t n = 0, bad = 0;
    ms_rc rc = ms_base64_decode(j->valuestring, strlen(j->valuestring), &data, &n, &bad);
    if (rc == MS_ENOMEM) return ms_json_nomem(r);
    if (rc != MS_OK) return ms_json_fail(r, key, "illegal base64 data at input byte %zu", bad);
    free(*out);
    *out = (unsigned char *)data;
    *len = n;
    return MS_OK;
}

static ms_rc parse_tls(ms_json_reader *r, const cJSON *obj, ms_extender_tls *t) {
    size_t old = ms_json_push(r, "tlsConfig");
    ms_rc rc = ms_json_expect(r, NULL, obj, MS_JSON_OBJECT);
    if (rc != MS_OK) return rc;
    check_fields(r, obj, tls_fields);
    if ((rc = get_bool(r, obj, "insecure", &t->insecure)) != MS_OK ||
        (rc = get_string(r, obj, "serverName", &t->server_name)) != MS_OK ||
        (rc = get_string(r, obj, "certFile", &t->cert_file)) != MS_OK ||
        (rc = get_string(r, obj, "keyFile", &t->key_file)) != MS_OK ||
        (rc = get_string(r, obj, "caFile", &t->ca_file)) != MS_OK ||
        (rc = get_bytes(r, obj, "certData", &t->cert_data, &t->cert_data_len)) != MS_OK ||
        (rc = get_bytes(r, obj, "keyData", &t->key_data, &t->key_data_len)) != MS_OK ||
        (rc = get_bytes(r, obj, "caData", &t->ca_data, &t->ca_data_len)) != MS_OK)
        return rc;
    ms_json_pop(r, old);
    return MS_OK;
}

static ms_rc parse_managed(ms_json_reader *r, const cJSON *list, ms_extender_config *c) {
    ms_rc rc = ms_json_expect(r, "managedResources", list, MS_JSON_ARRAY);
    int count = cJSON_GetArraySize(list);
    if (rc != MS_OK || count == 0) return rc;
    if (!(c->managed = calloc((size_t)count, sizeof *c->managed))) return ms_json_nomem(r);
    size_t old = ms_json_push(r, "managedResources");
    for (const cJSON *item = list->child; item; item = item->next) {
        size_t at = ms_json_push_index(r, c->nmanaged);
        ms_extender_managed_resource *m = &c->managed[c->nmanaged++];
        if ((rc = ms_json_expect(r, NULL, item, MS_JSON_OBJECT)) != MS_OK) return rc;
        check_fields(r, item, managed_fields);
        if ((rc = get_string(r, item, "name", &m->name)) != MS_OK ||
            (rc = get_bool(r, item, "ignoredByScheduler", &m->ignored_by_scheduler)) != MS_OK)
            return rc;
        if (!m->name && !(m->name = strdup(""))) return ms_json_nomem(r);
        ms_json_pop(r, at);
    }
    ms_json_pop(r, old);
    return MS_OK;
}

static ms_rc parse_one(ms_json_reader *r, const cJSON *obj, ms_extender_config *c) {
    ms_rc rc = ms_json_expect(r, NULL, obj, MS_JSON_OBJECT);
    if (rc != MS_OK) return rc;
    check_fields(r, obj, extender_fields);
    if ((rc = get_string(r, obj, "urlPrefix", &c->url_prefix)) != MS_OK ||
        (rc = get_string(r, obj, "filterVerb", &c->filter_verb)) != MS_OK ||
        (rc = get_string(r, obj, "preemptVerb", &c->preempt_verb)) != MS_OK ||
        (rc = get_string(r, obj, "prioritizeVerb", &c->prioritize_verb)) != MS_OK ||
        (rc = get_string(r, obj, "bindVerb", &c->bind_verb)) != MS_OK ||
        (rc = get_int64(r, obj, "weight", &c->weight)) != MS_OK ||
        (rc = get_bool(r, obj, "enableHTTPS", &c->enable_https)) != MS_OK ||
        (rc = get_bool(r, obj, "nodeCacheCapable", &c->node_cache_capable)) != MS_OK ||
        (rc = get_bool(r, obj, "ignorable", &c->ignorable)) != MS_OK)
        return rc;
    char **verbs[] = {&c->url_prefix, &c->filter_verb, &c->preempt_verb, &c->prioritize_verb,
                      &c->bind_verb};
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!*verbs[i] && !(*verbs[i] = strdup(""))) return ms_json_nomem(r);
    const cJSON *j = ms_json_get(obj, "httpTimeout");
    if (j && !cJSON_IsString(j)) return ms_json_fail(r, "httpTimeout", "must be a duration such as \"15s\" or \"1m30s\"");
    if (j && !ms_parse_go_duration(j->valuestring, &c->http_timeout))
        return ms_json_invalid(r, "httpTimeout", j->valuestring, "must be a duration such as \"15s\" or \"1m30s\"");
    if ((j = ms_json_get(obj, "tlsConfig"))) {
        c->has_tls = true;
        if ((rc = parse_tls(r, j, &c->tls)) != MS_OK) return rc;
    }
    if ((j = ms_json_get(obj, "managedResources")) && (rc = parse_managed(r, j, c)) != MS_OK) return rc;
    if (c->enable_https && strncmp(c->url_prefix, "http://", 7) == 0)
        ms_json_warn(r,
                     "%s: enableHTTPS is set but urlPrefix \"%.200s\" is plain HTTP: the URL's scheme "
                     "decides, as upstream",
                     r->path, c->url_prefix);
    return MS_OK;
}

ms_rc ms_extender_configs_parse(const cJSON *list, ms_extender_config **out, uint32_t *n,
                                void (*warn)(void *ctx, const char *msg), void *warn_ctx,
                                const char *source, ms_error *err) {
    *out = NULL;
    *n = 0;
    if (!list || cJSON_IsNull(list)) return MS_OK;
    ms_json_reader r;
    ms_json_reader_init(&r, &ms_json_config_wording, err);
    r.warn = warn;
    r.warn_ctx = warn_ctx;
    r.source = source;
    ms_json_push(&r, "extenders");
    ms_rc rc = ms_json_expect(&r, NULL, list, MS_JSON_ARRAY);
    int count = cJSON_GetArraySize(list);
    if (rc != MS_OK || count == 0) return rc;
    ms_extender_config *c = calloc((size_t)count, sizeof *c);
    if (!c) return ms_json_nomem(&r);
    uint32_t k = 0;
    for (const cJSON *item = list->child; item && rc == MS_OK; item = item->next, k++) {
        size_t old = ms_json_push_index(&r, k);
        rc = parse_one(&r, item, &c[k]);
        ms_json_pop(&r, old);
    }
    if (rc == MS_OK) rc = ms_extender_configs_validate(c, (uint32_t)count, err);
    if (rc != MS_OK) {
        ms_extender_configs_free(c, (uint32_t)count);
        return rc;
    }
    *out = c;
    *n = (uint32_t)count;
    return MS_OK;
}

/* ---- validation ---- */

/* upstream validateExtendedResourceName: a qualified name that is not a
 * native resource (no '/', or kubernetes.io/) nor "requests."-prefixed,
 * and stays qualified once "requests." is prepended. */
static bool extended_resource_name(const char *s, char *why, size_t n) {
    const char *p = ms_qualified_name_problem(s, strlen(s));
    if (p) {
        snprintf(why, n, "%s", p);
        return false;
    }
    char quota[400];
    snprintf(quota, sizeof quota, "requests.%s", s);
    if (!strchr(s, '/') || strstr(s, "kubernetes.io/") || strncmp(s, "requests.", 9) == 0 ||
        ms_qualified_name_problem(quota, strlen(quota))) {
        snprintf(why, n, "%s is an invalid extended resource name", s);
        return false;
    }
    return true;
}

ms_rc ms_extender_configs_validate(const ms_extender_config *c, uint32_t n, ms_error *err) {
    uint32_t binders = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ms_extender_config *x = &c[i];
        if (!x->url_prefix || !*x->url_prefix)
            return ms_error_set(err, MS_EINVAL, "extenders[%u].urlPrefix: Required value", i);
        if (x->prioritize_verb && *x->prioritize_verb && x->weight <= 0)
            return ms_error_set(err, MS_EINVAL,
                                "extenders[%u].weight: Invalid value: %lld: must have a positive "
                                "weight applied to it",
                                i, (long long)x->weight);
        if (x->http_timeout < 0)
            return ms_error_set(err, MS_EINVAL,
                                "extenders[%u].httpTimeout: Invalid value: %gs: must not be negative", i,
                                x->http_timeout);
        if (x->bind_verb && *x->bind_verb) binders++;
        for (uint32_t j = 0; j < x->nmanaged; j++) {
            const char *name = x->managed[j].name ? x->managed[j].name : "";
            char why[600], q[MS_QUOTE_SIZE];
            ms_quote(q, name);
            if (!extended_resource_name(name, why, sizeof why))
                return ms_error_set(err, MS_EINVAL, "extenders[%u].managedResources[%u].name: Invalid value: %s: %s",
                                    i, j, q, why);
            /* every earlier name, over all extenders */
            for (uint32_t pi = 0; pi <= i; pi++)
                for (uint32_t pj = 0; pj < (pi == i ? j : c[pi].nmanaged); pj++)
                    if (strcmp(c[pi].managed[pj].name ? c[pi].managed[pj].name : "", name) == 0)
                        return ms_error_set(err, MS_EINVAL,
                                            "extenders[%u].managedResources[%u].name: Invalid value: "
                                            "%s: duplicate extender managed resource name",
                                            i, j, q);
        }
    }
    if (binders > 1)
        return ms_error_set(err, MS_EINVAL,
                            "extenders: Invalid value: \"found %u extenders implementing bind\": only one "
                            "extender can implement bind",
                            binders);
    return MS_OK;
}

static void free_tls(ms_extender_tls *t) {
    free(t->server_name);
    free(t->cert_file);
    free(t->key_file);
    free(t->ca_file);
    free(t->cert_data);
    free(t->key_data);
    free(t->ca_data);
}

void ms_extender_configs_free(ms_extender_config *c, uint32_t n) {
    if (!c) return;
    for (uint32_t i = 0; i < n; i++) {
        ms_extender_config *x = &c[i];
        free(x->url_prefix);
        free(x->filter_verb);
        free(x->preempt_verb);
        free(x->prioritize_verb);
        free(x->bind_verb);
        free_tls(&x->tls);
        for (uint32_t j = 0; j < x->nmanaged; j++) free(x->managed[j].name);
        free(x->managed);
    }
    free(c);
}

double ms_extender_timeout(const ms_extender_config *c) {
    return c->http_timeout > 0 ? c->http_timeout : MS_EXTENDER_DEFAULT_TIMEOUT;
}
