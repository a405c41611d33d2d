/* ImageLocality: Score with upstream's worked examples
 * (image_locality_test.go), nodes and pods decoded from YAML, image spread
 * counted by the real cache. */
#include "testutil.h"

#include "fixtures.h"
#include "backend/cache.h"
#include "backend/cache_snapshot.h"
#include "framework/plugins/builtin.h"

/* Table rows leave their trailing nodes zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define IMG(size, ...) "{names: [" __VA_ARGS__ "], sizeBytes: " size "}"
#define NODE(name, images) "metadata: {name: " name "}\nstatus: {images: [" images "]}"
#define POD(containers) "metadata: {name: p}\nspec: {containers: [" containers "]}"
#define POD_INIT(init, containers) \
    "metadata: {name: p}\nspec: {initContainers: [" init "], containers: [" containers "]}"
#define C(image) "{name: c, image: " image "}"

/* sizeBytes of N MiB. */
#define S40 "41943040"
#define S250 "262144000"
#define S300 "314572800"
#define S600 "629145600"
#define S900 "943718400"
#define S1000 "1048576000"
#define S2000 "2097152000"
#define S4000 "4194304000"
#define S10 "10485760"
#define S20 "20971520"
#define S30 "31457280"

#define NODE_40_300_2000(name)                                                            \
    NODE(name, IMG(S40, "gcr.io/40:latest, gcr.io/40:v1, gcr.io/40:v1") ", " IMG(          \
                   S300, "gcr.io/300:latest, gcr.io/300:v1") ", " IMG(S2000, "gcr.io/2000:latest"))
#define NODE_250_10(name) \
    NODE(name, IMG(S250, "gcr.io/250:latest") ", " IMG(S10, "gcr.io/10:latest, gcr.io/10:v1"))
#define NODE_600_40_900(name)                                                     \
    NODE(name, IMG(S600, "gcr.io/600:latest") ", " IMG(S40, "gcr.io/40:latest") ", " \
                   IMG(S900, "gcr.io/900:latest"))
#define NODE_300_600_900(name)                                                      \
    NODE(name, IMG(S300, "gcr.io/300:latest") ", " IMG(S600, "gcr.io/600:latest") ", " \
                   IMG(S900, "gcr.io/900:latest"))
#define NODE_4000_30(name) NODE(name, IMG(S4000, "gcr.io/4000:latest") ", " IMG(S30, "gcr.io/30:latest"))
#define NODE_20_30_40(name)                                                     \
    NODE(name, IMG(S20, "gcr.io/20:latest") ", " IMG(S30, "gcr.io/30:latest") ", " \
                   IMG(S40, "gcr.io/40:latest"))
#define NODE_EMPTY(name) "metadata: {name: " name "}"

typedef struct image_case {
    const char *name;
    const char *pod;
    const char *nodes[3];
    int64_t want[3];
} image_case;

