/* A pod's resource claims: spec.resourceClaims and
 * status.resourceClaimStatuses, checked as the API server validates them
 * (names are DNS labels, claim and template names DNS subdomains, exactly
 * one source per entry). */
#include "api/validation.h"
#include "codec/decode_internal.h"
#include "moonsched/pod.h"

static ms_rc dec_claim(ms_dec *x, const ms_obj *o, void *elem, void *ctx) {
    ms_pod_resource_claim *c = elem;
    uint32_t before = ms_dec_seen_before(ctx, elem, sizeof *c);
    const ms_pod_resource_claim *earlier = c - before;
    const cJSON *cn = ms_obj_get(o, "resourceClaimName"), *tn = ms_obj_get(o, "resourceClaimTemplateName");
    bool has_claim = cn && !cJSON_IsNull(cn), has_template = tn && !cJSON_IsNull(tn);
    ms_rc rc;
    if ((rc = ms_dec_dns_name(x, o, "name", true, &c->name)) != MS_OK) return rc;
    if (c->name == MS_STR_NONE) return ms_json_fail(&x->r, "name", "Required value");
    for (uint32_t k = 0; k < before; k++)
        if (earlier[k].name == c->name)
            return ms_json_fail(&x->r, "name", "Duplicate value: \"%s\"", ms_str_get(x->d->in, c->name));
    const char *name = ms_str_get(x->d->in, c->name);
    if (has_claim && has_template)
        return ms_json_invalid(&x->r, NULL, name,
                               "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be "
                               "specified");
    if (!has_claim && !has_template)
        return ms_json_invalid(&x->r, NULL, name,
                               "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`");
    if ((rc = ms_dec_dns_name(x, o, "resourceClaimName", false, &c->claim_name)) != MS_OK ||
        (rc = ms_dec_dns_name(x, o, "resourceClaimTemplateName", false, &c->template_name)) != MS_OK)
        return rc;
    /* present but empty: not a valid name either */
    const char *empty = has_claim && c->claim_name == MS_STR_NONE       ? "resourceClaimName"
                        : has_template && c->template_name == MS_STR_NONE ? "resourceClaimTemplateName"
                                                                          : NULL;
    if (empty) return ms_json_invalid(&x->r, empty, "", "%s", ms_dns1123_subdomain_problem("", 0));
    return MS_OK;
}

ms_rc ms_dec_pod_resource_claims(ms_dec *x, const ms_obj *spec, ms_pod *p) {
    void *claims;
    ms_dec_seen seen = {NULL};
    ms_rc rc = ms_dec_objects(x, spec, "resourceClaims", &p->arena, sizeof *p->resource_claims, &claims,
                              &p->nresource_claims, dec_claim, &seen);
    p->resource_claims = claims;
    return rc;
}

typedef struct statuses_ctx {
    ms_dec_seen seen;
    const ms_pod *pod;
} statuses_ctx;

static ms_rc dec_claim_status(ms_dec *x, const ms_obj *o, void *elem, void *ctx) {
    statuses_ctx *sc = ctx;
    ms_pod_resource_claim_status *s = elem;
    uint32_t before = ms_dec_seen_before(&sc->seen, elem, sizeof *s);
    const ms_pod_resource_claim_status *earlier = s - before;
    ms_rc rc;
    if ((rc = ms_dec_dns_name(x, o, "name", true, &s->name)) != MS_OK ||
        (rc = ms_dec_dns_name(x, o, "resourceClaimName", false, &s->claim_name)) != MS_OK)
        return rc;
    if (s->name == MS_STR_NONE) return ms_json_fail(&x->r, "name", "Required value");
    const char *name = ms_str_get(x->d->in, s->name);
    for (uint32_t k = 0; k < before; k++)
        if (earlier[k].name == s->name) return ms_json_fail(&x->r, "name", "Duplicate value: \"%s\"", name);
    for (uint32_t k = 0; k < sc->pod->nresource_claims; k++)
        if (sc->pod->resource_claims[k].name == s->name) return MS_OK;
    return ms_json_invalid(&x->r, "name", name, "must match the name of an entry in `spec.resourceClaims`");
}

ms_rc ms_dec_pod_resource_claim_statuses(ms_dec *x, const ms_obj *status, ms_pod *p) {
    void *statuses;
    statuses_ctx sc = {{NULL}, p};
    ms_rc rc = ms_dec_objects(x, status, "resourceClaimStatuses", &p->arena,
                              sizeof *p->resource_claim_statuses, &statuses, &p->nresource_claim_statuses,
                              dec_claim_status, &sc);
    p->resource_claim_statuses = statuses;
    return rc;
}
