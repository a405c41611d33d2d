/* A small plain-HTTP server for /metrics, /healthz and /readyz
 * (libmicrohttpd, one internal polling thread). GET only; every answer is
 * produced by one handler call, on the server's thread. */
#ifndef MOONSCHED_HTTP_SERVER_H
#define MOONSCHED_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "moonsched/error.h"

typedef struct ms_http_server ms_http_server;

/* Fills the answer for `path` (query string removed): the HTTP status, a
 * malloc'd body (taken over; NULL: empty) and its content type (static). */
typedef struct ms_http_answer {
    unsigned status;
    char *body;
    size_t len;
    const char *content_type;
} ms_http_answer;
typedef void (*ms_http_handler)(void *ctx, const char *path, ms_http_answer *out);

/* "HOST:PORT", "[V6]:PORT" or ":PORT" (every address) into host and port.
 * MS_EINVAL with a message naming the value when malformed. Port 0 is
 * allowed (the kernel picks one: see ms_http_server_port). */
ms_rc ms_http_parse_address(const char *addr, char *host, size_t hostlen, uint16_t *port, ms_error *err);
/* Whether addr switches the server off: NULL, "" or "0". */
bool ms_http_address_disabled(const char *addr);

/* Listens on addr and serves through handler until stopped. MS_EIO when
 * the address cannot be bound. */
ms_rc ms_http_server_start(const char *addr, ms_http_handler handler, void *ctx,
                           ms_http_server **out, ms_error *err);
uint16_t ms_http_server_port(const ms_http_server *s);
/* Stops the thread and closes the socket. NULL is fine. */
void ms_http_server_stop(ms_http_server *s);

#endif