static const image_case cases[] = {
    /* 40Mi/2 < 23Mi: 0; 100 * (250Mi/2 - 23Mi) / (1000Mi * 2 - 23Mi) = 5 */
    {"two images spread on two nodes, prefer the larger image one",
     POD(C("gcr.io/40") ", " C("gcr.io/250")),
     {NODE_40_300_2000("machine1"), NODE_250_10("machine2")},
     {0, 5}},
    /* 100 * ((40Mi + 300Mi)/2 - 23Mi) / (1000Mi * 2 - 23Mi) = 7 */
    {"two images on one node, prefer this node", POD(C("gcr.io/40") ", " C("gcr.io/300")),
     {NODE_40_300_2000("machine1"), NODE_250_10("machine2")},
     {7, 0}},
    /* 4000Mi/2 >= 1000Mi * 2: the maximum */
    {"if exceed limit, use limit", POD(C("gcr.io/10") ", " C("gcr.io/4000")),
     {NODE_4000_30("machine1"), NODE_250_10("machine2")},
     {100, 0}},
    /* 100 * (4000Mi/3 - 23Mi) / (1000Mi * 2 - 23Mi) = 66 */
    {"if exceed limit, use limit (with node which has no images present)",
     POD(C("gcr.io/10") ", " C("gcr.io/4000")),
     {NODE_4000_30("machine1"), NODE_250_10("machine2"), NODE_EMPTY("machine3")},
     {66, 0, 0}},
    /* 100 * (600Mi*2/3 + 900Mi*2/3 - 23Mi) / (1000Mi*3 - 23Mi) = 32, and with
     * 300Mi*1/3 more: 36 */
    {"pod with multiple large images, machine2 is preferred",
     POD(C("gcr.io/300") ", " C("gcr.io/600") ", " C("gcr.io/900")),
     {NODE_600_40_900("machine1"), NODE_300_600_900("machine2"), NODE_EMPTY("machine3")},
     {32, 36, 0}},
    /* 100 * (30Mi + 40Mi/2 - 23Mi) / (1000Mi * 2 - 23Mi) = 1 */
    {"pod with multiple small images", POD(C("gcr.io/30") ", " C("gcr.io/40")),
     {NODE_20_30_40("machine1"), NODE_4000_30("machine2")},
     {1, 0}},
    /* Init containers count, image and container alike: 100 * (2000Mi/3 -
     * 23Mi) / (1000Mi * 2 - 23Mi) = 32 */
    {"init container images count", POD_INIT(C("gcr.io/2000"), C("gcr.io/10")),
     {NODE_40_300_2000("machine1"), NODE_250_10("machine2"), NODE_EMPTY("machine3")},
     {32, 0, 0}},
    /* An image used twice counts twice: 100 * (600Mi - 23Mi) / (2000Mi - 23Mi) = 29 */
    {"an image used by two containers", POD(C("gcr.io/300") ", " C("gcr.io/300")),
     {NODE("machine1", IMG(S300, "gcr.io/300:latest"))},
     {29}},
    /* ":latest" is added when the reference has no tag, even after a port:
     * 100 * (1000Mi/2 - 23Mi) / (1000Mi - 23Mi) = 48 */
    {"image names are normalized", POD(C("gcr.io:5000/root")),
     {NODE("machine1", IMG(S1000, "gcr.io:5000/root:latest")), NODE_EMPTY("machine2")},
     {48, 0}},
    {"a container without an image", POD("{name: c}"), {NODE_40_300_2000("machine1")}, {0}},
    {"a tag that is not on the node", POD(C("gcr.io/40:v2")), {NODE_40_300_2000("machine1")}, {0}},
};

static void test_score(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const image_case *tc = &cases[i];
        fx_env fx;
        fx_env_init(&fx);
        ms_cache *cache = ms_cache_new(fx.in, 0);
        ms_snapshot snap;
        ms_snapshot_init(&snap);
        uint32_t n = 0;
        for (; n < 3 && tc->nodes[n]; n++) {
            ms_node *node = fx_node(&fx.d, tc->nodes[n]);
            assert_int_equal(ms_cache_add_node(cache, node), MS_OK);
            ms_node_unref(node);
        }
        assert_int_equal(ms_cache_update_snapshot(cache, &snap), MS_OK);
        ms_node_info *nodes[3];
        static const char *const names[] = {"machine1", "machine2", "machine3"};
        for (uint32_t k = 0; k < n; k++) {
            nodes[k] = ms_snapshot_get(&snap, ms_intern_cstr(fx.in, names[k]));
            assert_non_null(nodes[k]);
        }
        ms_pod *pod = fx_pod(&fx.d, tc->pod);
        ms_arena arena;
        ms_arena_init(&arena, 1024);
        void *slots[1] = {NULL};
        ms_handle h = {.in = fx.in, .rn = &fx.d.rn};
        ms_cycle c = {.pod = pod, .snap = &snap, .arena = &arena, .state = slots, .h = &h};
        int64_t scores[3] = {-1, -1, -1};
        ms_status st;
        ms_status_ok(&st);
        assert_int_equal(ms_plugin_image_locality.score(NULL, &c, nodes, n, scores, &st), MS_SUCCESS);
        for (uint32_t k = 0; k < n; k++)
            if (scores[k] != tc->want[k])
                fail_msg("%s: %s: score %lld, want %lld", tc->name, names[k], (long long)scores[k],
                         (long long)tc->want[k]);
        ms_arena_free(&arena);
        ms_pod_unref(pod);
        ms_snapshot_free(&snap);
        ms_cache_free(cache);
        fx_env_free(&fx);
    }
}

static void test_ops(void **state) {
    (void)state;
    const ms_plugin_ops *o = &ms_plugin_image_locality;
    assert_string_equal(o->name, "ImageLocality");
    assert_non_null(o->score);
    assert_null(o->normalize_score);
    assert_null(o->pre_score);
    assert_null(o->filter);
    assert_null(o->create);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_score),
        cmocka_unit_test(test_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
