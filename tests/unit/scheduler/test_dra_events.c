/* resource.k8s.io deltas into the scheduler: they reach its store, and a
 * claim, slice or class added or updated moves the pods DynamicResources
 * held back or rejected, which are then tried again (upstream's
 * EventsToRegister). With a claim writer (run's path), PreBind hands the
 * claims' status to it and waits for the informers to show them; a write
 * that failed ends the binding cycle, and Unreserve frees the devices. */
#include "scheduler_env.h"

#include "backend/queue.h"
#include "framework/claim_writer.h"
#include "scheduler/dra_events.h"
#include "fixtures.h"

static const char *const dra_plugins[] = {"PrioritySort", "DynamicResources", "DefaultBinder", NULL};

static void set(env *e, ms_dra_kind kind, const char *yaml, double now) {
    ms_dra_object *o = fx_dra(&e->dec, kind, yaml);
    assert_int_equal(ms_scheduler_dra_set(e->s, o, now), MS_OK);
    ms_dra_unref(o);
}

static void test_events_move_waiting_pods(void **state) {
    (void)state;
    env *e = env_new_profile(100, 1, false, dra_plugins);
    ms_scheduler_dra_provided(e->s);
    add_node(e, "n1", "4", NULL, NULL);
    add_pod(e, "p", "100m", ",\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"c\"}]");
    ms_queue *q = ms_scheduler_queue(e->s);
    /* the claim does not exist: held back by PreEnqueue */
    assert_int_equal(e->ngated, 1);
    assert_string_equal(e->gated_reason, "could not find ResourceClaim \"default/c\"");
    assert_int_equal(ms_queue_len_gated(q), 1);

    /* a template is nothing the pod waits for */
    set(e, MS_DK_RESOURCE_CLAIM_TEMPLATE,
        "metadata: {name: t}\nspec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}}", 1);
    assert_int_equal(ms_queue_len_gated(q), 1);
    /* the claim: let in, tried, rejected for its missing class */
    set(e, MS_DK_RESOURCE_CLAIM, "metadata: {name: c}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}",
        2);
    assert_int_equal(ms_queue_len_gated(q), 0);
    assert_true(ms_scheduler_schedule_one(e->s, 2));
    assert_int_equal(e->nunschedulable, 1);
    assert_non_null(strstr(e->last_message, "request r: device class gpu does not exist"));
    assert_int_equal(ms_queue_len_unschedulable(q), 1);

    /* the class: tried again, no device yet */
    set(e, MS_DK_DEVICE_CLASS, "metadata: {name: gpu}\nspec: {selectors: [{cel: {expression: 'device.driver == \"d\"'}}]}", 3);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    ms_scheduler_tick(e->s, 100);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_int_equal(e->nunschedulable, 2);
    assert_non_null(strstr(e->last_message, "1 cannot allocate all claims"));

    /* a slice with a device on n1: placed */
    set(e, MS_DK_RESOURCE_SLICE,
        "metadata: {name: s}\nspec: {driver: d, nodeName: n1, pool: {name: n1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}",
        101);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    ms_scheduler_tick(e->s, 200);
    assert_true(ms_scheduler_schedule_one(e->s, 200));
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "n1");

    /* PreBind wrote the claim: allocated to gpu-0 on n1, reserved for the pod */
    const ms_dra_object *c = ms_dra_store_get(ms_scheduler_dra_store(e->s), MS_DK_RESOURCE_CLAIM,
                                              ms_intern_cstr(e->in, "default"), ms_intern_cstr(e->in, "c"));
    assert_non_null(c);
    assert_true(c->u.claim.allocated);
    assert_int_equal(c->u.claim.nresults, 1);
    assert_string_equal(ms_str_get(e->in, c->u.claim.results[0].device), "gpu-0");
    assert_true(c->u.claim.has_node_selector);
    assert_int_equal(c->u.claim.nreserved_for, 1);
    assert_string_equal(ms_str_get(e->in, c->u.claim.reserved_for[0].name), "p");
    env_free(e);
}

