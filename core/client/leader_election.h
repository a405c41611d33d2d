/* Leader election with a coordination.k8s.io/v1 Lease, with the semantics
 * of client-go's tools/leaderelection and its LeaseLock.
 *
 * A candidate GETs the Lease, creates it when absent, and takes it over
 * when its holderIdentity is empty or when the record it observed has not
 * changed for leaseDuration. That time runs on the candidate's own
 * monotonic clock from when it first saw the record, never from the remote
 * renewTime, so clock skew between replicas does not matter. Every write
 * is an update with the resourceVersion last read or written (optimistic
 * concurrency: a 409 means another replica won). The leader renews every retryPeriod,
 * as today's client-go with a single update while its lease is valid
 * (falling back to a read on any failure); a renewal that has not
 * succeeded within renewDeadline means leadership is lost, and a lost
 * leader must stop (upstream's kube-scheduler exits).
 * Stopping while leading releases the Lease (empty holder,
 * leaseDurationSeconds 1) so that a standby takes over at once.
 *
 * The decision functions are pure (tested with tables); the elector runs
 * them on a thread of its own with an HTTP client of its own, so the
 * scheduler thread only reads an atomic flag. */
#ifndef MOONSCHED_LEADER_ELECTION_H
#define MOONSCHED_LEADER_ELECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/kube_client.h"
#include "moonsched/config.h"
#include "moonsched/error.h"
#include "moonsched/log.h"

/* upstream's JitterFactor: acquire retries wait retryPeriod * [1, 2.2),
 * and renewDeadline must exceed retryPeriod times it. */
#define MS_LEADER_JITTER_FACTOR 1.2

/* The LeaderElectionRecord a Lease's spec carries. Times are MicroTime
 * text as written (RFC 3339 with microseconds). */
typedef struct ms_lease_record {
    char holder_identity[256];
    int32_t lease_duration_seconds;
    char acquire_time[40];
    char renew_time[40];
    int32_t lease_transitions;
} ms_lease_record;

bool ms_lease_record_equal(const ms_lease_record *a, const ms_lease_record *b);

/* The record last observed and when (monotonic seconds). The time moves
 * only when the record changes: a leader that stops renewing leaves the
 * same record behind, and it expires leaseDuration after it was first
 * seen. */
typedef struct ms_leader_observation {
    bool valid;
    ms_lease_record record;
    double time;
} ms_leader_observation;

void ms_leader_observe(ms_leader_observation *obs, const ms_lease_record *rec, double now);

typedef enum ms_leader_action {
    MS_LEADER_WAIT = 0,            /* held by another and not expired */
    MS_LEADER_ACQUIRE,             /* empty holder or expired: take it over */
    MS_LEADER_RENEW,               /* we hold it */
} ms_leader_action;

/* What to do about the observed record at monotonic `now`. Expired means
 * obs->time + lease_duration <= now (upstream: not After). */
ms_leader_action ms_leader_decide(const ms_leader_observation *obs, const char *identity,
                                  double lease_duration, double now);

/* The record to write for ACQUIRE or RENEW at wall-clock time `wall`:
 * holder = identity, leaseDurationSeconds = whole seconds of lease_duration
 * (at least 1), renewTime = wall; a renewal keeps acquireTime and
 * leaseTransitions, a takeover sets acquireTime = wall and increments
 * leaseTransitions. old NULL: a new Lease (transitions 0). */
void ms_leader_next_record(const ms_lease_record *old, ms_leader_action a, const char *identity,
                           double lease_duration, double wall, ms_lease_record *out);

/* The record that releases the Lease: empty holder, leaseDurationSeconds
 * 1, both times `wall`, transitions kept. */
void ms_leader_release_record(const ms_lease_record *old, double wall, ms_lease_record *out);

/* MicroTime text of a wall-clock time: "2006-01-02T15:04:05.000000Z". */
void ms_lease_micro_time(double wall, char *buf, size_t n);

/* A Lease's JSON -> record and metadata.resourceVersion (rv may be NULL).
 * Absent spec fields read as zero / "". MS_EINVAL when it is not a Lease
 * object. */
ms_rc ms_lease_decode(const char *json, size_t len, ms_lease_record *rec, char *rv, size_t rvn,
                      ms_error *err);
/* A Lease object carrying rec; rv "" or NULL: none (a create). malloc'd,
 * NULL when out of memory. */
char *ms_lease_encode(const ms_lease_record *rec, const char *ns, const char *name, const char *rv);

/* upstream's identity: hostname "_" random UUID (version 4). */
void ms_leader_identity(char *buf, size_t n);

/* ---- the elector ---------------------------------------------------------- */

typedef struct ms_leader_elector ms_leader_elector;

typedef struct ms_leader_elector_options {
    const ms_leader_election *config;   /* copied; resourceLock "leases" (the
                                           *leases migration locks act as
                                           leases, with a warning) */
    /* Its own client is made from these (retries off: the election loop
     * retries on its own schedule, within renewDeadline). */
    const ms_kube_client_options *client;
    const char *identity;          /* NULL: ms_leader_identity() */
    const ms_logger *log;          /* NULL: ms_log_default; must outlive it */
    /* Told whenever holding the lease starts or ends, on the election
     * thread (or the stopping one), and once with false at the start:
     * leader_election_master_status{name=lease}. May be NULL. */
    void (*leading_changed)(void *ctx, const char *lease, bool leading);
    void *leading_ctx;
    bool post_events;              /* "<identity> became leader" Event on the Lease */
    /* The Events' source.component: upstream's is the first profile's
     * schedulerName. NULL: "default-scheduler". */
    const char *event_component;
} ms_leader_elector_options;

/* Validates the durations (as upstream: leaseDuration > renewDeadline >
 * retryPeriod * 1.2, all > 0) and starts the election thread, which logs
 * "attempting to acquire leader lease". */
ms_rc ms_leader_elector_start(const ms_leader_elector_options *o, ms_leader_elector **out,
                              ms_error *err);

/* Readable (an eventfd) whenever leading or lost changes; read it to
 * clear. */
int ms_leader_elector_fd(const ms_leader_elector *e);
/* Holds the lease now (an atomic read; any thread). */
bool ms_leader_elector_leading(const ms_leader_elector *e);
/* Held it and failed to renew within renewDeadline: the caller must stop
 * working as leader at once and exit (a supervisor restarts it). Sticky:
 * the election thread has ended. */
bool ms_leader_elector_lost(const ms_leader_elector *e);
const char *ms_leader_elector_identity(const ms_leader_elector *e);

/* Stops the election thread; with release and the lease held, releases it
 * (so a standby takes over without waiting for leaseDuration). Frees e
 * (NULL is fine). */
void ms_leader_elector_stop(ms_leader_elector *e, bool release);

#endif
