/* The informer resources of resource.k8s.io/v1 (DeviceClasses,
 * ResourceSlices, ResourceClaims, ResourceClaimTemplates), which the
 * DynamicResources plugin reads: their collection paths and decoders
 * (api/dra.h). See client/informer.h.
 *
 * All four are optional: a server before 1.34 serves no resource.k8s.io/v1
 * (1.20 none at all) and answers 404, which means a cluster without DRA;
 * the informer then counts as synced with no objects and lists again on
 * its backoff (up to 30 s apart), in case the group comes later. A 403
 * (an RBAC without the DRA rules) is the same: scheduling goes on. */
#include "api/dra.h"
#include "client/informer.h"
#include "codec/decode_dra.h"

/* The resource's kind says which DRA kind: MS_KIND_DEVICE_CLASS + kind. */
static ms_rc decode_dra(const void *ctx, ms_object_kind kind, const cJSON *obj, void **out, ms_error *err) {
    ms_dra_object *o = NULL;
    ms_rc rc = ms_dra_decode(ctx, (ms_dra_kind)(kind - MS_KIND_DEVICE_CLASS), obj, &o, err);
    *out = o;
    return rc;
}

static void *ref_dra(void *obj) { return ms_dra_ref(obj); }
static void unref_dra(void *obj) { ms_dra_unref(obj); }
#define DRA_OPS .optional = true, .decode = decode_dra, .ref = ref_dra, .unref = unref_dra

const ms_informer_resource ms_informer_device_classes = {
    .kind = MS_KIND_DEVICE_CLASS,
    .path = "/apis/resource.k8s.io/v1/deviceclasses",
    DRA_OPS,
};

const ms_informer_resource ms_informer_resource_slices = {
    .kind = MS_KIND_RESOURCE_SLICE,
    .path = "/apis/resource.k8s.io/v1/resourceslices",
    DRA_OPS,
};

const ms_informer_resource ms_informer_resource_claims = {
    .kind = MS_KIND_RESOURCE_CLAIM,
    .path = "/apis/resource.k8s.io/v1/resourceclaims",
    DRA_OPS,
};

const ms_informer_resource ms_informer_resource_claim_templates = {
    .kind = MS_KIND_RESOURCE_CLAIM_TEMPLATE,
    .path = "/apis/resource.k8s.io/v1/resourceclaimtemplates",
    DRA_OPS,
};
