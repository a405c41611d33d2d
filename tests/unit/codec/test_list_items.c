#include "testutil.h"

#include <cjson/cJSON.h>

#include "base/rng.h"
#include "codec/list_items.h"

typedef struct got {
    cJSON *items;   /* each item parsed, in order */
    int n;
    int stop_after;   /* 0: never */
} got;

static int collect(void *ctx, char *text, size_t len) {
    got *g = ctx;
    assert_int_equal(strlen(text), len);
    cJSON *it = cJSON_Parse(text);
    assert_non_null(it);
    cJSON_AddItemToArray(g->items, it);
    g->n++;
    return g->stop_after && g->n == g->stop_after ? 7 : 0;
}

/* Feeds doc in the chunks that cuts[] (ascending offsets) make; returns
 * the last feed's result and leaves the envelope in env. */
static int feed_cut(ms_list_items *s, const char *doc, const size_t *cuts, int ncuts, ms_buf *env, got *g) {
    size_t len = strlen(doc), at = 0;
    for (int i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : len;
        int r = ms_list_items_feed(s, doc + at, end - at, env, collect, g);
        if (r != 0) return r;
        at = end;
    }
    return 0;
}

/* The items the whole document's parse has, and the document with them
 * taken out: what the splitter must deliver and keep. */
static void expect_split(const char *doc, cJSON **items, cJSON **envelope) {
    cJSON *d = cJSON_Parse(doc);
    assert_non_null(d);
    cJSON *its = cJSON_DetachItemFromObjectCaseSensitive(d, "items");
    *items = its ? its : cJSON_CreateArray();
    if (its) {
        /* the envelope keeps the member where it was, emptied */
        cJSON *fresh = cJSON_Parse(doc);
        cJSON_ReplaceItemInObjectCaseSensitive(fresh, "items", cJSON_CreateArray());
        cJSON_Delete(d);
        d = fresh;
    }
    *envelope = d;
}

static void check_doc(const char *doc, const size_t *cuts, int ncuts) {
    cJSON *want_items, *want_env;
    expect_split(doc, &want_items, &want_env);
    ms_list_items s;
    ms_list_items_init(&s, 0);
    ms_buf env = {0};
    got g = {.items = cJSON_CreateArray()};
    assert_int_equal(feed_cut(&s, doc, cuts, ncuts, &env, &g), 0);
    assert_true(ms_list_items_complete(&s));
    assert_true(cJSON_Compare(g.items, want_items, true));
    cJSON *e = cJSON_Parse(env.data ? env.data : "");
    assert_non_null(e);
    assert_true(cJSON_Compare(e, want_env, true));
    cJSON_Delete(e);
    cJSON_Delete(g.items);
    cJSON_Delete(want_items);
    cJSON_Delete(want_env);
    ms_buf_free(&env);
    ms_list_items_free(&s);
}

/* A List as the API server writes it, with what could mislead a scan:
 * brackets, commas, quotes and backslashes inside strings, a member
 * called "items" inside metadata and inside an item. Every cut into two
 * or three chunks gives the same items and envelope. */
static void test_any_chunking(void **state) {
    (void)state;
    const char *doc = "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\n"
                      " \"metadata\":{\"resourceVersion\":\"12\",\"items\":[{\"no\":1}],\"x\":\"]},{\"},\n"
                      " \"items\" : [ {\"metadata\":{\"name\":\"a\\\"}{\"},\"items\":[[1],{\"b\":[]}]},\n"
                      "  {\"metadata\":{\"name\":\"c\\\\\"},\"spec\":{\"s\":\"[,\"}} ,[\"array\",{}] ],\n"
                      " \"after\":[true,null,-1.5e3]}\n";
    size_t len = strlen(doc);
    for (size_t a = 0; a <= len; a++) {
        size_t one[1] = {a};
        check_doc(doc, one, 1);
        for (size_t b = a; b <= len; b += 7) {
            size_t two[2] = {a, b};
            check_doc(doc, two, 2);
        }
    }
}

/* Random documents: random values nested three deep as items, members
 * before and after "items", written compact and indented, fed in random
 * chunks; the splitter agrees with cJSON's parse of the whole. */
static cJSON *random_value(ms_rng *r, int depth) {
    static const char *words[] = {"a", "items", "{", "}", "[x]", "\"q\"", "back\\slash", ",", ":", ""};
    switch (ms_rng_below(r, depth > 0 ? 6 : 4)) {
    case 0:
        return cJSON_CreateNumber((double)ms_rng_below(r, 1000) - 500);
    case 1:
        return cJSON_CreateString(words[ms_rng_below(r, 10)]);
    case 2:
        return ms_rng_below(r, 2) ? cJSON_CreateNull() : cJSON_CreateBool(ms_rng_below(r, 2));
    case 3:
        return cJSON_CreateString("plain");
    case 4: {
        cJSON *a = cJSON_CreateArray();
        for (uint64_t i = ms_rng_below(r, 4); i > 0; i--) cJSON_AddItemToArray(a, random_value(r, depth - 1));
        return a;
    }
    default: {
        cJSON *o = cJSON_CreateObject();
        for (uint64_t i = ms_rng_below(r, 4); i > 0; i--) {
            char k[16];
            snprintf(k, sizeof k, "%s%d", words[ms_rng_below(r, 10)], (int)i);
            cJSON_AddItemToObject(o, k, random_value(r, depth - 1));
        }
        return o;
    }
    }
}

