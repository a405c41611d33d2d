/* Client-certificate authentication of the HTTPS endpoint, as
 * kube-scheduler's --client-ca-file (k8s.io/apiserver's x509
 * authenticator): a client that presents a certificate chain verified
 * against the CA bundle, for client authentication (extended key usage
 * clientAuth, or none), within its validity, is the user named by the
 * certificate's Common Name, in the groups of its Organizations. A
 * certificate that does not verify refuses the request (401), as
 * upstream; one without a Common Name leaves the request to the bearer
 * token, as upstream.
 *
 * The bundle is read at start. Thread-safe: verification only reads it. */
#ifndef MOONSCHED_SERVING_CLIENT_CA_H
#define MOONSCHED_SERVING_CLIENT_CA_H

#include <cjson/cJSON.h>

#include "moonsched/error.h"

typedef struct ms_client_ca ms_client_ca;

/* Reads a PEM bundle of CA certificates. MS_EIO when the file cannot be
 * read, MS_EINVAL when it holds no certificate. */
ms_rc ms_client_ca_load(const char *path, ms_client_ca **out, ms_error *err);
void ms_client_ca_free(ms_client_ca *ca);
/* The bundle as read (PEM), for the TLS server to ask clients for
 * certificates these CAs signed. */
const char *ms_client_ca_pem(const ms_client_ca *ca);

/* The user of a TLS session (a gnutls_session_t): MS_OK with *user
 * ({"username": CN, "groups": [O...]}, the caller frees it); MS_ENOENT
 * when the client sent no certificate, or one without a Common Name;
 * MS_EINVAL when it does not verify (err says why); MS_ENOMEM. */
ms_rc ms_client_ca_user(const ms_client_ca *ca, void *tls_session, cJSON **user, ms_error *err);

#endif
