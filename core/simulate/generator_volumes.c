/* The storage objects of the generator's volumes shape: a
 * WaitForFirstConsumer StorageClass without provisioner, one local PV per
 * pending pod (round-robin over the nodes, pinned to the node's hostname)
 * and one claim per pending pod, each decoded by the storage decoder from
 * an API object template. */
#include <cjson/cJSON.h>
#include <stdio.h>

#include "simulate/generator.h"
#include "codec/decode_storage.h"

#define CLASS "local-storage"

static ms_rc emit(const ms_decoder *d, ms_storage_kind kind, const cJSON *obj, const ms_generator_sink *sink,
                  ms_error *err) {
    ms_storage_object *o = NULL;
    ms_rc rc = ms_storage_decode(d, kind, obj, &o, err);
    return rc == MS_OK ? sink->storage(sink->ctx, o, err) : rc;
}

static ms_rc gen_class(const ms_decoder *d, const ms_generator_sink *sink, ms_error *err) {
    cJSON *sc = cJSON_Parse("{\"metadata\": {\"name\": \"" CLASS "\"}, \"provisioner\": "
                            "\"kubernetes.io/no-provisioner\", \"volumeBindingMode\": \"WaitForFirstConsumer\"}");
    if (!sc) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_rc rc = emit(d, MS_SK_STORAGE_CLASS, sc, sink, err);
    cJSON_Delete(sc);
    return rc;
}

static ms_rc gen_pvs(const ms_generator_spec *g, const ms_decoder *d, const ms_generator_sink *sink,
                     ms_error *err) {
    cJSON *t = cJSON_Parse("{\"metadata\": {\"name\": \"pv\"}, \"spec\": {\"capacity\": {\"storage\": \"10Gi\"},"
                           " \"accessModes\": [\"ReadWriteOnce\"], \"storageClassName\": \"" CLASS "\","
                           " \"local\": {\"path\": \"/mnt/disks/ssd0\"}, \"nodeAffinity\": {\"required\":"
                           " {\"nodeSelectorTerms\": [{\"matchExpressions\": [{\"key\": \"kubernetes.io/hostname\","
                           " \"operator\": \"In\", \"values\": [\"node-0\"]}]}]}}}, \"status\": {\"phase\": \"Available\"}}");
    if (!t) return ms_error_set(err, MS_ENOMEM, "out of memory");
    cJSON *name = cJSON_GetObjectItem(cJSON_GetObjectItem(t, "metadata"), "name");
    cJSON *host = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(
            cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "spec"), "nodeAffinity"), "required"),
            "nodeSelectorTerms"), 0), "matchExpressions"), 0), "values"), 0);
    ms_rc rc = MS_OK;
    char buf[32];
    for (uint32_t i = 0; i < g->pods && rc == MS_OK; i++) {
        snprintf(buf, sizeof buf, "pv-%u", i);
        if (!cJSON_SetValuestring(name, buf)) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        snprintf(buf, sizeof buf, "node-%u", i % g->nodes);
        if (rc == MS_OK && !cJSON_SetValuestring(host, buf)) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        if (rc == MS_OK) rc = emit(d, MS_SK_PV, t, sink, err);
    }
    cJSON_Delete(t);
    return rc;
}

static ms_rc gen_claims(const ms_generator_spec *g, const ms_decoder *d, const ms_generator_sink *sink,
                        ms_error *err) {
    cJSON *t = cJSON_Parse("{\"metadata\": {\"name\": \"pvc\", \"namespace\": \"default\"}, \"spec\":"
                           " {\"accessModes\": [\"ReadWriteOnce\"], \"storageClassName\": \"" CLASS "\","
                           " \"resources\": {\"requests\": {\"storage\": \"1Gi\"}}}}");
    cJSON *meta = t ? cJSON_GetObjectItem(t, "metadata") : NULL;
    if (!meta || !cJSON_SetValuestring(cJSON_GetObjectItem(meta, "namespace"), g->namespace_)) {
        cJSON_Delete(t);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    cJSON *name = cJSON_GetObjectItem(meta, "name");
    ms_rc rc = MS_OK;
    char buf[32];
    for (uint32_t i = 0; i < g->pods && rc == MS_OK; i++) {
        snprintf(buf, sizeof buf, "pvc-%u", i);
        rc = cJSON_SetValuestring(name, buf) ? emit(d, MS_SK_PVC, t, sink, err)
                                             : ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    cJSON_Delete(t);
    return rc;
}

ms_rc ms_generate_volumes(const ms_generator_spec *g, const ms_decoder *d, const ms_generator_sink *sink,
                          ms_error *err) {
    if (!sink->storage || !g->nodes) return MS_OK;
    ms_rc rc = gen_class(d, sink, err);
    if (rc == MS_OK) rc = gen_pvs(g, d, sink, err);
    if (rc == MS_OK) rc = gen_claims(g, d, sink, err);
    return rc;
}
