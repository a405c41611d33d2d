/* The DRA store: objects by kind and namespace/name, replaced on update,
 * references held and released. */
#include "testutil.h"

#include "backend/dra_store.h"

static ms_interner *in;

static int setup(void **state) {
    (void)state;
    in = ms_interner_new();
    return in ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    ms_interner_free(in);
    return 0;
}

static ms_dra_object *object(ms_dra_kind kind, const char *ns, const char *name) {
    ms_dra_object *o = ms_dra_alloc(kind);
    assert_non_null(o);
    o->meta.namespace_ = ns ? ms_intern_cstr(in, ns) : MS_STR_NONE;
    o->meta.name = ms_intern_cstr(in, name);
    return o;
}

static void test_set_get_delete(void **state) {
    (void)state;
    ms_dra_store *s = ms_dra_store_new();
    assert_non_null(s);
    ms_str ml = ms_intern_cstr(in, "ml"), other = ms_intern_cstr(in, "other"), gpu = ms_intern_cstr(in, "gpu");
    ms_dra_object *claim = object(MS_DK_RESOURCE_CLAIM, "ml", "gpu");
    ms_dra_object *tmpl = object(MS_DK_RESOURCE_CLAIM_TEMPLATE, "ml", "gpu");
    ms_dra_object *cls = object(MS_DK_DEVICE_CLASS, NULL, "gpu");
    assert_int_equal(ms_dra_store_set(s, claim), 0);
    assert_int_equal(ms_dra_store_set(s, tmpl), 0);
    assert_int_equal(ms_dra_store_set(s, cls), 0);
    /* same name, other kinds and namespaces are other objects */
    assert_ptr_equal(ms_dra_store_get(s, MS_DK_RESOURCE_CLAIM, ml, gpu), claim);
    assert_ptr_equal(ms_dra_store_get(s, MS_DK_RESOURCE_CLAIM_TEMPLATE, ml, gpu), tmpl);
    assert_ptr_equal(ms_dra_store_get(s, MS_DK_DEVICE_CLASS, MS_STR_NONE, gpu), cls);
    assert_null(ms_dra_store_get(s, MS_DK_RESOURCE_CLAIM, other, gpu));
    assert_null(ms_dra_store_get(s, MS_DK_RESOURCE_SLICE, MS_STR_NONE, gpu));
    assert_int_equal(ms_dra_store_len(s, MS_DK_RESOURCE_CLAIM), 1);
    size_t seen = 0;
    const ms_dra_object *o;
    for (size_t it = 0; ms_dra_store_next(s, MS_DK_RESOURCE_CLAIM, &it, &o);) seen++, assert_ptr_equal(o, claim);
    assert_int_equal(seen, 1);

    /* an update replaces, and the store's reference to the old one goes */
    ms_dra_object *newer = object(MS_DK_RESOURCE_CLAIM, "ml", "gpu");
    ms_dra_ref(claim);
    assert_int_equal(ms_dra_store_set(s, newer), 1);
    assert_int_equal(atomic_load(&claim->refs), 2);   /* ours (alloc + ref), the store's gone */
    assert_ptr_equal(ms_dra_store_get(s, MS_DK_RESOURCE_CLAIM, ml, gpu), newer);
    assert_int_equal(ms_dra_store_len(s, MS_DK_RESOURCE_CLAIM), 1);

    /* every change counted, a delete of nothing not */
    uint64_t v = ms_dra_store_version(s);
    assert_int_equal(v, 4);
    assert_true(ms_dra_store_delete(s, MS_DK_RESOURCE_CLAIM, ml, gpu));
    assert_false(ms_dra_store_delete(s, MS_DK_RESOURCE_CLAIM, ml, gpu));
    assert_int_equal(ms_dra_store_version(s), v + 1);
    assert_null(ms_dra_store_get(s, MS_DK_RESOURCE_CLAIM, ml, gpu));
    ms_dra_store_free(s);
    ms_dra_unref(claim);
    ms_dra_unref(claim);
    ms_dra_unref(newer);
    ms_dra_unref(tmpl);
    ms_dra_unref(cls);
}

/* A pod's claims: named, generated (named in its status), not generated
 * yet, and a template entry that needed none. */
static void test_pod_claim(void **state) {
    (void)state;
    ms_dra_store *s = ms_dra_store_new();
    ms_dra_object *named = object(MS_DK_RESOURCE_CLAIM, "ml", "shared");
    ms_dra_object *gen = object(MS_DK_RESOURCE_CLAIM, "ml", "job-gpu-x2");
    assert_int_equal(ms_dra_store_set(s, named), 0);
    assert_int_equal(ms_dra_store_set(s, gen), 0);
    ms_str a = ms_intern_cstr(in, "a"), b = ms_intern_cstr(in, "b"), c = ms_intern_cstr(in, "c"),
           d = ms_intern_cstr(in, "d");
    ms_pod_resource_claim rcs[] = {{.name = a, .claim_name = ms_intern_cstr(in, "shared")},
                                   {.name = b, .claim_name = MS_STR_NONE},
                                   {.name = c, .claim_name = MS_STR_NONE},
                                   {.name = d, .claim_name = MS_STR_NONE}};
    ms_pod_resource_claim_status sts[] = {{.name = b, .claim_name = ms_intern_cstr(in, "job-gpu-x2")},
                                          {.name = d, .claim_name = MS_STR_NONE}};
    ms_pod pod = {0};
    pod.meta.namespace_ = ms_intern_cstr(in, "ml");
    pod.resource_claims = rcs;
    pod.nresource_claims = 4;
    pod.resource_claim_statuses = sts;
    pod.nresource_claim_statuses = 2;
    assert_ptr_equal(ms_dra_store_pod_claim(s, &pod, 0), named);
    assert_ptr_equal(ms_dra_store_pod_claim(s, &pod, 1), gen);
    assert_null(ms_dra_store_pod_claim(s, &pod, 2));
    assert_null(ms_dra_store_pod_claim(s, &pod, 3));
    ms_dra_store_free(s);
    ms_dra_unref(named);
    ms_dra_unref(gen);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_get_delete),
        cmocka_unit_test(test_pod_claim),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
