/* A scripted HTTP/1.1 server on 127.0.0.1 for client and informer tests.
 * One thread accepts; each connection gets a thread that reads requests
 * (keep-alive) and hands them to the test's handler, which answers with
 * fh_reply (Content-Length) or streams with fh_stream_* (chunked). */
#ifndef MOONSCHED_FAKE_HTTP_H
#define MOONSCHED_FAKE_HTTP_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FH_UNUSED __attribute__((unused))
#define FH_MAX_CONNS 64
#define FH_MAX_REQS 256

typedef struct fh_request {
    char method[16];
    char path[4096];
    char headers[4096];
    char *body;
    size_t body_len;
    int conn_id;           /* which connection carried it */
} fh_request;

typedef struct fh_conn {
    struct fake_http *srv;
    int fd;
    int id;
    pthread_t thread;
} fh_conn;

typedef struct fake_http {
    int lfd;
    int port;
    char url[64];
    pthread_t accept_thread;
    atomic_bool stopping;
    pthread_mutex_t mu;
    fh_conn conns[FH_MAX_CONNS];
    int nconns;
    fh_request reqs[FH_MAX_REQS];
    int nreqs;
    /* The handler answers one request on fd; returns false to close the
     * connection afterwards. */
    bool (*handler)(struct fake_http *srv, int fd, const fh_request *req, void *ctx);
    void *ctx;
} fake_http;

static FH_UNUSED void fh_sleep(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static FH_UNUSED double fh_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static FH_UNUSED bool fh_write(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static FH_UNUSED bool fh_reply(int fd, int status, const char *extra_headers, const char *body) {
    char head[1024];
    size_t blen = body ? strlen(body) : 0;
    snprintf(head, sizeof head,
             "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n%s\r\n", status, blen,
             extra_headers ? extra_headers : "");
    return fh_write(fd, head, strlen(head)) && (!blen || fh_write(fd, body, blen));
}

static FH_UNUSED bool fh_stream_begin(int fd, int status) {
    char head[256];
    snprintf(head, sizeof head,
             "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", status);
    return fh_write(fd, head, strlen(head));
}

/* One HTTP chunk; the pause makes the client read it on its own. */
static FH_UNUSED bool fh_stream_chunk(int fd, const char *data, size_t n, double pause) {
    char size[32];
    snprintf(size, sizeof size, "%zx\r\n", n);
    bool ok = fh_write(fd, size, strlen(size)) && fh_write(fd, data, n) && fh_write(fd, "\r\n", 2);
    if (pause > 0) fh_sleep(pause);
    return ok;
}

static FH_UNUSED bool fh_stream_str(int fd, const char *s, double pause) {
    return fh_stream_chunk(fd, s, strlen(s), pause);
}

static FH_UNUSED bool fh_stream_end(int fd) { return fh_write(fd, "0\r\n\r\n", 5); }

/* Holds a stream open until the client goes away or the server stops. */
static FH_UNUSED void fh_stream_hold(fake_http *srv, int fd) {
    while (!atomic_load(&srv->stopping)) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, 50);
        if (r > 0) {
            char b[256];
            ssize_t n = recv(fd, b, sizeof b, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN)) return;
        }
    }
}

static FH_UNUSED const char *fh_header(const fh_request *r, const char *name, char *buf, size_t n) {
    size_t nl = strlen(name);
    for (const char *p = r->headers; *p;) {
        const char *eol = strstr(p, "\r\n");
        if (!eol) break;
        if ((size_t)(eol - p) > nl && strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (*v == ' ') v++;
            snprintf(buf, n, "%.*s", (int)(eol - v), v);
            return buf;
        }
        p = eol + 2;
    }
    return NULL;
}

