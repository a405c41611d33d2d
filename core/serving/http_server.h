/* A small HTTP server for /metrics, /healthz and /readyz (libmicrohttpd):
 * plain HTTP with one internal polling thread, or HTTPS with a gate that
 * decides each request before the handler (authentication and
 * authorization, serving/secure_serving.h) and one thread per connection, so
 * that a gate waiting on the API server holds up only its own request.
 * GET and HEAD only (405 otherwise, after the gate); every answer is
 * produced by one handler call. */
#ifndef MOONSCHED_HTTP_SERVER_H
#define MOONSCHED_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "moonsched/error.h"

typedef struct ms_http_server ms_http_server;

/* Fills the answer for `path` (query string removed): the HTTP status, a
 * malloc'd body (taken over; NULL: empty) and its content type (static). */
typedef struct ms_http_answer {
    /* In: the request's query string as sent (after '?', still
     * percent-encoded), or NULL; read it with ms_http_query_get. */
    const char *query;
    unsigned status;
    char *body;
    size_t len;
    const char *content_type;
    bool nosniff;                  /* X-Content-Type-Options: nosniff */
} ms_http_answer;
typedef void (*ms_http_handler)(void *ctx, const char *path, ms_http_answer *out);

/* What a gate sees of a request. */
typedef struct ms_http_request {
    const char *method;            /* "GET" */
    const char *path;              /* decoded, without the query */
    const char *uri;               /* as sent, with the query */
    const char *authorization;     /* the Authorization header, or NULL */
    const struct sockaddr *peer;   /* the client's address, or NULL */
    void *tls_session;             /* HTTPS: the connection's gnutls_session_t */
} ms_http_request;
/* Leaves out->status 0 to let the handler answer, or fills out to answer
 * instead. Runs on the connection's own thread: it may block. */
typedef void (*ms_http_gate)(void *ctx, const ms_http_request *req, ms_http_answer *out);

typedef struct ms_http_server_options {
    const char *address;           /* "HOST:PORT", as ms_http_parse_address */
    ms_http_handler handler;
    void *ctx;
    /* Both: HTTPS (TLS 1.2 and 1.3) with this certificate chain and key,
     * PEM; every answer then says Cache-Control: no-cache, private. */
    const char *tls_cert_pem, *tls_key_pem;
    /* GnuTLS priorities (serving/tls_config.h); NULL: TLS 1.2 and 1.3 with
     * GnuTLS's default suites. */
    const char *tls_priorities;
    /* HTTPS: CA certificates (PEM) whose clients' certificates are
     * asked for; the handshake takes any or none, the gate checks them
     * (serving/client_ca.h). NULL: none asked for. */
    const char *tls_client_ca_pem;
    ms_http_gate gate;             /* NULL: every request goes to the handler */
    void *gate_ctx;
    bool dual_stack;               /* an IPv6 address takes IPv4 connections too */
} ms_http_server_options;

/* "HOST:PORT", "[V6]:PORT" or ":PORT" (every address) into host and port.
 * MS_EINVAL with a message naming the value when malformed. Port 0 is
 * allowed (the kernel picks one: see ms_http_server_port). */
ms_rc ms_http_parse_address(const char *addr, char *host, size_t hostlen, uint16_t *port, ms_error *err);
/* The value of `key` in a query string ("a=1&pod=ns%2Fname"),
 * percent-decoded ('+' is a space) into out. false when absent, longer than
 * n - 1 bytes or badly encoded. */
bool ms_http_query_get(const char *query, const char *key, char *out, size_t n);

/* Whether addr switches the server off: NULL, "" or "0". */
bool ms_http_address_disabled(const char *addr);

/* Listens on addr and serves through handler until stopped. MS_EIO when
 * the address cannot be bound. */
ms_rc ms_http_server_start(const char *addr, ms_http_handler handler, void *ctx,
                           ms_http_server **out, ms_error *err);
/* The same with every option. */
ms_rc ms_http_server_start_with(const ms_http_server_options *o, ms_http_server **out, ms_error *err);
uint16_t ms_http_server_port(const ms_http_server *s);
/* An HTTPS server serves a new certificate and key (PEM, copied) from now
 * on: a new daemon takes the listening socket over, the old one finishes
 * the connections it has (stopped at the next replacement or at the end).
 * Not concurrently with ms_http_server_stop. MS_EIO when libmicrohttpd
 * refuses the pair (the old one is served again). */
ms_rc ms_http_server_replace_certificate(ms_http_server *s, const char *cert_pem, const char *key_pem,
                                         ms_error *err);
/* Stops the thread and closes the socket. NULL is fine. */
void ms_http_server_stop(ms_http_server *s);

#endif
