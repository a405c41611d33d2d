/* `moonsched snapshot`: paginated LISTs written as one List. See
 * run/snapshot.h. */
#include "run/snapshot.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "client/kube_client.h"
#include "client/kubeconfig.h"

typedef struct resource {
    const char *path;              /* the collection */
    const char *fallback;          /* on 404 (an older version of the API), or NULL */
    const char *api_version, *fallback_api_version;
    const char *kind;
    const char *field_selector;    /* NULL: none */
    bool optional;                 /* a server without it (404): nothing written */
} resource;

/* In the order `simulate` feeds them, Pods last. The volume kinds are
 * optional: a server may not serve them (CSIStorageCapacity before 1.21,
 * storage.k8s.io/v1 from 1.24); so are the resource.k8s.io/v1 kinds of
 * Dynamic Resource Allocation (from 1.34). */
static const resource resources[] = {
    {"/api/v1/namespaces", NULL, "v1", NULL, "Namespace", NULL, false},
    {"/api/v1/nodes", NULL, "v1", NULL, "Node", NULL, false},
    {"/apis/scheduling.k8s.io/v1/priorityclasses", NULL, "scheduling.k8s.io/v1", NULL, "PriorityClass", NULL, false},
    {"/apis/policy/v1/poddisruptionbudgets", "/apis/policy/v1beta1/poddisruptionbudgets", "policy/v1",
     "policy/v1beta1", "PodDisruptionBudget", NULL, false},
    /* what the default topology spreading reads */
    {"/api/v1/services", NULL, "v1", NULL, "Service", NULL, false},
    {"/api/v1/replicationcontrollers", NULL, "v1", NULL, "ReplicationController", NULL, false},
    {"/apis/apps/v1/replicasets", NULL, "apps/v1", NULL, "ReplicaSet", NULL, false},
    {"/apis/apps/v1/statefulsets", NULL, "apps/v1", NULL, "StatefulSet", NULL, false},
    {"/api/v1/persistentvolumes", NULL, "v1", NULL, "PersistentVolume", NULL, true},
    {"/api/v1/persistentvolumeclaims", NULL, "v1", NULL, "PersistentVolumeClaim", NULL, true},
    {"/apis/storage.k8s.io/v1/storageclasses", NULL, "storage.k8s.io/v1", NULL, "StorageClass", NULL, true},
    {"/apis/storage.k8s.io/v1/csinodes", NULL, "storage.k8s.io/v1", NULL, "CSINode", NULL, true},
    {"/apis/storage.k8s.io/v1/csidrivers", NULL, "storage.k8s.io/v1", NULL, "CSIDriver", NULL, true},
    {"/apis/storage.k8s.io/v1/csistoragecapacities", "/apis/storage.k8s.io/v1beta1/csistoragecapacities",
     "storage.k8s.io/v1", "storage.k8s.io/v1beta1", "CSIStorageCapacity", NULL, true},
    {"/apis/resource.k8s.io/v1/deviceclasses", NULL, "resource.k8s.io/v1", NULL, "DeviceClass", NULL, true},
    {"/apis/resource.k8s.io/v1/resourceslices", NULL, "resource.k8s.io/v1", NULL, "ResourceSlice", NULL, true},
    {"/apis/resource.k8s.io/v1/resourceclaims", NULL, "resource.k8s.io/v1", NULL, "ResourceClaim", NULL, true},
    {"/apis/resource.k8s.io/v1/resourceclaimtemplates", NULL, "resource.k8s.io/v1", NULL, "ResourceClaimTemplate",
     NULL, true},
    /* the pods the scheduler watches: not the finished ones */
    {"/api/v1/pods", NULL, "v1", NULL, "Pod", "status.phase!=Succeeded,status.phase!=Failed", false},
};

#define PAGE "500"

typedef struct writer {
    FILE *out;
    uint32_t written;
} writer;

/* One item with its type, without managedFields (the server's
 * bookkeeping, most of an object's size). */
static void write_item(writer *w, cJSON *item, const char *api_version, const char *kind) {
    cJSON_DeleteItemFromObjectCaseSensitive(item, "apiVersion");
    cJSON_DeleteItemFromObjectCaseSensitive(item, "kind");
    cJSON_AddStringToObject(item, "apiVersion", api_version);
    cJSON_AddStringToObject(item, "kind", kind);
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(item, "metadata"), "managedFields");
    char *text = cJSON_PrintUnformatted(item);
    if (!text) return;
    fprintf(w->out, "%s%s", w->written++ ? ",\n" : "", text);
    free(text);
}