static FH_UNUSED bool fh_read_request(int fd, fh_request *r, char *buf, size_t cap, size_t *have) {
    for (;;) {
        char *end = *have ? memmem(buf, *have, "\r\n\r\n", 4) : NULL;
        if (end) {
            size_t hlen = (size_t)(end - buf) + 4;
            memset(r, 0, sizeof *r);
            char *sp1 = memchr(buf, ' ', hlen);
            char *sp2 = sp1 ? memchr(sp1 + 1, ' ', hlen - (size_t)(sp1 + 1 - buf)) : NULL;
            if (!sp1 || !sp2) return false;
            snprintf(r->method, sizeof r->method, "%.*s", (int)(sp1 - buf), buf);
            snprintf(r->path, sizeof r->path, "%.*s", (int)(sp2 - sp1 - 1), sp1 + 1);
            char *hstart = strstr(buf, "\r\n") + 2;
            snprintf(r->headers, sizeof r->headers, "%.*s", (int)(end + 2 - hstart), hstart);
            char cl[32];
            size_t blen = fh_header(r, "Content-Length", cl, sizeof cl) ? (size_t)atol(cl) : 0;
            while (*have < hlen + blen) {
                if (*have == cap) return false;
                ssize_t n = recv(fd, buf + *have, cap - *have, 0);
                if (n <= 0) return false;
                *have += (size_t)n;
            }
            r->body = malloc(blen + 1);
            memcpy(r->body, buf + hlen, blen);
            r->body[blen] = '\0';
            r->body_len = blen;
            memmove(buf, buf + hlen + blen, *have - hlen - blen);
            *have -= hlen + blen;
            return true;
        }
        if (*have == cap) return false;
        ssize_t n = recv(fd, buf + *have, cap - *have, 0);
        if (n <= 0) return false;
        *have += (size_t)n;
    }
}

static FH_UNUSED void *fh_conn_main(void *arg) {
    fh_conn *c = arg;
    fake_http *srv = c->srv;
    size_t cap = 1 << 20, have = 0;
    char *buf = malloc(cap);
    fh_request r;
    while (!atomic_load(&srv->stopping) && fh_read_request(c->fd, &r, buf, cap, &have)) {
        r.conn_id = c->id;
        pthread_mutex_lock(&srv->mu);
        if (srv->nreqs < FH_MAX_REQS) {
            srv->reqs[srv->nreqs] = r;
            srv->reqs[srv->nreqs].body = strdup(r.body);
            srv->nreqs++;
        }
        pthread_mutex_unlock(&srv->mu);
        bool keep = srv->handler(srv, c->fd, &r, srv->ctx);
        free(r.body);
        if (!keep) break;
    }
    free(buf);
    shutdown(c->fd, SHUT_RDWR);
    return NULL;
}

static FH_UNUSED void *fh_accept_main(void *arg) {
    fake_http *srv = arg;
    while (!atomic_load(&srv->stopping)) {
        struct pollfd p = {.fd = srv->lfd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0) continue;
        int fd = accept(srv->lfd, NULL, NULL);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_mutex_lock(&srv->mu);
        if (srv->nconns == FH_MAX_CONNS) {
            pthread_mutex_unlock(&srv->mu);
            close(fd);
            continue;
        }
        fh_conn *c = &srv->conns[srv->nconns];
        c->srv = srv;
        c->fd = fd;
        c->id = srv->nconns++;
        pthread_create(&c->thread, NULL, fh_conn_main, c);
        pthread_mutex_unlock(&srv->mu);
    }
    return NULL;
}

static FH_UNUSED fake_http *fh_start(bool (*handler)(fake_http *, int, const fh_request *, void *), void *ctx) {
    fake_http *srv = calloc(1, sizeof *srv);
    srv->handler = handler;
    srv->ctx = ctx;
    pthread_mutex_init(&srv->mu, NULL);
    srv->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = 0};
    int one = 1;
    setsockopt(srv->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(srv->lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(srv->lfd, 16) != 0) {
        close(srv->lfd);
        free(srv);
        return NULL;
    }
    socklen_t al = sizeof a;
    getsockname(srv->lfd, (struct sockaddr *)&a, &al);
    srv->port = ntohs(a.sin_port);
    snprintf(srv->url, sizeof srv->url, "http://127.0.0.1:%d", srv->port);
    pthread_create(&srv->accept_thread, NULL, fh_accept_main, srv);
    return srv;
}

static FH_UNUSED void fh_stop(fake_http *srv) {
    atomic_store(&srv->stopping, true);
    pthread_join(srv->accept_thread, NULL);
    for (int i = 0; i < srv->nconns; i++) shutdown(srv->conns[i].fd, SHUT_RDWR);
    for (int i = 0; i < srv->nconns; i++) {
        pthread_join(srv->conns[i].thread, NULL);
        close(srv->conns[i].fd);
    }
    for (int i = 0; i < srv->nreqs; i++) free(srv->reqs[i].body);
    close(srv->lfd);
    pthread_mutex_destroy(&srv->mu);
    free(srv);
}

static FH_UNUSED int fh_nreqs(fake_http *srv) {
    pthread_mutex_lock(&srv->mu);
    int n = srv->nreqs;
    pthread_mutex_unlock(&srv->mu);
    return n;
}

static FH_UNUSED int fh_nconns(fake_http *srv) {
    pthread_mutex_lock(&srv->mu);
    int n = srv->nconns;
    pthread_mutex_unlock(&srv->mu);
    return n;
}

#endif
