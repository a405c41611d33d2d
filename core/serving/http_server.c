/* /metrics, /healthz and /readyz over HTTP or HTTPS. libmicrohttpd does
 * the protocol (and TLS, through GnuTLS): a small, well-kept server is
 * less to get wrong than one of our own. See serving/http_server.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "serving/http_server.h"

struct ms_http_server {
    struct MHD_Daemon *d;
    /* After a certificate replacement: the daemon that served the old one,
     * still finishing its connections (stopped at the next replacement or
     * at the end), and its certificate. */
    struct MHD_Daemon *retired;
    /* The daemons' certificate and key (MHD reads them at start), and
     * what they need to start again on the same socket. */
    char *cert_pem, *key_pem, *retired_cert_pem, *retired_key_pem;
    char *priorities;
    char *client_ca_pem;           /* NULL: no client certificate asked for */
    unsigned flags;
    ms_http_handler handler;
    void *ctx;
    ms_http_gate gate;
    void *gate_ctx;
    bool tls;
    uint16_t port;
};

static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Percent-decodes [s, end) into out (n bytes with the terminator). */
static bool query_decode(const char *s, const char *end, char *out, size_t n) {
    size_t k = 0;
    for (; s < end; s++) {
        char c = *s;
        if (c == '+') {
            c = ' ';
        } else if (c == '%') {
            if (end - s < 3 || hex(s[1]) < 0 || hex(s[2]) < 0) return false;
            c = (char)(hex(s[1]) * 16 + hex(s[2]));
            s += 2;
        }
        if (k + 1 >= n) return false;
        out[k++] = c;
    }
    out[k] = '\0';
    return true;
}

bool ms_http_query_get(const char *query, const char *key, char *out, size_t n) {
    size_t kl = strlen(key);
    for (const char *p = query; p && *p;) {
        const char *amp = strchr(p, '&'), *end = amp ? amp : p + strlen(p);
        if ((size_t)(end - p) > kl && strncmp(p, key, kl) == 0 && p[kl] == '=')
            return query_decode(p + kl + 1, end, out, n);
        p = amp ? amp + 1 : end;
    }
    return false;
}

bool ms_http_address_disabled(const char *addr) {
    return !addr || !addr[0] || strcmp(addr, "0") == 0;
}

ms_rc ms_http_parse_address(const char *addr, char *host, size_t hostlen, uint16_t *port, ms_error *err) {
    const char *colon, *h = addr;
    size_t hl;
    if (addr[0] == '[') {
        const char *close = strchr(addr, ']');
        if (!close || close[1] != ':')
            return ms_error_set(err, MS_EINVAL, "address \"%s\": expected [IPv6]:PORT", addr);
        h = addr + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(addr, ':');
        if (!colon) return ms_error_set(err, MS_EINVAL, "address \"%s\": expected HOST:PORT", addr);
        hl = (size_t)(colon - addr);
        if (memchr(addr, ':', hl))
            return ms_error_set(err, MS_EINVAL, "address \"%s\": an IPv6 address needs brackets", addr);
    }
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || p < 0 || p > 65535)
        return ms_error_set(err, MS_EINVAL, "address \"%s\": port must be 0..65535", addr);
    if (hl >= hostlen) return ms_error_set(err, MS_EINVAL, "address \"%s\": host too long", addr);
    memcpy(host, h, hl);
    host[hl] = 0;
    *port = (uint16_t)p;
    return MS_OK;
}

