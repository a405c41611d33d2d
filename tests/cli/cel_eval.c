/* Reads cases of tests/cli/cel_oracle.mjs (EXPR <TAB> DEVICE-JSON <TAB>
 * true|false|error) on stdin, evaluates each expression with moonsched's
 * CEL interpreter against the device (its attributes in the
 * gpu.example.com domain, as the oracle sees them) and prints the cases
 * whose outcome differs. Exits 1 when any does. For
 * tests/cli/test_cel_differential.sh. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/dra.h"
#include "cel/cel.h"
#include "moonsched/decode.h"
#include "codec/decode_dra.h"

static const char *outcome(ms_interner *in, const ms_decoder *dec, const char *expr, const char *device_json,
                           char *why, size_t nwhy) {
    cJSON *d = cJSON_Parse(device_json);
    cJSON *driver = cJSON_GetObjectItemCaseSensitive(d, "driver");
    cJSON *attrs = cJSON_GetObjectItemCaseSensitive(d, "attributes");
    /* a ResourceSlice with the one device, its attributes qualified */
    cJSON *slice = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(slice, "metadata");
    cJSON_AddStringToObject(meta, "name", "s");
    cJSON *spec = cJSON_AddObjectToObject(slice, "spec"), *pool = cJSON_AddObjectToObject(spec, "pool");
    cJSON_AddStringToObject(spec, "driver", driver->valuestring);
    cJSON_AddStringToObject(spec, "nodeName", "n1");
    cJSON_AddStringToObject(pool, "name", "p");
    cJSON_AddNumberToObject(pool, "resourceSliceCount", 1);
    cJSON *dev = cJSON_CreateObject(), *qattrs = cJSON_AddObjectToObject(dev, "attributes");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(spec, "devices"), dev);
    cJSON_AddStringToObject(dev, "name", "dev-0");
    for (cJSON *a = attrs ? attrs->child : NULL; a; a = a->next) {
        char key[128];
        snprintf(key, sizeof key, "gpu.example.com/%s", a->string);
        cJSON_AddItemToObject(qattrs, key, cJSON_Duplicate(a, 1));
    }
    ms_dra_object *o = NULL;
    ms_error err = {0};
    const char *res;
    ms_arena a, scratch;
    ms_arena_init(&a, 4096);
    ms_arena_init(&scratch, 4096);
    ms_cel_program p;
    if (ms_dra_decode(dec, MS_DK_RESOURCE_SLICE, slice, &o, &err) != MS_OK) {
        snprintf(why, nwhy, "device: %s", err.msg);
        res = "bad-device";
    } else if (ms_cel_compile(expr, &a, &p, &err) != MS_OK) {
        snprintf(why, nwhy, "compile: %s", err.msg);
        res = "error";
    } else {
        ms_cel_device cd = {driver->valuestring, &o->u.slice.devices[0], in};
        ms_cel_result r = ms_cel_eval(&p, &cd, MS_CEL_MAX_COST, &scratch, NULL, &err);
        snprintf(why, nwhy, "%s", r == MS_CEL_ERROR ? err.msg : "");
        res = r == MS_CEL_TRUE ? "true" : r == MS_CEL_FALSE ? "false" : "error";
    }
    ms_dra_unref(o);
    ms_arena_free(&a);
    ms_arena_free(&scratch);
    cJSON_Delete(slice);
    cJSON_Delete(d);
    return res;
}

int main(void) {
    ms_interner *in = ms_interner_new();
    ms_decoder dec;
    ms_decoder_init(&dec, in);
    static char line[1 << 16];
    unsigned cases = 0, differ = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t2) continue;
        *t1 = *t2 = '\0';
        char why[600];
        const char *got = outcome(in, &dec, line, t1 + 1, why, sizeof why);
        cases++;
        if (strcmp(got, t2 + 1) != 0) {
            differ++;
            printf("# differs: %s\n#   device %s\n#   cel-js: %s, moonsched: %s %s\n", line, t1 + 1, t2 + 1, got, why);
        }
    }
    printf("cases %u differ %u\n", cases, differ);
    ms_interner_free(in);
    return differ ? 1 : 0;
}
