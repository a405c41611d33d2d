/* resource.k8s.io/v1 objects as a 1.34 API server sends them, and the
 * errors of its validation with their field paths. */
#include "testutil.h"

#include "api/dra.h"
#include "fixtures.h"
#include "codec/decode_dra.h"

FX_DECODER_FIXTURE


static ms_rc decode(ms_dra_kind kind, const char *text, ms_dra_object **out, ms_error *err) {
    cJSON *doc = fx_yaml(text);
    ms_rc rc = ms_dra_decode(&env.d, kind, doc, out, err);
    cJSON_Delete(doc);
    return rc;
}

static ms_dra_object *must(ms_dra_kind kind, const char *text) {
    ms_dra_object *o;
    ms_error err = {0};
    if (decode(kind, text, &o, &err) != MS_OK) fail_msg("decode: %s", err.msg);
    return o;
}

static void test_kinds(void **state) {
    (void)state;
    for (int k = 0; k < MS_DK_COUNT; k++)
        assert_int_equal(ms_dra_kind_from_name(ms_dra_kind_name((ms_dra_kind)k)), k);
    assert_int_equal(ms_dra_kind_from_name("PersistentVolume"), -1);
    assert_null(ms_dra_kind_name(MS_DK_COUNT));
}

static void test_device_class(void **state) {
    (void)state;
    ms_dra_object *o = must(MS_DK_DEVICE_CLASS,
                            "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n"
                            "spec:\n  selectors:\n  - cel: {expression: 'device.driver == \"gpu.example.com\"'}\n");
    assert_string_equal(T(o->meta.name), "gpu.example.com");
    assert_int_equal(o->u.dc.nselectors, 1);
    assert_string_equal(o->u.dc.selectors[0].cel, "device.driver == \"gpu.example.com\"");
    ms_dra_unref(o);
}

static void test_resource_slice(void **state) {
    (void)state;
    ms_dra_object *o = must(MS_DK_RESOURCE_SLICE,
                            "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
                            "metadata: {name: n1-gpu.example.com-x8k2}\n"
                            "spec:\n"
                            "  driver: gpu.example.com\n"
                            "  nodeName: n1\n"
                            "  pool: {name: n1, generation: 3, resourceSliceCount: 2}\n"
                            "  devices:\n"
                            "  - name: gpu-0\n"
                            "    attributes:\n"
                            "      model: {string: A100}\n"
                            "      driverVersion: {version: 1.2.3}\n"
                            "      numa.example.com/node: {int: 1}\n"
                            "      mig: {bool: false}\n"
                            "    capacity:\n"
                            "      memory: {value: 40Gi}\n"
                            "  - name: gpu-1\n");
    const ms_resource_slice *s = &o->u.slice;
    assert_string_equal(T(s->driver), "gpu.example.com");
    assert_string_equal(T(s->pool), "n1");
    assert_int_equal(s->generation, 3);
    assert_int_equal(s->slice_count, 2);
    assert_string_equal(T(s->node_name), "n1");
    assert_false(s->all_nodes);
    assert_int_equal(s->ndevices, 2);
    const ms_device *d = &s->devices[0];
    assert_string_equal(T(d->name), "gpu-0");
    assert_int_equal(d->nattributes, 4);
    /* a name without domain is the driver's */
    assert_string_equal(T(d->attributes[0].domain), "gpu.example.com");
    assert_string_equal(T(d->attributes[0].id), "model");
    assert_int_equal(d->attributes[0].type, MS_ATTR_STRING);
    assert_string_equal(T(d->attributes[0].s), "A100");
    assert_int_equal(d->attributes[1].type, MS_ATTR_VERSION);
    assert_string_equal(T(d->attributes[1].s), "1.2.3");
    assert_string_equal(T(d->attributes[2].domain), "numa.example.com");
    assert_string_equal(T(d->attributes[2].id), "node");
    assert_int_equal(d->attributes[2].type, MS_ATTR_INT);
    assert_int_equal(d->attributes[2].i, 1);
    assert_int_equal(d->attributes[3].type, MS_ATTR_BOOL);
    assert_false(d->attributes[3].b);
    assert_int_equal(d->ncapacity, 1);
    assert_string_equal(T(d->capacity[0].id), "memory");
    assert_int_equal(d->capacity[0].value, 40LL << 30);
    assert_int_equal(s->devices[1].nattributes, 0);
    ms_dra_unref(o);

    o = must(MS_DK_RESOURCE_SLICE, "metadata: {name: s}\nspec: {driver: d.example.com, allNodes: true, "
                                   "pool: {name: cluster/pool-a, generation: 0, resourceSliceCount: 1}}\n");
    assert_true(o->u.slice.all_nodes);
    assert_int_equal(o->u.slice.ndevices, 0);
    ms_dra_unref(o);

    o = must(MS_DK_RESOURCE_SLICE,
             "metadata: {name: s}\nspec: {driver: d.example.com, pool: {name: p, resourceSliceCount: 1},\n"
             "  nodeSelector: {nodeSelectorTerms: [{matchLabels: {}, matchExpressions: [{key: rack, operator: In, "
             "values: [r1]}]}]}}\n");
    assert_true(o->u.slice.has_node_selector);
    assert_int_equal(o->u.slice.node_selector.n, 1);
    ms_dra_unref(o);

    o = must(MS_DK_RESOURCE_SLICE,
             "metadata: {name: s}\nspec: {driver: d.example.com, pool: {name: p, resourceSliceCount: 1},\n"
             "  perDeviceNodeSelection: true, devices: [{name: a, nodeName: n1}, {name: b, allNodes: true}]}\n");
    assert_true(o->u.slice.per_device_node_selection);
    assert_string_equal(T(o->u.slice.devices[0].node_name), "n1");
    assert_true(o->u.slice.devices[1].all_nodes);
    ms_dra_unref(o);
}

