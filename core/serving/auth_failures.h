/* A budget of failed authentications per client address, so that a
 * client sending bad bearer tokens cannot make the scheduler post
 * TokenReviews without end (upstream does not cache a review that
 * carries an error, which is the API server's answer to a token it does
 * not know): after `max` failures within `window` seconds of a source's
 * first one, its bearer tokens are refused without a review until the
 * window ends. A source is an IPv4 address, or an IPv6 address's /64
 * (one host's usual share); IPv4-mapped IPv6 addresses are IPv4.
 *
 * Bounded: `sources` addresses remembered; a full table forgets the one
 * whose window ends first. Thread-safe. */
#ifndef MOONSCHED_SERVING_AUTH_FAILURES_H
#define MOONSCHED_SERVING_AUTH_FAILURES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct ms_auth_failures ms_auth_failures;

#define MS_AUTH_FAILURES_MAX 20
#define MS_AUTH_FAILURES_WINDOW 10.0

/* max 0: MS_AUTH_FAILURES_MAX; window 0: MS_AUTH_FAILURES_WINDOW;
 * sources 0: 1024. NULL when out of memory. */
ms_auth_failures *ms_auth_failures_new(uint32_t max, double window, uint32_t sources);
void ms_auth_failures_free(ms_auth_failures *f);
/* Whether `peer` may have a token reviewed at `now` (seconds, the
 * caller's monotonic clock). A NULL peer, or one neither IPv4 nor IPv6,
 * always may. */
bool ms_auth_failures_allowed(ms_auth_failures *f, const struct sockaddr *peer, double now);
/* One failed authentication of `peer` at `now`. */
void ms_auth_failures_add(ms_auth_failures *f, const struct sockaddr *peer, double now);

#endif
