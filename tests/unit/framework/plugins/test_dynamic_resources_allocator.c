/* The structured allocator on its own, case by case in the manner of
 * upstream's allocator tests (dynamic-resource-allocation/structured):
 * the slices and classes known, the claims to allocate, one node; the
 * devices chosen ("claim/request=pool/device" in order), "unschedulable",
 * or the error. Then the allocations a device policy chooses among
 * (ms_dr_enumerate), " | " between them. */
#include "testutil.h"

#include <cjson/cJSON.h>

#include "framework/plugins/dynamic_resources.h"
#include "fixtures.h"
#include "codec/decode_dra.h"

static fx_env env;

static int setup(void **state) {
    (void)state;
    fx_env_init(&env);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    fx_env_free(&env);
    return 0;
}

/* Every YAML document of `text` as an object of the kind it names. */
static void load(ms_dra_store *s, const char *text, const ms_dra_object **claims, uint32_t *nclaims) {
    cJSON **docs = NULL;
    size_t n = 0;
    ms_error err = {0};
    if (ms_yaml_parse(text, strlen(text), &docs, &n, &err) != MS_OK) fail_msg("yaml: %s", err.msg);
    for (size_t i = 0; i < n; i++) {
        if (!cJSON_IsObject(docs[i])) {   /* the empty document after the last "---" */
            cJSON_Delete(docs[i]);
            continue;
        }
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(docs[i], "kind");
        int kind = ms_dra_kind_from_name(k ? k->valuestring : "");
        ms_dra_object *o = NULL;
        if (kind < 0 || ms_dra_decode(&env.d, (ms_dra_kind)kind, docs[i], &o, &err) != MS_OK)
            fail_msg("object %zu: %s", i, err.msg);
        assert_int_equal(ms_dra_store_set(s, o), 0);
        if (kind == MS_DK_RESOURCE_CLAIM && !o->u.claim.allocated) claims[(*nclaims)++] = o;
        ms_dra_unref(o);
        cJSON_Delete(docs[i]);
    }
    free(docs);
}

#define CLASS "kind: DeviceClass\nmetadata: {name: gpu}\nspec: {selectors: [{cel: {expression: 'device.driver == \"d\"'}}]}\n---\n"
#define SLICE(name, node, pool, gen, count, devices) \
    "kind: ResourceSlice\nmetadata: {name: " name "}\nspec: {driver: d, " node ", pool: {name: " #pool ", generation: " \
    #gen ", resourceSliceCount: " #count "}, devices: " devices "}\n---\n"
#define CLAIM(name, devices) "kind: ResourceClaim\nmetadata: {name: " name "}\nspec: {devices: " devices "}\n---\n"
#define ONE "{requests: [{name: r, exactly: {deviceClassName: gpu}}]}"

/* max 0: ms_dr_allocate; UINT32_MAX: ms_dr_explain; else ms_dr_enumerate
 * with that limit. */