static enum MHD_Result queue(struct MHD_Connection *conn, const ms_http_server *s, ms_http_answer *a) {
    if (a->body && !a->len) a->len = strlen(a->body);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(a->len, a->body ? a->body : (char *)"",
                                        a->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(a->body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", a->content_type ? a->content_type : "text/plain");
    if (a->nosniff) MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    /* as upstream's secure serving (WithCacheControl) */
    if (s->tls) MHD_add_response_header(r, "Cache-Control", "no-cache, private");
    enum MHD_Result ok = MHD_queue_response(conn, a->status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
    ms_http_server *s = cls;
    (void)version;
    (void)upload_data;
    if (*upload_data_size) {
        *upload_data_size = 0;   /* bodies are ignored */
        return MHD_YES;
    }
    const char *sent = *con_cls ? *con_cls : url, *q = strchr(sent, '?');
    ms_http_answer a = {.status = 0, .content_type = "text/plain; charset=utf-8", .query = q ? q + 1 : NULL};
    if (s->gate) {
        const union MHD_ConnectionInfo *addr = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const union MHD_ConnectionInfo *tls =
            s->tls ? MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION) : NULL;
        ms_http_request rq = {.method = method, .path = url, .uri = sent,
                              .authorization =
                                  MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
                              .peer = addr ? addr->client_addr : NULL,
                              .tls_session = tls ? tls->tls_session : NULL};
        s->gate(s->gate_ctx, &rq, &a);
        if (a.status) return queue(conn, s, &a);
    }
    a.status = 200;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        a.status = 405;
        a.body = strdup("method not allowed\n");
    } else {
        s->handler(s->ctx, url, &a);
    }
    return queue(conn, s, &a);
}

static void free_server(ms_http_server *s) {
    free(s->cert_pem);
    free(s->key_pem);
    free(s->retired_cert_pem);
    free(s->retired_key_pem);
    free(s->priorities);
    free(s->client_ca_pem);
    free(s);
}

/* The request line's URI as sent (with its query), for the gate. */
static void *log_uri(void *cls, const char *uri, struct MHD_Connection *conn) {
    (void)cls;
    (void)conn;
    return strdup(uri);
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode t) {
    (void)cls;
    (void)conn;
    (void)t;
    free(*con_cls);
    *con_cls = NULL;
}

/* TLS 1.2 and up, as upstream's serving defaults. */
static const char tls_priorities[] = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";

/* The HTTPS daemon's options; with a client CA, MHD asks clients for a
 * certificate (and lets the handshake go on without one). */
static void tls_options(const ms_http_server *s, struct MHD_OptionItem opts[5]) {
    opts[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, s->cert_pem};
    opts[1] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, s->key_pem};
    opts[2] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, s->priorities};
    opts[3] = (struct MHD_OptionItem){s->client_ca_pem ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0,
                                      s->client_ca_pem};
    opts[4] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
}

