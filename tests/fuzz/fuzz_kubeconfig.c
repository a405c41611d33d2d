/* kubeconfig parsing on arbitrary text (YAML or JSON), and the watch-stream
 * line splitter on the same bytes cut at a fuzzer-chosen point. Beyond not
 * crashing or leaking: a failed load leaves nothing allocated and says why;
 * a loaded one has a server URL with a scheme and no trailing '/', and a
 * namespace; decoded data has the length it claims; an exec plugin has a
 * command (absolute when it is a path), an apiVersion and NAME=value
 * variables, and no other credentials beside it; the splitter delivers
 * the same lines however the stream is cut. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/kubeconfig.h"
#include "base/line_splitter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) \
    do { \
        if (!(c)) __builtin_trap(); \
    } while (0)

typedef struct lines {
    uint64_t hash;
    size_t n;
} lines;

static int fold(void *ctx, char *line, size_t len) {
    lines *l = ctx;
    CHECK(len > 0 && line[len] == '\0');   /* NULs and a second \r may be inside */
    for (size_t i = 0; i < len; i++) l->hash = (l->hash ^ (unsigned char)line[i]) * 0x100000001b3ULL;
    l->hash = (l->hash ^ 0xff) * 0x100000001b3ULL;
    l->n++;
    return 0;
}

static void split_check(const char *buf, size_t len) {
    lines whole = {0}, cut = {0};
    ms_line_splitter s;
    ms_line_splitter_init(&s, 0);
    CHECK(ms_line_splitter_feed(&s, buf, len, fold, &whole) == 0);
    size_t pending = ms_line_splitter_pending(&s);
    ms_line_splitter_free(&s);
    size_t at = len ? (unsigned char)buf[0] % (len + 1) : 0;
    ms_line_splitter_init(&s, 0);
    CHECK(ms_line_splitter_feed(&s, buf, at, fold, &cut) == 0);
    CHECK(ms_line_splitter_feed(&s, buf + at, len - at, fold, &cut) == 0);
    CHECK(whole.n == cut.n && whole.hash == cut.hash && pending == ms_line_splitter_pending(&s));
    ms_line_splitter_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *buf = (const char *)data;
    split_check(buf, size);
    ms_kubeconfig kc;
    ms_error err = {0};
    ms_rc rc = ms_kubeconfig_load_buffer(&kc, buf, size, "/kube", "fuzz", NULL, &err);
    if (rc != MS_OK) {
        CHECK(err.msg[0] != '\0');
        CHECK(!kc.server && !kc.context && !kc.token && !kc.ca_data);
        return 0;
    }
    CHECK(kc.server && (!strncmp(kc.server, "https://", 8) || !strncmp(kc.server, "http://", 7)));
    size_t n = strlen(kc.server);
    CHECK(n > 0 && kc.server[n - 1] != '/');
    CHECK(kc.namespace_ && kc.context && kc.cluster_name);
    if (kc.ca_data) CHECK(kc.ca_data[kc.ca_len] == '\0');
    if (kc.cert_data) CHECK(kc.cert_data[kc.cert_len] == '\0' && (kc.key_data || kc.key_file));
    if (kc.ca_file) CHECK(kc.ca_file[0] == '/' && !kc.ca_data);
    if (kc.token) CHECK(!kc.token_file);
    if (kc.exec) {
        /* a plugin only for a user without other credentials, and whole */
        CHECK(!kc.token && !kc.token_file && !kc.username && !kc.cert_file && !kc.cert_data);
        CHECK(kc.exec->command && kc.exec->command[0] && kc.exec->api_version);
        CHECK(!strchr(kc.exec->command, '/') || kc.exec->command[0] == '/');
        for (size_t i = 0; i < kc.exec->nargs; i++) CHECK(kc.exec->args[i]);
        for (size_t i = 0; i < kc.exec->nenv; i++) CHECK(strchr(kc.exec->env[i], '=') > kc.exec->env[i]);
    }
    ms_kubeconfig_free(&kc);
    return 0;
}