static const char *run(const char *objects, const char *node_labels, uint32_t max) {
    static char out[2048];
    ms_dra_store *s = ms_dra_store_new();
    const ms_dra_object *claims[8];
    uint32_t nclaims = 0;
    load(s, objects, claims, &nclaims);
    /* the devices of allocated claims are in use */
    ms_map used;
    ms_map_init(&used);
    const ms_dra_object *o;
    for (size_t it = 0; ms_dra_store_next(s, MS_DK_RESOURCE_CLAIM, &it, &o);)
        for (uint32_t k = 0; o->u.claim.allocated && k < o->u.claim.nresults; k++) {
            const ms_device_result *r = &o->u.claim.results[k];
            if (!r->admin_access) ms_map_put(&used, ms_dr_device_key(r->driver, r->pool, r->device), (void *)o);
        }
    ms_arena a;
    ms_arena_init(&a, 4096);
    dr_alloc al = {.in = env.in, .allocated = &used};
    const char *why = NULL;
    dr_slices cache = {0};
    ms_code code = ms_dr_prepare(&al, s, &cache, claims, nclaims, &a, &why);
    ms_node_info *ni = ms_node_info_new(ms_intern_cstr(env.in, "n1"));
    char node_text[256];
    snprintf(node_text, sizeof node_text, "metadata: {name: n1, labels: %s}\n", node_labels);
    ms_node *node = fx_node(&env.d, node_text);
    ms_node_info_set_node(ni, node);
    ms_node_unref(node);
    dr_option one = {0}, *opts = &one;
    uint32_t nopts = 1;
    if (code == MS_SUCCESS && max == UINT32_MAX) {
        snprintf(out, sizeof out, "%s", ms_dr_explain(&al, ni, &a));
        code = MS_PENDING;
    } else if (code == MS_SUCCESS && max == 0)
        code = ms_dr_allocate(&al, ni, &a, &one.picks, &one.npicks, &why);
    else if (code == MS_SUCCESS) code = ms_dr_enumerate(&al, ni, &a, max, &opts, &nopts, &why);
    if (code == MS_PENDING) {
    } else if (code == MS_ERROR) snprintf(out, sizeof out, "error: %s", why ? why : "?");
    else if (code != MS_SUCCESS) snprintf(out, sizeof out, "unschedulable%s%s", why ? ": " : "", why ? why : "");
    else {
        size_t len = 0;
        out[0] = '\0';
        for (uint32_t i = 0; i < nopts; i++) {
            const dr_pick *picks = opts[i].picks;
            if (i) len += (size_t)snprintf(out + len, sizeof out - len, " | ");
            for (uint32_t k = 0; k < opts[i].npicks; k++)
                len += (size_t)snprintf(out + len, sizeof out - len, "%s%s/%s=%s/%s", k ? " " : "",
                                        ms_str_get(env.in, al.claims[picks[k].claim].obj->meta.name),
                                        ms_str_get(env.in, picks[k].request),
                                        ms_str_get(env.in, picks[k].slice->u.slice.pool),
                                        ms_str_get(env.in, picks[k].device->name));
        }
    }
    ms_node_info_free(ni);
    ms_dr_slices_free(&cache);
    ms_arena_free(&a);
    ms_map_free(&used);
    ms_dra_store_free(s);
    return out;
}