/* One page of `path`; *next receives metadata.continue ("" at the end). */
static ms_rc list_page(ms_kube_client *c, const char *path, const resource *r, const char *api_version,
                       writer *w, char *next, size_t nnext, long *status, ms_error *err) {
    ms_kube_response resp;
    ms_rc rc = ms_kube_get(c, path, &resp, err);
    *status = resp.status;
    if (rc == MS_OK && resp.status != 200)
        rc = ms_error_set(err, MS_EIO, "GET %s: %ld: %.300s", path, resp.status, resp.body ? resp.body : "");
    cJSON *doc = rc == MS_OK ? cJSON_Parse(resp.body ? resp.body : "") : NULL;
    if (rc == MS_OK && !doc) rc = ms_error_set(err, MS_EIO, "GET %s: the answer is not JSON", path);
    ms_kube_response_free(&resp);
    if (rc != MS_OK) return rc;
    cJSON *item;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(doc, "items")) write_item(w, item, api_version, r->kind);
    const cJSON *cont = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "continue");
    snprintf(next, nnext, "%s", cJSON_IsString(cont) ? cont->valuestring : "");
    cJSON_Delete(doc);
    return MS_OK;
}

/* *status: the answer of the last request (0 when none came). */
static ms_rc list_all(ms_kube_client *c, const resource *r, writer *w, long *status, ms_error *err) {
    const char *base = r->path, *api_version = r->api_version;
    char next[4096] = "";
    for (;;) {
        char path[8192];
        snprintf(path, sizeof path, "%s?limit=" PAGE, base);
        if (r->field_selector) {
            strcat(path, "&fieldSelector=");
            ms_kube_query_escape(path, sizeof path, r->field_selector);
        }
        if (next[0]) {
            strcat(path, "&continue=");
            if (!ms_kube_query_escape(path, sizeof path, next))
                return ms_error_set(err, MS_EIO, "GET %s: continue token too long", base);
        }
        ms_rc rc = list_page(c, path, r, api_version, w, next, sizeof next, status, err);
        if (rc != MS_OK && *status == 404 && r->fallback && base != r->fallback) {
            base = r->fallback;
            api_version = r->fallback_api_version;
            continue;
        }
        if (rc != MS_OK && *status == 404 && r->optional && !next[0]) return MS_OK;
        if (rc != MS_OK) return rc;
        if (!next[0]) return MS_OK;
    }
}

/* One kept object; *missing when it was not kept. */
static void write_raw(writer *w, const char *raw, const char *api_version, const char *kind, const char *node,
                      bool *missing) {
    cJSON *item = raw ? cJSON_Parse(raw) : NULL;
    if (!item) {
        *missing = true;
        return;
    }
    if (node) {
        cJSON *spec = cJSON_GetObjectItemCaseSensitive(item, "spec");
        cJSON_DeleteItemFromObjectCaseSensitive(spec, "nodeName");
        cJSON_AddStringToObject(spec, "nodeName", node);
    }
    write_item(w, item, api_version, kind);
    cJSON_Delete(item);
}

