/* `moonsched deschedule`'s command line into ms_deschedule_options
 * (run/deschedule.h runs them). */
#include "cmd/deschedule.h"

#include <stddef.h>
#include <string.h>

#include "cmd/flag_value.h"

/* Flags with a value that is a string. */
static bool string_flag(int argc, char **argv, int *i, ms_deschedule_options *o) {
    static const struct {
        const char *name;
        size_t off;
    } strs[] = {
        {"--policy-config-file", offsetof(ms_deschedule_options, policy_file)},
        {"--kubeconfig", offsetof(ms_deschedule_options, kubeconfig)},
        {"--config", offsetof(ms_deschedule_options, config_file)},
        {"--leader-elect-resource-name", offsetof(ms_deschedule_options, lease_name)},
        {"--leader-elect-resource-namespace", offsetof(ms_deschedule_options, lease_namespace)},
        {"--bind-address", offsetof(ms_deschedule_options, bind_address)},
        {"--tls-cert-file", offsetof(ms_deschedule_options, tls_cert_file)},
        {"--tls-private-key-file", offsetof(ms_deschedule_options, tls_key_file)},
    };
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) {
        const char *v = ms_flag_value(argc, argv, i, strs[k].name, NULL);
        if (v) {
            *(const char **)((char *)o + strs[k].off) = v;
            return true;
        }
    }
    return false;
}

static ms_rc one_flag(int argc, char **argv, int *i, ms_deschedule_options *o, const char **policies,
                      ms_error *err) {
    const char *a = argv[*i], *v;
    if (string_flag(argc, argv, i, o)) return MS_OK;
    if ((v = ms_flag_value(argc, argv, i, "--policy", NULL))) return policies[o->npolicy_files++] = v, MS_OK;
    if ((v = ms_flag_value(argc, argv, i, "--descheduling-interval", NULL)))
        return ms_flag_duration("--descheduling-interval", v, true, &o->interval, err);
    if ((v = ms_flag_value(argc, argv, i, "--leader-elect-lease-duration", NULL)))
        return ms_flag_duration("--leader-elect-lease-duration", v, false, &o->lease_duration, err);
    if ((v = ms_flag_value(argc, argv, i, "--leader-elect-renew-deadline", NULL)))
        return ms_flag_duration("--leader-elect-renew-deadline", v, false, &o->renew_deadline, err);
    if ((v = ms_flag_value(argc, argv, i, "--leader-elect-retry-period", NULL)))
        return ms_flag_duration("--leader-elect-retry-period", v, false, &o->retry_period, err);
    if ((v = ms_flag_value(argc, argv, i, "--secure-port", NULL)))
        return ms_flag_port("--secure-port", v, &o->secure_port, err);
    if ((v = ms_flag_value(argc, argv, i, "-v", NULL)) || (v = ms_flag_value(argc, argv, i, "--v", NULL)))
        return ms_flag_verbosity(v, &o->debug, err);
    if ((v = ms_flag_value(argc, argv, i, "--output", NULL))) {
        if (strcmp(v, "table") == 0) o->output = MS_OUTPUT_TABLE;
        else if (strcmp(v, "json") == 0) o->output = MS_OUTPUT_JSON;
        else return ms_error_set(err, MS_EINVAL, "--output: expected table or json, got \"%s\"", v);
        return MS_OK;
    }
    int r;
    if ((r = ms_flag_bool(a, "--dry-run", &o->dry_run, err)) ||
        (r = ms_flag_bool(a, "--leader-elect", &o->leader_elect, err)) ||
        (r = ms_flag_bool(a, "--in-cluster", &o->in_cluster, err)))
        return r > 0 ? MS_OK : MS_EINVAL;
    return ms_error_set(err, MS_EINVAL, "unknown argument \"%s\"", a);
}

ms_rc ms_deschedule_parse_args(int argc, char **argv, ms_deschedule_options *o, const char **policies,
                               bool *help, ms_error *err) {
    *help = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            *help = true;
            return MS_OK;
        }
        ms_rc rc = one_flag(argc, argv, &i, o, policies, err);
        if (rc != MS_OK) return rc;
    }
    o->policy_files = policies;
    if (!o->policy_file || !*o->policy_file)
        return ms_error_set(err, MS_EINVAL, "--policy-config-file is required");
    if (o->in_cluster && o->kubeconfig)
        return ms_error_set(err, MS_EINVAL, "--in-cluster and --kubeconfig exclude each other");
    if (o->leader_elect && o->interval == 0)
        return ms_error_set(err, MS_EINVAL, "leaderElection must be used with deschedulingInterval");
    return MS_OK;
}