/* An HTTPS daemon on a listening socket another one handed over. */
static struct MHD_Daemon *start_on_socket(ms_http_server *s, MHD_socket fd) {
    struct MHD_OptionItem opts[5];
    tls_options(s, opts);
    return MHD_start_daemon(s->flags | MHD_USE_TLS, 0, NULL, NULL, answer, s, MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)32, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
                            MHD_OPTION_URI_LOG_CALLBACK, log_uri, NULL, MHD_OPTION_NOTIFY_COMPLETED, completed,
                            NULL, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

static struct MHD_Daemon *start_daemon(ms_http_server *s, const ms_http_server_options *o, uint16_t port,
                                       const struct addrinfo *ai) {
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
    if (ai->ai_family == AF_INET6) flags |= o->dual_stack ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
    if (s->gate) flags |= MHD_USE_THREAD_PER_CONNECTION;
    /* the listening socket can be handed to a daemon with a new certificate */
    if (s->tls) flags |= MHD_USE_ITC;
    s->flags = flags;
    if (!s->tls)
        /* A scrape or a probe is small: few connections, short timeouts. */
        return MHD_start_daemon(flags, port, NULL, NULL, answer, s, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                                MHD_OPTION_CONNECTION_LIMIT, (unsigned)16, MHD_OPTION_CONNECTION_TIMEOUT,
                                (unsigned)10, MHD_OPTION_URI_LOG_CALLBACK, log_uri, NULL,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
    struct MHD_OptionItem opts[5];
    tls_options(s, opts);
    return MHD_start_daemon(flags | MHD_USE_TLS, port, NULL, NULL, answer, s, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)32, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
                            MHD_OPTION_URI_LOG_CALLBACK, log_uri, NULL, MHD_OPTION_NOTIFY_COMPLETED, completed,
                            NULL, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

ms_rc ms_http_server_start_with(const ms_http_server_options *o, ms_http_server **out, ms_error *err) {
    *out = NULL;
    const char *addr = o->address;
    char host[256];
    uint16_t port;
    ms_rc rc = ms_http_parse_address(addr, host, sizeof host, &port, err);
    if (rc != MS_OK) return rc;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV | AI_PASSIVE};
    struct addrinfo *ai = NULL;
    char ports[8];
    snprintf(ports, sizeof ports, "%u", port);
    int g = getaddrinfo(host[0] ? host : NULL, ports, &hints, &ai);
    if (g != 0 || !ai)
        return ms_error_set(err, MS_EINVAL, "address \"%s\": %s", addr, gai_strerror(g));
    ms_http_server *s = calloc(1, sizeof *s);
    if (!s) {
        freeaddrinfo(ai);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    s->handler = o->handler;
    s->ctx = o->ctx;
    s->gate = o->gate;
    s->gate_ctx = o->gate_ctx;
    s->tls = o->tls_cert_pem && o->tls_key_pem;
    if (s->tls && (!(s->cert_pem = strdup(o->tls_cert_pem)) || !(s->key_pem = strdup(o->tls_key_pem)) ||
                   !(s->priorities = strdup(o->tls_priorities ? o->tls_priorities : tls_priorities)) ||
                   (o->tls_client_ca_pem && !(s->client_ca_pem = strdup(o->tls_client_ca_pem))))) {
        freeaddrinfo(ai);
        free_server(s);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    errno = 0;
    s->d = start_daemon(s, o, port, ai);
    int e = errno;
    freeaddrinfo(ai);
    if (!s->d) {
        free_server(s);
        return ms_error_set(err, MS_EIO, "cannot listen on %s: %s", addr,
                            e ? strerror(e) : "libmicrohttpd refused to start");
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : port;
    *out = s;
    return MS_OK;
}

ms_rc ms_http_server_start(const char *addr, ms_http_handler handler, void *ctx,
                           ms_http_server **out, ms_error *err) {
    ms_http_server_options o = {.address = addr, .handler = handler, .ctx = ctx};
    return ms_http_server_start_with(&o, out, err);
}

uint16_t ms_http_server_port(const ms_http_server *s) { return s ? s->port : 0; }

ms_rc ms_http_server_replace_certificate(ms_http_server *s, const char *cert_pem, const char *key_pem,
                                         ms_error *err) {
    if (!s->tls) return ms_error_set(err, MS_ESTATE, "not an HTTPS server");
    char *cert = strdup(cert_pem), *key = strdup(key_pem);
    if (!cert || !key) {
        free(cert);
        free(key);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    /* The daemon before last has had a whole replacement's time to finish
     * its connections. */
    if (s->retired) MHD_stop_daemon(s->retired);
    free(s->retired_cert_pem);
    free(s->retired_key_pem);
    s->retired = s->d;
    s->retired_cert_pem = s->cert_pem;
    s->retired_key_pem = s->key_pem;
    s->cert_pem = cert;
    s->key_pem = key;
    MHD_socket fd = MHD_quiesce_daemon(s->d);
    struct MHD_Daemon *d = fd == MHD_INVALID_SOCKET ? NULL : start_on_socket(s, fd);
    if (!d && fd != MHD_INVALID_SOCKET) {
        /* the old certificate again, on the same socket */
        char *t = s->cert_pem, *k = s->key_pem;
        s->cert_pem = s->retired_cert_pem;
        s->key_pem = s->retired_key_pem;
        s->retired_cert_pem = t;
        s->retired_key_pem = k;
        d = start_on_socket(s, fd);
        s->d = d ? d : s->d;
        return ms_error_set(err, MS_EIO, "libmicrohttpd refused the new certificate%s",
                            d ? "" : "; HTTPS stopped");
    }
    if (!d) return ms_error_set(err, MS_EIO, "libmicrohttpd cannot hand over its socket");
    s->d = d;
    return MS_OK;
}

void ms_http_server_stop(ms_http_server *s) {
    if (!s) return;
    /* the retired daemon gave its socket away: the current one closes it */
    if (s->retired) MHD_stop_daemon(s->retired);
    MHD_stop_daemon(s->d);
    free_server(s);
}
