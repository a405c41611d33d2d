/* The HTTPS endpoint's certificate and key, as PEM text: read from
 * --tls-cert-file and --tls-private-key-file (the certificate file may
 * carry the chain after the certificate) and checked to belong together,
 * or generated in memory at start when neither is given, as
 * kube-scheduler does without --cert-dir (certutil's
 * GenerateSelfSignedCertKey): a CA "HOST-ca@UNIXTIME" and a certificate
 * "HOST@UNIXTIME" it signed, RSA 2048, valid from an hour ago for a year,
 * for the DNS names and IP addresses given; the chain served is the
 * certificate, then the CA.
 *
 * GnuTLS does the work: libmicrohttpd serves TLS through it, so the key
 * generated and the files read are handled by the same library that uses
 * them, and the binary gains no other TLS library for it. */
#ifndef MOONSCHED_SERVING_SERVING_CERT_H
#define MOONSCHED_SERVING_SERVING_CERT_H

#include <stddef.h>

#include "moonsched/error.h"

typedef struct ms_serving_cert {
    char *cert_pem;                /* the certificate, then its chain */
    char *key_pem;
} ms_serving_cert;

/* MS_EINVAL when a file is not PEM or the key is not the certificate's
 * (the message names the files); MS_ENOENT/MS_EIO when unreadable. */
ms_rc ms_serving_cert_load(const char *cert_file, const char *key_file, ms_serving_cert *out, ms_error *err);
ms_rc ms_serving_cert_self_signed(const char *host, const char *const *ips, size_t nips,
                                  const char *const *dns, size_t ndns, ms_serving_cert *out, ms_error *err);
void ms_serving_cert_free(ms_serving_cert *c);

#endif