static void test_cases(void **state) {
    (void)state;
    static const struct {
        const char *name, *objects, *labels, *want;
    } cases[] = {
        {"simple", CLASS SLICE("s", "nodeName: n1", p, 1, 1, "[{name: a}, {name: b}]") CLAIM("c", ONE), "{}",
         "c/r=p/a"},
        {"other node's slice", CLASS SLICE("s", "nodeName: n2", p, 1, 1, "[{name: a}]") CLAIM("c", ONE), "{}",
         "unschedulable"},
        {"network-attached (allNodes)", CLASS SLICE("s", "allNodes: true", net, 1, 1, "[{name: a}]") CLAIM("c", ONE),
         "{}", "c/r=net/a"},
        {"node selector matching",
         CLASS SLICE("s", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r1]}]}]}",
                     p, 1, 1, "[{name: a}]") CLAIM("c", ONE),
         "{rack: r1}", "c/r=p/a"},
        {"node selector not matching",
         CLASS SLICE("s", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r1]}]}]}",
                     p, 1, 1, "[{name: a}]") CLAIM("c", ONE),
         "{rack: r2}", "unschedulable"},
        {"per-device node selection",
         CLASS SLICE("s", "perDeviceNodeSelection: true", p, 1, 1, "[{name: a, nodeName: n2}, {name: b, nodeName: n1}]")
             CLAIM("c", ONE),
         "{}", "c/r=p/b"},
        {"incomplete pool", CLASS SLICE("s", "nodeName: n1", p, 1, 2, "[{name: a}]") CLAIM("c", ONE), "{}",
         "unschedulable"},
        {"old generation ignored",
         CLASS SLICE("old", "nodeName: n1", p, 1, 1, "[{name: a}]") SLICE("new", "nodeName: n1", p, 2, 1, "[{name: b}]")
             CLAIM("c", ONE),
         "{}", "c/r=p/b"},
        {"already allocated",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1, "[{name: a}, {name: b}]") CLAIM("c", ONE)
             "kind: ResourceClaim\nmetadata: {name: other}\nspec: {devices: " ONE "}\n"
             "status: {allocation: {devices: {results: [{request: r, driver: d, pool: p, device: a}]}}}\n---\n",
         "{}", "c/r=p/b"},
        {"admin access takes an allocated device",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1, "[{name: a}]")
             CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, adminAccess: true}}]}")
             "kind: ResourceClaim\nmetadata: {name: other}\nspec: {devices: " ONE "}\n"
             "status: {allocation: {devices: {results: [{request: r, driver: d, pool: p, device: a}]}}}\n---\n",
         "{}", "c/r=p/a"},
        {"too many", CLASS SLICE("s", "nodeName: n1", p, 1, 1, "[{name: a}, {name: b}]")
                         CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, count: 3}}]}"),
         "{}", "unschedulable"},
        {"all devices", CLASS SLICE("s", "nodeName: n1", p, 1, 1, "[{name: a}, {name: b}]")
                            CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, allocationMode: All}}]}"),
         "{}", "c/r=p/a c/r=p/b"},
        {"all devices, one in use", CLASS SLICE("s", "nodeName: n1", p, 1, 1, "[{name: a}, {name: b}]")
             CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, allocationMode: All}}]}")
             "kind: ResourceClaim\nmetadata: {name: other}\nspec: {devices: " ONE "}\n"
             "status: {allocation: {devices: {results: [{request: r, driver: d, pool: p, device: b}]}}}\n---\n",
         "{}", "unschedulable"},
        {"two claims share nothing", CLASS SLICE("s", "nodeName: n1", p, 1, 1, "[{name: a}, {name: b}]")
                                         CLAIM("c1", ONE) CLAIM("c2", ONE),
         "{}", "c1/r=p/a c2/r=p/b"},
        {"selector", CLASS SLICE("s", "nodeName: n1", p, 1, 1,
                                 "[{name: a, attributes: {model: {string: x}}}, {name: b, attributes: {model: {string: y}}}]")
             CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, selectors: [{cel: {expression: "
                        "'device.attributes[\"d\"].model == \"y\"'}}]}}]}"),
         "{}", "c/r=p/b"},
        {"prioritized list: the second entry",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1, "[{name: a}]")
             CLAIM("c", "{requests: [{name: r, firstAvailable: [{name: two, deviceClassName: gpu, count: 2}, "
                        "{name: one, deviceClassName: gpu}]}]}"),
         "{}", "c/r/one=p/a"},
        {"matchAttribute by backtracking",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1,
                     "[{name: a, attributes: {numa: {int: 0}}}, {name: b, attributes: {numa: {int: 1}}}, "
                     "{name: c, attributes: {numa: {int: 1}}}]")
             CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, count: 2}}], "
                        "constraints: [{matchAttribute: d/numa}]}"),
         "{}", "c/r=p/b c/r=p/c"},
        {"matchAttribute across requests, unsatisfiable",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1,
                     "[{name: a, attributes: {numa: {int: 0}}}, {name: b, attributes: {numa: {int: 1}}}]")
             CLAIM("c", "{requests: [{name: r1, exactly: {deviceClassName: gpu}}, {name: r2, exactly: {deviceClassName: gpu, "
                        "selectors: [{cel: {expression: 'device.attributes[\"d\"].numa == 1'}}]}}], "
                        "constraints: [{requests: [r1, r2], matchAttribute: d/numa}]}"),
         "{}", "unschedulable"},
        {"matchAttribute across requests, the first request backtracks",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1,
                     "[{name: a, attributes: {numa: {int: 0}}}, {name: b, attributes: {numa: {int: 1}}}, "
                     "{name: c, attributes: {numa: {int: 1}}}]")
             CLAIM("c", "{requests: [{name: r1, exactly: {deviceClassName: gpu}}, {name: r2, exactly: {deviceClassName: gpu, "
                        "selectors: [{cel: {expression: 'device.attributes[\"d\"].numa == 1'}}]}}], "
                        "constraints: [{requests: [r1, r2], matchAttribute: d/numa}]}"),
         "{}", "c/r1=p/b c/r2=p/c"},
        {"missing class", SLICE("s", "nodeName: n1", p, 1, 1, "[{name: a}]") CLAIM("c", ONE), "{}",
         "unschedulable: request r: device class gpu does not exist"},
        {"selector error", CLASS SLICE("s", "nodeName: n1", p, 1, 1, "[{name: a}]")
             CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, selectors: [{cel: {expression: "
                        "'device.attributes[\"d\"].model == \"y\"'}}]}}]}"),
         "{}", "error: CEL runtime error: no such key: model"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = run(cases[i].objects, cases[i].labels, 0);
        if (strcmp(got, cases[i].want) != 0) fail_msg("%s: got \"%s\", want \"%s\"", cases[i].name, got, cases[i].want);
    }
}

#define THREE "[{name: a, attributes: {numa: {int: 0}}}, {name: b, attributes: {numa: {int: 1}}}, " \
              "{name: c, attributes: {numa: {int: 1}}}]"

/* What a device policy chooses among: the allocator's first, then the
 * others its search meets, within the limit. */
static void test_enumerate(void **state) {
    (void)state;
    static const struct {
        const char *name, *objects;
        uint32_t max;
        const char *want;
    } cases[] = {
        {"one device of three", CLASS SLICE("s", "nodeName: n1", p, 1, 1, THREE) CLAIM("c", ONE), 64,
         "c/r=p/a | c/r=p/b | c/r=p/c"},
        {"the limit keeps the first ones", CLASS SLICE("s", "nodeName: n1", p, 1, 1, THREE) CLAIM("c", ONE), 2,
         "c/r=p/a | c/r=p/b"},
        {"two of three: each set once",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1, THREE)
             CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, count: 2}}]}"),
         64, "c/r=p/a c/r=p/b | c/r=p/a c/r=p/c | c/r=p/b c/r=p/c"},
        {"constraints hold in every option",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1, THREE)
             CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, count: 2}}], "
                        "constraints: [{matchAttribute: d/numa}]}"),
         64, "c/r=p/b c/r=p/c"},
        {"two claims: the second's devices follow the first's",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1, THREE) CLAIM("c1", ONE) CLAIM("c2", ONE), 64,
         "c1/r=p/a c2/r=p/b | c1/r=p/a c2/r=p/c | c1/r=p/b c2/r=p/a | c1/r=p/b c2/r=p/c | c1/r=p/c c2/r=p/a | "
         "c1/r=p/c c2/r=p/b"},
        {"firstAvailable: the later entry not offered while the first can be satisfied",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1, THREE)
             CLAIM("c", "{requests: [{name: r, firstAvailable: [{name: two, deviceClassName: gpu, count: 2, "
                        "selectors: [{cel: {expression: 'device.attributes[\"d\"].numa == 1'}}]}, "
                        "{name: one, deviceClassName: gpu}]}]}"),
         64, "c/r/two=p/b c/r/two=p/c"},
        {"nothing fits", CLASS SLICE("s", "nodeName: n2", p, 1, 1, THREE) CLAIM("c", ONE), 64, "unschedulable"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = run(cases[i].objects, "{}", cases[i].max);
        if (strcmp(got, cases[i].want) != 0) fail_msg("%s: got \"%s\", want \"%s\"", cases[i].name, got, cases[i].want);
    }
}

