/* A scheduler extender for the command-line tests, on 127.0.0.1 only.
 * Built by tests/cli/test_extender.sh; not part of moonsched.
 *
 *   extender_server DIR
 * listens on an ephemeral port, writes it to DIR/port, and answers
 * (one connection at a time, keep-alive) until killed:
 *   POST /filter      nodes labelled ext/reject=true fail with
 *                     "rejected by the test extender"; the others pass
 *   POST /prioritize  10 for nodes labelled ext/favourite=true, else 0
 *   POST /bind        appends "NAMESPACE/NAME NODE" to DIR/binds; {}
 * Every request line goes to DIR/requests, a line per accepted connection
 * to DIR/connections. */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *dir;

static void append(const char *file, const char *line) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "%s\n", line);
    fclose(f);
}

static const char *label(const cJSON *node, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(node, "metadata"), "labels"), key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static const char *name_of(const cJSON *node) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(node, "metadata"), "name");
    return cJSON_IsString(v) ? v->valuestring : "";
}

static char *answer(const char *path, const cJSON *req) {
    cJSON *out = NULL;
    const cJSON *items =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(req, "Nodes"), "items");
    const cJSON *n;
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(req, "NodeNames");
    if (strcmp(path, "/filter") == 0 && cJSON_IsArray(names)) {
        /* nodeCacheCapable: names only, all kept (no labels to judge) */
        out = cJSON_CreateObject();
        cJSON_AddItemToObject(out, "NodeNames", cJSON_Duplicate(names, 1));
    } else if (strcmp(path, "/filter") == 0) {
        out = cJSON_CreateObject();
        cJSON *keep = cJSON_AddArrayToObject(cJSON_AddObjectToObject(out, "Nodes"), "items");
        cJSON *failed = cJSON_AddObjectToObject(out, "FailedNodes");
        cJSON_ArrayForEach(n, items) {
            if (strcmp(label(n, "ext/reject"), "true") == 0)
                cJSON_AddStringToObject(failed, name_of(n), "rejected by the test extender");
            else
                cJSON_AddItemToArray(keep, cJSON_Duplicate(n, 1));
        }
    } else if (strcmp(path, "/prioritize") == 0) {
        out = cJSON_CreateArray();
        cJSON_ArrayForEach(n, items) {
            cJSON *hp = cJSON_CreateObject();
            cJSON_AddStringToObject(hp, "Host", name_of(n));
            cJSON_AddNumberToObject(hp, "Score", strcmp(label(n, "ext/favourite"), "true") == 0 ? 10 : 0);
            cJSON_AddItemToArray(out, hp);
        }
    } else if (strcmp(path, "/bind") == 0) {
        char line[512];
        const cJSON *ns = cJSON_GetObjectItemCaseSensitive(req, "PodNamespace");
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(req, "PodName");
        const cJSON *node = cJSON_GetObjectItemCaseSensitive(req, "Node");
        snprintf(line, sizeof line, "%s/%s %s", cJSON_IsString(ns) ? ns->valuestring : "?",
                 cJSON_IsString(nm) ? nm->valuestring : "?", cJSON_IsString(node) ? node->valuestring : "?");
        append("binds", line);
        out = cJSON_CreateObject();
    } else {
        return NULL;
    }
    char *text = cJSON_PrintUnformatted(out);
    cJSON_Delete(out);
    return text;
}

/* Serves one connection's requests until the client closes it. */
static void serve(int fd) {
    static char buf[8 << 20];
    size_t have = 0;
    for (;;) {
        char *end = NULL;
        while (!(end = have ? memmem(buf, have, "\r\n\r\n", 4) : NULL)) {
            if (have == sizeof buf) return;
            ssize_t r = recv(fd, buf + have, sizeof buf - have, 0);
            if (r <= 0) return;
            have += (size_t)r;
        }
        size_t head = (size_t)(end - buf) + 4;
        size_t len = 0;
        for (char *p = buf; p < end; p++)
            if (strncasecmp(p, "\r\nContent-Length:", 17) == 0) len = (size_t)atol(p + 17);
        while (have < head + len) {
            if (have == sizeof buf) return;
            ssize_t r = recv(fd, buf + have, sizeof buf - have, 0);
            if (r <= 0) return;
            have += (size_t)r;
        }
        char path[256] = "";
        sscanf(buf, "%*s %255s", path);
        char line[300];
        snprintf(line, sizeof line, "POST %s", path);
        append("requests", line);
        cJSON *req = cJSON_ParseWithLength(buf + head, len);
        char *body = answer(path, req);
        cJSON_Delete(req);
        /* one write: a header and a body sent apart would wait on the
         * client's delayed ACK */
        size_t blen = body ? strlen(body) : 0;
        char *msg = malloc(blen + 256);
        int status = body ? 200 : 404;
        int hl = msg ? snprintf(msg, 256, "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                                status, blen)
                     : 0;
        if (msg && blen) memcpy(msg + hl, body, blen);
        bool ok = msg && send(fd, msg, (size_t)hl + blen, MSG_NOSIGNAL) >= 0;
        free(msg);
        free(body);
        if (!ok) return;
        memmove(buf, buf + head + len, have - head - len);
        have -= head + len;
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: extender_server DIR\n");
        return 2;
    }
    dir = argv[1];
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 8) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &al) != 0) {
        perror("extender_server");
        return 1;
    }
    char path[4096], tmp[4096];
    snprintf(path, sizeof path, "%s/port", dir);
    snprintf(tmp, sizeof tmp, "%s/port.tmp", dir);
    FILE *f = fopen(tmp, "w");
    if (!f) return 1;
    fprintf(f, "%d\n", ntohs(a.sin_port));
    fclose(f);
    rename(tmp, path);
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) continue;
        append("connections", "accepted");
        /* as Go's servers do: no Nagle wait on the tail of a long answer */
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        serve(fd);
        close(fd);
    }
}