ms_rc ms_snapshot_write_view(const ms_cluster_view *v, FILE *out, ms_error *err) {
    writer w = {.out = out};
    bool missing = false;
    fprintf(out, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n");
    for (uint32_t i = 0; i < v->nnamespaces; i++)
        write_raw(&w, v->namespaces[i]->raw, "v1", "Namespace", NULL, &missing);
    for (uint32_t i = 0; i < v->nnodes; i++) write_raw(&w, v->nodes[i]->raw, "v1", "Node", NULL, &missing);
    for (uint32_t i = 0; i < v->npdbs; i++)
        write_raw(&w, v->pdbs[i]->raw, v->pdbs[i]->api_version == MS_PDB_POLICY_V1BETA1 ? "policy/v1beta1" : "policy/v1",
                  "PodDisruptionBudget", NULL, &missing);
    for (uint32_t i = 0; i < v->nworkloads; i++) {
        const ms_workload *o = v->workloads[i];
        bool core = o->kind == MS_WK_SERVICE || o->kind == MS_WK_REPLICATION_CONTROLLER;
        write_raw(&w, o->raw, core ? "v1" : "apps/v1", ms_workload_kind_name((ms_workload_kind)o->kind), NULL,
                  &missing);
    }
    for (uint32_t i = 0; i < v->nvolumes; i++) {
        const ms_storage_object *o = v->volumes[i];
        bool core = o->kind == MS_SK_PV || o->kind == MS_SK_PVC;
        write_raw(&w, o->raw, core ? "v1" : "storage.k8s.io/v1", ms_storage_kind_name((ms_storage_kind)o->kind), NULL,
                  &missing);
    }
    for (uint32_t i = 0; i < v->npods; i++) {
        const ms_pod *p = v->pods[i];
        write_raw(&w, p->raw, "v1", "Pod", p->node_name != MS_STR_NONE ? ms_str_get(v->in, p->node_name) : NULL,
                  &missing);
    }
    fprintf(out, "\n]}\n");
    if (missing) return ms_error_set(err, MS_ESTATE, "the scheduler did not keep its objects' JSON");
    return MS_OK;
}

bool ms_snapshot_is_workload_path(const char *path) {
    return strcmp(path, "/api/v1/services") == 0 || strcmp(path, "/api/v1/replicationcontrollers") == 0 ||
           strncmp(path, "/apis/apps/v1/", 14) == 0;
}
static bool is_workload_kind(const resource *r) { return ms_snapshot_is_workload_path(r->path); }
static bool is_volume_kind(const resource *r) {
    return strncmp(r->path, "/apis/storage.k8s.io/", 21) == 0 || strncmp(r->path, "/api/v1/persistentvolume", 24) == 0;
}
static bool is_priority_class(const resource *r) { return strcmp(r->kind, "PriorityClass") == 0; }
static bool any_kind(const resource *r) { return r != NULL; }

/* Which refusals leave a kind out instead of failing the List. */
typedef bool (*leave_out_fn)(const resource *r, long status);

/* As run's informers treat them: a role without the rules (403), or a
 * server without the kind (404). */
static bool workload_refused(const resource *r, long status) {
    return is_workload_kind(r) && (status == 403 || status == 404);
}
static bool any_answer(const resource *r, long status) { return r && status != 0; }

/* A List of the kinds `want` picks. Only a kind refused before any of its
 * items was written can be left out whole, and reported to `unlisted`
 * (when not NULL); a failure mid-way fails the List. */
static ms_rc write_kinds(ms_kube_client *c, FILE *out, bool (*want)(const resource *), leave_out_fn leave_out,
                         ms_snapshot_unlisted_fn unlisted, void *ctx, ms_error *err) {
    writer w = {.out = out};
    ms_rc rc = MS_OK;
    fprintf(out, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n");
    for (size_t i = 0; i < sizeof resources / sizeof resources[0] && rc == MS_OK; i++) {
        if (!want(&resources[i])) continue;
        long status = 0;
        uint32_t before = w.written;
        rc = list_all(c, &resources[i], &w, &status, err);
        if (rc != MS_OK && w.written == before && leave_out && leave_out(&resources[i], status)) {
            if (unlisted) unlisted(ctx, resources[i].path, status, err->msg);
            rc = MS_OK;
        }
    }
    fprintf(out, "\n]}\n");
    return rc;
}

ms_rc ms_snapshot_write(const ms_snapshot_options *o, FILE *out, ms_error *err) {
    ms_kubeconfig kc;
    memset(&kc, 0, sizeof kc);
    ms_rc rc = ms_kubeconfig_load_default(&kc, o->kubeconfig, o->context, err);
    ms_kube_client *c = NULL;
    if (rc == MS_OK) {
        ms_kube_client_options co = {.config = &kc, .user_agent = "moonsched/0.1 (snapshot)"};
        rc = ms_kube_client_new(&co, &c, err);
    }
    ms_kubeconfig_free(&kc);
    if (rc != MS_OK) return rc;
    rc = write_kinds(c, out, any_kind, workload_refused, o->unlisted, o->ctx, err);
    ms_kube_client_free(c);
    return rc;
}

ms_rc ms_snapshot_write_volumes(ms_kube_client *c, FILE *out, ms_snapshot_unlisted_fn unlisted, void *ctx,
                                ms_error *err) {
    return write_kinds(c, out, is_volume_kind, any_answer, unlisted, ctx, err);
}

ms_rc ms_snapshot_write_priority_classes(ms_kube_client *c, FILE *out, ms_snapshot_unlisted_fn unlisted, void *ctx,
                                         ms_error *err) {
    return write_kinds(c, out, is_priority_class, any_answer, unlisted, ctx, err);
}

ms_rc ms_snapshot_write_workloads(ms_kube_client *c, FILE *out, ms_snapshot_unlisted_fn unlisted, void *ctx,
                                  ms_error *err) {
    return write_kinds(c, out, is_workload_kind, any_answer, unlisted, ctx, err);
}