static void test_resource_claim(void **state) {
    (void)state;
    ms_dra_object *o = must(MS_DK_RESOURCE_CLAIM,
                            "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
                            "metadata: {name: job-gpu-8xk2p, namespace: ml, uid: 5e1c}\n"
                            "spec:\n"
                            "  devices:\n"
                            "    requests:\n"
                            "    - name: gpus\n"
                            "      exactly:\n"
                            "        deviceClassName: gpu.example.com\n"
                            "        count: 2\n"
                            "        selectors: [{cel: {expression: 'device.capacity[\"gpu.example.com\"].memory"
                            ".compareTo(quantity(\"40Gi\")) >= 0'}}]\n"
                            "    - name: nic\n"
                            "      firstAvailable:\n"
                            "      - {name: rdma, deviceClassName: rdma.example.com}\n"
                            "      - {name: any, deviceClassName: nic.example.com, allocationMode: All}\n"
                            "    - name: admin\n"
                            "      exactly: {deviceClassName: gpu.example.com, allocationMode: All, adminAccess: true}\n"
                            "    constraints:\n"
                            "    - {requests: [gpus, nic/rdma], matchAttribute: numa.example.com/node}\n"
                            "status:\n"
                            "  allocation:\n"
                            "    devices:\n"
                            "      results:\n"
                            "      - {request: gpus, driver: gpu.example.com, pool: n1, device: gpu-0}\n"
                            "      - {request: gpus, driver: gpu.example.com, pool: n1, device: gpu-1}\n"
                            "    nodeSelector:\n"
                            "      nodeSelectorTerms:\n"
                            "      - matchFields: [{key: metadata.name, operator: In, values: [n1]}]\n"
                            "  reservedFor:\n"
                            "  - {resource: pods, name: job, uid: 9f3e}\n");
    const ms_resource_claim *c = &o->u.claim;
    assert_string_equal(T(o->meta.namespace_), "ml");
    assert_int_equal(c->spec.nrequests, 3);
    const ms_device_request *r = &c->spec.requests[0];
    assert_string_equal(T(r->name), "gpus");
    assert_int_equal(r->nfirst_available, 0);
    assert_string_equal(T(r->exactly.device_class), "gpu.example.com");
    assert_int_equal(r->exactly.allocation_mode, MS_ALLOC_EXACT_COUNT);
    assert_int_equal(r->exactly.count, 2);
    assert_int_equal(r->exactly.nselectors, 1);
    r = &c->spec.requests[1];
    assert_int_equal(r->nfirst_available, 2);
    assert_string_equal(T(r->first_available[0].name), "rdma");
    assert_int_equal(r->first_available[0].count, 1);
    assert_int_equal(r->first_available[1].allocation_mode, MS_ALLOC_ALL);
    r = &c->spec.requests[2];
    assert_true(r->exactly.admin_access);
    assert_int_equal(r->exactly.allocation_mode, MS_ALLOC_ALL);
    assert_int_equal(c->spec.nconstraints, 1);
    assert_int_equal(c->spec.constraints[0].nrequests, 2);
    assert_string_equal(T(c->spec.constraints[0].match_domain), "numa.example.com");
    assert_string_equal(T(c->spec.constraints[0].match_id), "node");
    assert_true(c->allocated);
    assert_int_equal(c->nresults, 2);
    assert_string_equal(T(c->results[1].device), "gpu-1");
    assert_true(c->has_node_selector);
    assert_int_equal(c->nreserved_for, 1);
    assert_string_equal(T(c->reserved_for[0].resource), "pods");
    assert_string_equal(c->reserved_for[0].uid, "9f3e");
    ms_dra_unref(o);

    o = must(MS_DK_RESOURCE_CLAIM, "metadata: {name: c}\nspec: {devices: {requests: [{name: a, exactly: "
                                   "{deviceClassName: x}}]}}\n");
    assert_string_equal(T(o->meta.namespace_), "default");
    assert_false(o->u.claim.allocated);
    ms_dra_unref(o);
}