/* upstream's QueueingHints: a waiting pod moves only on a change that can
 * help it. Its attempts count the moves: an event that moved it would
 * show as one more attempt. */
static void test_hints_move_only_pods_a_change_can_help(void **state) {
    (void)state;
    env *e = env_new_profile(100, 1, false, dra_plugins);
    ms_scheduler_dra_provided(e->s);
    add_node(e, "n1", "4", NULL, NULL);
    set(e, MS_DK_DEVICE_CLASS, "metadata: {name: gpu}\nspec: {selectors: [{cel: {expression: 'device.driver == \"d\"'}}]}", 1);
    set(e, MS_DK_RESOURCE_CLAIM, "metadata: {name: c}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}",
        1);
    add_pod(e, "p", "100m", ",\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"c\"}]");
    /* a second pod whose claim does not exist yet: held back */
    add_pod(e, "w", "100m", ",\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"missing\"}]");
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_gated(q), 1);
    assert_true(ms_scheduler_schedule_one(e->s, 2));
    assert_int_equal(e->nunschedulable, 1);
    assert_non_null(strstr(e->last_message, "1 cannot allocate all claims"));
    assert_int_equal(ms_queue_len_unschedulable(q), 1);

    /* another pod's claim added, then updated (allocated): not p's */
    set(e, MS_DK_RESOURCE_CLAIM,
        "metadata: {name: other}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}", 3);
    set(e, MS_DK_RESOURCE_CLAIM,
        "metadata: {name: other}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n"
        "status: {allocation: {devices: {results: [{request: r, driver: d, pool: x, device: g}]}}}",
        4);
    /* p's own claim updated, its status unchanged (a label, say) */
    set(e, MS_DK_RESOURCE_CLAIM,
        "metadata: {name: c, labels: {a: b}}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}", 5);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);
    ms_scheduler_tick(e->s, 100);
    assert_false(ms_scheduler_schedule_one(e->s, 100));
    assert_int_equal(e->nunschedulable, 1);

    /* a slice does not help w, whose claim is missing: it stays held back */
    set(e, MS_DK_RESOURCE_SLICE,
        "metadata: {name: s0}\nspec: {driver: other, nodeName: n1, pool: {name: n1, resourceSliceCount: 1}, devices: [{name: x}]}",
        101);
    assert_int_equal(ms_queue_len_gated(q), 1);
    /* but it may help p: tried again (no device of driver d yet) */
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    ms_scheduler_tick(e->s, 150);
    assert_true(ms_scheduler_schedule_one(e->s, 150));
    assert_int_equal(e->nunschedulable, 2);

    /* the other claim deallocated frees a device: p is tried again */
    set(e, MS_DK_RESOURCE_CLAIM,
        "metadata: {name: other}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}", 151);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    ms_scheduler_tick(e->s, 200);
    assert_true(ms_scheduler_schedule_one(e->s, 200));
    assert_int_equal(e->nunschedulable, 3);
    env_free(e);
}

/* A claim writer that keeps what it was given. */
typedef struct writes {
    uint32_t n, nunreserved, ndeallocated;
    char unreserved[64], deallocated[64];
    char pod[64], device[64];
    bool allocate;
    uint32_t nreserved;
} writes;

static ms_rc keep_write(void *ctx, const ms_pod *pod, const ms_claim_write *w, uint32_t n, ms_error *err) {
    (void)err;
    writes *k = ctx;
    assert_int_equal(n, 1);
    k->n++;
    snprintf(k->pod, sizeof k->pod, "%s", pod->meta.uid);
    k->allocate = w[0].allocate;
    k->nreserved = w[0].status->u.claim.nreserved_for;
    snprintf(k->device, sizeof k->device, "%s", w[0].status->u.claim.nresults == 1 ? "one" : "other");
    return MS_OK;
}