/* What explain says of a node where the claims cannot be allocated. */
static void test_explain(void **state) {
    (void)state;
    static const struct {
        const char *name, *objects, *want;
    } cases[] = {
        {"a request selector nothing matches",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1, THREE)
             CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, selectors: [{cel: {expression: "
                        "'device.attributes[\"d\"].numa == 7'}}]}}]}"),
         "claim c, request r: 1 needed, 0 device(s) on the node match (class gpu: device.driver == \"d\"; selectors "
         "device.attributes[\"d\"].numa == 7), 0 of them free"},
        {"too few for the count", CLASS SLICE("s", "nodeName: n1", p, 1, 1, THREE)
             CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, count: 4}}]}"),
         "claim c, request r: 4 needed, 3 device(s) on the node match (class gpu: device.driver == \"d\"), 3 of them free"},
        {"each alone, not together",
         CLASS SLICE("s", "nodeName: n1", p, 1, 1, THREE)
             CLAIM("c", "{requests: [{name: r, exactly: {deviceClassName: gpu, count: 2}}], "
                        "constraints: [{matchAttribute: d/numa}]}") CLAIM("c2", "{requests: [{name: r, exactly: {deviceClassName: gpu, count: 2}}]}"),
         "each request could be satisfied alone, not all together (the devices they share, or a matchAttribute "
         "constraint)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = run(cases[i].objects, "{}", UINT32_MAX);
        if (strcmp(got, cases[i].want) != 0) fail_msg("%s: got \"%s\", want \"%s\"", cases[i].name, got, cases[i].want);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_explain),
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_enumerate),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