static void test_claim_template(void **state) {
    (void)state;
    ms_dra_object *o = must(MS_DK_RESOURCE_CLAIM_TEMPLATE,
                            "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
                            "metadata: {name: one-gpu, namespace: ml}\n"
                            "spec:\n  metadata: {labels: {team: ml}}\n"
                            "  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}\n");
    assert_int_equal(o->u.tmpl.spec.nrequests, 1);
    assert_string_equal(T(o->u.tmpl.spec.requests[0].exactly.device_class), "gpu.example.com");
    ms_dra_unref(o);
}

#define SUBDOMAIN_RULE                                                                                  \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "  \
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "       \
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

static void test_errors(void **state) {
    (void)state;
    static const struct {
        ms_dra_kind kind;
        const char *text, *msg;
    } cases[] = {
        {MS_DK_DEVICE_CLASS, "metadata: {name: c}\nspec: {selectors: [{cel: {}}]}\n",
         "DeviceClass c: spec.selectors[0].cel.expression: Required value"},
        {MS_DK_DEVICE_CLASS, "metadata: {name: c}\nspec: {selectors: [{}]}\n",
         "DeviceClass c: spec.selectors[0].cel: Required value"},
        {MS_DK_RESOURCE_SLICE, "metadata: {name: s}\nspec: {driver: d, nodeName: n1}\n",
         "ResourceSlice s: spec.pool: Required value"},
        {MS_DK_RESOURCE_SLICE, "metadata: {name: s}\nspec: {nodeName: n1, pool: {name: p, resourceSliceCount: 1}}\n",
         "ResourceSlice s: spec.driver: Required value"},
        {MS_DK_RESOURCE_SLICE, "metadata: {name: s}\nspec: {driver: D_x, nodeName: n1, pool: {name: p, resourceSliceCount: 1}}\n",
         "ResourceSlice s: spec.driver: Invalid value: \"D_x\": " SUBDOMAIN_RULE},
        {MS_DK_RESOURCE_SLICE, "metadata: {name: s}\nspec: {driver: d, nodeName: n1, pool: {name: p}}\n",
         "ResourceSlice s: spec.pool.resourceSliceCount: Invalid value: \"0\": must be greater than zero"},
        {MS_DK_RESOURCE_SLICE, "metadata: {name: s}\nspec: {driver: d, pool: {name: p, resourceSliceCount: 1}}\n",
         "ResourceSlice s: spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
         "`perDeviceNodeSelection` is required"},
        {MS_DK_RESOURCE_SLICE,
         "metadata: {name: s}\nspec: {driver: d, nodeName: n1, allNodes: true, pool: {name: p, resourceSliceCount: 1}}\n",
         "ResourceSlice s: spec: Invalid value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
         "`perDeviceNodeSelection` is required"},
        {MS_DK_RESOURCE_SLICE,
         "metadata: {name: s}\nspec: {driver: d, nodeName: n1, pool: {name: p, resourceSliceCount: 1},\n"
         "  devices: [{name: a}, {name: a}]}\n",
         "ResourceSlice s: spec.devices[1].name: Duplicate value: \"a\""},
        {MS_DK_RESOURCE_SLICE,
         "metadata: {name: s}\nspec: {driver: d, nodeName: n1, pool: {name: p, resourceSliceCount: 1},\n"
         "  devices: [{name: a, attributes: {model: {}}}]}\n",
         "ResourceSlice s: spec.devices[0].attributes.model: Required value: exactly one value must be specified"},
        {MS_DK_RESOURCE_SLICE,
         "metadata: {name: s}\nspec: {driver: d, nodeName: n1, pool: {name: p, resourceSliceCount: 1},\n"
         "  devices: [{name: a, attributes: {model: {int: 1, string: x}}}]}\n",
         "ResourceSlice s: spec.devices[0].attributes.model: Invalid value: exactly one value must be specified"},
        {MS_DK_RESOURCE_SLICE,
         "metadata: {name: s}\nspec: {driver: d, nodeName: n1, pool: {name: p, resourceSliceCount: 1},\n"
         "  devices: [{name: a, attributes: {9lives: {int: 1}}}]}\n",
         "ResourceSlice s: spec.devices[0].attributes.9lives: Invalid value: \"9lives\": a valid C identifier must "
         "start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. "
         "'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')"},
        {MS_DK_RESOURCE_SLICE,
         "metadata: {name: s}\nspec: {driver: d, nodeName: n1, pool: {name: p, resourceSliceCount: 1},\n"
         "  devices: [{name: a, capacity: {memory: {value: 4mi}}}]}\n",
         "ResourceSlice s: spec.devices[0].capacity.memory: value: \"4mi\": unable to parse quantity's suffix"},
        {MS_DK_RESOURCE_SLICE,
         "metadata: {name: s}\nspec: {driver: d, nodeName: n1, pool: {name: p, resourceSliceCount: 1},\n"
         "  devices: [{name: a, nodeName: n2}]}\n",
         "ResourceSlice s: spec.devices[0].nodeName: Forbidden: only allowed when `perDeviceNodeSelection` is set"},
        {MS_DK_RESOURCE_CLAIM, "metadata: {name: c}\nspec: {devices: {requests: [{name: a}]}}\n",
         "ResourceClaim default/c: spec.devices.requests[0]: Required value: exactly one of `exactly` or "
         "`firstAvailable` is required"},
        {MS_DK_RESOURCE_CLAIM, "metadata: {name: c}\nspec: {devices: {requests: [{name: a, exactly: {}}]}}\n",
         "ResourceClaim default/c: spec.devices.requests[0].exactly.deviceClassName: Required value"},
        {MS_DK_RESOURCE_CLAIM,
         "metadata: {name: c}\nspec: {devices: {requests: [{name: a, exactly: {deviceClassName: x, count: 0}}]}}\n",
         "ResourceClaim default/c: spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than zero"},
        {MS_DK_RESOURCE_CLAIM,
         "metadata: {name: c}\nspec: {devices: {requests: [{name: a, exactly: {deviceClassName: x, "
         "allocationMode: Some}}]}}\n",
         "ResourceClaim default/c: spec.devices.requests[0].exactly.allocationMode: Unsupported value: \"Some\": "
         "supported values: \"All\", \"ExactCount\""},
        {MS_DK_RESOURCE_CLAIM,
         "metadata: {name: c}\nspec: {devices: {requests: [{name: a, exactly: {deviceClassName: x}, "
         "firstAvailable: [{name: s, deviceClassName: x}]}]}}\n",
         "ResourceClaim default/c: spec.devices.requests[0]: Invalid value: exactly one of `exactly` or "
         "`firstAvailable` is required, but multiple fields are set"},
        {MS_DK_RESOURCE_CLAIM,
         "metadata: {name: c}\nspec: {devices: {requests: [{name: a, firstAvailable: [{name: s, deviceClassName: x}, "
         "{name: s, deviceClassName: y}]}]}}\n",
         "ResourceClaim default/c: spec.devices.requests[0].firstAvailable[1].name: Duplicate value: \"s\""},
        {MS_DK_RESOURCE_CLAIM,
         "metadata: {name: c}\nspec: {devices: {requests: [{name: a, exactly: {deviceClassName: x}}],\n"
         "  constraints: [{requests: [b], matchAttribute: d.example.com/numa}]}}\n",
         "ResourceClaim default/c: spec.devices.constraints[0].requests[0]: Invalid value: \"b\": must be the name of "
         "a request in the claim or the name of a request and a subrequest separated by '/'"},
        {MS_DK_RESOURCE_CLAIM,
         "metadata: {name: c}\nspec: {devices: {requests: [{name: a, exactly: {deviceClassName: x}}],\n"
         "  constraints: [{matchAttribute: numa}]}}\n",
         "ResourceClaim default/c: spec.devices.constraints[0].matchAttribute: Invalid value: \"numa\": a fully "
         "qualified attribute name must include a domain"},
        {MS_DK_RESOURCE_CLAIM,
         "metadata: {name: c}\nstatus: {allocation: {devices: {results: [{request: a, driver: d, pool: p}]}}}\n",
         "ResourceClaim default/c: status.allocation.devices.results[0].device: Required value"},
        {MS_DK_RESOURCE_CLAIM, "metadata: {name: c}\nstatus: {reservedFor: [{resource: pods, name: p}]}\n",
         "ResourceClaim default/c: status.reservedFor[0].uid: Required value"},
        {MS_DK_RESOURCE_CLAIM_TEMPLATE, "metadata: {name: t, namespace: ml}\nspec: {spec: {devices: {requests: [{}]}}}\n",
         "ResourceClaimTemplate ml/t: spec.spec.devices.requests[0].name: Required value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_dra_object *o = (ms_dra_object *)1;
        ms_error err = {0};
        if (decode(cases[i].kind, cases[i].text, &o, &err) == MS_OK) fail_msg("case %zu decoded", i);
        assert_null(o);
        if (strcmp(err.msg, cases[i].msg) != 0) fail_msg("case %zu: got \"%s\", want \"%s\"", i, err.msg, cases[i].msg);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_device_class),
        cmocka_unit_test(test_resource_slice),
        cmocka_unit_test(test_resource_claim),
        cmocka_unit_test(test_claim_template),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
