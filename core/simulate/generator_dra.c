/* scheduler_perf's SchedulingWithResourceClaimTemplate (dra/
 * performance-config.yaml), after the nodes: the test driver's
 * ResourceSlice on every node (10 devices: maxClaimsPerNode), its
 * DeviceClass, the ResourceClaimTemplate, and the pending pods with a claim
 * from it, each with the claim the resourceclaim controller would have
 * generated for it already (named in the pod's status, owned by the pod):
 * upstream's controller runs beside its scheduler, here nothing else
 * would make them. Objects are upstream's templates as JSON, decoded by
 * the regular decoders. */
#include <cjson/cJSON.h>
#include <stdio.h>

#include "simulate/generator.h"

#define DRIVER "test-driver.cdi.k8s.io"
#define DEVICES_PER_NODE 10

static ms_rc emit(const ms_generator_sink *sink, ms_dra_kind kind, const char *json, ms_error *err) {
    cJSON *o = cJSON_Parse(json);
    if (!o) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_rc rc = sink->dra(sink->ctx, kind, o, err);
    cJSON_Delete(o);
    return rc;
}

static ms_rc gen_slices(const ms_generator_spec *g, const ms_generator_sink *sink, ms_error *err) {
    char devices[DEVICES_PER_NODE * 32] = "", json[sizeof devices + 512];
    size_t len = 0;
    for (int k = 0; k < DEVICES_PER_NODE; k++)
        len += (size_t)snprintf(devices + len, sizeof devices - len, "%s{\"name\": \"device-%05d\"}", k ? ", " : "", k);
    ms_rc rc = MS_OK;
    for (uint32_t i = 0; i < g->nodes && rc == MS_OK; i++) {
        snprintf(json, sizeof json,
                 "{\"metadata\": {\"name\": \"node-%u-" DRIVER "\"}, \"spec\": {\"driver\": \"" DRIVER "\","
                 " \"nodeName\": \"node-%u\", \"pool\": {\"name\": \"node-%u\", \"generation\": 1,"
                 " \"resourceSliceCount\": 1}, \"devices\": [%s]}}",
                 i, i, i, devices);
        rc = emit(sink, MS_DK_RESOURCE_SLICE, json, err);
    }
    return rc;
}

static ms_rc gen_pods(const ms_generator_spec *g, const ms_decoder *d, const ms_generator_sink *sink, ms_error *err) {
    const char *ns = g->namespace_;
    char json[1024];
    ms_rc rc = MS_OK;
    for (uint32_t i = 0; i < g->pods && rc == MS_OK; i++) {
        snprintf(json, sizeof json,
                 "{\"metadata\": {\"name\": \"pod-%u-resource\", \"namespace\": \"%s\", \"ownerReferences\":"
                 " [{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"name\": \"pod-%u\", \"uid\": \"uid-pod-%u\","
                 " \"controller\": true}]}, \"spec\": {\"devices\": {\"requests\": [{\"name\": \"req-0\","
                 " \"exactly\": {\"deviceClassName\": \"test-class\"}}]}}}",
                 i, ns, i, i);
        if ((rc = emit(sink, MS_DK_RESOURCE_CLAIM, json, err)) != MS_OK) break;
        snprintf(json, sizeof json,
                 "{\"metadata\": {\"name\": \"pod-%u\", \"namespace\": \"%s\", \"uid\": \"uid-pod-%u\"},"
                 " \"spec\": {\"containers\": [{\"name\": \"pause\", \"image\": \"registry.k8s.io/pause:3.10\","
                 " \"resources\": {\"claims\": [{\"name\": \"resource\"}]}}], \"resourceClaims\": [{\"name\":"
                 " \"resource\", \"resourceClaimTemplateName\": \"test-claim-template\"}]}, \"status\":"
                 " {\"resourceClaimStatuses\": [{\"name\": \"resource\", \"resourceClaimName\": \"pod-%u-resource\"}]}}",
                 i, ns, i, i);
        cJSON *t = cJSON_Parse(json);
        if (!t) return ms_error_set(err, MS_ENOMEM, "out of memory");
        ms_pod *pod = NULL;
        rc = ms_pod_decode(d, t, &pod, err);
        cJSON_Delete(t);
        if (rc == MS_OK) rc = sink->pod(sink->ctx, pod, err);
    }
    return rc;
}

ms_rc ms_generate_dra(const ms_generator_spec *g, const ms_decoder *d, const ms_generator_sink *sink,
                      ms_error *err) {
    if (!sink->dra) return ms_error_set(err, MS_EINVAL, "shape " MS_SHAPE_DRA ": no place for resource.k8s.io objects");
    char tmpl[256];
    snprintf(tmpl, sizeof tmpl,
             "{\"metadata\": {\"name\": \"test-claim-template\", \"namespace\": \"%s\"}, \"spec\": {\"spec\":"
             " {\"devices\": {\"requests\": [{\"name\": \"req-0\", \"exactly\": {\"deviceClassName\": \"test-class\"}}]}}}}",
             g->namespace_);
    ms_rc rc = emit(sink, MS_DK_DEVICE_CLASS,
                    "{\"metadata\": {\"name\": \"test-class\"}, \"spec\": {\"selectors\": [{\"cel\": {\"expression\":"
                    " \"device.driver == '" DRIVER "'\"}}]}}",
                    err);
    if (rc == MS_OK) rc = emit(sink, MS_DK_RESOURCE_CLAIM_TEMPLATE, tmpl, err);
    if (rc == MS_OK) rc = gen_slices(g, sink, err);
    if (rc == MS_OK) rc = gen_pods(g, d, sink, err);
    return rc;
}
