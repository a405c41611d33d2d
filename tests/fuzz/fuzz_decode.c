/* libFuzzer target: the input as JSON and as YAML, through the loader, every
 * object decoded as a Pod, as a Node and as a PodDisruptionBudget, and
 * checked for unknown Pod and Node fields. Must never crash or leak. */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/known_fields.h"
#include "moonsched/decode.h"
#include "moonsched/intern.h"
#include "moonsched/node.h"
#include "moonsched/pdb.h"
#include "moonsched/pod.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An unknown field's warning names it, quoted. */
static void field_warning(void *ctx, const char *msg) {
    (void)ctx;
    if (strncmp(msg, "unknown field \"", 15) != 0 || !strchr(msg + 15, '"')) __builtin_trap();
}

static void decode_both(const ms_decoder *d, const cJSON *obj) {
    ms_unknown_fields("Pod", obj, field_warning, NULL);
    ms_unknown_fields("Node", obj, field_warning, NULL);
    ms_error err;
    ms_pod *p = NULL;
    ms_node *n = NULL;
    if (ms_pod_decode(d, obj, &p, &err) == MS_OK) {
        /* Touch what the decoder computed so that a bad pointer shows. */
        for (uint32_t i = 0; i < p->requests.nscalar; i++) (void)p->requests.scalar[i].value;
        ms_pod *c = ms_pod_with_node(p, p->node_name);
        ms_pod_unref(c);
        ms_pod_unref(p);
    }
    if (ms_node_decode(d, obj, &n, &err) == MS_OK) {
        for (uint32_t i = 0; i < n->ntaints; i++) (void)n->taints[i].reason[0];
        ms_node_unref(n);
    }
    ms_pdb *b = NULL;
    if (ms_pdb_decode(d, obj, &b, &err) == MS_OK) {
        for (uint32_t i = 0; i < b->ndisrupted; i++) (void)ms_pdb_disrupted(b, b->disrupted_pods[i]);
        ms_pdb_unref(b);
    }
}

static void decode_docs(const ms_decoder *d, cJSON **docs, size_t n) {
    for (size_t i = 0; i < n; i++) {
        decode_both(d, docs[i]);
        cJSON_Delete(docs[i]);
    }
    free(docs);
}

static ms_rc on_object(void *ctx, const char *kind, const cJSON *obj, ms_error *err) {
    (void)kind;
    (void)err;
    decode_both(ctx, obj);
    return MS_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ms_interner *in = ms_interner_new();
    if (!in) return 0;
    ms_decoder d;
    ms_decoder_init(&d, in);
    const char *buf = (const char *)data;
    ms_error err;
    cJSON **docs;
    size_t n;
    cJSON *one;

    if (ms_json_parse(buf, size, &one, &err) == MS_OK) {
        decode_both(&d, one);
        cJSON_Delete(one);
    }
    if (ms_json_parse_stream(buf, size, &docs, &n, &err) == MS_OK) decode_docs(&d, docs, n);
    if (ms_yaml_parse(buf, size, &docs, &n, &err) == MS_OK) decode_docs(&d, docs, n);
    (void)ms_load_objects_buffer("fuzz", buf, size, on_object, &d, &err);

    ms_interner_free(in);
    return 0;
}
