/* resource.k8s.io deltas into the scheduler: they reach its store, and a
 * claim, slice or class added or updated moves the pods DynamicResources
 * held back or rejected, which are then tried again (upstream's
 * EventsToRegister). */
#include "scheduler_env.h"

#include "backend/queue.h"
#include "scheduler/dra_events.h"
#include "codec/decode_dra.h"

static const char *const dra_plugins[] = {"PrioritySort", "DynamicResources", "DefaultBinder", NULL};

static void set(env *e, ms_dra_kind kind, const char *yaml, double now) {
    cJSON **docs = NULL;
    size_t n = 0;
    ms_error err = {0};
    if (ms_yaml_parse(yaml, strlen(yaml), &docs, &n, &err) != MS_OK) fail_msg("yaml: %s", err.msg);
    ms_dra_object *o = NULL;
    if (ms_dra_decode(&e->dec, kind, docs[0], &o, &err) != MS_OK) fail_msg("decode: %s", err.msg);
    cJSON_Delete(docs[0]);
    free(docs);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_move_waiting_pods),
        cmocka_unit_test(test_hints_move_only_pods_a_change_can_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
