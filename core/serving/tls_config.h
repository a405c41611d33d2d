/* kube-scheduler's --tls-min-version and --tls-cipher-suites (Go's names,
 * as k8s.io/component-base/cli/flag reads them) as a GnuTLS priority
 * string for the HTTPS server.
 *
 * GnuTLS chooses suites from lists of key exchanges, ciphers and MACs, not
 * from a list of suites: the suites given are turned into those lists, so
 * any known suite made of the same parts is allowed too (listing both
 * ECDHE-RSA and RSA suites with AES-128-GCM and AES-256-GCM allows all four
 * pairings). `extra` names such suites, for a warning. The TLS 1.3 suites
 * are those of the listed ciphers that TLS 1.3 has (Go does not let them
 * be chosen: they are accepted and only narrow the ciphers). */
#ifndef MOONSCHED_SERVING_TLS_CONFIG_H
#define MOONSCHED_SERVING_TLS_CONFIG_H

#include <stddef.h>

#include "moonsched/error.h"

/* min_version: "VersionTLS10" to "VersionTLS13", NULL or "": VersionTLS12
 * (upstream serves TLS 1.2 and up unless told). cipher_suites:
 * comma-separated names, NULL or "": GnuTLS's defaults. extra (n bytes,
 * may be NULL): the suites allowed beyond the list, comma-separated, "" when
 * none. MS_EINVAL naming the flag and the value for an unknown version or
 * suite, or a list with no suite for TLS 1.2 when TLS 1.2 is allowed. */
ms_rc ms_tls_priorities(const char *min_version, const char *cipher_suites, char *out, size_t n, char *extra,
                        size_t extra_n, ms_error *err);

#endif