static void test_random_documents(void **state) {
    (void)state;
    ms_rng r;
    ms_rng_seed(&r, 27);
    for (int round = 0; round < 400; round++) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "kind", "List");
        if (ms_rng_below(&r, 2)) cJSON_AddItemToObject(d, "metadata", random_value(&r, 3));
        cJSON *items = cJSON_AddArrayToObject(d, "items");
        for (uint64_t i = ms_rng_below(&r, 6); i > 0; i--) {
            cJSON *it = ms_rng_below(&r, 8) ? cJSON_CreateObject() : cJSON_CreateArray();
            for (uint64_t k = ms_rng_below(&r, 4); k > 0; k--) {
                if (cJSON_IsArray(it)) {
                    cJSON_AddItemToArray(it, random_value(&r, 3));
                } else {
                    char key[16];
                    snprintf(key, sizeof key, "k%d", (int)k);
                    cJSON_AddItemToObject(it, key, random_value(&r, 3));
                }
            }
            cJSON_AddItemToArray(items, it);
        }
        if (ms_rng_below(&r, 2)) cJSON_AddItemToObject(d, "tail", random_value(&r, 3));
        char *doc = ms_rng_below(&r, 2) ? cJSON_Print(d) : cJSON_PrintUnformatted(d);
        size_t len = strlen(doc), cuts[6];
        int ncuts = (int)ms_rng_below(&r, 7);
        for (int i = 0; i < ncuts; i++) cuts[i] = (size_t)ms_rng_below(&r, len + 1);
        for (int i = 1; i < ncuts; i++)   /* ascending */
            for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                size_t t = cuts[j];
                cuts[j] = cuts[j - 1];
                cuts[j - 1] = t;
            }
        check_doc(doc, cuts, ncuts);
        free(doc);
        cJSON_Delete(d);
    }
}

static int feed_all(const char *doc, size_t max_item, got *g, ms_buf *env, bool *complete) {
    ms_list_items s;
    ms_list_items_init(&s, max_item);
    int r = ms_list_items_feed(&s, doc, strlen(doc), env, collect, g);
    *complete = ms_list_items_complete(&s);
    ms_list_items_free(&s);
    return r;
}

static void test_errors_and_stop(void **state) {
    (void)state;
    struct {
        const char *doc;
        int want;
        bool complete;
    } cases[] = {
        {"[{\"a\":1}]", -1, false},                          /* not an object */
        {"{\"items\":[1]}", -1, false},                      /* an element that is not an object or array */
        {"{\"items\":[\"s\"]}", -1, false},
        {"{\"items\":[{\"a\":1}]} x", -1, true},             /* something after the document */
        {"{\"items\":[{\"a\":1}]}}", -1, true},
        {"{\"items\":[{\"a\":1}", 0, false},                 /* cut short: not complete */
        {"{\"items\":[]}", 0, true},
        {"  {\"kind\":\"Status\",\"code\":200}\n", 0, true},   /* no items: all envelope */
        {"{\"items\":null}", 0, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        got g = {.items = cJSON_CreateArray()};
        ms_buf env = {0};
        bool complete;
        assert_int_equal(feed_all(cases[i].doc, 0, &g, &env, &complete), cases[i].want);
        assert_int_equal(complete, cases[i].complete);
        cJSON_Delete(g.items);
        ms_buf_free(&env);
    }
    /* an element longer than max_item */
    got g = {.items = cJSON_CreateArray()};
    ms_buf env = {0};
    bool complete;
    assert_int_equal(feed_all("{\"items\":[{\"a\":1},{\"long\":\"0123456789\"}]}", 12, &g, &env, &complete), -1);
    assert_int_equal(g.n, 1);
    cJSON_Delete(g.items);
    ms_buf_free(&env);
    /* fn's non-zero value stops the feed */
    got h = {.items = cJSON_CreateArray(), .stop_after = 2};
    ms_buf env2 = {0};
    assert_int_equal(feed_all("{\"items\":[{},{},{}]}", 0, &h, &env2, &complete), 7);
    assert_int_equal(h.n, 2);
    cJSON_Delete(h.items);
    ms_buf_free(&env2);
}

/* The envelope stays small whatever the items: only they are big. */
static void test_envelope_excludes_items(void **state) {
    (void)state;
    ms_buf doc = {0};
    ms_buf_puts(&doc, "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"9\"},\"items\":[");
    for (int i = 0; i < 1000; i++) ms_buf_printf(&doc, "%s{\"metadata\":{\"name\":\"p%d\"}}", i ? "," : "", i);
    ms_buf_puts(&doc, "]}");
    got g = {.items = cJSON_CreateArray()};
    ms_buf env = {0};
    bool complete;
    assert_int_equal(feed_all(doc.data, 0, &g, &env, &complete), 0);
    assert_true(complete);
    assert_int_equal(g.n, 1000);
    assert_string_equal(env.data, "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"9\"},\"items\":[]}");
    cJSON_Delete(g.items);
    ms_buf_free(&env);
    ms_buf_free(&doc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_any_chunking),
        cmocka_unit_test(test_random_documents),
        cmocka_unit_test(test_errors_and_stop),
        cmocka_unit_test(test_envelope_excludes_items),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