static void keep_unreserve(void *ctx, const ms_pod *pod, const ms_dra_object *const *claims, uint32_t n) {
    writes *k = ctx;
    (void)pod;
    k->nunreserved += n;
    snprintf(k->unreserved, sizeof k->unreserved, "%s", claims[0]->meta.uid);
}

static void keep_deallocate(void *ctx, const ms_pod *pod, const ms_dra_object *claim) {
    writes *k = ctx;
    (void)pod;
    k->ndeallocated++;
    snprintf(k->deallocated, sizeof k->deallocated, "%s", claim->meta.uid);
}

static ms_pod *add_claim_pod(env *e, const char *name, const char *claim, double now) {
    char buf[512];
    snprintf(buf, sizeof buf,
             "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"uid-%s\"},"
             "\"spec\":{\"containers\":[{\"name\":\"c\"}],\"resourceClaims\":[{\"name\":\"gpu\","
             "\"resourceClaimName\":\"%s\"}]}}",
             name, name, claim);
    ms_pod *p = decode_pod(e, buf);
    ms_scheduler_pod_add(e->s, p, now);
    return p;
}

#define CLAIM_SPEC "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}"

static void test_run_path_waits_for_the_claims(void **state) {
    (void)state;
    writes k = {0};
    ms_claim_writer w = {.ctx = &k, .write = keep_write, .unreserve = keep_unreserve};
    env *e = env_new_writer(100, 1, false, dra_plugins, false, &w);
    ms_scheduler_dra_provided(e->s);
    add_node(e, "n1", "4", NULL, NULL);
    set(e, MS_DK_DEVICE_CLASS, "metadata: {name: gpu}\nspec: {selectors: [{cel: {expression: 'device.driver == \"d\"'}}]}", 0);
    set(e, MS_DK_RESOURCE_SLICE,
        "metadata: {name: s}\nspec: {driver: d, nodeName: n1, pool: {name: n1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}",
        0);
    set(e, MS_DK_RESOURCE_CLAIM, "metadata: {name: c1, uid: u1, resourceVersion: '5'}\n" CLAIM_SPEC, 0);
    set(e, MS_DK_RESOURCE_CLAIM, "metadata: {name: c2, uid: u2, resourceVersion: '6'}\n" CLAIM_SPEC, 0);
    ms_pod *p1 = add_claim_pod(e, "p1", "c1", 0);
    assert_true(ms_scheduler_schedule_one(e->s, 1));
    /* PreBind handed the claim to the writer and waits: nothing bound */
    assert_int_equal(k.n, 1);
    assert_string_equal(k.pod, "uid-p1");
    assert_true(k.allocate);
    assert_string_equal(k.device, "one");
    assert_int_equal(k.nreserved, 1);
    assert_int_equal(e->nbinds, 0);
    assert_int_equal(ms_scheduler_binding_count(e->s), 1);

    /* gpu-0 is in flight for p1: p2 cannot have it */
    add_claim_pod(e, "p2", "c2", 1);
    assert_true(ms_scheduler_schedule_one(e->s, 2));
    assert_int_equal(e->nunschedulable, 1);
    assert_non_null(strstr(e->last_message, "1 cannot allocate all claims"));

    /* the write failed (409 retried, then allocated elsewhere): the
     * binding cycle fails, Unreserve frees gpu-0 */
    ms_scheduler_claim_write_failed(e->s, p1, "claim default/c1 got allocated elsewhere in the meantime", 3);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(e->nbinding_errors, 1);
    assert_non_null(strstr(e->binding_error, "got allocated elsewhere in the meantime"));
    assert_int_equal(e->nbinds, 0);
    /* a slice update moves p2, which gets gpu-0 now */
    set(e, MS_DK_RESOURCE_SLICE,
        "metadata: {name: s}\nspec: {driver: d, nodeName: n1, pool: {name: n1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}",
        4);
    ms_scheduler_tick(e->s, 100);
    bool p2_written = false;
    for (int i = 0; i < 3 && !p2_written; i++) {
        if (!ms_scheduler_schedule_one(e->s, 100 + i)) break;
        p2_written = k.n == 2 && strcmp(k.pod, "uid-p2") == 0;
    }
    assert_true(p2_written);
    assert_int_equal(e->nbinds, 0);

    /* the informers bring c2 written: allocated and reserved for p2, bound */
    set(e, MS_DK_RESOURCE_CLAIM,
        "metadata: {name: c2, uid: u2, resourceVersion: '7'}\n" CLAIM_SPEC "\n"
        "status: {allocation: {devices: {results: [{request: r, driver: d, pool: n1, device: gpu-0}]}},"
        " reservedFor: [{resource: pods, name: p2, uid: uid-p2}]}",
        110);
    assert_int_equal(e->nbinds, 1);
    assert_string_equal(ms_str_get(e->in, e->binds[0].node), "n1");
    assert_int_equal(k.nunreserved, 0);   /* p1's write failed: nothing to take back */

    /* the bind fails: Unreserve takes p2 out of c2's reservedFor, on the
     * server: the informers' copy stays as they brought it */
    complete_binds(e, false, false, 111);
    assert_int_equal(k.nunreserved, 1);
    assert_string_equal(k.unreserved, "u2");
    const ms_dra_object *c2 = ms_dra_store_get(ms_scheduler_dra_store(e->s), MS_DK_RESOURCE_CLAIM,
                                               ms_intern_cstr(e->in, "default"), ms_intern_cstr(e->in, "c2"));
    assert_non_null(c2);
    assert_int_equal(c2->u.claim.nreserved_for, 1);
    env_free(e);
}

