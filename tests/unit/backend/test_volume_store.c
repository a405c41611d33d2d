/* The volume store: add, update, remove by kind and key; the PVs of a
 * class; the assume layer (assume, restore, superseded by a newer API
 * object, kept over an older one). */
#include "testutil.h"

#include "backend/volume_store.h"
#include "fixtures.h"

FX_DECODER_FIXTURE


static ms_storage_object *pv(const char *name, const char *cls, const char *rv) {
    char text[256];
    snprintf(text, sizeof text, "metadata: {name: %s, resourceVersion: \"%s\"}\nspec: {storageClassName: %s}",
             name, rv, cls);
    return fx_storage(&env.d, MS_SK_PV, text);
}

static void put(ms_volume_store *s, ms_storage_object *o, bool want_existed) {
    bool existed = !want_existed;
    assert_int_equal(ms_volume_store_set(s, o, &existed), MS_OK);
    assert_int_equal(existed, want_existed);
    ms_storage_unref(o);
}

static uint32_t class_count(const ms_volume_store *s, const char *cls) {
    return ms_volume_store_class_pvs(s, cls ? S(cls) : MS_STR_NONE, NULL, 0);
}

static const ms_storage_object *class_first(const ms_volume_store *s, const char *cls) {
    const ms_storage_object *o[1] = {NULL};
    ms_volume_store_class_pvs(s, S(cls), o, 1);
    return o[0];
}

static void test_set_get_remove(void **state) {
    (void)state;
    ms_volume_store *s = ms_volume_store_new(env.in);
    put(s, pv("a", "fast", "1"), false);
    put(s, pv("b", "fast", "1"), false);
    put(s, pv("c", "slow", "1"), false);
    put(s, fx_storage(&env.d, MS_SK_PVC, "metadata: {name: a, namespace: ns1}"), false);
    assert_int_equal(ms_volume_store_count(s, MS_SK_PV), 3);
    assert_int_equal(ms_volume_store_count(s, MS_SK_PVC), 1);
    /* same name, other kind or namespace: other objects */
    assert_non_null(ms_volume_store_get(s, MS_SK_PVC, S("ns1"), S("a")));
    assert_null(ms_volume_store_get(s, MS_SK_PVC, S("ns2"), S("a")));
    assert_null(ms_volume_store_get(s, MS_SK_STORAGE_CLASS, MS_STR_NONE, S("a")));
    assert_int_equal(class_count(s, "fast"), 2);
    assert_int_equal(class_count(s, "slow"), 1);
    /* an update that moves a PV to another class moves it in the index */
    put(s, pv("b", "slow", "2"), true);
    assert_int_equal(class_count(s, "fast"), 1);
    assert_int_equal(class_count(s, "slow"), 2);
    assert_int_equal(ms_volume_store_remove(s, MS_SK_PV, MS_STR_NONE, S("c")), MS_OK);
    assert_int_equal(ms_volume_store_remove(s, MS_SK_PV, MS_STR_NONE, S("c")), MS_ENOENT);
    assert_int_equal(class_count(s, "slow"), 1);
    assert_ptr_equal(class_first(s, "slow"), ms_volume_store_get(s, MS_SK_PV, MS_STR_NONE, S("b")));
    size_t it = 0;
    uint32_t n = 0;
    while (ms_volume_store_next(s, MS_SK_PV, &it)) n++;
    assert_int_equal(n, 2);
    ms_volume_store_free(s);
    assert_null(ms_volume_store_get(NULL, MS_SK_PV, MS_STR_NONE, S("a")));
}

static void test_assume_restore(void **state) {
    (void)state;
    ms_volume_store *s = ms_volume_store_new(env.in);
    put(s, pv("a", "fast", "5"), false);
    const ms_storage_object *api = ms_volume_store_get(s, MS_SK_PV, MS_STR_NONE, S("a"));
    ms_storage_object *copy = ms_storage_copy((ms_storage_object *)api);
    copy->u.pv.has_claim_ref = true;
    copy->u.pv.claim_name = S("claim");
    uint64_t g = ms_volume_store_generation(s);
    assert_int_equal(ms_volume_store_assume(s, copy), MS_OK);
    assert_true(ms_volume_store_generation(s) > g);
    assert_true(ms_volume_store_is_assumed(s, MS_SK_PV, MS_STR_NONE, S("a")));
    assert_ptr_equal(ms_volume_store_get(s, MS_SK_PV, MS_STR_NONE, S("a")), copy);
    assert_ptr_equal(ms_volume_store_api_get(s, MS_SK_PV, MS_STR_NONE, S("a")), api);
    /* the class index sees the assumed object */
    assert_ptr_equal(class_first(s, "fast"), copy);
    ms_volume_store_restore(s, MS_SK_PV, MS_STR_NONE, S("a"));
    assert_false(ms_volume_store_is_assumed(s, MS_SK_PV, MS_STR_NONE, S("a")));
    assert_ptr_equal(ms_volume_store_get(s, MS_SK_PV, MS_STR_NONE, S("a")), api);

    /* an informer update of the same or an older version keeps the
     * assumption; a newer one replaces it */
    assert_int_equal(ms_volume_store_assume(s, copy), MS_OK);
    put(s, pv("a", "fast", "5"), true);
    assert_ptr_equal(ms_volume_store_get(s, MS_SK_PV, MS_STR_NONE, S("a")), copy);
    put(s, pv("a", "fast", "6"), true);
    assert_false(ms_volume_store_is_assumed(s, MS_SK_PV, MS_STR_NONE, S("a")));
    /* assuming an older object than the latest is refused */
    assert_int_equal(ms_volume_store_assume(s, copy), MS_ESTATE);
    ms_storage_unref(copy);
    /* unknown objects cannot be assumed */
    ms_storage_object *other = pv("zz", "fast", "1");
    assert_int_equal(ms_volume_store_assume(s, other), MS_ENOENT);
    ms_storage_unref(other);
    ms_volume_store_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_get_remove),
        cmocka_unit_test(test_assume_restore),
    };
    return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