/* PostFilter on run's path: a claim allocated for a node the pod cannot
 * have, reserved for nobody, is deallocated through the writer, as
 * upstream's UpdateStatus; the informers' copy waits for the update. */
static void test_run_path_post_filter_deallocates_through_the_writer(void **state) {
    (void)state;
    writes k = {0};
    ms_claim_writer w = {.ctx = &k, .write = keep_write, .unreserve = keep_unreserve, .deallocate = keep_deallocate};
    env *e = env_new_writer(100, 1, false, dra_plugins, false, &w);
    ms_scheduler_dra_provided(e->s);
    add_node(e, "n1", "4", NULL, NULL);
    set(e, MS_DK_DEVICE_CLASS, "metadata: {name: gpu}\nspec: {selectors: [{cel: {expression: 'device.driver == \"d\"'}}]}", 0);
    set(e, MS_DK_RESOURCE_CLAIM,
        "metadata: {name: c3, uid: u3, resourceVersion: '8'}\n" CLAIM_SPEC "\n"
        "status: {allocation: {devices: {results: [{request: r, driver: d, pool: n2, device: gpu-0}]},"
        " nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n2]}]}]}}}",
        0);
    add_claim_pod(e, "p3", "c3", 0);
    assert_true(ms_scheduler_schedule_one(e->s, 1));
    assert_int_equal(e->nunschedulable, 1);
    assert_non_null(strstr(e->last_message, "deallocation of ResourceClaim completed"));
    assert_int_equal(k.ndeallocated, 1);
    assert_string_equal(k.deallocated, "u3");
    assert_int_equal(k.n, 0);
    const ms_dra_object *c3 = ms_dra_store_get(ms_scheduler_dra_store(e->s), MS_DK_RESOURCE_CLAIM,
                                               ms_intern_cstr(e->in, "default"), ms_intern_cstr(e->in, "c3"));
    assert_non_null(c3);
    assert_true(c3->u.claim.allocated);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_move_waiting_pods),
        cmocka_unit_test(test_hints_move_only_pods_a_change_can_help),
        cmocka_unit_test(test_run_path_waits_for_the_claims),
        cmocka_unit_test(test_run_path_post_filter_deallocates_through_the_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
